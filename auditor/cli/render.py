"""Rich terminal output of outcomes and findings."""

from __future__ import annotations

from collections import Counter

from rich.table import Table
from sqlalchemy import Engine

from auditor.cli.console import out
from auditor.enums import Status
from auditor.pipeline.audit import AuditOutcome
from auditor.store.reader import RunReader

STYLE = {
    Status.PASS: "green",
    Status.FAIL: "bold red",
    Status.ERROR: "red",
    Status.NOT_ASSESSED: "yellow",
    Status.NOT_APPLICABLE: "dim",
}


def findings_table(rows: list[object], *, only_problems: bool = True) -> Table:
    table = Table(title="Findings", show_lines=False, expand=True)
    for col in ("status", "check", "subject", "found"):
        table.add_column(col, overflow="fold")
    for f in rows:
        status = Status(f.status)  # type: ignore[attr-defined]
        if only_problems and status in (Status.PASS, Status.NOT_APPLICABLE):
            continue
        table.add_row(f"[{STYLE[status]}]{status.value}[/]", f.check_id, f.subject, f.found)  # type: ignore[attr-defined]
    return table


def print_outcome(engine: Engine, outcome: AuditOutcome) -> None:
    reader = RunReader(engine, outcome.run_id)
    counts = Counter(outcome.statuses)
    out.print(findings_table(reader.findings()))
    summary = ", ".join(f"[{STYLE[s]}]{counts.get(s, 0)} {s.value}[/]" for s in Status)
    out.print(f"run {outcome.run_id} [bold]{outcome.seal.status.value}[/]: {summary}")
    out.print(
        f"chain head {outcome.seal.chain_head}  ({outcome.seal.capture_count} captures, "
        f"{outcome.seal.fact_count} facts)"
    )
    problems = reader.problems()
    if problems:
        out.print(f"[yellow]{len(problems)} evidence gap(s)[/]:")
        for p in problems[:20]:
            out.print(f"  {p.location}: {p.message}", highlight=False)
        if len(problems) > 20:
            out.print(f"  ... and {len(problems) - 20} more (see the report)")
    for path in outcome.reports:
        out.print(f"report: {path}")
