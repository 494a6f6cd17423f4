"""The collector contract: plan targets from the config, then fetch raw captures, read-only."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, runtime_checkable

from auditor.capture import RawCapture
from auditor.config.models import AuditConfig
from auditor.enums import TargetKind, Tier
from auditor.normalize import Problem
from auditor.registry import Registry


@dataclass(frozen=True)
class TargetSpec:
    """One thing to collect from. `payload` is the collector's own (files to read, a device entry, ...)."""

    kind: TargetKind
    name: str
    collector: str
    platform: str | None = None
    tier: Tier | None = None
    role: str | None = None
    payload: Any = None
    notes: tuple[str, ...] = ()  # shown in the report with the target (e.g. an explicit host-key opt-out)


@dataclass
class Plan:
    targets: list[TargetSpec] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


@runtime_checkable
class Collector(Protocol):
    """Collectors only fetch. They never interpret and never change device or cloud state."""

    name: ClassVar[str]
    permissions: ClassVar[dict[str, list[str]]]  # e.g. {"device commands": [...], "iam": [...]}

    def plan(self, config: AuditConfig) -> Plan: ...

    def collect(self, target: TargetSpec) -> Iterator[RawCapture | Problem]:
        """Yield captures, and Problems for parts that could not be fetched; raise CollectionError when
        nothing of the target can be fetched (unreachable, auth, permission)."""
        ...


def _validate(name: str, entry: object) -> type[Collector]:
    if not isinstance(entry, type) or not hasattr(entry, "plan") or not hasattr(entry, "collect"):
        raise TypeError(f"collector {name!r} must be a class with plan() and collect()")
    return entry


def collector_registry() -> Registry[type[Collector]]:
    return Registry[type[Collector]]("auditor.collectors", validate=_validate).load_entry_points()
