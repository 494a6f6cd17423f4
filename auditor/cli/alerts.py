"""`auditor alerts show|send`: the alerts of a stored run (what changed since the previous run of its scope),
to look at them, or to send them again after a sink was fixed. `auditor audit` sends them by itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from auditor.cli.app import RunOpt, StoreOpt, app, resolve_run, store_engine
from auditor.cli.console import out

alerts_app = typer.Typer(
    help="Alerts on what changed since the previous run of a scope.", no_args_is_help=True
)
app.add_typer(alerts_app, name="alerts")

ConfigArg = Annotated[Path, typer.Option("--config", "-c", help="the audit config (its alerts: block)")]


@alerts_app.command("show")
def alerts_show(
    config: ConfigArg,
    run: RunOpt = None,
    store: StoreOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object, for scripts")] = False,
) -> None:
    """The events a run's alerts carry (nothing is sent)."""
    from auditor.config.loader import load_config
    from auditor.errors import UsageError
    from auditor.ops.alerts.events import changes_since_previous
    from auditor.ops.alerts.message import event_line, summary

    cfg = load_config(config)
    if cfg.alerts is None:
        raise UsageError(f"{config} has no alerts: block", hint="see the README, Alerts and retention")
    engine = store_engine(config, store)
    alert = changes_since_previous(engine, resolve_run(engine, run), cfg.alerts)
    if as_json:
        print(json.dumps(alert.json()))
        return
    head = summary(alert) if alert.events else f"run {alert.run_id}: nothing to alert on"
    out.print(escape(head), highlight=False, soft_wrap=True)
    for event in alert.events:
        out.print(f"  {escape(event_line(event))}", highlight=False, soft_wrap=True)


@alerts_app.command("send")
def alerts_send(config: ConfigArg, run: RunOpt = None, store: StoreOpt = None) -> None:
    """Send a stored run's alerts to the config's sinks again; exit 1 if a sink could not be reached."""
    from auditor.config.loader import load_config
    from auditor.errors import UsageError
    from auditor.ops.alerts import send_alerts

    cfg = load_config(config)
    if cfg.alerts is None:
        raise UsageError(f"{config} has no alerts: block", hint="see the README, Alerts and retention")
    engine = store_engine(config, store)
    run_id = resolve_run(engine, run)
    deliveries = send_alerts(cfg, engine, run_id)
    if not deliveries:
        out.print(f"run {run_id}: nothing to alert on", highlight=False)
    for d in deliveries:
        state = f"sent (attempt {d.attempts})" if d.ok else f"FAILED after {d.attempts} attempt(s): {d.error}"
        out.print(escape(f"{d.sink}: {state}"), highlight=False, soft_wrap=True)
    raise typer.Exit(0 if all(d.ok for d in deliveries) else 1)
