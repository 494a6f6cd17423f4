"""Schema 1.1 additions: the control matrix, waivers on findings and in the run, target notes, and
whether the chain verified at report time, in ReportData and the JSON report."""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator, ValidationError

from auditor.enums import Severity, Status, Tier
from reports.controls import control_matrix, requirement_counts, requirement_status
from reports.json_report import JsonReport
from reports.mappings import load_frameworks
from reports.model import CheckOutcome, FindingInfo, Mismatch, RequirementStatus, Verification
from reports.schema import load_report_schema
from tests.reports.sample_data import EXPIRED_WAIVER, FRAMEWORKS, WAIVER, make_report_data


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    return Draft202012Validator(load_report_schema())


@pytest.fixture
def doc(tmp_path: Path) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(JsonReport().render(make_report_data(), tmp_path / "r.json").read_text())
    return out


def outcome(check: str, waived: int = 0, evaluated: bool = True, **counts: int) -> CheckOutcome:
    return CheckOutcome(check, evaluated, {s: counts.get(s.value, 0) for s in Status}, waived)


@pytest.mark.parametrize(
    ("checks", "result"),
    [
        ([outcome("T1-A", PASS=3, FAIL=1)], RequirementStatus.FAIL),
        ([outcome("T1-A", PASS=3, FAIL=2, waived=1)], RequirementStatus.FAIL),
        ([outcome("T1-A", FAIL=1, waived=1), outcome("T1-B", ERROR=1)], RequirementStatus.ERROR),
        (
            [outcome("T1-A", FAIL=1, waived=1), outcome("T1-B", NOT_ASSESSED=1)],
            RequirementStatus.NOT_ASSESSED,
        ),
        ([outcome("T1-A", PASS=1), outcome("T1-B", evaluated=False)], RequirementStatus.NOT_ASSESSED),
        ([outcome("T1-A", PASS=2, FAIL=1, waived=1)], RequirementStatus.WAIVED),
        ([outcome("T1-A", PASS=2), outcome("T1-B", NOT_APPLICABLE=1)], RequirementStatus.PASS),
        ([outcome("T1-A", NOT_APPLICABLE=1)], RequirementStatus.NOT_APPLICABLE),
    ],
    ids=["fail", "partly waived", "error", "gap", "not run", "waived", "pass", "n/a"],
)
def test_requirement_takes_the_worst_outcome_never_pass_on_missing_evidence(
    checks: list[CheckOutcome], result: RequirementStatus
) -> None:
    assert requirement_status(checks) is result


def test_matrix_of_the_sample_run() -> None:
    data = make_report_data()
    results = {(fw.key, r.id): r for fw in data.controls for r in fw.requirements}
    assert results[("soc2", "CC6.1")].result is RequirementStatus.FAIL  # leaked default route
    assert results[("soc2", "CC6.6")].result is RequirementStatus.WAIVED  # its only failure is waived
    assert results[("soc2", "CC6.7")].result is RequirementStatus.ERROR
    cc72 = results[("soc2", "CC7.2")]
    assert cc72.result is RequirementStatus.NOT_ASSESSED and not cc72.checks[0].evaluated
    assert cc72.note == "flow logs reviewed against the tiers"
    cm6 = results[("nist-sp-800-53r5", "CM-6")].checks[0]
    assert (cm6.counts[Status.FAIL], cm6.counts[Status.NOT_ASSESSED], cm6.waived) == (1, 1, 0)
    assert requirement_counts(data.controls[0])[RequirementStatus.WAIVED] == 1


def test_controls_round_trip_in_json(doc: dict[str, Any], validator: Draft202012Validator) -> None:
    validator.validate(doc)
    assert [fw["key"] for fw in doc["controls"]] == ["nist-sp-800-53r5", "soc2"]  # sorted by key
    soc2 = next(fw for fw in doc["controls"] if fw["key"] == "soc2")
    assert (soc2["framework"], soc2["version"]) == ("SOC 2", "2017 TSC")
    assert soc2["source"].startswith("https://")
    reqs = {r["id"]: r for r in soc2["requirements"]}
    assert [r["id"] for r in soc2["requirements"]] == ["CC6.1", "CC6.6", "CC6.7", "CC7.2"]  # file order
    cc66 = reqs["CC6.6"]
    assert cc66["result"] == "WAIVED" and cc66["waived"] == 1
    assert cc66["counts"] == {"PASS": 0, "FAIL": 1, "ERROR": 0, "NOT_ASSESSED": 0, "NOT_APPLICABLE": 0}
    assert cc66["checks"] == [
        {
            "check_id": "T1-OOB-MGMT-FROM-JUMP-ONLY",
            "evaluated": True,
            "counts": {"PASS": 0, "FAIL": 1, "ERROR": 0, "NOT_ASSESSED": 0, "NOT_APPLICABLE": 0},
            "waived": 1,
        }
    ]
    assert reqs["CC6.1"]["counts"]["PASS"] == 1 and reqs["CC6.1"]["counts"]["FAIL"] == 1
    assert reqs["CC7.2"]["checks"][0]["evaluated"] is False


def test_waivers_and_verification_in_json(doc: dict[str, Any]) -> None:
    assert doc["waivers"] == [
        {
            "index": 0,
            "check": WAIVER.check,
            "target": WAIVER.target,
            "subject": WAIVER.subject,
            "owner": WAIVER.owner,
            "reason": WAIVER.reason,
            "expires": "2025-06-30",
            "state": "active",
            "matched": 1,
        },
        {
            "index": 1,
            "check": EXPIRED_WAIVER.check,
            "target": "prod-k8s",
            "subject": "namespace tenant-*",
            "owner": EXPIRED_WAIVER.owner,
            "reason": EXPIRED_WAIVER.reason,
            "expires": "2025-01-31",
            "state": "expired",
            "matched": 1,
        },
    ]
    assert doc["verification"] == {
        "verified": True,
        "captures_checked": 54,
        "mismatch": None,
        "signature": "unsigned",
    }


def test_a_failed_verification_names_the_first_mismatch(
    tmp_path: Path, validator: Draft202012Validator
) -> None:
    bad = Verification(
        False, 7, Mismatch("capture", "content hash 1a2b != recorded 3c4d", 7, "be-leaf2", "cfg")
    )
    data = dataclasses.replace(make_report_data(), verification=bad)
    doc = json.loads(JsonReport().render(data, tmp_path / "r.json").read_text())
    validator.validate(doc)
    assert doc["verification"] == {
        "verified": False,
        "captures_checked": 7,
        "mismatch": {
            "what": "capture",
            "detail": "content hash 1a2b != recorded 3c4d",
            "seq": 7,
            "target": "be-leaf2",
            "source": "cfg",
        },
        "signature": "unsigned",
    }
    unchecked = dataclasses.replace(make_report_data(), verification=None)
    doc = json.loads(JsonReport().render(unchecked, tmp_path / "u.json").read_text())
    validator.validate(doc)
    assert doc["verification"] is None


def test_a_1_0_document_still_validates_against_the_1_1_schema(
    doc: dict[str, Any], validator: Draft202012Validator
) -> None:
    old = copy.deepcopy(doc)
    old["schema_version"] = "1.0"
    for key in ("controls", "waivers", "verification"):
        del old[key]
    for t in old["targets"]:
        del t["notes"]
    for f in old["findings"]:
        del f["waiver"]
    validator.validate(old)
    old["schema_version"] = "1.1"  # the same document claiming 1.1 lacks required members
    with pytest.raises(ValidationError):
        validator.validate(old)


def test_shipped_mappings_give_a_matrix_for_every_framework() -> None:
    """With the real mapping files: every requirement appears, and a run with one PASS of one check
    leaves the requirements of checks that did not run NOT_ASSESSED, never PASS."""
    finding = FindingInfo(
        "T3-VRF-NO-DEFAULT-ROUTE",
        "t",
        Tier.BACKEND,
        Severity.CRITICAL,
        Status.PASS,
        "s",
        None,
        "",
        "",
        "",
        [],
        [],
    )
    matrix = control_matrix(load_frameworks(), [finding])
    assert [fw.key for fw in matrix] == [fw.key for fw in load_frameworks()]
    for fw in matrix:
        for req in fw.requirements:
            ran = [c for c in req.checks if c.evaluated]
            if len(ran) == len(req.checks):
                assert req.result is RequirementStatus.PASS
            else:
                assert req.result is RequirementStatus.NOT_ASSESSED
    assert any(fw.key == "pci-dss-v4" for fw in matrix)
    assert FRAMEWORKS[0].key == "soc2"
