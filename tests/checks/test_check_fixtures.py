"""Every built-in check against its fixture folders: one test parameter per folder under
tests/fixtures/checks/<CHECK-ID>/<case>/. A regression case is a new folder, not new code."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from checks.base import check_registry
from checks.runner import evaluate_one
from tests.checks.harness import load_case

CASES_ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "checks"
CASES = sorted(p for p in CASES_ROOT.glob("*/*") if p.is_dir())
REGISTRY = check_registry()


@pytest.mark.parametrize("case", CASES, ids=[f"{c.parent.name}/{c.name}" for c in CASES])
def test_check_case(case: Path) -> None:
    check = REGISTRY.get(case.parent.name)
    ctx, expected = load_case(case)
    findings = evaluate_one(ctx, check)
    got = Counter((f.status.value, f.subject) for f in findings)
    want = Counter((e["status"], e["subject"]) for e in expected)
    assert got == want, "\n".join(f"{f.status.value} {f.subject}: {f.found}" for f in findings)
    for f in findings:
        if f.status.value in ("PASS", "FAIL"):
            assert f.expected and f.found, (
                f"{check.meta.id} finding on {f.subject} must say expected and found"
            )
        if f.status.value == "FAIL":
            assert f.facts, f"{check.meta.id} failure on {f.subject} must point at the facts it rests on"


@pytest.mark.parametrize("check_id", list(REGISTRY))
def test_every_check_has_passing_and_failing_fixtures(check_id: str) -> None:
    statuses: set[str] = set()
    for case in CASES:
        if case.parent.name == check_id:
            statuses |= {e["status"] for e in load_case(case)[1]}
    assert {"PASS", "FAIL"} <= statuses, f"{check_id} needs a fixture with a PASS and one with a FAIL"
    assert "NOT_ASSESSED" in statuses, f"{check_id} needs a fixture showing missing evidence -> NOT_ASSESSED"
