"""`auditor audit --json`: exactly one JSON object on stdout, nothing else there, for cron scripts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.e2e.conftest import LAB, run_cli


def test_audit_json_summary_matches_the_report(tmp_path: Path) -> None:
    lab = tmp_path / "lab"
    shutil.copytree(LAB, lab, ignore=shutil.ignore_patterns(".auditor", "out"))
    result = run_cli(
        "audit", "-c", str(lab / "auditor.yaml"), "-f", "json", "--json", "--quiet", cwd=tmp_path
    )
    assert result.returncode == 1, result.stdout + result.stderr  # planted violations
    assert result.stderr == ""  # --quiet: no progress; the summary alone on stdout
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    summary = json.loads(lines[0])
    report = json.loads((lab / "out" / "run-1.json").read_text())
    assert summary["run"] == report["run"]["id"] == 1
    assert summary["status"] == "complete" and summary["exit_code"] == 1
    assert summary["chain_head"] == report["run"]["chain_head"]
    assert summary["captures"] == report["run"]["capture_count"]
    assert summary["facts"] == report["run"]["fact_count"]
    statuses = [f["status"] for f in report["findings"]]
    assert summary["counts"] == {s: statuses.count(s) for s in summary["counts"]}
    assert sum(summary["counts"].values()) == summary["findings"] == len(statuses)
    assert summary["reports"] == [str(lab / "out" / "run-1.json")]
    assert summary["evidence_gaps"] == len(report["problems"])
    verify = run_cli("verify", "-c", str(lab / "auditor.yaml"), "--run", str(summary["run"]))
    assert verify.returncode == 0 and summary["chain_head"] in verify.stdout
