"""The ai-pod example's expectations (EXPECTED.md) and a run's difference from them.

Run as a script to see where a fresh audit of the pod stands: `python -m tests.e2e.ai_pod`.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

POD = Path(__file__).resolve().parents[2] / "examples" / "ai-pod"
ROW = re.compile(
    r"^\| (?P<check>[TX][0-9]?-[A-Z0-9-]+) \| (?P<subject>[^|]+?) \| `?(?P<file>[^|`:]+):(?P<line>\d+)`? \| [^|]+ \|$"
)


@dataclass(frozen=True)
class Row:
    """One planted violation or decoy: the finding it must give and where it was planted."""

    check: str
    subject: str
    file: str
    line: int


def expected(pod: Path = POD) -> tuple[list[Row], list[Row]]:
    """(violations, decoys) as EXPECTED.md lists them; rows outside the two sections are ignored."""
    section = ""
    violations: list[Row] = []
    decoys: list[Row] = []
    for raw in (pod / "EXPECTED.md").read_text().splitlines():
        line = raw.strip()
        if line.startswith("## "):
            section = line[3:].lower()
            continue
        m = ROW.match(line)
        if not m:
            continue
        row = Row(m["check"], m["subject"], m["file"].strip(), int(m["line"]))
        if section.startswith("planted"):
            violations.append(row)
        elif section.startswith("decoy"):
            decoys.append(row)
    return violations, decoys


@dataclass
class Difference:
    """How a run's findings differ from EXPECTED.md."""

    missed: set[tuple[str, str]]
    extra: set[tuple[str, str]]
    decoys_not_passing: dict[tuple[str, str], str]

    def empty(self) -> bool:
        return not (self.missed or self.extra or self.decoys_not_passing)


def difference(report: dict[str, Any], pod: Path = POD) -> Difference:
    """Compare a JSON report's findings with the expected rows."""
    findings = report["findings"]
    assert isinstance(findings, list)
    violations, decoys = expected(pod)
    failed = {(f["check_id"], f["subject"]) for f in findings if f["status"] == "FAIL" and not f["waiver"]}
    want = {(r.check, r.subject) for r in violations}
    status = {(f["check_id"], f["subject"]): f["status"] for f in findings}
    decoys_not_passing = {
        (r.check, r.subject): status.get((r.check, r.subject), "no such finding")
        for r in decoys
        if status.get((r.check, r.subject)) != "PASS"
    }
    return Difference(want - failed, failed - want, decoys_not_passing)


def audit_copy(pod: Path = POD) -> tuple[int, dict[str, Any], str]:
    """Audit a private copy of the pod; (exit code, JSON report, console output)."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "ai-pod"
        shutil.copytree(pod, copy, ignore=shutil.ignore_patterns(".auditor", "out"))
        done = subprocess.run(
            [sys.executable, "-m", "auditor", "audit", "-c", str(copy / "auditor.yaml"), "--quiet"],
            capture_output=True,
            text=True,
            timeout=600,
        )
        report = json.loads((copy / "out" / "run-1.json").read_text())
        return done.returncode, report, done.stdout + done.stderr


def main() -> int:
    code, report, _output = audit_copy()
    diff = difference(report)
    print(f"exit {code}; run status {report['run']['status']}")
    for label, items in (
        ("MISSED (planted, not FAIL)", diff.missed),
        ("EXTRA FAIL (not planted)", diff.extra),
    ):
        print(f"{label}: {len(items)}")
        for check, subject in sorted(items):
            print(f"  {check} | {subject}")
    print(f"DECOYS NOT PASSING: {len(diff.decoys_not_passing)}")
    for (check, subject), status in sorted(diff.decoys_not_passing.items()):
        print(f"  {check} | {subject} -> {status}")
    findings = report["findings"]
    assert isinstance(findings, list)
    others = sorted(
        {(f["check_id"], f["status"], f["subject"]) for f in findings if f["status"] not in ("PASS", "FAIL")}
    )
    print(f"NOT PASS/FAIL: {len(others)}")
    for check, status, subject in others:
        print(f"  {status} {check} | {subject}")
    problems = report.get("problems")
    if problems:
        print("PROBLEMS:")
        assert isinstance(problems, list)
        for p in problems:
            print(f"  {p}")
    return 0 if diff.empty() else 1


if __name__ == "__main__":
    raise SystemExit(main())
