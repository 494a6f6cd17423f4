"""The JSON report: schema-valid, faithful to ReportData field by field, and byte-for-byte deterministic."""

from __future__ import annotations

import copy
import dataclasses
import json
import random
from collections import Counter
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator, ValidationError

from auditor.enums import RunStatus, Severity, Status, TargetStatus, Tier
from reports.base import ReportRenderer, report_registry
from reports.json_report import JsonReport, iso_utc
from reports.model import ReportData
from reports.schema import load_report_schema
from tests.reports.sample_data import (
    CHAIN_HEAD,
    HOST_KEY_NOTE,
    RUN_ID,
    make_report_data,
    sample_findings,
)

TIERS = ["oob", "frontend", "backend", "cross"]
SEVERITIES = ["critical", "high", "medium", "low", "info"]
STATUSES = ["PASS", "FAIL", "ERROR", "NOT_ASSESSED", "NOT_APPLICABLE"]


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    return Draft202012Validator(load_report_schema())


def render(data: ReportData, path: Path) -> dict[str, Any]:
    out = JsonReport().render(data, path)
    doc: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return doc


@pytest.fixture
def doc(tmp_path: Path) -> dict[str, Any]:
    return render(make_report_data(), tmp_path / "report.json")


def test_schema_is_a_valid_draft_2020_12_schema() -> None:
    schema = load_report_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


def test_rendered_report_validates(doc: dict[str, Any], validator: Draft202012Validator) -> None:
    errors = sorted(validator.iter_errors(doc), key=str)
    assert errors == []
    assert list(doc) == [
        "schema_version",
        "generated_at",
        "run",
        "summary",
        "targets",
        "checks",
        "findings",
        "problems",
        "controls",
        "waivers",
        "verification",
        "redactions",
    ]


def test_run_round_trips(doc: dict[str, Any]) -> None:
    data = make_report_data()
    run = doc["run"]
    assert doc["schema_version"] == "1.2"
    assert doc["generated_at"] == "2025-03-14T09:40:34Z"  # the run's seal, not the render (GENERATED)
    assert run["id"] == RUN_ID
    assert run["chain_head"] == CHAIN_HEAD
    assert run["status"] == "partial"
    assert run["started_at"] == "2025-03-14T09:26:53Z"
    assert run["finished_at"] == "2025-03-14T09:40:34Z"
    assert run["scope"] == data.run.scope
    assert run["tool_version"] == "0.1.0"
    assert run["config_sha256"] == data.run.config_sha256
    assert run["facts_digest"] == data.run.facts_digest
    assert run["findings_digest"] == data.run.findings_digest
    assert (run["capture_count"], run["fact_count"]) == (54, 1873)
    assert run["declared_tiers"] == ["oob", "frontend", "backend"]


def test_every_finding_round_trips(doc: dict[str, Any]) -> None:
    by_key = {(f["check_id"], f["subject"]): f for f in doc["findings"]}
    source = sample_findings()
    assert len(doc["findings"]) == len(source) == len(by_key)
    for f in source:
        out = by_key[(f.check_id, f.subject)]
        assert out["status"] == f.status.value
        assert out["tier"] == f.tier.value
        assert out["severity"] == f.severity.value
        assert out["expected"] == f.expected
        assert out["found"] == f.found
        assert out["message"] == f.message
        assert out["target"] == f.target
        assert out["title"] == f.title
        assert out["fact_ids"] == sorted(f.fact_ids)
        assert [(e["seq"], e["sha256"], e["source"], e["origin"]) for e in out["evidence"]] == sorted(
            (e.seq, e.sha256, e.source, e.origin) for e in f.evidence
        )
        if f.waiver is None:
            assert out["waiver"] is None
        else:
            assert out["status"] == "FAIL"
            assert out["waiver"] == {
                "check": f.waiver.check,
                "target": f.waiver.target,
                "subject": f.waiver.subject,
                "owner": f.waiver.owner,
                "reason": f.waiver.reason,
                "expires": f.waiver.expires.isoformat(),
            }
    assert sum(1 for f in doc["findings"] if f["waiver"]) == 1


def test_targets_checks_and_problems_round_trip(doc: dict[str, Any]) -> None:
    data = make_report_data()
    targets = {t["name"]: t for t in doc["targets"]}
    for t in data.targets:
        out = targets[t.name]
        assert out["status"] == t.status.value
        assert out["tier"] == (t.tier.value if t.tier else None)
        assert (out["kind"], out["platform"], out["role"]) == (t.kind, t.platform, t.role)
        assert (out["reason"], out["captures"]) == (t.reason, t.captures)
        assert out["notes"] == t.notes
    assert targets["be-spine1.example"]["notes"] == [HOST_KEY_NOTE]
    assert [t["name"] for t in doc["targets"]] == sorted(t.name for t in data.targets)
    assert [c["id"] for c in doc["checks"]] == sorted(c.id for c in data.checks)
    assert {c["id"]: c["remediation"] for c in doc["checks"]} == {c.id: c.remediation for c in data.checks}
    assert {(p["target"], p["location"], p["message"], p["hint"]) for p in doc["problems"]} == {
        (p.target, p.location, p.message, p.hint) for p in data.problems
    }


def test_summary_matches_counts_recomputed_from_findings(doc: dict[str, Any]) -> None:
    counted = Counter((f.tier.value, f.status.value) for f in sample_findings())
    assert set(doc["summary"]) == set(TIERS)
    for tier in TIERS:
        assert doc["summary"][tier] == {s: counted[(tier, s)] for s in STATUSES}
    # And consistent with the finding rows of the document itself.
    in_doc = Counter((f["tier"], f["status"]) for f in doc["findings"])
    assert sum(in_doc.values()) == sum(sum(row.values()) for row in doc["summary"].values())
    assert doc["summary"]["backend"]["FAIL"] == 2


def test_findings_sorted_by_tier_severity_check_subject(doc: dict[str, Any]) -> None:
    keys = [
        (TIERS.index(f["tier"]), SEVERITIES.index(f["severity"]), f["check_id"], f["subject"])
        for f in doc["findings"]
    ]
    assert keys == sorted(keys)
    assert doc["findings"][0]["tier"] == "oob"
    assert doc["findings"][-1]["tier"] == "cross"


def test_rendering_is_byte_for_byte_deterministic(tmp_path: Path) -> None:
    data = make_report_data()
    first = JsonReport().render(data, tmp_path / "a.json").read_bytes()
    second = JsonReport().render(data, tmp_path / "b.json").read_bytes()
    assert first == second
    later = dataclasses.replace(data, generated_at=datetime(2031, 1, 1, tzinfo=UTC))  # rendered another day
    assert JsonReport().render(later, tmp_path / "d.json").read_bytes() == first
    shuffled = list(data.findings)
    random.Random(7).shuffle(shuffled)
    reordered = dataclasses.replace(
        data,
        findings=shuffled,
        targets=list(reversed(data.targets)),
        checks=list(reversed(data.checks)),
        problems=list(reversed(data.problems)),
    )
    assert JsonReport().render(reordered, tmp_path / "c.json").read_bytes() == first


def test_output_is_utf8_two_space_indented_with_final_newline(tmp_path: Path) -> None:
    data = make_report_data()
    f = dataclasses.replace(data.findings[0], subject="Knoten-Zürich 节点 <a&b>")
    raw = JsonReport().render(dataclasses.replace(data, findings=[f]), tmp_path / "r.json").read_bytes()
    text = raw.decode("utf-8")
    assert text.endswith("}\n")
    assert not text.endswith("\n\n")
    assert text.startswith('{\n  "schema_version": "1.2",\n')
    assert "Knoten-Zürich 节点 <a&b>" in text  # not \u-escaped


def test_timestamps_are_normalised_to_utc() -> None:
    assert iso_utc(datetime(2025, 1, 2, 3, 4, 5)) == "2025-01-02T03:04:05Z"  # naive = UTC
    plus2 = timezone(timedelta(hours=2))
    assert iso_utc(datetime(2025, 1, 2, 5, 4, 5, tzinfo=plus2)) == "2025-01-02T03:04:05Z"
    assert iso_utc(datetime(2025, 1, 2, 3, 4, 5, 120, tzinfo=UTC)) == "2025-01-02T03:04:05.000120Z"


def test_unfinished_run_without_chain_validates(tmp_path: Path, validator: Draft202012Validator) -> None:
    data = make_report_data(findings=[])
    run = dataclasses.replace(
        data.run,
        finished_at=None,
        chain_head=None,
        facts_digest=None,
        findings_digest=None,
        declared_tiers=[],
    )
    out = render(dataclasses.replace(data, run=run, targets=[], problems=[]), tmp_path / "r.json")
    validator.validate(out)
    assert out["run"]["finished_at"] is None
    assert out["run"]["chain_head"] is None
    assert out["findings"] == []
    assert all(n == 0 for row in out["summary"].values() for n in row.values())


def _mutations() -> list[tuple[str, Any]]:
    def set_in(path: list[Any], value: Any) -> Any:
        def apply(d: dict[str, Any]) -> None:
            node: Any = d
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = value

        return apply

    def delete(path: list[Any]) -> Any:
        def apply(d: dict[str, Any]) -> None:
            node: Any = d
            for key in path[:-1]:
                node = node[key]
            del node[path[-1]]

        return apply

    return [
        ("unknown finding status", set_in(["findings", 0, "status"], "MAYBE")),
        ("lower-case status", set_in(["findings", 0, "status"], "fail")),
        ("unknown tier", set_in(["findings", 0, "tier"], "dmz")),
        ("extra top-level field", set_in(["extra"], 1)),
        ("extra finding field", set_in(["findings", 0, "score"], 9.5)),
        ("missing run id", delete(["run", "id"])),
        ("short chain head", set_in(["run", "chain_head"], "abc123")),
        ("upper-case evidence hash", set_in(["findings", 0, "evidence", 0, "sha256"], "A" * 64)),
        ("local timestamp", set_in(["generated_at"], "2025-03-14T10:41:07+01:00")),
        ("negative count", set_in(["summary", "oob", "PASS"], -1)),
        ("summary missing a status", delete(["summary", "cross", "ERROR"])),
        ("schema major 2", set_in(["schema_version"], "2.0")),
        ("waiver on a pass", set_in(["findings", 0, "status"], "PASS")),
        ("waiver without owner", delete(["findings", 0, "waiver", "owner"])),
        ("waiver date with time", set_in(["findings", 0, "waiver", "expires"], "2025-06-30T00:00:00Z")),
        ("1.1 without controls", delete(["controls"])),
        ("1.1 target without notes", delete(["targets", 0, "notes"])),
        ("1.1 finding without waiver", delete(["findings", 1, "waiver"])),
        ("unknown requirement result", set_in(["controls", 0, "requirements", 0, "result"], "PARTIAL")),
        ("unknown waiver state", set_in(["waivers", 0, "state"], "revoked")),
        ("verification without mismatch", delete(["verification", "mismatch"])),
    ]


@pytest.mark.parametrize(("name", "mutate"), _mutations(), ids=[m[0] for m in _mutations()])
def test_invalid_documents_fail_validation(
    doc: dict[str, Any], validator: Draft202012Validator, name: str, mutate: Any
) -> None:
    bad = copy.deepcopy(doc)
    assert bad["findings"][0]["evidence"], "fixture: first finding needs evidence"
    # the waiver mutations address findings[0]: put the waived finding there (the schema has no order)
    bad["findings"].sort(key=lambda f: f["waiver"] is None)
    assert bad["findings"][0]["waiver"] and bad["findings"][0]["evidence"]
    mutate(bad)
    with pytest.raises(ValidationError):
        validator.validate(bad)


def test_writes_atomically_and_names_files_in_directories(tmp_path: Path) -> None:
    data = make_report_data()
    out = JsonReport().render(data, tmp_path)
    assert out == tmp_path / f"auditor-run-{RUN_ID}.json"
    target = tmp_path / "nested" / "report.json"
    target.parent.mkdir()
    target.write_text("stale")
    JsonReport().render(data, target)
    assert json.loads(target.read_text())["run"]["id"] == RUN_ID
    leftovers = [p.name for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]
    assert leftovers == []


def test_registered_through_the_entry_point() -> None:
    renderer = report_registry().get("json")
    assert isinstance(renderer, ReportRenderer)
    assert (renderer.format, renderer.extension) == ("json", ".json")


def test_enum_vocabularies_match_the_schema() -> None:
    defs = load_report_schema()["$defs"]
    assert defs["tier"]["enum"] == [t.value for t in Tier]
    assert defs["status"]["enum"] == [s.value for s in Status]
    assert defs["severity"]["enum"] == [s.value for s in Severity]
    assert defs["run_status"]["enum"] == [s.value for s in RunStatus]
    assert defs["target_status"]["enum"] == [s.value for s in TargetStatus]
