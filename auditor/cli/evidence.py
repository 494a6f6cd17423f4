"""`auditor evidence export`: a run's stored captures as portable `*.captures.jsonl` files.

The files hold exactly what the store holds (already redacted), one target per file, with the run's
gaps (collection problems, target statuses), and an `auditor audit` whose `sources.files` points at them
re-audits the same evidence offline, exactly as complete as the run was.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from auditor.cli.app import ConfigOpt, RunOpt, StoreOpt, app, resolve_run, store_engine
from auditor.cli.console import out

evidence_app = typer.Typer(help="A run's stored evidence.", no_args_is_help=True)
app.add_typer(evidence_app, name="evidence")


@evidence_app.command("export")
def evidence_export(
    directory: Annotated[Path, typer.Argument(help="where to write <kind>/<target>.captures.jsonl")],
    run: RunOpt = None,
    config: ConfigOpt = None,
    store: StoreOpt = None,
) -> None:
    """Write every target's stored (redacted) captures of a run, one JSON object a line."""
    from auditor.errors import UsageError
    from collectors.export import export_run

    if directory.exists() and not directory.is_dir():
        raise UsageError(f"{directory} exists and is not a directory", hint="name a directory to write into")
    engine = store_engine(config, store)
    run_id = resolve_run(engine, run)
    summary = export_run(engine, run_id, directory)
    out.print(
        f"run {run_id}: exported {summary.captures} captures of {len(summary.files)} targets to {directory}",
        highlight=False,
    )
    if summary.incomplete or summary.gaps:
        out.print(
            f"with the run's gaps: {summary.gaps} collection problems; not collected completely: "
            f"{', '.join(summary.incomplete) or 'none'} (a re-audit of the export reports them again)",
            highlight=False,
        )
