"""What changed between two stored runs: failures that appeared, failures that went away (and those that
only went out of sight, NOT_ASSESSED now), and the facts added, removed or changed, kind by kind.

A finding is identified by (check id, target, subject); a fact by (kind, target, subject). Subjects are
the stable names normalizers and checks give things (`be-leaf2/vrf RDMA-B`), so the same VRF in two runs
lines up even though every row id differs."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine, select

from auditor.enums import Status
from auditor.store.models import Fact, Finding, Target
from auditor.store.reader import RunReader

FindingKey = tuple[str, str, str]  # check id, target ("" when none), subject
FactKey = tuple[str, str]  # target, subject

DEFAULT_LIMIT = 20
VALUE_LIMIT = 120  # characters of a changed value shown in a listing


@dataclass(frozen=True)
class FindingChange:
    check_id: str
    target: str | None
    subject: str
    severity: str
    before: Status | None  # None: no such finding in the first run
    after: Status | None  # None: no such finding in the second run
    found: str  # what the run that has it found (the second, else the first)
    waived: bool = False  # the failure carries a waiver in the second run

    def to_json(self) -> dict[str, Any]:
        return {
            "check_id": self.check_id,
            "target": self.target,
            "subject": self.subject,
            "severity": self.severity,
            "before": self.before.value if self.before else None,
            "after": self.after.value if self.after else None,
            "found": self.found,
            "waived": self.waived,
        }


@dataclass(frozen=True)
class FieldChange:
    field: str
    before: str
    after: str


@dataclass(frozen=True)
class FactChange:
    target: str
    subject: str
    fields: tuple[FieldChange, ...] = ()  # only for changed facts

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"target": self.target, "subject": self.subject}
        if self.fields:
            out["fields"] = [{"field": f.field, "before": f.before, "after": f.after} for f in self.fields]
        return out


@dataclass
class KindDiff:
    """One fact kind: complete counts, and the first `limit` subjects of each list (sorted)."""

    kind: str
    added: int = 0
    removed: int = 0
    changed: int = 0
    unchanged: int = 0
    added_sample: list[FactChange] = field(default_factory=list)
    removed_sample: list[FactChange] = field(default_factory=list)
    changed_sample: list[FactChange] = field(default_factory=list)

    @property
    def differs(self) -> bool:
        return bool(self.added or self.removed or self.changed)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "added": self.added,
            "removed": self.removed,
            "changed": self.changed,
            "unchanged": self.unchanged,
            "added_subjects": [c.to_json() for c in self.added_sample],
            "removed_subjects": [c.to_json() for c in self.removed_sample],
            "changed_subjects": [c.to_json() for c in self.changed_sample],
        }


@dataclass
class RunDiff:
    run_a: int
    run_b: int
    limit: int
    new_failures: list[FindingChange] = field(default_factory=list)
    resolved: list[FindingChange] = field(default_factory=list)  # FAIL before, PASS or gone now
    unassessed: list[FindingChange] = field(default_factory=list)  # FAIL before, no verdict now
    still_failing: int = 0
    facts: list[KindDiff] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "run_a": self.run_a,
            "run_b": self.run_b,
            "new_failures": [c.to_json() for c in self.new_failures],
            "resolved": [c.to_json() for c in self.resolved],
            "no_longer_assessed": [c.to_json() for c in self.unassessed],
            "still_failing": self.still_failing,
            "facts": [k.to_json() for k in self.facts if k.differs],
            "facts_unchanged_kinds": sorted(k.kind for k in self.facts if not k.differs),
            "listing_limit": self.limit,
        }


def _findings(engine: Engine, run_id: int) -> dict[FindingKey, Any]:
    query = select(
        Finding.check_id,
        Finding.target,
        Finding.subject,
        Finding.status,
        Finding.severity,
        Finding.found,
        Finding.waiver,
    ).where(Finding.run_id == run_id)
    out: dict[FindingKey, Any] = {}
    with engine.connect() as conn:
        for row in conn.execute(query):
            key = (row.check_id, row.target or "", row.subject)
            # the same key twice (a check reporting a subject per rule): keep the worst status
            if key not in out or Status(row.status) == Status.FAIL:
                out[key] = row
    return out


def _change(row: Any, before: Status | None, after: Status | None) -> FindingChange:
    return FindingChange(
        row.check_id, row.target, row.subject, row.severity, before, after, row.found, bool(row.waiver)
    )


def diff_findings(engine: Engine, run_a: int, run_b: int, out: RunDiff) -> None:
    a, b = _findings(engine, run_a), _findings(engine, run_b)
    for key in sorted(set(a) | set(b)):
        ra, rb = a.get(key), b.get(key)
        sa = Status(ra.status) if ra is not None else None
        sb = Status(rb.status) if rb is not None else None
        if sb == Status.FAIL and sa != Status.FAIL:
            out.new_failures.append(_change(rb, sa, sb))
        elif sa == Status.FAIL and sb == Status.FAIL:
            out.still_failing += 1
        elif sa == Status.FAIL and (sb is None or sb == Status.PASS):
            out.resolved.append(_change(rb if rb is not None else ra, sa, sb))
        elif sa == Status.FAIL and rb is not None:  # NOT_ASSESSED, ERROR, NOT_APPLICABLE: not a fix
            out.unassessed.append(_change(rb, sa, sb))


def _facts(engine: Engine, run_id: int) -> dict[str, dict[FactKey, list[str]]]:
    """kind -> (target, subject) -> the canonical JSON of each fact with that key (usually one)."""
    query = (
        select(Fact.kind, Target.name, Fact.subject, Fact.data)
        .join(Target, Target.id == Fact.target_id)
        .where(Fact.run_id == run_id)
    )
    out: dict[str, dict[FactKey, list[str]]] = defaultdict(lambda: defaultdict(list))
    with engine.connect() as conn:
        for kind, target, subject, data in conn.execution_options(yield_per=5000).execute(query):
            out[kind][(target, subject)].append(json.dumps(data, sort_keys=True, separators=(",", ":")))
    return out


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return text if len(text) <= VALUE_LIMIT else text[: VALUE_LIMIT - 1] + "…"


def field_changes(before: Iterable[str], after: Iterable[str]) -> tuple[FieldChange, ...]:
    """Top-level fields that differ between the (first) facts of one key in the two runs."""
    old = json.loads(next(iter(sorted(before)), "{}"))
    new = json.loads(next(iter(sorted(after)), "{}"))
    return tuple(
        FieldChange(k, _short(old.get(k)), _short(new.get(k)))
        for k in sorted(set(old) | set(new))
        if old.get(k) != new.get(k)
    )


def diff_facts(engine: Engine, run_a: int, run_b: int, limit: int) -> list[KindDiff]:
    a, b = _facts(engine, run_a), _facts(engine, run_b)
    out: list[KindDiff] = []
    for kind in sorted(set(a) | set(b)):
        ka, kb = a.get(kind, {}), b.get(kind, {})
        d = KindDiff(kind)
        added = sorted(set(kb) - set(ka))
        removed = sorted(set(ka) - set(kb))
        both = sorted(set(ka) & set(kb))
        changed = [k for k in both if sorted(ka[k]) != sorted(kb[k])]
        d.added, d.removed, d.changed = len(added), len(removed), len(changed)
        d.unchanged = len(both) - len(changed)
        cap = limit if limit > 0 else None
        d.added_sample = [FactChange(*k) for k in added[:cap]]
        d.removed_sample = [FactChange(*k) for k in removed[:cap]]
        d.changed_sample = [FactChange(*k, field_changes(ka[k], kb[k])) for k in changed[:cap]]
        out.append(d)
    return out


def diff_runs(engine: Engine, run_a: int, run_b: int, limit: int = DEFAULT_LIMIT) -> RunDiff:
    """Compare two runs of the same store. `limit` bounds the listed fact subjects per kind and list
    (0: no bound); finding lists and every count are complete."""
    RunReader(engine, run_a), RunReader(engine, run_b)  # both must exist: RunNotFound names the one missing
    out = RunDiff(run_a, run_b, limit)
    diff_findings(engine, run_a, run_b, out)
    out.facts = diff_facts(engine, run_a, run_b, limit)
    return out
