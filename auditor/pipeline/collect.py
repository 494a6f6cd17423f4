"""Concurrent, fault-contained collection. Workers fetch and process; one thread writes the chain."""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Protocol

from auditor.enums import TargetStatus
from auditor.errors import AuditorError
from auditor.evidence.redact import REFUSED_PREFIX, RedactionRefused, redact_problems
from auditor.normalize import Normalizer, Problem
from auditor.pipeline.process import Processed, process_capture
from auditor.pipeline.progress import Progress
from auditor.pipeline.resume import StoredTarget
from auditor.registry import Registry
from auditor.store.writer import RunWriter
from collectors.base import Collector, TargetSpec

log = logging.getLogger(__name__)
DEFAULT_WORKERS = 16
QUEUE_ITEMS = 256  # bounded: workers wait when the writer is this far behind (memory stays bounded)
BATCH_ITEMS = 64  # at most this many queued items share one store transaction


@dataclass(frozen=True)
class Item:
    """One thing fetched from a target (a processed capture or a problem); `done` ends the target."""

    target: str
    processed: Processed | None = None
    problem: Problem | None = None
    done: bool = False
    failure: str | None = None


@dataclass
class TargetOutcome:
    target_id: int
    status: TargetStatus = TargetStatus.PENDING
    reason: str | None = None
    captures: int = 0
    first_problem: str | None = None


class _Collection:
    """One collection phase: a bounded pool of workers feeding a queue that the writer thread drains."""

    def __init__(
        self,
        collectors: dict[str, Collector],
        writer: RunWriter,
        normalizers: Registry[Normalizer],
        stored: dict[str, StoredTarget] | None = None,
    ) -> None:
        self.collectors = collectors
        self.writer = writer
        self.normalizers = normalizers
        self.items: queue.Queue[Item] = queue.Queue(maxsize=QUEUE_ITEMS)
        self.stop = threading.Event()
        # Resuming: what targets caught half-way already stored (not stored twice; see resume.py).
        self.stored = stored or {}
        self.names: dict[int, str] = {}

    def _name(self, out: TargetOutcome) -> str:
        return self.names.get(out.target_id, "")

    def put(self, item: Item) -> None:
        while not self.stop.is_set():
            try:
                self.items.put(item, timeout=0.2)
                return
            except queue.Full:
                continue

    def work(self, spec: TargetSpec) -> None:
        """Runs in a worker: fetch, redact, normalize; whatever happens, end with a `done` item."""
        for item in fetch_items(self.collectors[spec.collector], spec, self.normalizers, self.stop):
            self.put(item)

    def consume(self, item: Item, out: TargetOutcome) -> None:
        """Runs in the writer thread: append to the chain, in arrival order."""
        before = self.stored.get(item.target)
        if item.processed is not None and before is not None:
            c = item.processed.capture
            key = (c.format, c.source, c.origin)
            if before.captures[key] > 0:  # fetched again after a resume: the stored one stands
                before.captures[key] -= 1
                item = Item(item.target, done=item.done, failure=item.failure)
        if (
            item.problem is not None
            and before is not None
            and (item.problem.location(), item.problem.message) in before.problems
        ):
            item = Item(item.target, done=item.done, failure=item.failure)
        store_item(self.writer, item, out)
        if item.done:
            self.finish(out, item.failure)

    def drain(self) -> list[Item]:
        """The next item (waiting for it) and whatever else is already queued, up to BATCH_ITEMS."""
        batch = [self.items.get()]
        while len(batch) < BATCH_ITEMS:
            try:
                batch.append(self.items.get_nowait())
            except queue.Empty:
                break
        return batch

    def finish(self, out: TargetOutcome, failure: str | None) -> None:
        problem = settle(out, failure)
        if problem is not None:
            before = self.stored.get(self._name(out))
            if before is None or (problem.location(), problem.message) not in before.problems:
                self.writer.add_problems(out.target_id, [problem])
        self.writer.finish_target(out.target_id, out.status, out.reason)


def fetch_items(
    collector: Collector,
    spec: TargetSpec,
    normalizers: Registry[Normalizer],
    stop: threading.Event | None = None,
) -> Iterator[Item]:
    """Fetch, redact and normalize one target's captures, ending with a `done` item whatever happens
    (a collector's failure is contained: it becomes the done item's reason). Shared by the local
    workers and the distributed ones (auditor/distributed)."""
    failure: str | None = None
    try:
        for got in collector.collect(spec):
            if stop is not None and stop.is_set():
                return
            if isinstance(got, Problem):
                yield Item(spec.name, problem=redact_problems([got])[0])
                continue
            try:
                yield Item(spec.name, processed=process_capture(got, normalizers))
            except RedactionRefused as exc:  # never stored; the rest of the target goes on
                refused = Problem(exc.origin, REFUSED_PREFIX + exc.reason, exc.line, exc.hint)
                yield Item(spec.name, problem=refused)
    except AuditorError as exc:  # CollectionError and friends: the reason is already worded for users
        failure = str(exc)
    except Exception as exc:  # contained per target
        log.exception("collector failed on %s", spec.name)
        failure = f"collector error: {type(exc).__name__}: {exc}"
    yield Item(spec.name, done=True, failure=failure)


def store_item(writer: RunWriter, item: Item, out: TargetOutcome) -> None:
    """Write one fetched item (a capture with its facts, or a problem) and count it in the outcome."""
    if item.processed is not None:
        p = item.processed
        writer.ingest(
            out.target_id,
            p.capture,
            redactions=p.redactions,
            redaction_kinds=p.redaction_kinds,
            facts=[*p.result.facts, *p.result.coverage_facts(item.target, p.capture.format)],
            problems=p.result.problems,
        )
        out.captures += 1
        if p.result.problems and out.first_problem is None:
            out.first_problem = str(p.result.problems[0])
    elif item.problem is not None:
        writer.add_problems(out.target_id, [item.problem])
        out.first_problem = out.first_problem or str(item.problem)


def settle(out: TargetOutcome, failure: str | None) -> Problem | None:
    """A finished target's status and reason from what it stored; a failure's problem to record, if any."""
    if failure is not None:
        out.status = TargetStatus.PARTIAL if out.captures else TargetStatus.FAILED
        out.reason = failure
        return Problem(failure.split(":")[0], failure)
    if out.captures == 0:
        out.status, out.reason = TargetStatus.FAILED, out.first_problem or "no evidence collected"
    elif out.first_problem is not None:
        out.status, out.reason = TargetStatus.PARTIAL, out.first_problem
    else:
        out.status = TargetStatus.OK
    return None


class Collect(Protocol):
    """How a run's targets are collected: `collect_targets` (threads of this process, the default) or
    another executor (auditor/distributed: one Celery task per target)."""

    def __call__(
        self,
        targets: list[TargetSpec],
        collectors: dict[str, Collector],
        writer: RunWriter,
        normalizers: Registry[Normalizer],
        progress: Progress,
        workers: int = DEFAULT_WORKERS,
        resumed: dict[tuple[str, str], StoredTarget] | None = None,
    ) -> dict[str, TargetOutcome]: ...


def collect_targets(
    targets: list[TargetSpec],
    collectors: dict[str, Collector],
    writer: RunWriter,
    normalizers: Registry[Normalizer],
    progress: Progress,
    workers: int = DEFAULT_WORKERS,
    resumed: dict[tuple[str, str], StoredTarget] | None = None,
) -> dict[str, TargetOutcome]:
    """Collect every target; whatever one target does, the others go on and nothing fetched is lost.

    `resumed` (audit --resume): the run's stored targets. Finished ones are not collected again; one
    caught half-way is collected again without storing twice what it already stored."""
    outcomes, half_done = register_targets(targets, writer, resumed)
    todo = [t for t in targets if outcomes[t.name].status == TargetStatus.PENDING]
    run = _Collection(collectors, writer, normalizers, half_done)
    run.names = {o.target_id: name for name, o in outcomes.items()}
    pool = _Workers(run, todo, max(1, min(workers, len(todo) or 1)))
    remaining = len(todo)
    try:
        pool.start()
        while remaining:
            batch = run.drain()
            # One transaction per drained batch: each capture still lands with its facts (the batch
            # lands whole or not at all), in arrival order, and a target is reported done once stored.
            kept = {item.target: replace(outcomes[item.target]) for item in batch}
            try:
                with writer.batch():
                    for item in batch:
                        run.consume(item, outcomes[item.target])
            except BaseException:  # the batch did not land: neither did what it did to the outcomes
                outcomes.update(kept)
                raise
            for item in batch:
                if item.done:
                    remaining -= 1
                    progress.target_done(item.target, outcomes[item.target].status == TargetStatus.OK)
    except BaseException:
        run.stop.set()  # interrupted: workers stop at their next capture; what was written stays
        record_interrupted(writer, outcomes, pool.started())
        raise
    return outcomes


def register_targets(
    targets: list[TargetSpec], writer: RunWriter, resumed: dict[tuple[str, str], StoredTarget] | None
) -> tuple[dict[str, TargetOutcome], dict[str, StoredTarget]]:
    """Record the run's targets (all in one transaction); on a resume, take the stored ones as they are.
    Returns every target's outcome so far and the resumed targets caught half-way."""
    resumed = resumed or {}
    outcomes: dict[str, TargetOutcome] = {}
    half_done: dict[str, StoredTarget] = {}
    with writer.batch():  # one transaction for all targets, not one each
        for t in targets:
            before = resumed.get((t.kind.value, t.name))
            if before is None:
                tid = writer.add_target(
                    kind=t.kind.value,
                    name=t.name,
                    platform=t.platform,
                    tier=t.tier.value if t.tier else None,
                    role=t.role,
                    notes=list(t.notes) or None,
                )
                outcomes[t.name] = TargetOutcome(tid)
            elif before.finished:
                outcomes[t.name] = TargetOutcome(
                    before.id, before.status, before.reason, before.capture_count
                )
            else:
                outcomes[t.name] = TargetOutcome(
                    before.id, captures=before.capture_count, first_problem=before.first_problem
                )
                half_done[t.name] = before
    finished = sum(1 for o in outcomes.values() if o.status != TargetStatus.PENDING)
    if finished:
        log.info("resuming: %d of %d targets finished before, not collected again", finished, len(targets))
    return outcomes, half_done


class _Workers:
    """A fixed set of daemon threads taking targets from a queue.

    Not a ThreadPoolExecutor: the interpreter joins its threads at exit, so after Ctrl-C or SIGTERM one
    worker blocked on a silent device held the process until that device's deadline. These workers are
    abandoned on interrupt instead (a blocked one dies with the process; it writes nothing, the writer
    is this thread), and targets not yet started are never started."""

    def __init__(self, run: _Collection, todo: list[TargetSpec], size: int) -> None:
        self.run = run
        self.todo: queue.SimpleQueue[TargetSpec] = queue.SimpleQueue()
        for spec in todo:
            self.todo.put(spec)
        self.size = size
        self._started: set[str] = set()
        self._lock = threading.Lock()

    def start(self) -> None:
        for i in range(self.size):
            threading.Thread(target=self._loop, name=f"collect_{i}", daemon=True).start()

    def started(self) -> set[str]:
        """Names of the targets a worker has taken (on interrupt, the unfinished ones were caught
        half-way; the others were never started)."""
        with self._lock:
            return set(self._started)

    def _loop(self) -> None:
        while not self.run.stop.is_set():
            try:
                spec = self.todo.get_nowait()
            except queue.Empty:
                return
            with self._lock:
                self._started.add(spec.name)
            self.run.work(spec)


def record_interrupted(writer: RunWriter, outcomes: dict[str, TargetOutcome], started: set[str]) -> None:
    """Give every target the interruption left unfinished its reason. They stay pending, so
    `audit --resume` collects them again; a failure here must not hide the interrupt itself."""
    try:
        for name, out in sorted(outcomes.items()):
            if out.status != TargetStatus.PENDING:
                continue
            reason = (
                "interrupted while collecting: the run was stopped before this target's evidence was all in"
                if name in started
                else "interrupted: the run was stopped before this target was collected"
            )
            writer.finish_target(out.target_id, TargetStatus.PENDING, reason)
    except Exception:
        log.exception("could not record the interrupted targets")
