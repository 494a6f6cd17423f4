"""`auditor spot DEVICE`: collect one device live and print its findings in seconds, without a full audit.

The device is looked up in the config's `sources.devices` and inventories; it is collected into a
throwaway SQLite store in a temporary directory (nothing is added to the team's store), and the checks
run on its facts alone. Findings about other targets are left out.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated

import typer

from auditor.cli.app import app
from auditor.cli.console import LiveProgress, console, out
from auditor.errors import UsageError


@app.command()
def spot(
    device: Annotated[str, typer.Argument(help="device name or host, as in sources.devices or an inventory")],
    config: Annotated[Path, typer.Option("--config", "-c", help="the audit config (auditor.yaml)")],
    check: Annotated[
        list[str] | None, typer.Option("--check", help="only these check ids (repeatable)")
    ] = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="no progress bar, no findings: the status lines only")
    ] = False,
) -> None:
    """Collect one device live and print its findings (exit code as for `audit`)."""
    from auditor.cli.console import is_quiet
    from auditor.cli.render import STYLE, print_findings
    from auditor.config.loader import load_config
    from auditor.config.models import Sources
    from auditor.enums import Status
    from auditor.pipeline.audit import run_audit
    from auditor.pipeline.checking import exit_code
    from auditor.store.engine import open_store
    from auditor.store.reader import RunReader
    from collectors.network.collector import DeviceCollector, DevicePlan

    cfg = load_config(config)
    plan = DeviceCollector().plan(cfg)
    match = [t for t in plan.targets if device in (t.name, t.payload.device.host)]
    if not match:
        known = ", ".join(sorted(t.name for t in plan.targets)[:20]) or "none"
        raise UsageError(
            f"no device named {device!r} in {config} or its inventories (known: {known})",
            hint="name a device of sources.devices or an inventory, by name or host",
        )
    quiet = quiet or is_quiet()
    payload: DevicePlan = match[0].payload
    with tempfile.TemporaryDirectory(prefix="auditor-spot-") as tmp:
        store = f"sqlite:///{Path(tmp) / 'spot.db'}"
        one = cfg.model_copy(update={"sources": Sources(devices=[payload.device]), "store": store})
        engine = open_store(store)
        with LiveProgress(enabled=not quiet and console.is_terminal) as progress:
            outcome = run_audit(one, engine=engine, progress=progress, workers=1, render=False)
        reader = RunReader(engine, outcome.run_id)
        (target,) = reader.targets()
        rows = [
            f
            for f in reader.findings()
            if (f.target == target.name or (check and f.target is None))
            and (not check or f.check_id in check)
        ]
        if not quiet:
            print_findings(rows, only_problems=False)
        line = f"{target.name}: collection [bold]{target.status}[/]"
        if target.reason:
            line += f" ({target.reason})"
        out.print(line, highlight=False)
        for note in target.notes or []:
            out.print(f"[yellow]note[/]: {note}", highlight=False)
        statuses = [Status(f.status) for f in rows]
        for s in Status:
            n = statuses.count(s)
            if n:
                out.print(f"[{STYLE[s]}]{n} {s.value}[/]", end="  ")
        out.print()
        engine.dispose()
    raise typer.Exit(exit_code(statuses, target.status == "ok"))
