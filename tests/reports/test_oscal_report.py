"""The OSCAL report: valid against NIST's OSCAL 1.1.2 assessment-results JSON schema, faithful to the
run (controls, statuses, waivers, evidence hashes) and byte-for-byte deterministic.

The schema is NIST's `oscal_assessment-results_schema.json` of OSCAL v1.1.2, vendored beside this file
unchanged (taken from the `release-schemas/` folder of the compliance-trestle 3.3.0 sdist on PyPI;
trestle itself is not a dependency: its current release pins paramiko==5.0.0, a downgrade for netmiko
and napalm). Its patterns use `\\p{L}`/`\\p{N}`, so `pattern` is checked with the `regex` module."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import regex
from jsonschema import Draft7Validator, FormatChecker, ValidationError, validators

from auditor.enums import Status
from reports.base import report_registry
from reports.controls import control_matrix
from reports.mappings import Framework
from reports.model import FindingInfo, ReportData
from reports.oscal_report import NS, OscalReport, build_oscal, dumps_oscal, oscal_control_id
from tests.e2e.conftest import LAB, run_cli
from tests.reports.sample_data import CHAIN_HEAD, FRAMEWORKS, RUN_ID, make_report_data, sample_findings

SCHEMA_PATH = Path(__file__).with_name("oscal_assessment-results_schema.json")
SCHEMA_SHA256 = "d033da70154cf6625ae46a746199e88e58f2928b1387dfac051d381b92f41b0d"

# The sample's frameworks plus 800-53 controls for the checks the sample maps only to SOC 2, so every
# status reaches an 800-53 control: the waived failure (AC-17(3)), the error (SC-7(7)), a not-assessed
# finding (AC-4), and a check evidencing two controls (T3-VRF-NO-DEFAULT-ROUTE: AC-4 and SC-7).
NIST = Framework.model_validate(
    {
        "key": "nist-sp-800-53r5",
        "framework": "NIST SP 800-53",
        "title": "Security and Privacy Controls",
        "version": "Revision 5",
        "source": "https://doi.org/10.6028/NIST.SP.800-53r5",
        "requirements": [
            {
                "id": "AC-4",
                "title": "Information flow enforcement",
                "check_ids": ["T1-OOB-NOT-ROUTED-ELSEWHERE", "T3-VRF-NO-DEFAULT-ROUTE"],
            },
            {
                "id": "AC-17(3)",
                "title": "Managed access control points",
                "check_ids": ["T1-OOB-MGMT-FROM-JUMP-ONLY"],
            },
            {"id": "CM-6", "title": "Configuration settings", "check_ids": ["T3-MTU-JUMBO"]},
            {"id": "SC-7", "title": "Boundary protection", "check_ids": ["T3-VRF-NO-DEFAULT-ROUTE"]},
            {"id": "SC-7(5)", "title": "Deny by default", "check_ids": ["T2-NS-DEFAULT-DENY"]},
            {"id": "SC-7(7)", "title": "Split tunneling", "check_ids": ["T2-EGRESS-VIA-PROXY"]},
            {"id": "AU-9", "title": "Protect audit information", "check_ids": ["X-FLOW-LOGS-IMMUTABLE"]},
        ],
    }
)


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not regex.search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


OscalValidator = validators.extend(Draft7Validator, {"pattern": _pattern})


def format_checker() -> FormatChecker:
    """Draft 7's format checks, with `regex` (the schema's own patterns) compiled by the regex module."""
    checker = FormatChecker(Draft7Validator.FORMAT_CHECKER.checkers)
    checker.checks("regex", raises=regex.error)(lambda value: regex.compile(value) is not None)
    return checker


@pytest.fixture(scope="module")
def validator() -> Any:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return OscalValidator(schema, format_checker=format_checker())


def errors(validator: Any, doc: dict[str, Any]) -> list[str]:
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(doc)]


def with_nist(findings: list[FindingInfo] | None = None) -> ReportData:
    data = make_report_data(findings)
    frameworks = [fw for fw in FRAMEWORKS if fw.key != NIST.key] + [NIST]
    return dataclasses.replace(data, controls=control_matrix(frameworks, data.findings))


def result_of(doc: dict[str, Any]) -> dict[str, Any]:
    results = doc["assessment-results"]["results"]
    assert len(results) == 1
    result: dict[str, Any] = results[0]
    return result


def props(element: dict[str, Any], name: str) -> list[str]:
    return [p["value"] for p in element.get("props", []) if p["name"] == name]


def prop(element: dict[str, Any], name: str) -> str:
    values = props(element, name)
    assert len(values) == 1, (name, values)
    return values[0]


def findings_for(doc: dict[str, Any], check_id: str, subject: str) -> dict[str, dict[str, Any]]:
    """The OSCAL findings of one check finding, by target control id."""
    out = {}
    for f in result_of(doc).get("findings", []):
        if props(f, "check-id") == [check_id] and props(f, "subject") == [subject]:
            out[f["target"]["target-id"]] = f
    return out


# -- the schema and validity --------------------------------------------------------------------------


def test_vendored_schema_is_nist_oscal_1_1_2_unchanged() -> None:
    raw = SCHEMA_PATH.read_bytes()
    assert hashlib.sha256(raw).hexdigest() == SCHEMA_SHA256
    schema = json.loads(raw)
    assert schema["$id"] == "http://csrc.nist.gov/ns/oscal/1.1.2/oscal-ar-schema.json"
    OscalValidator.check_schema(schema, format_checker=format_checker())


def test_validator_rejects_what_the_schema_forbids(validator: Any) -> None:
    """The validator is not vacuous: a bad status, a bad token and an unknown key are each caught."""
    doc = build_oscal(with_nist())
    assert errors(validator, doc) == []
    bad = json.loads(json.dumps(doc))
    result_of(bad)["findings"][0]["target"]["status"]["state"] = "compliant"
    assert errors(validator, bad)
    bad = json.loads(json.dumps(doc))
    result_of(bad)["reviewed-controls"]["control-selections"][0]["include-controls"][0]["control-id"] = "4 ac"
    assert errors(validator, bad)
    bad = json.loads(json.dumps(doc))
    bad["assessment-results"]["metadata"]["generated"] = "now"
    assert errors(validator, bad)


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(make_report_data(), id="sample"),
        pytest.param(with_nist(), id="sample-with-800-53"),
        pytest.param(with_nist([f for f in sample_findings() if f.status is Status.PASS]), id="all-pass"),
        pytest.param(make_report_data([]), id="no-findings"),
    ],
)
def test_document_validates_against_the_oscal_schema(validator: Any, data: ReportData) -> None:
    doc = build_oscal(data)
    assert errors(validator, doc) == []
    meta = doc["assessment-results"]["metadata"]
    assert meta["oscal-version"] == "1.1.2"
    assert meta["last-modified"] == "2025-03-14T09:40:34Z"  # the run's end, not the time of rendering


def test_result_carries_the_run() -> None:
    result = result_of(build_oscal(make_report_data()))
    assert result["start"] == "2025-03-14T09:26:53Z"
    assert result["end"] == "2025-03-14T09:40:34Z"
    assert prop(result, "run-id") == str(RUN_ID)
    assert prop(result, "chain-head") == CHAIN_HEAD
    assert prop(result, "evidence-verified") == "true"
    assert all(p["ns"] == NS for p in result["props"])
    assert "oob-sw1.example: ssh://oob-sw1.example:22" in result["remarks"]  # the evidence gaps


# -- controls and statuses ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("requirement", "control"),
    [
        ("AC-4", "ac-4"),
        ("AC-4(21)", "ac-4.21"),
        ("SC-7(5)", "sc-7.5"),
        ("AC-17(3)", "ac-17.3"),
        ("si-4", "si-4"),
    ],
)
def test_800_53_ids_become_oscal_catalog_ids(requirement: str, control: str) -> None:
    assert oscal_control_id(requirement) == control


def test_reviewed_controls_are_the_800_53_controls_of_the_mapping() -> None:
    reviewed = result_of(build_oscal(with_nist()))["reviewed-controls"]
    [selection] = reviewed["control-selections"]
    ids = [c["control-id"] for c in selection["include-controls"]]
    assert ids == ["ac-4", "ac-17.3", "cm-6", "sc-7", "sc-7.5", "sc-7.7", "au-9"]
    # SOC 2 criteria have no OSCAL catalog ids: they ride along as properties, classed by framework
    assert {(p["class"], p["value"]) for p in reviewed["props"]} == {
        ("soc2", "CC6.1"),
        ("soc2", "CC6.6"),
        ("soc2", "CC6.7"),
        ("soc2", "CC7.2"),
    }


def test_failing_finding_is_not_satisfied_on_its_800_53_control() -> None:
    doc = build_oscal(with_nist())
    found = findings_for(doc, "T2-NS-DEFAULT-DENY", "namespace tenant-<acme> & co")
    assert list(found) == ["sc-7.5"]
    target = found["sc-7.5"]["target"]
    assert target["type"] == "objective-id"
    assert target["status"] == {"state": "not-satisfied", "reason": "fail"}
    assert prop(found["sc-7.5"], "result") == "FAIL"
    # the passing finding of the same check is no OSCAL finding (its evidence is still an observation)
    assert findings_for(doc, "T2-NS-DEFAULT-DENY", "namespace tenant-globex") == {}
    # a check evidencing two controls gives one finding per control, sharing observations and risk
    two = findings_for(doc, "T3-VRF-NO-DEFAULT-ROUTE", "be-leaf1.example vrf RDMA-A")
    assert sorted(two) == ["ac-4", "sc-7"]
    assert two["ac-4"]["related-observations"] == two["sc-7"]["related-observations"]
    assert two["ac-4"]["related-risks"] == two["sc-7"]["related-risks"]
    assert two["ac-4"]["uuid"] != two["sc-7"]["uuid"]
    assert props(two["ac-4"], "mapped-requirement") == ["CC6.1"]


def test_waived_and_not_assessed_are_told_apart() -> None:
    doc = build_oscal(with_nist())
    result = result_of(doc)
    risks = {r["uuid"]: r for r in result["risks"]}

    subject = "be-leaf1.example Management1 acl MGMT-IN"
    waived = findings_for(doc, "T1-OOB-MGMT-FROM-JUMP-ONLY", subject)["ac-17.3"]
    assert prop(waived, "result") == "WAIVED"
    assert prop(waived, "waived") == "true"
    assert prop(waived, "waiver-owner") == "netops@example.com"
    assert waived["target"]["status"]["state"] == "not-satisfied"
    assert "waived by netops@example.com until 2025-06-30" in waived["target"]["status"]["remarks"]
    [risk_ref] = waived["related-risks"]
    risk = risks[risk_ref["risk-uuid"]]
    assert risk["status"] == "deviation-approved"
    assert risk["deadline"] == "2025-06-30T23:59:59Z"

    missing = findings_for(doc, "T1-OOB-NOT-ROUTED-ELSEWHERE", "oob-sw1.example")["ac-4"]
    assert prop(missing, "result") == "NOT_ASSESSED"
    assert missing["target"]["status"]["state"] == "not-satisfied"
    assert missing["target"]["status"]["reason"] == "other"
    assert missing["target"]["status"]["remarks"].startswith("not assessed: ")
    assert "related-risks" not in missing and "related-observations" not in missing  # it has no evidence

    erred = findings_for(doc, "T2-EGRESS-VIA-PROXY", "subnet-0a1b2c3d4e5f60718")["sc-7.7"]
    assert prop(erred, "result") == "ERROR"
    assert erred["target"]["status"]["reason"] == "other"

    unwaived = findings_for(doc, "X-FLOW-LOGS-IMMUTABLE", "vpc-0123456789abcdef0")["au-9"]
    assert risks[unwaived["related-risks"][0]["risk-uuid"]]["status"] == "open"
    statuses = {prop(f, "result") for f in result["findings"]}
    assert statuses == {"FAIL", "WAIVED", "ERROR", "NOT_ASSESSED"}


def test_every_reviewed_control_has_a_finding_and_passing_ones_are_satisfied() -> None:
    passing = [f for f in sample_findings() if f.status is Status.PASS]
    doc = build_oscal(with_nist(passing))
    result = result_of(doc)
    by_control = {f["target"]["target-id"]: f for f in result["findings"]}
    included = [
        c["control-id"] for c in result["reviewed-controls"]["control-selections"][0]["include-controls"]
    ]
    assert sorted(by_control) == sorted(included)
    # every finding of AC-4's checks passed; T3-VRF-NO-DEFAULT-ROUTE and T1-OOB-NOT-ROUTED-ELSEWHERE ran
    assert by_control["ac-4"]["target"]["status"] == {"state": "satisfied", "reason": "pass"}
    assert len(by_control["ac-4"]["related-observations"]) == 2  # captures #17 and #31
    # AC-17(3)'s only check produced no finding at all: it did not run, so the control is not assessed
    assert by_control["ac-17.3"]["target"]["status"]["state"] == "not-satisfied"
    assert "did not run" in by_control["ac-17.3"]["target"]["status"]["remarks"]
    assert "risks" not in result


def test_a_check_with_no_800_53_control_still_reports_its_failure() -> None:
    """The sample maps T3-VRF-NO-DEFAULT-ROUTE to SOC 2 only: the failure stays visible, targeted at the
    check id and carrying its SOC 2 criterion."""
    doc = build_oscal(make_report_data())
    found = findings_for(doc, "T3-VRF-NO-DEFAULT-ROUTE", "be-leaf1.example vrf RDMA-A")
    assert list(found) == ["T3-VRF-NO-DEFAULT-ROUTE"]
    assert found["T3-VRF-NO-DEFAULT-ROUTE"]["target"]["status"]["state"] == "not-satisfied"
    assert props(found["T3-VRF-NO-DEFAULT-ROUTE"], "mapped-requirement") == ["CC6.1"]


# -- evidence -----------------------------------------------------------------------------------------------


def test_one_observation_per_capture_with_its_hash() -> None:
    data = with_nist()
    doc = build_oscal(data)
    result = result_of(doc)
    resources = {r["uuid"]: r for r in doc["assessment-results"]["back-matter"]["resources"]}
    observations = {o["uuid"]: o for o in result["observations"]}
    captures = {(e.seq, e.sha256) for f in data.findings for e in f.evidence}
    assert len(observations) == len(captures)
    seen = set()
    for o in observations.values():
        seq, sha = int(prop(o, "capture-seq")), prop(o, "capture-sha256")
        seen.add((seq, sha))
        [evidence] = o["relevant-evidence"]
        assert f"capture #{seq}, sha256 {sha}" in evidence["description"]
        resource = resources[evidence["href"].removeprefix("#")]
        assert resource["rlinks"][0]["hashes"] == [{"algorithm": "SHA-256", "value": sha}]
    assert seen == captures
    # every reference resolves: observations, risks, the import-ap placeholder
    risks = {r["uuid"] for r in result["risks"]}
    for f in result["findings"]:
        assert {r["observation-uuid"] for r in f.get("related-observations", [])} <= set(observations)
        assert {r["risk-uuid"] for r in f.get("related-risks", [])} <= risks
    # a finding points at exactly the captures its check finding rests on
    [leaf] = findings_for(doc, "T3-MTU-JUMBO", "be-leaf2.example Ethernet49/1").values()
    [ref] = leaf["related-observations"]
    assert prop(observations[ref["observation-uuid"]], "capture-seq") == "33"
    plan = resources[doc["assessment-results"]["import-ap"]["href"].removeprefix("#")]
    assert prop(plan, "config-sha256") == data.run.config_sha256


# -- determinism and registration --------------------------------------------------------------------------


def test_same_run_renders_the_same_bytes(tmp_path: Path) -> None:
    data = with_nist()
    first = OscalReport().render(data, tmp_path / "a.oscal.json").read_bytes()
    later = dataclasses.replace(data, generated_at=datetime(2031, 1, 1, tzinfo=UTC))  # rendered another day
    shuffled = list(data.findings)
    random.Random(7).shuffle(shuffled)
    reordered = dataclasses.replace(later, findings=shuffled)
    assert OscalReport().render(reordered, tmp_path / "b.oscal.json").read_bytes() == first
    assert first.endswith(b"}\n")
    text = first.decode("utf-8")
    uuids = regex.findall(r'"(?:uuid|observation-uuid)": "([0-9a-f-]{36})"', text)
    own = regex.findall(r'"uuid": "([0-9a-f-]{36})"', text)
    assert len(own) == len(set(own)) and set(uuids) <= set(own)
    other = dataclasses.replace(data, run=dataclasses.replace(data.run, id=RUN_ID + 1))
    assert set(regex.findall(r'"uuid": "([0-9a-f-]{36})"', dumps_oscal(other).decode())).isdisjoint(own)


def test_format_is_registered(tmp_path: Path) -> None:
    renderer = report_registry().get("oscal")
    path = renderer.render(make_report_data(), tmp_path)
    assert path.name == f"auditor-run-{RUN_ID}.oscal.json"
    assert json.loads(path.read_text(encoding="utf-8"))["assessment-results"]["uuid"]


# -- the CLI on the example lab ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def lab_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example lab audited once, with `oscal` among the config's report formats."""
    lab = tmp_path_factory.mktemp("oscal") / "lab"
    shutil.copytree(LAB, lab, ignore=shutil.ignore_patterns(".auditor", "out"))
    config = lab / "auditor.yaml"
    text = config.read_text(encoding="utf-8")
    assert "\nreports: [json, pdf]\n" in text
    config.write_text(
        text.replace("\nreports: [json, pdf]\n", "\nreports: [json, oscal]\n"), encoding="utf-8"
    )
    result = run_cli("audit", "-c", str(config), "--quiet")
    assert result.returncode == 1, result.stdout + result.stderr  # the lab has planted violations
    return lab


@pytest.mark.slow
def test_cli_renders_a_valid_deterministic_oscal_report(lab_run: Path, validator: Any) -> None:
    config = str(lab_run / "auditor.yaml")
    outputs = []
    for name in ("first", "second"):
        out = run_cli("report", "-c", config, "--run", "1", "--format", "oscal", "-o", str(lab_run / name))
        assert out.returncode == 0, out.stdout + out.stderr
        outputs.append((lab_run / name / "run-1.oscal.json").read_bytes())
    assert outputs[0] == outputs[1]
    assert (lab_run / "out" / "run-1.oscal.json").read_bytes() == outputs[0]  # written by the audit itself

    doc = json.loads(outputs[0])
    assert errors(validator, doc) == []
    report = json.loads((lab_run / "out" / "run-1.json").read_text(encoding="utf-8"))
    result = result_of(doc)
    assert prop(result, "chain-head") == report["run"]["chain_head"]
    assert prop(result, "run-id") == "1"
    included = {
        c["control-id"] for c in result["reviewed-controls"]["control-selections"][0]["include-controls"]
    }
    assert {"ac-4", "sc-7", "sc-7.5"} <= included
    not_passed = {
        (f["check_id"], f["subject"])
        for f in report["findings"]
        if f["status"] in ("FAIL", "ERROR", "NOT_ASSESSED")
    }
    assert len(not_passed) >= 4  # the planted violations
    check_level = [f for f in result["findings"] if props(f, "subject")]
    assert {(prop(f, "check-id"), prop(f, "subject")) for f in check_level} == not_passed
    for f in check_level:  # on an 800-53 control (or, for a check mapped to none, on the check id)
        assert f["target"]["target-id"] in included | {prop(f, "check-id")}
        assert f["target"]["status"]["state"] == "not-satisfied"
    # every reviewed control has a finding: its failures, or one summary finding
    assert included <= {f["target"]["target-id"] for f in result["findings"]}
    hashes = {prop(o, "capture-sha256") for o in result["observations"]}
    assert hashes == {e["sha256"] for f in report["findings"] for e in f["evidence"]}
