"""Rich terminal output of outcomes and findings."""

from __future__ import annotations

from collections import Counter

from rich.table import Table
from sqlalchemy import Engine

from auditor.cli.console import out
from auditor.enums import Status, WaiverState
from auditor.pipeline.audit import AuditOutcome
from auditor.pipeline.waivers import WaiverNote
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
        label = f"[{STYLE[status]}]{status.value}[/]"
        if getattr(f, "waiver", None):  # an accepted risk: still a failure, but not one that fails the run
            label = f"[yellow]{status.value} (waived)[/]"
        table.add_row(label, f.check_id, f.subject, f.found)  # type: ignore[attr-defined]
    return table


def print_waiver_notes(notes: list[WaiverNote]) -> None:
    """Waivers in force, and loudly the expired ones, so nobody forgets to renew or fix them."""
    for n in notes:
        if n.state is WaiverState.EXPIRED:
            out.print(f"[bold yellow]expired waiver[/]: {n.text()}", highlight=False)
        elif n.matched:
            out.print(f"[yellow]waived[/]: {n.text()}", highlight=False)


def print_outcome(engine: Engine, outcome: AuditOutcome) -> None:
    reader = RunReader(engine, outcome.run_id)
    counts = Counter(outcome.statuses)
    out.print(findings_table(reader.findings()))
    summary = ", ".join(f"[{STYLE[s]}]{counts.get(s, 0)} {s.value}[/]" for s in Status)
    out.print(f"run {outcome.run_id} [bold]{outcome.seal.status.value}[/]: {summary}")
    print_waiver_notes(outcome.waivers)
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
