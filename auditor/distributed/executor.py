"""Choosing the collection executor from the command line (`auditor audit --executor`)."""

from __future__ import annotations

from auditor.config.models import AuditConfig
from auditor.distributed.store import require_shared_store
from auditor.errors import UsageError
from auditor.pipeline.collect import Collect

EXECUTORS = ("local", "celery")


def executor_for(name: str, config: AuditConfig, broker: str | None, queue: str) -> Collect | None:
    """None for the local executor (threads in this process, the default); the Celery executor
    otherwise, after refusing a store the workers cannot share (before the store is opened)."""
    if name == "local":
        return None
    if name != "celery":
        raise UsageError(f"unknown executor {name!r}", hint=f"use one of: {', '.join(EXECUTORS)}")
    from auditor.distributed.app import broker_url  # noqa: PLC0415 - no Celery import until it is used
    from auditor.distributed.coordinator import CeleryCollect  # noqa: PLC0415

    require_shared_store(config.store_url(), "the celery executor")
    return CeleryCollect(broker_url(broker), queue, config.base_dir)
