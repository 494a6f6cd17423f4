"""`auditor scheduler`: the long-running process that audits each scope on its `schedules:` cron."""

from __future__ import annotations

import logging
import signal
import threading
from pathlib import Path
from typing import Annotated

import typer

from auditor.cli.app import StoreOpt, app

log = logging.getLogger("auditor.ops.scheduler")


@app.command()
def scheduler(
    config: Annotated[Path, typer.Option("--config", "-c", help="the config holding `schedules:`")],
    store: StoreOpt = None,
    metrics_port: Annotated[
        int | None,
        typer.Option(
            "--metrics-port",
            min=0,
            max=65535,
            help="serve Prometheus /metrics on this port (0: a free one)",
        ),
    ] = None,
    metrics_address: Annotated[
        str, typer.Option("--metrics-address", help="address /metrics listens on (0.0.0.0 in a container)")
    ] = "127.0.0.1",
    stop_timeout: Annotated[
        float,
        typer.Option(
            "--stop-timeout", min=1, help="seconds a stopped audit has to seal its run (then killed)"
        ),
    ] = 60.0,
) -> None:
    """Audit each scope of `schedules:` on its cron schedule until stopped. One audit per scope at a time
    (a trigger while it runs, here or elsewhere on the store, is skipped and logged); a failed audit is
    logged and the next trigger runs; SIGTERM or Ctrl-C interrupts a running audit as `auditor audit`
    does (its run sealed as interrupted) and exits 0."""
    from prometheus_client import start_http_server

    from auditor.ops.scheduler import Scheduler
    from auditor.ops.scheduler_jobs import load_jobs

    logging.getLogger("auditor.ops").setLevel(logging.INFO)
    stop = threading.Event()

    def stopping(signum: int, _frame: object) -> None:
        log.info("%s received: stopping", signal.Signals(signum).name)
        stop.set()

    signal.signal(signal.SIGTERM, stopping)  # instead of main()'s: the scheduler stops its children itself
    signal.signal(signal.SIGINT, stopping)
    sched = Scheduler(load_jobs(config, store), store=store, stop_timeout=stop_timeout)
    server = None
    if metrics_port is not None:
        server, _thread = start_http_server(metrics_port, metrics_address, registry=sched.registry)
        log.info("metrics on http://%s:%d/metrics", metrics_address, server.server_port)
    for job in sched.jobs:
        assert job.next_at is not None
        log.info(
            "[%s] cron %r (%s), next audit %s, config %s",
            job.label,
            job.schedule.cron,
            job.schedule.timezone,
            job.next_at.isoformat(timespec="seconds"),
            job.config,
        )
    try:
        sched.run(stop)
    finally:
        if server is not None:
            server.shutdown()
    log.info("scheduler stopped")
    raise typer.Exit(0)
