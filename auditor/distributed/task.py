"""The work of one task: collect one target of a running run into the shared store, idempotently.

No Celery here (the Celery task in app.py calls `collect_one`), so the logic runs and is read on its own.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, select
from sqlalchemy.exc import OperationalError

from auditor.config.models import AuditConfig
from auditor.enums import RunStatus, TargetStatus
from auditor.normalize import Normalizer, normalizer_registry
from auditor.pipeline.collect import Item, TargetOutcome, fetch_items, settle, store_item
from auditor.registry import Registry
from auditor.store.lease import liveness
from auditor.store.models import Capture, Problem, Run, Target
from auditor.store.writer import RunWriter
from collectors.base import Collector, TargetSpec, collector_registry

log = logging.getLogger(__name__)
FLUSH_ITEMS = 32  # a target's captures land in batches this big (one locked transaction each)
FLUSH_BYTES = 16 << 20  # or this many bytes of content, whichever comes first
PLANS_KEPT = 8  # runs whose plans a worker keeps


@dataclass(frozen=True)
class TaskRef:
    """The task's message: which target of which run. No payload, no secret."""

    run_id: int
    target_id: int
    kind: str
    name: str
    base_dir: str  # the coordinator's config directory: relative paths in the config are relative to it

    def as_kwargs(self) -> dict[str, Any]:
        return dict(self.__dict__)


class WorkerContext:
    """What a worker process keeps between tasks: the store, the collectors and normalizers, and the plan
    of each run it serves (planned once per run from the run's stored config). Thread-safe."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.collectors: dict[str, Collector] = {n: cls() for n, cls in collector_registry().items()}
        self.normalizers: Registry[Normalizer] = normalizer_registry()
        self._plans: dict[int, dict[tuple[str, str], TargetSpec]] = {}
        self._lock = threading.Lock()

    def spec(self, ref: TaskRef, config: dict[str, Any]) -> TargetSpec | None:
        with self._lock:
            plan = self._plans.get(ref.run_id)
            if plan is None:
                plan = self._plan(config, Path(ref.base_dir))
                while len(self._plans) >= PLANS_KEPT:
                    self._plans.pop(next(iter(self._plans)))
                self._plans[ref.run_id] = plan
        return plan.get((ref.kind, ref.name))

    def _plan(self, config: dict[str, Any], base_dir: Path) -> dict[tuple[str, str], TargetSpec]:
        cfg = AuditConfig.model_validate(config).model_copy(update={"base_dir": base_dir})
        out: dict[tuple[str, str], TargetSpec] = {}
        for collector in self.collectors.values():
            for t in collector.plan(cfg).targets:
                out[(t.kind.value, t.name)] = t
        return out


def collect_one(ctx: WorkerContext, ref: TaskRef) -> str:
    """Collect one target into its run, unless the run is no longer running or the target is done.
    Returns what happened, for the worker's log."""
    with ctx.engine.connect() as conn:
        run = conn.execute(select(Run.__table__).where(Run.id == ref.run_id)).first()
        target = conn.execute(select(Target.status).where(Target.id == ref.target_id)).scalar()
    if run is None or target is None:
        return f"skipped: run {ref.run_id} or its target {ref.name!r} is not in this store"
    if run.status != RunStatus.RUNNING.value or run.sealed_at is not None or not liveness(run).alive:
        return f"skipped: run {ref.run_id} is no longer running"
    if target != TargetStatus.PENDING.value:
        return f"skipped: {ref.name} was already collected ({target})"
    writer = RunWriter(ctx.engine, ref.run_id, str(run.genesis))
    writer.shared = True
    appender = _Appender(writer, ref)
    try:
        return _collect(ctx, ref, dict(run.config or {}), appender)
    except OperationalError:
        raise  # the store is unreachable: the task is tried again (see app.py)
    except Exception as exc:  # contained per target, as in the local executor
        if not _running(ctx.engine, ref.run_id):  # sealed meanwhile: the store refused the rows
            return f"skipped: run {ref.run_id} stopped while {ref.name} was collected"
        log.exception("worker failed on %s", ref.name)
        appender.flush([Item(ref.name, done=True, failure=f"worker error: {type(exc).__name__}: {exc}")])
        return f"failed: {ref.name}: {type(exc).__name__}: {exc}"


def _collect(ctx: WorkerContext, ref: TaskRef, config: dict[str, Any], appender: _Appender) -> str:
    spec = ctx.spec(ref, config)
    if spec is None:
        why = (
            f"collector error: the run's config, planned on this worker, has no {ref.kind} {ref.name!r} "
            f"(config directory {ref.base_dir}): give workers the same files and paths as the audit"
        )
        appender.flush([Item(ref.name, done=True, failure=why)])
        return f"failed: {ref.name} not planned here"
    batch: list[Item] = []
    size = 0
    for item in fetch_items(ctx.collectors[spec.collector], spec, ctx.normalizers):
        batch.append(item)
        if item.processed is not None:
            size += len(item.processed.capture.content)
        if item.done or len(batch) >= FLUSH_ITEMS or size >= FLUSH_BYTES:
            if not appender.flush(batch):
                return f"skipped: {ref.name} was finished by another worker meanwhile"
            batch, size = [], 0
    return f"collected {ref.name}: {appender.stored} captures stored, {appender.skipped} already held"


def _running(engine: Engine, run_id: int) -> bool:
    with engine.connect() as conn:
        row = conn.execute(select(Run.status, Run.sealed_at).where(Run.id == run_id)).first()
    return row is not None and row.status == RunStatus.RUNNING.value and row.sealed_at is None


class _Appender:
    """Appends one target's items batch by batch, each under the run's chain lock, skipping what the
    store already holds for the target (a redelivered task, or a twin running at the same time).

    Reading what a target holds scans the run's captures (they are indexed by run, not by target), so it
    is read only when another attempt may have written: each attempt marks the target (its pending
    reason) when it first writes, and a batch that finds the mark is not its own reads the store again;
    an attempt alone on its target keeps count in memory."""

    def __init__(self, writer: RunWriter, ref: TaskRef) -> None:
        self.writer = writer
        self.ref = ref
        attempt = uuid.uuid4().hex[:8]
        self.mark = f"being collected by worker {socket.gethostname()} pid {os.getpid()} (attempt {attempt})"
        self.seen: Counter[tuple[str, ...]] = Counter()  # occurrences of each key in this attempt
        self.held: Counter[tuple[str, ...]] = Counter()  # what the store holds for the target, by key
        self.captures = 0  # the target's captures in the store
        self.first_problem: str | None = None  # the target's first problem in the store
        self.stored = 0
        self.skipped = 0

    def flush(self, batch: list[Item]) -> bool:
        """Write the batch; False if the target was finished meanwhile (nothing written)."""
        tid = self.ref.target_id
        with self.writer.shared_append() as conn:
            row = conn.execute(select(Target.status, Target.reason).where(Target.id == tid)).one()
            if row.status != TargetStatus.PENDING.value:
                return False
            if row.reason != self.mark:  # first batch, or another attempt wrote since our last one
                if row.reason is not None:
                    self._read_held(conn)
                self.writer.finish_target(tid, TargetStatus.PENDING, self.mark)
            for item in batch:
                key: tuple[str, ...] = ()
                if item.processed is not None:
                    c = item.processed.capture
                    key = ("capture", c.format, c.source, c.origin)
                elif item.problem is not None:
                    key = ("problem", item.problem.location(), item.problem.message)
                if key:
                    self.seen[key] += 1
                    if self.held[key] >= self.seen[key]:
                        self.skipped += key[0] == "capture"
                    else:
                        self._store(item, key)
                if item.done:
                    self._finish(item.failure)
        return True

    def _store(self, item: Item, key: tuple[str, ...]) -> None:
        out = TargetOutcome(self.ref.target_id, first_problem=self.first_problem)
        store_item(self.writer, item, out)
        self.held[key] += 1
        self.first_problem = out.first_problem
        if item.processed is not None:
            self.captures += 1
            self.stored += 1

    def _finish(self, failure: str | None) -> None:
        """The target's status from all it stored (this attempt and any before it), as the local
        executor would have given it."""
        tid = self.ref.target_id
        out = TargetOutcome(tid, captures=self.captures, first_problem=self.first_problem)
        problem = settle(out, failure)
        if problem is not None:
            key = ("problem", problem.location(), problem.message)
            self.seen[key] += 1
            if self.held[key] < self.seen[key]:
                self.writer.add_problems(tid, [problem])
                self.held[key] += 1
        self.writer.finish_target(tid, out.status, out.reason)

    def _read_held(self, conn: Connection) -> None:
        """What the store holds for the target: its captures and stand-alone problems by key, and its
        first problem (as the local executor names it)."""
        run, tid = self.ref.run_id, self.ref.target_id
        self.held = Counter()
        rows = conn.execute(
            select(Capture.format, Capture.source, Capture.origin).where(
                Capture.run_id == run, Capture.target_id == tid
            )
        ).all()
        for fmt, source, origin in rows:
            self.held[("capture", fmt, source, origin)] += 1
        self.captures = len(rows)
        problems = conn.execute(
            select(Problem.location, Problem.message, Problem.capture_id)
            .where(Problem.run_id == run, Problem.target_id == tid)
            .order_by(Problem.id)
        ).all()
        self.first_problem = f"{problems[0][0]}: {problems[0][1]}" if problems else None
        for location, message, capture_id in problems:
            if capture_id is None:
                self.held[("problem", location, message)] += 1
