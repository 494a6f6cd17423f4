"""Reads a stored run back: its record, targets, captures, typed facts, findings and problems."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any, Generic, TypeVar, get_args

from pydantic import BaseModel
from sqlalchemy import Engine, Text, cast, func, select

from auditor.enums import FactKind
from auditor.errors import AuditorError
from auditor.facts import FactRecord, fact_model
from auditor.gcpause import paused_gc
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


_M = TypeVar("_M", bound=BaseModel)


def compact(record: _M) -> _M:
    """Share one fields-set between the records (and nested models) that set every field, as stored
    facts do. Pydantic keeps a set of the given field names per instance: 0.7 to 2.2 KB each, more than
    the record's values. Records are frozen, and a copy (model_copy) copies the set before changing it."""
    full, nested = _layout(type(record))
    if len(record.__pydantic_fields_set__) == len(full):
        object.__setattr__(record, "__pydantic_fields_set__", full)
    for name in nested:
        _compact_value(record.__dict__.get(name))
    return record


def _compact_value(value: object) -> None:
    if isinstance(value, BaseModel):
        compact(value)
    elif isinstance(value, list | tuple):
        for item in value:
            _compact_value(item)
    elif isinstance(value, dict):
        for item in value.values():
            _compact_value(item)


@cache
def _layout(model: type[BaseModel]) -> tuple[set[str], tuple[str, ...]]:
    """A model's shared full fields-set, and the fields whose type can hold a nested model."""
    nested = tuple(n for n, f in model.model_fields.items() if _holds_model(f.annotation))
    return set(model.model_fields), nested


def _holds_model(tp: object) -> bool:
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return True
    return any(_holds_model(arg) for arg in get_args(tp))


@dataclass(frozen=True, slots=True)
class _Parser:
    """How one kind's stored JSON becomes its (compacted) record, looked up once per kind, not per row."""

    kind: FactKind
    validate_json: Callable[[str], FactRecord]

    def __call__(self, text: str) -> FactRecord:
        return compact(self.validate_json(text))


@cache
def _parser(kind: str) -> _Parser:
    fk = FactKind(kind)
    return _Parser(fk, fact_model(fk).__pydantic_validator__.validate_json)


class RunReader:
    def __init__(self, engine: Engine, run_id: int) -> None:
        self.engine = engine
        self.run_id = run_id
        self._origin_maps: tuple[dict[int, str], dict[int, tuple[int, str, str]]] | None = None
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

    def facts(self, kinds: Iterable[FactKind] | None = None) -> list[StoredFact[FactRecord]]:
        """The run's facts (of `kinds`, if given) in row order. The JSON is read as text and parsed by the
        model itself (no dict in between); the target and capture strings are shared between facts."""
        query = select(Fact.id, Fact.kind, Fact.target_id, Fact.capture_id, cast(Fact.data, Text)).where(
            Fact.run_id == self.run_id
        )
        if kinds is not None:
            wanted = sorted({FactKind(k).value for k in kinds})
            if len(wanted) == 1:  # the (run_id, kind) index serves it
                query = query.where(Fact.kind == wanted[0])
            else:
                query = query.where(Fact.kind.in_(wanted))
        query = query.order_by(Fact.id)
        targets, captures = self.origins()
        parsers: dict[str, _Parser] = {}
        out: list[StoredFact[FactRecord]] = []
        with self.engine.connect() as conn, paused_gc():
            result = conn.execution_options(yield_per=2000).execute(query)
            for rows in result.partitions():
                for fid, kind, target_id, capture_id, text in rows:
                    parse = parsers.get(kind) or parsers.setdefault(kind, _parser(kind))
                    seq, sha, fmt = captures[capture_id]
                    record = parse(text)
                    out.append(StoredFact(int(fid), parse.kind, targets[target_id], seq, sha, record, fmt))
        return out

    def fact_counts(self) -> dict[FactKind, int]:
        """How many facts of each kind the run holds (one grouped count on the kind index)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(Fact.kind, func.count()).where(Fact.run_id == self.run_id).group_by(Fact.kind)
            )
            return {FactKind(k): int(n) for k, n in rows}

    def origins(self) -> tuple[dict[int, str], dict[int, tuple[int, str, str]]]:
        """Target id -> name and capture id -> (seq, sha256, format), read once: thousands of captures
        stand behind a million facts, and each fact then points at the same strings."""
        if self._origin_maps is None:
            with self.engine.connect() as conn:
                targets = {
                    int(i): name
                    for i, name in conn.execute(
                        select(Target.id, Target.name).where(Target.run_id == self.run_id)
                    )
                }
                captures = {
                    int(i): (int(seq), sha, fmt)
                    for i, seq, sha, fmt in conn.execute(
                        select(Capture.id, Capture.seq, Capture.content_sha256, Capture.format).where(
                            Capture.run_id == self.run_id
                        )
                    )
                }
            self._origin_maps = (targets, captures)
        return self._origin_maps

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
