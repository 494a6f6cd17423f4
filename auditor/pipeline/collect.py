"""Concurrent, fault-contained collection. Workers fetch and process; one thread writes the chain."""

from __future__ import annotations

import logging
import queue
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from auditor.enums import TargetStatus
from auditor.errors import AuditorError, CollectionError
from auditor.normalize import Normalizer, Problem
from auditor.pipeline.process import Processed, process_capture
from auditor.pipeline.progress import Progress
from auditor.registry import Registry
from auditor.store.writer import RunWriter
from collectors.base import Collector, TargetSpec

log = logging.getLogger(__name__)
DEFAULT_WORKERS = 16


@dataclass(frozen=True)
class _Item:
    target: str
    processed: Processed | None = None
    problem: Problem | None = None
    done: bool = False
    failure: str | None = None


@dataclass
class TargetOutcome:
    target_id: int
    status: TargetStatus
    reason: str | None
    captures: int


def collect_targets(
    targets: list[TargetSpec],
    collectors: dict[str, Collector],
    writer: RunWriter,
    normalizers: Registry[Normalizer],
    progress: Progress,
    workers: int = DEFAULT_WORKERS,
) -> dict[str, TargetOutcome]:
    """Collect every target; whatever one target does, the others go on and nothing fetched is lost."""
    ids = {
        t.name: writer.add_target(
            kind=t.kind.value,
            name=t.name,
            platform=t.platform,
            tier=t.tier.value if t.tier else None,
            role=t.role,
        )
        for t in targets
    }
    items: queue.Queue[_Item] = queue.Queue(maxsize=256)
    stop = threading.Event()

    def put(item: _Item) -> None:
        while not stop.is_set():
            try:
                items.put(item, timeout=0.2)
                return
            except queue.Full:
                continue

    def work(spec: TargetSpec) -> None:
        try:
            for got in collectors[spec.collector].collect(spec):
                if stop.is_set():
                    return
                if isinstance(got, Problem):
                    put(_Item(spec.name, problem=got))
                else:
                    put(_Item(spec.name, processed=process_capture(got, normalizers)))
            put(_Item(spec.name, done=True))
        except (CollectionError, AuditorError) as exc:
            put(_Item(spec.name, done=True, failure=str(exc)))
        except Exception as exc:  # contained per target
            log.exception("collector failed on %s", spec.name)
            put(_Item(spec.name, done=True, failure=f"collector error: {type(exc).__name__}: {exc}"))

    outcomes = {name: TargetOutcome(tid, TargetStatus.PENDING, None, 0) for name, tid in ids.items()}
    first_problem: dict[str, str] = {}
    remaining = len(targets)
    pool = ThreadPoolExecutor(max_workers=max(1, min(workers, len(targets) or 1)), thread_name_prefix="collect")
    try:
        for spec in targets:
            pool.submit(work, spec)
        while remaining:
            item = items.get()
            out = outcomes[item.target]
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
                if p.result.problems:
                    first_problem.setdefault(item.target, str(p.result.problems[0]))
            elif item.problem is not None:
                writer.add_problems(out.target_id, [item.problem])
                first_problem.setdefault(item.target, str(item.problem))
            if item.done:
                remaining -= 1
                _finish(writer, out, item.failure, first_problem.get(item.target))
                progress.target_done(item.target, out.status == TargetStatus.OK)
    except BaseException:
        stop.set()  # interrupted: workers stop at their next capture; what was written stays
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return outcomes


def _finish(writer: RunWriter, out: TargetOutcome, failure: str | None, problem: str | None) -> None:
    if failure is not None:
        out.status = TargetStatus.PARTIAL if out.captures else TargetStatus.FAILED
        out.reason = failure
        writer.add_problems(out.target_id, [Problem(failure.split(":")[0], failure)])
    elif out.captures == 0:
        out.status, out.reason = TargetStatus.FAILED, problem or "no evidence collected"
    elif problem is not None:
        out.status, out.reason = TargetStatus.PARTIAL, problem
    else:
        out.status = TargetStatus.OK
    writer.finish_target(out.target_id, out.status, out.reason)
