"""The check contract: typed frozen metadata, a pure evaluate() over one run's facts, typed findings."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import ClassVar, TypeVar, cast

from auditor.config.models import Intent
from auditor.enums import FactKind, Severity, Status, TargetStatus, Tier
from auditor.errors import PluginError
from auditor.facts import Coverage, FactRecord
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


class FactView:
    """Read-only, typed access to one run's facts, with the coverage that tells 'none' from 'not looked'."""

    def __init__(self, facts: Sequence[StoredFact[FactRecord]]) -> None:
        self._by_kind: dict[FactKind, list[StoredFact[FactRecord]]] = defaultdict(list)
        self._coverage: dict[FactKind, set[str]] = defaultdict(set)
        self._gaps: dict[FactKind, dict[str, str]] = defaultdict(dict)
        for f in reconcile(facts):
            if isinstance(f.record, Coverage) and f.record.gap:
                self._gaps[f.record.covers].setdefault(f.target, f.record.gap)
            elif isinstance(f.record, Coverage):
                self._coverage[f.record.covers].add(f.target)
            else:
                self._by_kind[f.kind].append(f)

    def of(self, model: type[R]) -> list[StoredFact[R]]:
        return cast(list[StoredFact[R]], list(self._by_kind.get(model.kind, ())))

    def covered(self, target: str, kind: FactKind) -> bool:
        return target in self._coverage.get(kind, set()) and target not in self._gaps.get(kind, {})

    def covering(self, kind: FactKind) -> set[str]:
        return self._coverage.get(kind, set()) - set(self._gaps.get(kind, {}))

    def gap(self, target: str, kind: FactKind) -> str | None:
        """Why `kind` is known NOT to be known on `target` (a failed command), if it is."""
        return self._gaps.get(kind, {}).get(target)


@dataclass(frozen=True)
class CheckContext:
    intent: Intent
    facts: FactView
    targets: tuple[TargetView, ...] = field(default=())
    _derived: dict[str, object] = field(default_factory=dict, compare=False, repr=False)

    def derived(self, key: str, build: Callable[[], V]) -> V:
        """A view that several checks derive from the same facts (interfaces per device, port classes),
        built by the first check that asks and shared with the others: facts do not change while the
        checks run. `key` names the view; one key, one kind of value."""
        if key not in self._derived:
            self._derived[key] = build()
        return cast(V, self._derived[key])

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
