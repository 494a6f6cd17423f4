"""Rich terminal output of outcomes and findings."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from rich.markup import escape
from rich.table import Table

from auditor.cli.console import out
from auditor.enums import Severity, Status, WaiverState

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
MANY = 200  # more findings to show than this: the console prints a summary, the reports hold them all
WORST = 20  # findings the summary lists, worst first
_SEPARATORS = ("\n", "; ", ", ")
_STATUS_RANK = {
    Status.FAIL: 0,
    Status.ERROR: 1,
    Status.NOT_ASSESSED: 2,
    Status.PASS: 3,
    Status.NOT_APPLICABLE: 4,
}
_SEVERITY_RANK = {s.value: i for i, s in enumerate(Severity)}  # critical first

Shown = tuple[Status, bool, Any]  # status, waived, the finding row


def bounded(text: str, limit: int = FOUND_LIMIT, where: str | None = None) -> str:
    """A finding's text cut to about `limit` characters for the console: its first items whole (split at
    lines, then '; ', then ', ') and how many more there are, so one finding over thousands of flows or
    ports cannot flood a terminal or a log; `where` (default: the report) holds the full text."""
    text = text.strip()
    if len(text) <= limit:
        return text
    full = f"full text in {where or 'the report'}"
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
            return f"{joiner.join(shown)} ... and {more} more of {len(items)} ({full})"
    return f"{text[:limit]}... ({len(text)} characters; {full})"


def _shown(rows: Iterable[Any], only_problems: bool) -> Iterator[Shown]:
    for f in rows:
        status = Status(f.status)
        if only_problems and status in (Status.PASS, Status.NOT_APPLICABLE):
            continue
        yield status, bool(getattr(f, "waiver", None)), f


def _table(shown: list[Shown], title: str, where: str | None) -> Table:
    table = Table(title=title, show_lines=False, expand=True)
    table.add_column("status", overflow="fold")
    # a check id is never folded mid-word (grep, copy-paste); subjects and texts fold as they must
    widest = max((len(f.check_id) for _, _, f in shown), default=5)
    table.add_column("check", no_wrap=True, min_width=widest)
    table.add_column("subject", overflow="fold")
    table.add_column("found", overflow="fold")
    for status, waived, f in shown:
        label = f"[{STYLE[status]}]{status.value}[/]"
        if waived:  # an accepted risk: still a failure, but not one that fails the run
            label = f"[yellow]{status.value} (waived)[/]"
        table.add_row(label, escape(f.check_id), escape(f.subject), escape(bounded(f.found, where=where)))
    return table


def findings_table(rows: Iterable[Any], *, only_problems: bool = True, where: str | None = None) -> Table:
    return _table(list(_shown(rows, only_problems)), "Findings", where)


def _cell(text: str) -> str:
    return re.sub(r"[\t\r\n]+", " ", text).strip()


def _lines(shown: Iterable[Shown], where: str | None) -> list[str]:
    lines = []
    for status, waived, f in shown:
        label = f"{status.value} (waived)" if waived else status.value
        cells = (label, f.check_id, f.subject, bounded(f.found, where=where))
        lines.append("\t".join(_cell(c) for c in cells))
    return lines


def findings_lines(rows: Iterable[Any], *, only_problems: bool = True, where: str | None = None) -> list[str]:
    """One finding per line, tab-separated (status, check, subject, found), for output that is not a
    terminal: `grep T1-`, `cut -f2` and `awk -F'\t'` work on it."""
    return _lines(_shown(rows, only_problems), where)


def worst_first(shown: Iterable[Shown]) -> list[Shown]:
    """Unwaived before waived, FAIL before ERROR before NOT_ASSESSED, critical before info."""

    def rank(item: Shown) -> tuple[bool, int, int, str, str]:
        status, waived, f = item
        severity = _SEVERITY_RANK.get(str(getattr(f, "severity", "")), len(_SEVERITY_RANK))
        return waived, _STATUS_RANK[status], severity, f.check_id, f.subject

    return sorted(shown, key=rank)


def per_check(shown: Iterable[Shown]) -> list[tuple[str, str, Counter[str]]]:
    """(check id, severity, counts by status label) for each check with a finding shown, worst first."""
    counts: dict[str, Counter[str]] = {}
    severity: dict[str, str] = {}
    for status, waived, f in shown:
        counts.setdefault(f.check_id, Counter())[f"{status.value} (waived)" if waived else status.value] += 1
        severity[f.check_id] = str(getattr(f, "severity", "") or "-")
    order = sorted(
        counts, key=lambda c: (_SEVERITY_RANK.get(severity[c], len(_SEVERITY_RANK)), -counts[c]["FAIL"], c)
    )
    return [(c, severity[c], counts[c]) for c in order]


def _counts_text(counts: Counter[str]) -> str:
    return ", ".join(f"{n} {label}" for label, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def print_summary(shown: list[Shown], where: str | None) -> None:
    """Too many findings to list: counts per check, the WORST worst findings, and where all of them are.
    Piped, every line but the first and last is tab-separated: `per-check CHECK SEVERITY COUNTS`, then
    finding lines as print_findings writes them."""
    worst = worst_first(shown)[:WORST]
    full = where or "the reports"
    head = (
        f"{len(shown)} findings: too many to list (over {MANY}); per check, then the {len(worst)} worst; "
        f"every finding is in {full}"
    )
    tail = f"... {len(shown) - len(worst)} more findings not listed: see {full}"
    checks = per_check(shown)
    if not out.is_terminal:
        print(head)
        for check_id, severity, counts in checks:
            print("\t".join(("per-check", check_id, severity, _counts_text(counts))))
        for line in _lines(worst, where):
            print(line)
        print(tail)
        return
    out.print(escape(head), highlight=False, soft_wrap=True)
    table = Table(title="Findings per check", expand=True)
    table.add_column("check", no_wrap=True)
    table.add_column("severity")
    table.add_column("findings", overflow="fold")
    for check_id, severity, counts in checks:
        table.add_row(escape(check_id), severity, _counts_text(counts))
    out.print(table)
    out.print(_table(worst, f"The {len(worst)} worst findings (of {len(shown)})", where))
    out.print(escape(tail), highlight=False, soft_wrap=True)


def print_findings(rows: Iterable[Any], *, only_problems: bool = True, where: str | None = None) -> None:
    """A table on a terminal; plain tab-separated lines, one per finding, when piped or logged; a summary
    (print_summary) when there are more than MANY. `where` names the file that holds every full text."""
    shown = list(_shown(rows, only_problems))
    if len(shown) > MANY:
        print_summary(shown, where)
    elif out.is_terminal:
        out.print(_table(shown, "Findings", where))
    else:
        for line in _lines(shown, where):
            print(line)  # not through rich: it would expand the tabs to spaces


def print_waiver_notes(notes: list[WaiverNote]) -> None:
    """Waivers in force, and loudly the expired ones, so nobody forgets to renew or fix them."""
    for n in notes:
        if n.state is WaiverState.EXPIRED:
            out.print(f"[bold yellow]expired waiver[/]: {n.text()}", highlight=False)
        elif n.matched:
            out.print(f"[yellow]waived[/]: {n.text()}", highlight=False)


def full_text_report(paths: Iterable[object]) -> str | None:
    """The report a console line points to for full finding texts: the JSON report, else CSV, else any."""
    names = [str(p) for p in paths]
    for suffix in (".json", ".csv"):
        for name in names:
            if name.endswith(suffix):
                return name
    return names[0] if names else None


def print_outcome(engine: Engine, outcome: AuditOutcome) -> None:
    """The findings (a summary when many), the run's status line, waivers, chain head, evidence gaps and
    report paths; with --quiet only the status line, expired waivers and the evidence gaps (the run's
    errors)."""
    from auditor.cli.console import is_quiet
    from auditor.store.reader import RunReader

    quiet = is_quiet()
    counts = Counter(outcome.statuses)
    summary = ", ".join(f"[{STYLE[s]}]{counts.get(s, 0)} {s.value}[/]" for s in Status)
    reader = RunReader(engine, outcome.run_id)
    where = full_text_report(outcome.reports)
    if not quiet:
        print_findings(reader.findings(), where=where)
    out.print(f"run {outcome.run_id} [bold]{outcome.seal.status.value}[/]: {summary}", soft_wrap=True)
    expired = [n for n in outcome.waivers if n.state is WaiverState.EXPIRED]
    print_waiver_notes(expired if quiet else outcome.waivers)  # an expired waiver is never silenced
    if not quiet:
        # soft wrap: on a terminal too, the chain head stays one line to copy (the terminal folds it)
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
                f"  {escape(p.location)}: {escape(bounded(p.message, where=where))}",
                highlight=False,
                soft_wrap=True,
            )
        if len(problems) > 20:
            out.print(f"  ... and {len(problems) - 20} more (see {escape(where or 'the report')})")
    for path in [] if quiet else outcome.reports:
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
