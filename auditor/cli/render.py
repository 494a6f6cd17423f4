"""Rich terminal output of outcomes and findings."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING

from rich.markup import escape
from rich.table import Table

from auditor.cli.console import out
from auditor.enums import Status, WaiverState

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from auditor.pipeline.audit import AuditOutcome
    from auditor.pipeline.waivers import WaiverNote

STYLE = {
    Status.PASS: "green",
    Status.FAIL: "bold red",
    Status.ERROR: "red",
    Status.NOT_ASSESSED: "yellow",
    Status.NOT_APPLICABLE: "dim",
}


FOUND_LIMIT = 400  # characters of one finding's text on the console; the reports hold all of it
_SEPARATORS = ("\n", "; ", ", ")


def bounded(text: str, limit: int = FOUND_LIMIT) -> str:
    """A finding's text cut to about `limit` characters for the console: its first items whole (split at
    lines, then '; ', then ', ') and how many more there are, so one finding over thousands of flows or
    ports cannot flood a terminal or a log; the reports keep the full text."""
    text = text.strip()
    if len(text) <= limit:
        return text
    for sep in _SEPARATORS:
        items = [i.strip() for i in text.split(sep) if i.strip()]
        if len(items) < 2:
            continue
        shown: list[str] = []
        for item in items:
            if shown and len(sep.join([*shown, item])) > limit:
                break
            shown.append(item if len(item) <= limit else item[:limit] + "...")
        more = len(items) - len(shown)
        if more:
            joiner = "; " if sep == "\n" else sep
            return f"{joiner.join(shown)} ... and {more} more of {len(items)} (full text in the report)"
    return f"{text[:limit]}... ({len(text)} characters; full text in the report)"


def _shown(rows: list[object], only_problems: bool) -> Iterator[tuple[Status, bool, object]]:
    for f in rows:
        status = Status(f.status)  # type: ignore[attr-defined]
        if only_problems and status in (Status.PASS, Status.NOT_APPLICABLE):
            continue
        yield status, bool(getattr(f, "waiver", None)), f


def findings_table(rows: list[object], *, only_problems: bool = True) -> Table:
    shown = list(_shown(rows, only_problems))
    table = Table(title="Findings", show_lines=False, expand=True)
    table.add_column("status", overflow="fold")
    # a check id is never folded mid-word (grep, copy-paste); subjects and texts fold as they must
    widest = max((len(f.check_id) for _, _, f in shown), default=5)  # type: ignore[attr-defined]
    table.add_column("check", no_wrap=True, min_width=widest)
    table.add_column("subject", overflow="fold")
    table.add_column("found", overflow="fold")
    for status, waived, f in shown:
        label = f"[{STYLE[status]}]{status.value}[/]"
        if waived:  # an accepted risk: still a failure, but not one that fails the run
            label = f"[yellow]{status.value} (waived)[/]"
        table.add_row(label, escape(f.check_id), escape(f.subject), escape(bounded(f.found)))  # type: ignore[attr-defined]
    return table


def _cell(text: str) -> str:
    return re.sub(r"[\t\r\n]+", " ", text).strip()


def findings_lines(rows: list[object], *, only_problems: bool = True) -> list[str]:
    """One finding per line, tab-separated (status, check, subject, found), for output that is not a
    terminal: `grep T1-`, `cut -f2` and `awk -F'\t'` work on it."""
    lines = []
    for status, waived, f in _shown(rows, only_problems):
        label = f"{status.value} (waived)" if waived else status.value
        cells = (label, f.check_id, f.subject, bounded(f.found))  # type: ignore[attr-defined]
        lines.append("\t".join(_cell(c) for c in cells))
    return lines


def print_findings(rows: list[object], *, only_problems: bool = True) -> None:
    """A table on a terminal; plain tab-separated lines, one per finding, when piped or logged."""
    if out.is_terminal:
        out.print(findings_table(rows, only_problems=only_problems))
        return
    for line in findings_lines(rows, only_problems=only_problems):
        print(line)  # not through rich: it would expand the tabs to spaces


def print_waiver_notes(notes: list[WaiverNote]) -> None:
    """Waivers in force, and loudly the expired ones, so nobody forgets to renew or fix them."""
    for n in notes:
        if n.state is WaiverState.EXPIRED:
            out.print(f"[bold yellow]expired waiver[/]: {n.text()}", highlight=False)
        elif n.matched:
            out.print(f"[yellow]waived[/]: {n.text()}", highlight=False)


def print_outcome(engine: Engine, outcome: AuditOutcome) -> None:
    from auditor.store.reader import RunReader

    reader = RunReader(engine, outcome.run_id)
    counts = Counter(outcome.statuses)
    print_findings(reader.findings())
    summary = ", ".join(f"[{STYLE[s]}]{counts.get(s, 0)} {s.value}[/]" for s in Status)
    out.print(f"run {outcome.run_id} [bold]{outcome.seal.status.value}[/]: {summary}", soft_wrap=True)
    print_waiver_notes(outcome.waivers)
    # soft wrap: on a terminal too, the chain head stays one line to copy (the terminal folds it on screen)
    out.print(
        f"chain head {outcome.seal.chain_head}  ({outcome.seal.capture_count} captures, "
        f"{outcome.seal.fact_count} facts)",
        soft_wrap=True,
    )
    problems = reader.problems()
    if problems:
        out.print(f"[yellow]{len(problems)} evidence gap(s)[/]:")
        for p in problems[:20]:
            out.print(
                f"  {escape(p.location)}: {escape(bounded(p.message))}", highlight=False, soft_wrap=True
            )
        if len(problems) > 20:
            out.print(f"  ... and {len(problems) - 20} more (see the report)")
    for path in outcome.reports:
        out.print(f"report: {escape(str(path))}", highlight=False, soft_wrap=True)


def outcome_json(engine: Engine, outcome: AuditOutcome) -> dict[str, object]:
    """`audit --json`: one object for scripts and cron (the findings themselves are in the JSON report)."""
    from auditor.store.reader import RunReader

    counts = Counter(outcome.statuses)
    seal = outcome.seal
    return {
        "run": outcome.run_id,
        "status": seal.status.value,
        "exit_code": outcome.exit_code,
        "counts": {s.value: counts.get(s, 0) for s in Status},
        "chain_head": seal.chain_head,
        "captures": seal.capture_count,
        "facts": seal.fact_count,
        "findings": seal.finding_count,
        "signed_by": seal.key_fingerprint,
        "evidence_gaps": len(RunReader(engine, outcome.run_id).problems()),
        "waivers": [
            {"index": n.index, "state": n.state.value, "matched": n.matched, "text": n.text()}
            for n in outcome.waivers
        ],
        "reports": [str(p) for p in outcome.reports],
    }
