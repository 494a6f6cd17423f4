"""Waivers end to end on a copy of the example lab: a waived failure shows in the JSON and the PDF and
no longer fails the run; an expired waiver stops applying by itself and says so."""

from __future__ import annotations

import glob
import json
from collections import Counter
from pathlib import Path
from typing import Any

import yaml
from pypdf import PdfReader

from tests.e2e.conftest import run_cli

OWNER = "netops@example.com"


def _report(lab: Path, run: int) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((lab / "out" / f"run-{run}.json").read_text())
    return doc


def _pdf_text(lab: Path, run: int) -> str:
    return " ".join(
        " ".join(p.extract_text() or "" for p in PdfReader(lab / "out" / f"run-{run}.pdf").pages).split()
    )


def _set_waivers(lab: Path, waivers: list[dict[str, str]]) -> None:
    """The lab config with a `waivers:` list (the shipped examples/lab/auditor.yaml is left alone)."""
    config = lab / "auditor.yaml"
    text = config.read_text().split("\nwaivers:\n")[0].rstrip("\n") + "\n"
    config.write_text(text + yaml.safe_dump({"waivers": waivers}, sort_keys=False))


def _exit_without_failures(doc: dict[str, Any]) -> int:
    """The documented exit code of a run whose failures are all waived: 0, or 3 if evidence is incomplete."""
    gaps = {"NOT_ASSESSED", "ERROR"} & {f["status"] for f in doc["findings"]}
    return 3 if gaps or doc["run"]["status"] != "complete" else 0


def _waiver(f: dict[str, Any], expires: str) -> dict[str, str]:
    """A waiver for exactly this finding: its check, and its target and subject as literal globs."""
    return {
        "check": f["check_id"],
        "target": glob.escape(f["target"] or ""),
        "subject": glob.escape(f["subject"]),
        "owner": OWNER,
        "reason": f"accepted until the fix window ({f['check_id']})",
        "expires": expires,
    }


def _key(f: dict[str, Any]) -> tuple[str, str, str]:
    return f["check_id"], f["target"] or "", f["subject"]


def test_waived_failures_expired_waivers_and_the_exit_code(lab: Path) -> None:
    cfg = str(lab / "auditor.yaml")
    first = run_cli("audit", "-c", cfg, "--quiet")
    assert first.returncode == 1, first.stdout + first.stderr
    fails = [f for f in _report(lab, 1)["findings"] if f["status"] == "FAIL"]
    assert len(fails) >= 3
    assert all(f["waiver"] is None for f in fails)
    per_key = Counter(_key(f) for f in fails)  # a check may fail one subject more than once
    distinct = list({_key(f): f for f in fails}.values())

    # Run 2: every failure waived, except those of one subject, whose waiver expired long ago.
    lapsed, *rest = distinct
    _set_waivers(lab, [_waiver(lapsed, "2000-01-01"), *(_waiver(f, "2999-12-31") for f in rest)])
    second = run_cli("audit", "-c", cfg, "--quiet")
    assert second.returncode == 1, second.stdout + second.stderr  # the expired waiver no longer applies
    assert "expired waiver" in second.stdout and "2000-01-01" in second.stdout
    doc = _report(lab, 2)
    assert doc["schema_version"] == "1.2"
    fails_2 = [f for f in doc["findings"] if f["status"] == "FAIL"]
    assert Counter(_key(f) for f in fails_2) == per_key  # waived failures stay FAIL
    for f in fails_2:
        if _key(f) == _key(lapsed):
            assert f["waiver"] is None
            assert f"[waiver by {OWNER} expired 2000-01-01; it no longer applies]" in f["message"]
        else:
            assert f["waiver"] is not None and f["waiver"]["owner"] == OWNER
            assert f["waiver"]["expires"] == "2999-12-31"
    states = [(w["state"], w["matched"]) for w in doc["waivers"]]
    assert states == [("expired", per_key[_key(lapsed)])] + [("active", per_key[_key(f)]) for f in rest]
    assert doc["verification"]["verified"] is True
    pdf = _pdf_text(lab, 2)
    assert "FAILURES FOUND" in pdf  # the lapsed one
    assert "FAIL WAIVED" in pdf and f"waived by {OWNER} until 2999-12-31" in pdf
    assert "EXPIRED" in pdf and "CHAIN VERIFIED" in pdf

    # Re-checking run 2 gives the same answer from the waivers stored with it.
    recheck = run_cli("check", "--run", "2", "--store", f"sqlite:///{lab / '.auditor' / 'auditor.db'}")
    assert recheck.returncode == 1

    # Run 3: the lapsed waiver renewed: nothing unwaived fails any more, so the exit code is no longer 1
    # (0, or 3 while some check of the lab cannot assess everything: incomplete evidence still counts).
    _set_waivers(lab, [_waiver(f, "2999-12-31") for f in distinct])
    expected = _exit_without_failures(doc)
    assert run_cli("check", "--run", "2", "-c", cfg).returncode == expected  # re-check, current config
    third = run_cli("audit", "-c", cfg, "--quiet")
    assert third.returncode == expected, third.stdout + third.stderr
    doc = _report(lab, 3)
    assert all(f["waiver"] for f in doc["findings"] if f["status"] == "FAIL")
    assert {w["state"] for w in doc["waivers"]} == {"active"}
    if expected == 0:
        assert f"PASS WITH {len(fails)} WAIVED FAILURE" in _pdf_text(lab, 3)
    assert "FAILURES FOUND" not in _pdf_text(lab, 3)
