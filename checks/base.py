"""The check contract: typed frozen metadata, a pure evaluate() over one run's facts, typed findings."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from typing import ClassVar, TypeVar, cast

from auditor.config.models import Intent
from auditor.enums import FactKind, Severity, Status, TargetStatus, Tier
from auditor.errors import PluginError
from auditor.facts import Coverage, FactRecord
from auditor.gcpause import paused_gc
from auditor.registry import Registry
from auditor.store.reader import StoredFact
from checks.reconcile import reconcile

CHECK_ID = re.compile(r"^(T1|T2|T3|X)-[A-Z0-9]+(-[A-Z0-9]+)*$")
R = TypeVar("R", bound=FactRecord)
V = TypeVar("V")


@dataclass(frozen=True)
class CheckMeta:
    """What a check is. The id is stable and the only link to the outside (mappings, waivers, reports)."""

    id: str
    title: str
    tier: Tier
    severity: Severity
    needs: frozenset[FactKind]
    rationale: str
    remediation: str

    def __post_init__(self) -> None:
        if not CHECK_ID.match(self.id):
            raise ValueError(f"check id {self.id!r} must look like T1-..., T2-..., T3-... or X-...")
        if not self.needs:
            raise ValueError(f"check {self.id} must declare the fact kinds it needs")


@dataclass(frozen=True)
class TargetView:
    name: str
    kind: str
    platform: str | None
    tier: Tier | None
    role: str | None
    status: TargetStatus
    reason: str | None


@dataclass(frozen=True)
class Finding:
    """One verdict on one subject: what was expected, what was found, and the facts it rests on."""

    status: Status
    subject: str
    message: str
    expected: str = ""
    found: str = ""
    target: str | None = None
    facts: tuple[StoredFact[FactRecord], ...] = ()


FactLoader = Callable[[FactKind], Sequence[StoredFact[FactRecord]]]


class FactView:
    """Read-only, typed access to one run's facts, with the coverage that tells 'none' from 'not looked'.

    Given the facts, it holds them all. Given a loader (one kind's facts, in row order), it reads each kind
    on first use and can release kinds no remaining check needs: a large run never holds every fact at
    once. A kind read again after its release is reloaded (correct, only slower) and counted in
    `reloads`. Reconciling per kind gives what reconciling the whole run gives: records merge only with
    records of their own kind (reconcile.py)."""

    def __init__(
        self,
        facts: Sequence[StoredFact[FactRecord]] = (),
        *,
        load: FactLoader | None = None,
        counts: Callable[[], Mapping[FactKind, int]] | None = None,
    ) -> None:
        self._load = load
        self._count = counts
        self._counted: dict[FactKind, int] | None = None
        self._by_kind: dict[FactKind, list[StoredFact[FactRecord]]] = {}
        self._coverage: dict[FactKind, set[str]] = defaultdict(set)
        self._gaps: dict[FactKind, dict[str, str]] = defaultdict(dict)
        self._coverage_read = load is None
        self._released: set[FactKind] = set()
        self._watchers: list[set[FactKind]] = []
        self.loads: Counter[FactKind] = Counter()  # kinds read from the loader, and how often
        self.reloads: Counter[FactKind] = Counter()  # ... of which after a release
        if load is None:
            self._index(reconcile(facts))

    def _index(self, facts: Iterable[StoredFact[FactRecord]]) -> None:
        for f in facts:
            if isinstance(f.record, Coverage) and f.record.gap:
                self._gaps[f.record.covers].setdefault(f.target, f.record.gap)
            elif isinstance(f.record, Coverage):
                self._coverage[f.record.covers].add(f.target)
            else:
                self._by_kind.setdefault(f.kind, []).append(f)

    def note_read(self, kinds: Iterable[FactKind]) -> None:
        """Count these kinds as read by the blocks being watched."""
        for watcher in self._watchers:
            watcher.update(kinds)

    def _kind(self, kind: FactKind) -> list[StoredFact[FactRecord]]:
        self.note_read((kind,))
        found = self._by_kind.get(kind)
        if found is not None or self._load is None:
            return found or []
        if kind == FactKind.COVERAGE:
            return []  # coverage records answer covered() and gap(), never of()
        self._read(kind)
        return self._by_kind.setdefault(kind, [])

    def _read(self, kind: FactKind) -> None:
        assert self._load is not None
        self.loads[kind] += 1
        if kind in self._released:
            self.reloads[kind] += 1
        # Hundreds of thousands of objects that all stay alive: a collection meanwhile would walk them
        # all again for nothing (a third of the time to read a large run's facts, measured).
        with paused_gc():
            self._index(reconcile(self._load(kind)))

    def _covers(self) -> None:
        if not self._coverage_read:
            self._coverage_read = True
            self._read(FactKind.COVERAGE)

    def of(self, model: type[R]) -> list[StoredFact[R]]:
        return cast(list[StoredFact[R]], list(self._kind(model.kind)))

    def covered(self, target: str, kind: FactKind) -> bool:
        self._covers()
        return target in self._coverage.get(kind, set()) and target not in self._gaps.get(kind, {})

    def covering(self, kind: FactKind) -> set[str]:
        self._covers()
        return self._coverage.get(kind, set()) - set(self._gaps.get(kind, {}))

    def gap(self, target: str, kind: FactKind) -> str | None:
        """Why `kind` is known NOT to be known on `target` (a failed command), if it is."""
        self._covers()
        return self._gaps.get(kind, {}).get(target)

    @property
    def loads_lazily(self) -> bool:
        """True: kinds are read on first use and may be released."""
        return self._load is not None

    def counts(self) -> Mapping[FactKind, int]:
        """How many stored facts of each kind the run has (before reconciling), for planning; {} if the
        loader did not say."""
        if self._load is None:
            return {k: len(v) for k, v in self._by_kind.items()}
        if self._counted is None:
            self._counted = dict(self._count()) if self._count is not None else {}
        return self._counted

    @property
    def held(self) -> frozenset[FactKind]:
        """The kinds whose facts are in memory now (coverage aside)."""
        return frozenset(self._by_kind)

    def release(self, kinds: Iterable[FactKind]) -> set[FactKind]:
        """Let go of these kinds' facts (a view that loads them; coverage is kept); the kinds let go."""
        if self._load is None:
            return set()
        gone: set[FactKind] = {
            k for k in kinds if k != FactKind.COVERAGE and self._by_kind.pop(k, None) is not None
        }
        self._released |= gone
        return gone

    @contextmanager
    def watching(self) -> Iterator[set[FactKind]]:
        """The kinds read while the block runs (what a derived view was built from)."""
        seen: set[FactKind] = set()
        self._watchers.append(seen)
        try:
            yield seen
        finally:
            self._watchers.pop()  # nested blocks end first


@dataclass(frozen=True)
class CheckContext:
    intent: Intent
    facts: FactView
    targets: tuple[TargetView, ...] = field(default=())
    _derived: dict[str, object] = field(default_factory=dict, compare=False, repr=False)
    _derived_from: dict[str, frozenset[FactKind]] = field(default_factory=dict, compare=False, repr=False)

    def derived(self, key: str, build: Callable[[], V]) -> V:
        """A view that several checks derive from the same facts (interfaces per device, port classes),
        built by the first check that asks and shared with the others: facts do not change while the
        checks run. `key` names the view; one key, one kind of value. The kinds it was built from are
        noted, so that releasing one of them drops the view too (it holds their facts)."""
        if key not in self._derived:
            with self.facts.watching() as kinds:
                value = build()
            self._derived[key] = value
            self._derived_from[key] = frozenset(kinds)
        else:
            # a view being built on this one rests on the same kinds
            self.facts.note_read(self._derived_from.get(key, ()))
        return cast(V, self._derived[key])

    def release(self, kinds: Iterable[FactKind]) -> None:
        """Let go of these kinds' facts, and of the derived views built from any of them; a later read
        loads (or builds) them again."""
        gone = self.facts.release(kinds)
        for key in [k for k, built_from in self._derived_from.items() if built_from & gone]:
            del self._derived[key]
            del self._derived_from[key]

    def targets_in_tier(self, tier: Tier, kind: str | None = None) -> list[TargetView]:
        return [t for t in self.targets if t.tier == tier and (kind is None or t.kind == kind)]

    def target(self, name: str) -> TargetView | None:
        return self._targets_by_name.get(name)

    @cached_property
    def _targets_by_name(self) -> dict[str, TargetView]:
        """Built once: checks look a target up per fact, and a scan per lookup is quadratic."""
        index: dict[str, TargetView] = {}
        for t in self.targets:
            index.setdefault(t.name, t)  # the first of a name wins, as a scan in order would
        return index

    def missing(self, target: TargetView, kinds: Iterable[FactKind]) -> list[FactKind]:
        """The needed kinds this target's evidence does not cover."""
        return [k for k in kinds if not self.facts.covered(target.name, k)]


class Check(ABC):
    """Subclass, set `meta`, implement evaluate(). No I/O, no clients: facts in, findings out."""

    meta: ClassVar[CheckMeta]

    @abstractmethod
    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]: ...

    # Helpers so every check words its findings the same way.
    def passed(
        self,
        subject: str,
        expected: str,
        found: str,
        *facts: StoredFact[FactRecord],
        target: str | None = None,
        message: str = "",
    ) -> Finding:
        return Finding(
            Status.PASS, subject, message or f"{self.meta.title}: holds", expected, found, target, facts
        )

    def failed(
        self,
        subject: str,
        expected: str,
        found: str,
        *facts: StoredFact[FactRecord],
        target: str | None = None,
        message: str = "",
    ) -> Finding:
        return Finding(
            Status.FAIL, subject, message or f"{self.meta.title}: violated", expected, found, target, facts
        )

    def not_assessed(
        self, subject: str, reason: str, *, target: str | None = None, expected: str = ""
    ) -> Finding:
        return Finding(Status.NOT_ASSESSED, subject, reason, expected, "no evidence", target)

    def split_assessable(
        self, ctx: CheckContext, targets: Iterable[TargetView], kinds: Iterable[FactKind]
    ) -> tuple[list[TargetView], list[Finding]]:
        """Split targets into those whose evidence covers `kinds`, and NOT_ASSESSED findings for the rest."""
        ready: list[TargetView] = []
        findings: list[Finding] = []
        kinds = list(kinds)
        for t in targets:
            missing = ctx.missing(t, kinds)
            if t.status == TargetStatus.FAILED or missing:
                named = [f"{k.value} ({g})" if (g := ctx.facts.gap(t.name, k)) else k.value for k in missing]
                why = t.reason or f"no evidence of {', '.join(named)}"
                findings.append(self.not_assessed(t.name, f"{t.name}: not assessed: {why}", target=t.name))
            else:
                ready.append(t)
        return ready, findings


def _validate_check(name: str, entry: object) -> Check:
    obj = entry() if isinstance(entry, type) else entry
    if not isinstance(obj, Check):
        raise TypeError(f"check {name!r} is not a Check")
    if obj.meta.id != name:
        raise TypeError(f"check entry point {name!r} holds check id {obj.meta.id!r}")
    return obj


def _check_id(entry: object) -> str:
    meta = getattr(entry, "meta", None)
    if not isinstance(meta, CheckMeta):
        raise PluginError(f"auditor.checks: {entry!r} has no CheckMeta")
    return meta.id


def check_registry() -> Registry[Check]:
    """Every installed check. Built-ins come as one list per tier package (e.g. `checks.tier1:CHECKS`)."""
    return Registry[Check]("auditor.checks", validate=_validate_check, key=_check_id).load_entry_points()
