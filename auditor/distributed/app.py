"""The Celery application: broker settings, the one task, and delivery guarantees.

Delivery: a task is acknowledged only after it ran (acks_late) and given back to the broker when its
worker dies (reject_on_worker_lost; on RabbitMQ the broker requeues it when the worker's connection drops,
on Redis when the visibility timeout passes); a worker reserves one task per slot (prefetch 1), so a
killed worker takes only its running tasks with it. Tasks are idempotent (task.py), so a redelivery
never stores anything twice. Results are not kept: the store says what each target became.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Any

from sqlalchemy.exc import OperationalError

from auditor.distributed.task import TaskRef, WorkerContext, collect_one

if TYPE_CHECKING:
    from celery import Celery  # type: ignore[import-untyped]

log = logging.getLogger(__name__)
TASK_NAME = "auditor.collect_target"
DEFAULT_QUEUE = "auditor.collect"
DEFAULT_BROKER = "amqp://guest:guest@127.0.0.1:5672//"
# Redis gives an unacknowledged task back after this long (a task that outlives it is run twice, which
# is harmless but wasted work): longer than any one target takes. RabbitMQ does not need it.
DEFAULT_VISIBILITY_TIMEOUT = 1800.0

_worker: dict[str, WorkerContext] = {}  # "context": this process's, once it is a worker


def broker_url(given: str | None) -> str:
    return given or os.environ.get("AUDITOR_BROKER") or DEFAULT_BROKER


def make_app(broker: str, *, visibility_timeout: float | None = None) -> Celery:
    """A Celery app on `broker` (amqp://... RabbitMQ or redis://... Redis) with the collect task."""
    from celery import Celery  # noqa: PLC0415 - Celery is imported only when it is used

    vt = visibility_timeout or float(os.environ.get("AUDITOR_VISIBILITY_TIMEOUT", DEFAULT_VISIBILITY_TIMEOUT))
    app = Celery("auditor", broker=broker, set_as_current=False)
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_serializer="json",
        accept_content=["json"],
        task_ignore_result=True,
        task_default_queue=DEFAULT_QUEUE,
        task_default_delivery_mode="persistent",
        worker_hijack_root_logger=False,
        worker_redirect_stdouts=False,
        broker_connection_retry_on_startup=True,
        broker_transport_options={
            "visibility_timeout": vt,
            # sweep for abandoned tasks often enough to notice one within the timeout
            "unacked_restore_interval": max(1, min(10, int(vt / 4))),
            "unacked_restore_throttle": 1,
        },
        worker_enable_remote_control=True,
    )

    @app.task(  # type: ignore[untyped-decorator,unused-ignore]
        name=TASK_NAME,
        acks_late=True,
        reject_on_worker_lost=True,
        autoretry_for=(OperationalError,),  # the store briefly unreachable: try again, idempotently
        retry_backoff=True,
        max_retries=5,
    )
    def collect_target(**ref: Any) -> str:
        context = _worker.get("context")
        if context is None:
            raise RuntimeError("this process is not an auditor worker (start it with `auditor worker`)")
        log.info("run %s: collecting %s", ref.get("run_id"), ref.get("name"))
        done = collect_one(context, TaskRef(**ref))
        log.info("run %s: %s", ref.get("run_id"), done)
        return done

    return app


def set_worker_context(context: WorkerContext) -> None:
    """The store and registries the tasks of this worker process use (set once, before it consumes)."""
    _worker["context"] = context
