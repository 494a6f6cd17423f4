"""`auditor diff RUN_A RUN_B` (or `diff --previous`): new failures, resolved ones, and the facts that
changed between two runs."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from auditor.cli.app import ConfigOpt, StoreOpt, app, store_engine
from auditor.cli.console import out
from auditor.errors import UsageError

if TYPE_CHECKING:
    from auditor.pipeline.diff import FindingChange, RunDiff


def _findings_table(title: str, rows: list[FindingChange], style: str) -> Table:
    table = Table(title=title, title_style=style, expand=True)
    for col in ("check", "target", "subject", "before → after", "found"):
        table.add_column(col, overflow="fold")
    for c in rows:
        before = c.before.value if c.before else "no finding"
        after = c.after.value if c.after else "no finding"
        if c.waived:
            after += " (waived)"
        table.add_row(c.check_id, c.target or "-", c.subject, f"{before} → {after}", c.found)
    return table


@app.command("diff")
def diff(
    run_a: Annotated[
        str | None,
        typer.Argument(help="the earlier run: an id, latest or latest~N (with --previous: the later run)"),
    ] = None,
    run_b: Annotated[str | None, typer.Argument(help="the later run (id, latest or latest~N)")] = None,
    previous: Annotated[
        bool,
        typer.Option(
            "--previous",
            help="RUN (default: latest) against the previous sealed run of the same scope, as a schedule "
            "compares each run with the one before",
        ),
    ] = False,
    config: ConfigOpt = None,
    store: StoreOpt = None,
    limit: Annotated[int, typer.Option(min=0, help="subjects listed per fact kind and list; 0: all")] = 20,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object on stdout, for scripts")] = False,
    fail_on_new: Annotated[
        bool, typer.Option("--fail-on-new", help="exit 1 when the later run has failures the earlier did not")
    ] = False,
) -> None:
    """What changed from RUN_A to RUN_B: new and resolved failures, and facts added, removed or changed.
    Runs are ids, `latest` or `latest~N`: `diff latest~1 latest`, or `diff --previous [RUN]`."""
    from auditor.cli.console import is_quiet
    from auditor.cli.runref import previous_run, resolve_run
    from auditor.pipeline.diff import diff_runs

    engine = store_engine(config, store)
    if previous:
        if run_b is not None:
            raise UsageError(
                "--previous takes at most one run (the later one)",
                hint="`auditor diff --previous latest`, or two runs without --previous",
            )
        later = resolve_run(engine, run_a)
        earlier = previous_run(engine, later)
    else:
        if run_a is None or run_b is None:
            raise UsageError(
                "diff needs two runs, or --previous",
                hint="`auditor diff 3 4`, `auditor diff latest~1 latest` or `auditor diff --previous`",
            )
        earlier, later = resolve_run(engine, run_a), resolve_run(engine, run_b)
    result = diff_runs(engine, earlier, later, limit)
    if as_json:
        print(json.dumps(result.to_json()))
    elif is_quiet():
        out.print(_summary(result), highlight=False, soft_wrap=True)
    else:
        _print(result)
    raise typer.Exit(1 if fail_on_new and result.new_failures else 0)


def _summary(r: RunDiff) -> str:
    return (
        f"run {r.run_a} → run {r.run_b}: [bold red]{len(r.new_failures)} new failure(s)[/], "
        f"[green]{len(r.resolved)} resolved[/], [yellow]{len(r.unassessed)} no longer assessed[/], "
        f"{r.still_failing} still failing"
    )


def _print(r: RunDiff) -> None:
    out.print(_summary(r), highlight=False, soft_wrap=True)
    if r.new_failures:
        out.print(_findings_table("New failures", r.new_failures, "bold red"))
    if r.resolved:
        out.print(_findings_table("Resolved", r.resolved, "green"))
    if r.unassessed:
        out.print(_findings_table("Failing before, not assessed now (not a fix)", r.unassessed, "yellow"))
    changed = [k for k in r.facts if k.differs]
    if not changed:
        out.print("facts: no change")
        return
    table = Table(title="Facts by kind", expand=True)
    for col in ("kind", "added", "removed", "changed", "unchanged", "subjects"):
        table.add_column(col, overflow="fold")
    for k in changed:
        lines = [f"[green]+ {c.target}: {c.subject}[/]" for c in k.added_sample]
        lines += [f"[red]- {c.target}: {c.subject}[/]" for c in k.removed_sample]
        for c in k.changed_sample:
            fields = "; ".join(f"{f.field}: {f.before} → {f.after}" for f in c.fields)
            lines.append(f"[yellow]~ {c.target}: {c.subject}[/] ({fields})")
        shown = len(k.added_sample) + len(k.removed_sample) + len(k.changed_sample)
        if shown < k.added + k.removed + k.changed:
            lines.append(f"… {k.added + k.removed + k.changed - shown} more (--limit 0 lists all)")
        table.add_row(
            k.kind, str(k.added), str(k.removed), str(k.changed), str(k.unchanged), "\n".join(lines)
        )
    out.print(table)
