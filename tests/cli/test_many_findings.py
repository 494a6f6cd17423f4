"""When findings are many (issue 14: 676,000 lines at 2,000 switches), the console prints a summary:
counts per check, the worst findings, and where every finding is; long texts point to that file."""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

import pytest
from rich.console import Console

import auditor.cli.render as render
from auditor.cli.render import MANY, WORST, bounded, print_findings


@dataclass(frozen=True)
class Row:
    status: str
    check_id: str
    subject: str
    found: str
    severity: str
    waiver: dict[str, Any] | None = None


def _fabric(n: int) -> list[Row]:
    """n medium FAILs of one check, a few critical FAILs (one waived), ERRORs, NOT_ASSESSED and PASSes."""
    rows = [Row("FAIL", "T3-MTU-JUMBO", f"leaf{i}/Ethernet1", "mtu 1500", "medium") for i in range(n)]
    rows += [
        Row("FAIL", "T1-OOB-NO-DEFAULT-ROUTE", f"oob{i}/vrf MGMT", "0.0.0.0/0", "critical") for i in range(3)
    ]
    rows.append(
        Row("FAIL", "T1-OOB-NO-DEFAULT-ROUTE", "oob9/vrf MGMT", "0.0.0.0/0", "critical", {"owner": "x"})
    )
    rows += [Row("ERROR", "T2-DEFAULT-SG-EMPTY", f"vpc-{i}", "boom", "medium") for i in range(2)]
    rows += [Row("NOT_ASSESSED", "T3-PFC-LOSSLESS-ONLY", "leaf1", "no qos facts", "high")]
    rows += [Row("PASS", "T3-MTU-JUMBO", f"spine{i}", "mtu 9214", "medium") for i in range(500)]
    return rows


def test_many_findings_piped_print_a_summary(capsys: pytest.CaptureFixture[str]) -> None:
    rows = _fabric(1000)
    print_findings(rows, where="out/run-1.json")
    lines = capsys.readouterr().out.splitlines()
    problems = len(rows) - 500
    assert len(lines) == 1 + 4 + WORST + 1  # head, one line per check, the worst, the pointer
    assert lines[0].startswith(f"{problems} findings: too many to list (over {MANY}); per check, then the")
    assert lines[0].endswith("every finding is in out/run-1.json")
    per_check = [line.split("\t") for line in lines[1:5]]
    assert per_check == [
        ["per-check", "T1-OOB-NO-DEFAULT-ROUTE", "critical", "3 FAIL, 1 FAIL (waived)"],
        ["per-check", "T3-PFC-LOSSLESS-ONLY", "high", "1 NOT_ASSESSED"],
        ["per-check", "T3-MTU-JUMBO", "medium", "1000 FAIL"],
        ["per-check", "T2-DEFAULT-SG-EMPTY", "medium", "2 ERROR"],
    ]
    worst = [line.split("\t") for line in lines[5 : 5 + WORST]]
    assert all(len(cells) == 4 for cells in worst)
    assert [c[:2] for c in worst[:3]] == [["FAIL", "T1-OOB-NO-DEFAULT-ROUTE"]] * 3  # critical first
    assert [c[0] for c in worst[3:]] == ["FAIL"] * (WORST - 3)  # unwaived FAILs before ERRORs and waived
    assert lines[-1] == f"... {problems - WORST} more findings not listed: see out/run-1.json"


def test_at_the_threshold_every_finding_is_listed(capsys: pytest.CaptureFixture[str]) -> None:
    """The decoy: MANY problems (PASS rows do not count) are still listed one per line."""
    rows = _fabric(MANY - 7)
    print_findings(rows)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == MANY and all(len(line.split("\t")) == 4 for line in lines)


def test_many_findings_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    screen = io.StringIO()
    monkeypatch.setattr(
        render, "out", Console(file=screen, force_terminal=True, width=120, color_system=None)
    )
    print_findings(_fabric(300), where="out/run-1.json")
    text = screen.getvalue()
    assert "Findings per check" in text and f"The {WORST} worst findings (of 307)" in text
    assert "T3-MTU-JUMBO" in text and "300 FAIL" in text
    assert "leaf299/Ethernet1" not in text  # not every finding
    assert text.rstrip().endswith(f"{307 - WORST} more findings not listed: see out/run-1.json")


def test_a_long_text_points_to_the_file_that_holds_it() -> None:
    flows = "; ".join(f"10.20.0.{i} -> 10.250.0.1:623" for i in range(300))
    assert bounded(flows, where="out/run-1.json").endswith("of 300 (full text in out/run-1.json)")
    assert bounded("x" * 5000).endswith("(5000 characters; full text in the report)")


def test_the_report_that_holds_full_texts() -> None:
    assert render.full_text_report(["o/run-1.pdf", "o/run-1.csv", "o/run-1.json"]) == "o/run-1.json"
    assert render.full_text_report(["o/run-1.pdf", "o/run-1.csv"]) == "o/run-1.csv"
    assert render.full_text_report(["o/run-1.pdf"]) == "o/run-1.pdf"
    assert render.full_text_report([]) is None
