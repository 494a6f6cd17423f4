"""`auditor worker`: collect targets for audits started with `--executor celery`, on any machine."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from auditor.cli.app import app

BrokerOpt = Annotated[
    str | None,
    typer.Option(
        "--broker",
        help="Celery broker: amqp://USER:PASS@HOST:5672// (RabbitMQ) or redis://HOST:6379/N; "
        "default $AUDITOR_BROKER, else RabbitMQ on localhost",
    ),
]
QueueOpt = Annotated[
    str, typer.Option("--queue", help="the broker queue the audit sends its targets to (same on both sides)")
]


@app.command()
def worker(
    broker: BrokerOpt = None,
    store: Annotated[
        str | None,
        typer.Option("--store", help="the shared PostgreSQL store (default: $AUDITOR_STORE)"),
    ] = None,
    concurrency: Annotated[
        int, typer.Option("--concurrency", min=1, max=512, help="targets collected at once (threads)")
    ] = 16,
    queue: QueueOpt = "auditor.collect",
    visibility_timeout: Annotated[
        float | None,
        typer.Option(
            "--visibility-timeout",
            min=1,
            help="Redis only: seconds after which a task whose worker vanished is given to another "
            "(default 1800; longer than any one target takes)",
        ),
    ] = None,
) -> None:
    """Run a collection worker: it takes targets from the broker, collects them with the credentials of
    this machine's environment, and writes their evidence to the shared PostgreSQL store.

    Stop it with SIGTERM or Ctrl-C (it finishes its running targets); a worker that dies has its targets
    given to another."""
    from auditor.distributed.app import broker_url
    from auditor.distributed.worker import run_worker
    from auditor.errors import UsageError

    url = store or os.environ.get("AUDITOR_STORE")
    if not url:
        raise UsageError(
            "no store given: a worker writes to the audit's shared store",
            hint="pass --store postgresql+psycopg://USER@HOST/DB or set AUDITOR_STORE",
        )
    code = run_worker(
        broker_url(broker), url, concurrency=concurrency, queue=queue, visibility_timeout=visibility_timeout
    )
    raise typer.Exit(code)
