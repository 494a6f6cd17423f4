"""The Celery executor on the audit's side: one task per target, then wait for the store to say each
target is done. Workers write the evidence; this process registers the targets, beats the run's lease,
and checks and seals the run afterwards, as with the local executor."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import func, select

from auditor.distributed.app import DEFAULT_QUEUE, TASK_NAME, make_app
from auditor.distributed.store import require_shared_store
from auditor.distributed.task import TaskRef
from auditor.enums import TargetStatus
from auditor.normalize import Normalizer
from auditor.pipeline.collect import (
    DEFAULT_WORKERS,
    TargetOutcome,
    record_interrupted,
    register_targets,
)
from auditor.pipeline.progress import Progress
from auditor.pipeline.resume import StoredTarget
from auditor.registry import Registry
from auditor.store.models import Capture, Target
from auditor.store.writer import RunWriter
from collectors.base import Collector, TargetSpec

log = logging.getLogger(__name__)
POLL_SECONDS = 0.25
QUIET_WARNING_SECONDS = 60.0  # no target finished for this long: say that workers may be missing


@dataclass
class CeleryCollect:
    """A `Collect` executor (see auditor/pipeline/collect.py) that sends targets to Celery workers."""

    broker: str
    queue: str = DEFAULT_QUEUE
    base_dir: Path = Path(".")
    published_s: float = field(default=0.0, init=False)  # time spent sending the tasks (benchmarks)

    def __call__(
        self,
        targets: list[TargetSpec],
        collectors: dict[str, Collector],
        writer: RunWriter,
        normalizers: Registry[Normalizer],
        progress: Progress,
        workers: int = DEFAULT_WORKERS,
        resumed: dict[tuple[str, str], StoredTarget] | None = None,
    ) -> dict[str, TargetOutcome]:
        require_shared_store(writer.engine, "the celery executor")
        writer.shared = True  # from now on workers append; the seal takes the chain lock
        outcomes, _ = register_targets(targets, writer, resumed)
        todo = [t for t in targets if outcomes[t.name].status == TargetStatus.PENDING]
        waiting = {outcomes[t.name].target_id: t.name for t in todo}
        try:
            self._publish(writer.run_id, todo, outcomes)
            self._wait(writer, waiting, outcomes, progress)
        except BaseException:
            # Tasks still queued find the run no longer running and do nothing; the targets stay pending
            # with a reason, so `audit --resume` collects them (what a worker stored is kept).
            with writer.engine.connect() as conn:
                begun = {
                    waiting[int(tid)]
                    for tid in conn.execute(
                        select(Capture.target_id).where(Capture.target_id.in_(list(waiting))).distinct()
                    ).scalars()
                }
            record_interrupted(writer, outcomes, begun)
            raise
        self._count_captures(writer, outcomes)
        return outcomes

    def _publish(self, run_id: int, todo: list[TargetSpec], outcomes: dict[str, TargetOutcome]) -> None:
        app = make_app(self.broker)
        started = time.perf_counter()
        with app.producer_or_acquire() as producer:
            for t in todo:
                ref = TaskRef(run_id, outcomes[t.name].target_id, t.kind.value, t.name, str(self.base_dir))
                app.send_task(TASK_NAME, kwargs=ref.as_kwargs(), queue=self.queue, producer=producer)
        self.published_s = time.perf_counter() - started
        log.info(
            "run %s: %d tasks sent to queue %s in %.1f s", run_id, len(todo), self.queue, self.published_s
        )

    def _wait(
        self,
        writer: RunWriter,
        waiting: dict[int, str],
        outcomes: dict[str, TargetOutcome],
        progress: Progress,
    ) -> None:
        """Until every target sent out is finished in the store (the store, not the broker, is the truth:
        a task redelivered or run twice still finishes its target once)."""
        last_news = time.monotonic()
        while waiting:
            time.sleep(POLL_SECONDS)
            with writer.engine.connect() as conn:
                done = conn.execute(
                    select(Target.id, Target.status, Target.reason).where(
                        Target.id.in_(list(waiting)), Target.status != TargetStatus.PENDING.value
                    )
                ).all()
            for tid, status, reason in done:
                name = waiting.pop(int(tid))
                out = outcomes[name]
                out.status, out.reason = TargetStatus(status), reason
                progress.target_done(name, out.status == TargetStatus.OK)
            if done:
                last_news = time.monotonic()
            elif time.monotonic() - last_news > QUIET_WARNING_SECONDS:
                log.warning(
                    "run %s: no target finished for %.0f s, %d still to collect; is an `auditor worker` "
                    "consuming queue %s on broker %s?",
                    writer.run_id,
                    QUIET_WARNING_SECONDS,
                    len(waiting),
                    self.queue,
                    _safe(self.broker),
                )
                last_news = time.monotonic()

    def _count_captures(self, writer: RunWriter, outcomes: dict[str, TargetOutcome]) -> None:
        with writer.engine.connect() as conn:
            counts = dict(
                conn.execute(
                    select(Capture.target_id, func.count())
                    .where(Capture.run_id == writer.run_id)
                    .group_by(Capture.target_id)
                ).all()
            )
        for out in outcomes.values():
            out.captures = int(counts.get(out.target_id, 0))


def _safe(url: str) -> str:
    """A broker URL without its password, for messages."""
    from kombu.utils.url import maybe_sanitize_url  # noqa: PLC0415 - Celery's own, loaded with it

    return str(maybe_sanitize_url(url))
