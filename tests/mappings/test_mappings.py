"""The control mappings hold against the check registry: no dangling id, no unmapped check, no duplicate."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from checks.base import check_registry
from reports.mappings import (
    MAPPINGS_DIR,
    MappingError,
    controls_by_check,
    load_framework,
    load_frameworks,
    validate_mappings,
)

# The check ids of issue 5: every one of them must be mapped to at least one requirement.
ISSUE_5_CHECKS = [
    "T1-OOB-NO-DEFAULT-ROUTE",
    "T1-OOB-NOT-ROUTED-ELSEWHERE",
    "T1-OOB-ACCESS-JUMP-HOSTS-ONLY",
    "T1-MGMT-PLANE-IN-OOB-VRF",
    "T1-OOB-SWITCH-DEDICATED",
    "T1-OOB-FLOWS-AUTHORIZED",
    "T2-NS-DEFAULT-DENY",
    "T2-NO-CROSS-TENANT",
    "T2-EGRESS-PROXY-ONLY",
    "T2-DNS-APPROVED-RESOLVERS",
    "T2-INGRESS-TLS",
    "T2-SG-DEFAULT-DENY",
    "T2-DEFAULT-SG-EMPTY",
    "T2-NACL-DEFAULT-DENY",
    "T2-ZERO-EGRESS-ROUTES",
    "T2-FRONTEND-NOT-TO-BACKEND",
    "T3-VRF-NO-DEFAULT-ROUTE",
    "T3-VRF-NO-FOREIGN-PREFIXES",
    "T3-NO-ROUTE-LEAK",
    "T3-PORT-SEGREGATION",
    "T3-MTU-JUMBO",
    "T3-PFC-LOSSLESS-ONLY",
    "T3-ECN-ON-LOSSLESS",
    "T3-DSCP-TRUST",
    "T3-NON-BLOCKING",
    "T3-NO-MGMT-OR-PUBLIC",
    "T3-TENANT-ISOLATION",
    "X-FLOWLOGS-ENABLED",
    "X-FLOWLOGS-IMMUTABLE",
    "X-FLOWS-NO-CROSS-TIER",
    "X-LATERAL-NO-PATH",
    "X-DECLARED-VS-LIVE",
]

GOOD = """\
framework: Example
title: An example framework
version: "1"
source: https://example.org/framework
requirements:
  - id: R-1
    title: first
    check_ids: [T1-A, T2-B]
  - id: R-2
    title: second
    check_ids: [T3-C]
"""


def test_the_five_frameworks_load_with_name_version_and_source() -> None:
    fws = {f.key: f for f in load_frameworks()}
    assert set(fws) == {"nist-sp-800-207", "soc2", "nist-sp-800-53r5", "pci-dss-v4", "hipaa-security-rule"}
    for fw in fws.values():
        assert fw.framework and fw.version and fw.source.startswith("https://")
        assert all(r.title and len(r.title) <= 200 for r in fw.requirements)
    reqs = {k: {r.id for r in f.requirements} for k, f in fws.items()}
    assert {f"2.1({n})" for n in range(1, 8)} <= reqs["nist-sp-800-207"]
    assert {"CC6.1", "CC6.6", "CC6.7", "CC7.1", "CC7.2", "CC8.1"} <= reqs["soc2"]
    assert {"AC-4", "SC-7", "SC-7(3)", "SC-7(4)", "SC-7(5)", "SC-7(7)", "SC-7(11)", "SC-7(21)"} <= reqs[
        "nist-sp-800-53r5"
    ]
    assert {"AU-9", "AU-11", "CM-2", "CM-6", "SI-4"} <= reqs["nist-sp-800-53r5"]
    assert {"1.2.1", "1.3.1", "1.3.2", "1.4.1", "10.2.1", "10.3.2", "10.5.1"} <= reqs["pci-dss-v4"]
    assert {"164.312(a)(1)", "164.312(b)", "164.312(c)(1)", "164.312(e)(1)"} == reqs["hipaa-security-rule"]


def test_every_mapped_id_is_registered_and_every_registered_check_is_mapped() -> None:
    """Fails on a dangling id and on a check mapped to nothing."""
    report = validate_mappings(load_frameworks(), set(check_registry()))
    assert report.errors == []


def test_every_check_of_issue_5_is_mapped() -> None:
    mapped = controls_by_check(load_frameworks())
    assert [c for c in ISSUE_5_CHECKS if c not in mapped] == []
    # and nothing is mapped that is neither in the issue nor registered (a typo would hide here)
    assert set(mapped) - set(ISSUE_5_CHECKS) - set(check_registry()) == set()


def test_an_unknown_id_and_an_unmapped_check_are_errors(tmp_path: Path) -> None:
    (tmp_path / "example.yaml").write_text(GOOD)
    fws = load_frameworks(tmp_path)
    report = validate_mappings(fws, registered={"T1-A", "T3-C", "X-UNMAPPED"})
    assert report.unknown == {"T2-B": ["example R-1"]}
    assert report.unmapped == ["X-UNMAPPED"]
    assert len(report.errors) == 2
    assert "T2-B: no registered check" in report.errors[0] and "example R-1" in report.errors[0]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            ("check_ids: [T3-C]", "check_ids: [T3-C, T3-C]"),
            "requirements[1] (id R-2).check_ids: check id listed twice: T3-C",
        ),
        (("id: R-2", "id: R-1"), "requirements: requirement 'R-1' is listed twice"),
        (("check_ids: [T3-C]", "check_ids: [t3-c]"), "not a check id: t3-c"),
        (("check_ids: [T3-C]", "check_ids: []"), "requirements[1] (id R-2).check_ids"),
        (('version: "1"\n', ""), "version: Field required"),
        (("title: first", "title: first\n    text: pasted"), "requirements[0] (id R-1).text: Extra inputs"),
        (("https://example.org/framework", "example.org"), "source: String should match"),
    ],
    ids=["duplicate check", "duplicate requirement", "bad id", "no checks", "no version", "extra key", "url"],
)
def test_malformed_mapping_files_fail_naming_file_and_entry(
    tmp_path: Path, edit: tuple[str, str], message: str
) -> None:
    path = tmp_path / "example.yaml"
    path.write_text(GOOD.replace(*edit))
    with pytest.raises(MappingError) as err:
        load_framework(path)
    assert str(path) in str(err.value)
    assert message in str(err.value)


def test_shipped_with_the_package() -> None:
    """The YAML files sit beside the loader, which package-data ships (*.yaml)."""
    assert len(list(MAPPINGS_DIR.glob("*.yaml"))) == 5


def test_checks_list_shows_the_controls_of_each_check() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "auditor", "checks", "list", "--controls", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    rows = {r["id"]: r for r in json.loads(result.stdout)}
    refs = {(c["key"], c["requirement"]) for c in rows["T3-VRF-NO-DEFAULT-ROUTE"]["controls"]}
    assert ("nist-sp-800-53r5", "SC-7") in refs and ("pci-dss-v4", "1.3.2") in refs
    assert all(r["controls"] for r in rows.values())


def test_controls_command_lists_a_framework_and_rejects_an_unknown_one() -> None:
    ok = subprocess.run(
        [sys.executable, "-m", "auditor", "controls", "--framework", "soc2", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ok.returncode == 0, ok.stderr
    (doc,) = json.loads(ok.stdout)
    assert doc["framework"] == "SOC 2" and doc["requirements"][0]["id"] == "CC6.1"
    bad = subprocess.run(
        [sys.executable, "-m", "auditor", "controls", "--framework", "iso27001"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2
    assert "unknown framework 'iso27001'" in bad.stdout + bad.stderr
