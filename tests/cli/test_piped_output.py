"""Piped or logged (stdout not a terminal), the CLI prints one finding per line and never wraps: a
check id, subject or chain head is never split, so grep and cut work on it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from typing import Any

from auditor.cli.render import FOUND_LIMIT, bounded, findings_lines
from auditor.enums import Status
from tests.cli.conftest import AuditedLab
from tests.e2e.conftest import REPO, run_cli


def _report(lab: AuditedLab) -> Any:
    return json.loads(lab.report.read_text())


def test_every_problem_is_one_tab_separated_line(audited_lab: AuditedLab) -> None:
    report = _report(audited_lab)
    problems = [f for f in report["findings"] if f["status"] not in ("PASS", "NOT_APPLICABLE")]
    assert problems  # the lab has planted violations
    rows = [line.split("\t") for line in audited_lab.audit.stdout.splitlines() if "\t" in line]
    assert len(rows) == len(problems)
    assert all(len(r) == 4 for r in rows)
    shown = {(r[0], r[1], r[2]) for r in rows}
    for f in problems:
        label = f"{f['status']} (waived)" if f["waiver"] else f["status"]
        assert (label, f["check_id"], f["subject"]) in shown


def test_chain_head_and_summary_are_whole_lines(audited_lab: AuditedLab) -> None:
    head = _report(audited_lab)["run"]["chain_head"]
    lines = audited_lab.audit.stdout.splitlines()
    assert any(line.startswith(f"chain head {head}  (") and line.endswith("facts)") for line in lines)
    assert any(line.startswith("run 1 complete: ") and line.endswith("NOT_APPLICABLE") for line in lines)
    assert "\x1b[" not in audited_lab.audit.stdout  # no colour codes in a pipe


def test_grep_through_a_shell_pipe_finds_a_long_check_id(audited_lab: AuditedLab) -> None:
    """The 80-column fold used to split T1-OOB-ACCESS-JUMP-HOSTS-ONLY over two lines."""
    cmd = f"{sys.executable} -m auditor check -c {audited_lab.config} | cat | grep -c T1-OOB-ACCESS-JUMP-HOSTS-ONLY"
    result = subprocess.run(
        cmd, shell=True, capture_output=True, text=True, cwd=audited_lab.root, timeout=300
    )
    assert int(result.stdout.strip()) >= 1, result.stdout + result.stderr


def test_wide_table_is_not_folded_when_piped() -> None:
    """Even with COLUMNS=80 exported (CI runners do), a table in a pipe is as wide as its content."""
    result = run_cli("checks", "list", cwd=REPO, env={**os.environ, "COLUMNS": "80"})
    assert result.returncode == 0, result.stderr
    assert any("T1-OOB-ACCESS-JUMP-HOSTS-ONLY" in line for line in result.stdout.splitlines())


class _Row:
    def __init__(self, status: Status, found: str) -> None:
        self.status, self.check_id, self.subject, self.found = status.value, "T9-X", "sw1", found
        self.waiver = None


def test_one_long_finding_is_bounded_with_a_count() -> None:
    flows = "; ".join(f"10.20.{i // 250}.{i % 250} -> 10.250.10.21:623 ACCEPT" for i in range(1200))
    text = bounded(flows)
    assert len(text) < FOUND_LIMIT + 100
    assert text.startswith("10.20.0.0 -> 10.250.10.21:623 ACCEPT; 10.20.0.1")
    shown = text.split(" ... ")[0].count("; ") + 1
    assert f"and {1200 - shown} more of 1200 (full text in the report)" in text
    assert bounded("a" * 10_000).endswith("(10000 characters; full text in the report)")
    multi = "\n".join(f"line {i}" for i in range(500))
    assert "\n" not in bounded(multi)


def test_short_text_and_decoys_are_kept_whole() -> None:
    """A text under the limit is untouched, even with many separators, and PASS rows are not shown."""
    short = "a, b; c\td"
    lines = findings_lines([_Row(Status.FAIL, short), _Row(Status.PASS, "x" * 9000)])
    assert lines == ["FAIL\tT9-X\tsw1\ta, b; c d"]


def test_progress_lines_on_stderr_when_logged(audited_lab: AuditedLab) -> None:
    """No live bar in a log, but a timestamped line at the start, the end of collection and each phase."""
    lines = audited_lab.audit.stderr.splitlines()
    progress = [line.split(" progress: ", 1)[1] for line in lines if " progress: " in line]
    targets = len(_report(audited_lab)["targets"])
    assert targets > 1
    assert progress[0].startswith(f"collecting {targets} targets (")
    assert any(
        p.startswith(f"collecting: {targets}/{targets} targets, 0 failed, 0 remaining (") for p in progress
    )
    assert [p.split(" (")[0] for p in progress[-2:]] == ["checking", "reporting"]
    assert all(
        re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d progress: ", line) for line in lines if "progress" in line
    )
    assert "\x1b[" not in audited_lab.audit.stderr and "━" not in audited_lab.audit.stderr


def test_on_an_80_column_terminal_check_ids_are_not_folded(audited_lab: AuditedLab) -> None:
    """A terminal (TTY_COMPATIBLE=1 makes rich treat the pipe as one) keeps the table, but a check id is
    never split over two lines; long texts fold in their own column and are bounded."""
    env = {**os.environ, "TTY_COMPATIBLE": "1", "COLUMNS": "80"}
    result = run_cli("check", "-c", str(audited_lab.config), cwd=audited_lab.root, env=env)
    assert result.returncode == 1, result.stdout + result.stderr
    text = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout)
    assert "┃ check" in text  # the table, not the piped lines
    lines = text.splitlines()
    assert all(len(line) <= 80 for line in lines)
    ids = {f["check_id"] for f in _report(audited_lab)["findings"] if f["status"] == "FAIL"}
    for cid in ids:
        assert any(cid in line for line in lines), cid


def test_check_json_lines_hold_the_full_findings(audited_lab: AuditedLab) -> None:
    result = run_cli(
        "check", "-c", str(audited_lab.config), "--run", "latest", "--json", cwd=audited_lab.root
    )
    assert result.returncode == 1, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    report = _report(audited_lab)
    problems = [f for f in report["findings"] if f["status"] not in ("PASS", "NOT_APPLICABLE")]
    key = ("check_id", "status", "subject", "found", "severity")
    assert sorted(tuple(r[k] for k in key) for r in rows) == sorted(
        tuple(f[k] for k in key) for f in problems
    )
    assert {r["run"] for r in rows} == {1}


def test_quiet_prints_only_the_final_status(audited_lab: AuditedLab) -> None:
    """--quiet before the command (global) or after it: the status line alone, nothing on stderr."""
    counts = {s.value: 0 for s in Status}
    for f in _report(audited_lab)["findings"]:
        counts[f["status"]] += 1
    text = ", ".join(f"{n} {s}" for s, n in counts.items())
    for args in (["-q", "check"], ["--quiet", "check"]):
        result = run_cli(*args, "-c", str(audited_lab.config), cwd=audited_lab.root)
        assert result.returncode == 1
        assert result.stdout.splitlines() == [f"run 1 re-checked: {text}"]
        assert result.stderr == ""
    report = run_cli(
        "-q", "report", "-c", str(audited_lab.config), "-f", "csv", "-o", "q", cwd=audited_lab.root
    )
    assert report.returncode == 0 and report.stdout == "" and report.stderr == ""
    assert (audited_lab.root / "q" / "run-1.csv").exists()
