"""`auditor worker`: a Celery worker that collects targets of any run into the shared store."""

from __future__ import annotations

import logging
import os
import socket

from sqlalchemy import Engine, create_engine

from auditor.distributed.app import DEFAULT_QUEUE, make_app, set_worker_context
from auditor.distributed.store import require_shared_store
from auditor.distributed.task import WorkerContext
from auditor.store.engine import open_store

log = logging.getLogger(__name__)


def worker_engine(store: str, concurrency: int) -> Engine:
    """The store, migrated if new, with a connection for every task slot (appends wait on the chain
    lock holding their connection: a smaller pool would make slots time out waiting for one)."""
    require_shared_store(store, "auditor worker")
    engine = open_store(store)
    url = engine.url
    engine.dispose()
    return create_engine(url, pool_size=concurrency + 2, max_overflow=4, pool_pre_ping=True)


def run_worker(
    broker: str,
    store: str,
    *,
    concurrency: int,
    queue: str = DEFAULT_QUEUE,
    visibility_timeout: float | None = None,
) -> int:
    """Consume collect tasks from `queue` until stopped (SIGTERM/Ctrl-C: a warm shutdown that finishes
    the running tasks; SIGKILL: the broker gives them to another worker). Threads, not processes: a
    target waits on its device; run more workers (processes, machines) for more CPU."""
    engine = worker_engine(store, concurrency)
    set_worker_context(WorkerContext(engine))
    app = make_app(broker, visibility_timeout=visibility_timeout)
    logging.getLogger("auditor.distributed").setLevel(logging.INFO)
    worker = app.Worker(
        pool="threads",
        concurrency=concurrency,
        queues=[queue],
        hostname=f"auditor-{os.getpid()}@{socket.gethostname()}",
        without_gossip=True,
        without_mingle=True,
        quiet=True,
        loglevel="WARNING",
    )
    log.info("worker %s: %d slots on queue %s", worker.hostname, concurrency, queue)
    worker.start()
    return int(worker.exitcode or 0)
