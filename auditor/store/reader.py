"""Reads a stored run back: its record, targets, captures, typed facts, findings and problems."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sqlalchemy import Engine, func, select

from auditor.enums import FactKind
from auditor.errors import AuditorError
from auditor.facts import FactRecord, record_from_json
from auditor.store.models import Capture, Fact, Finding, Problem, Run, SealRecord, Target


class RunNotFound(AuditorError):
    hint = "list the runs with `auditor runs list`"


R_co = TypeVar("R_co", bound=FactRecord, covariant=True)


@dataclass(frozen=True, slots=True)
class StoredFact(Generic[R_co]):
    """A fact as checks see it: the typed record plus where it came from (row id, capture, hash).
    Slotted: a large run holds hundreds of thousands of these, and a per-instance dict each."""

    id: int
    kind: FactKind
    target: str
    capture_seq: int
    capture_sha256: str
    record: R_co
    capture_format: str = ""
    also_from: tuple[tuple[int, str], ...] = ()  # (seq, sha256) of captures whose values were merged in


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Building every fact of a run allocates millions of objects that all stay alive: each full garbage
    collection meanwhile walks them all again for nothing (a quarter of the load time at 2,000 switches)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


class RunReader:
    def __init__(self, engine: Engine, run_id: int) -> None:
        self.engine = engine
        self.run_id = run_id
        with engine.connect() as conn:
            run = conn.execute(select(Run).where(Run.id == run_id)).first()
        if run is None:
            raise RunNotFound(f"run {run_id} does not exist in this store")

    def run(self) -> Run:
        with self.engine.connect() as conn:
            return conn.execute(select(Run).where(Run.id == self.run_id)).scalars().one()

    def run_row(self) -> Any:
        with self.engine.connect() as conn:
            return conn.execute(select(Run.__table__).where(Run.id == self.run_id)).one()

    def targets(self) -> list[Any]:
        with self.engine.connect() as conn:
            return list(
                conn.execute(select(Target.__table__).where(Target.run_id == self.run_id).order_by(Target.id))
            )

    def capture_counts(self) -> dict[int, int]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(Capture.target_id, func.count())
                .where(Capture.run_id == self.run_id)
                .group_by(Capture.target_id)
            )
            return {int(t): int(n) for t, n in rows}

    def captures(self, *, with_content: bool = True) -> Iterator[Any]:
        cols = [c for c in Capture.__table__.c if with_content or c.name != "content"]
        query = (
            select(*cols, Target.name.label("target_name"))
            .join(Target, Target.id == Capture.target_id)
            .where(Capture.run_id == self.run_id)
            .order_by(Capture.seq)
        )
        with self.engine.connect() as conn:
            yield from conn.execution_options(yield_per=200).execute(query)

    def facts(self, kinds: set[FactKind] | None = None) -> list[StoredFact[FactRecord]]:
        query = (
            select(
                Fact.id,
                Fact.kind,
                Fact.data,
                Target.name,
                Capture.seq,
                Capture.content_sha256,
                Capture.format,
            )
            .join(Target, Target.id == Fact.target_id)
            .join(Capture, Capture.id == Fact.capture_id)
            .where(Fact.run_id == self.run_id)
            .order_by(Fact.id)
        )
        if kinds is not None:
            query = query.where(Fact.kind.in_([k.value for k in kinds]))
        out: list[StoredFact[FactRecord]] = []
        with self.engine.connect() as conn, _collector_paused():
            for fid, kind, data, target, seq, sha, fmt in conn.execute(query):
                fk = FactKind(kind)
                out.append(StoredFact(int(fid), fk, target, int(seq), sha, record_from_json(fk, data), fmt))
        return out

    def raw_facts(self, kind: FactKind | None = None) -> list[Any]:
        query = (
            select(
                Fact.id,
                Fact.kind,
                Fact.subject,
                Fact.data,
                Target.name.label("target"),
                Capture.seq,
                Capture.content_sha256,
            )
            .join(Target, Target.id == Fact.target_id)
            .join(Capture, Capture.id == Fact.capture_id)
            .where(Fact.run_id == self.run_id)
            .order_by(Fact.id)
        )
        if kind is not None:
            query = query.where(Fact.kind == kind.value)
        with self.engine.connect() as conn:
            return list(conn.execute(query))

    def findings(self) -> list[Any]:
        with self.engine.connect() as conn:
            return list(
                conn.execute(
                    select(Finding.__table__).where(Finding.run_id == self.run_id).order_by(Finding.id)
                )
            )

    def problems(self) -> list[Any]:
        query = (
            select(Problem.location, Problem.message, Problem.hint, Target.name.label("target"))
            .outerjoin(Target, Target.id == Problem.target_id)
            .where(Problem.run_id == self.run_id)
            .order_by(Problem.id)
        )
        with self.engine.connect() as conn:
            return list(conn.execute(query))


def list_runs(engine: Engine, limit: int = 50) -> list[Any]:
    with engine.connect() as conn:
        return list(conn.execute(select(Run.__table__).order_by(Run.id.desc()).limit(limit)))


def latest_run_id(engine: Engine) -> int | None:
    with engine.connect() as conn:
        value = conn.execute(select(func.max(Run.id))).scalar()
        return int(value) if value is not None else None


def seal_signers(engine: Engine, run_ids: list[int]) -> dict[int, str | None]:
    """Runs that have a seal record -> the signing key's fingerprint (None: sealed unsigned)."""
    if not run_ids:
        return {}
    with engine.connect() as conn:
        rows = conn.execute(
            select(SealRecord.run_id, SealRecord.key_fingerprint)
            .where(SealRecord.run_id.in_(run_ids))
            .order_by(SealRecord.resume)  # a resumed run: its latest seal is the one that proves it
        )
        return {int(r): fp for r, fp in rows}
