"""The normalizer contract: a pure function from one (redacted) capture to typed facts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from auditor.capture import RawCapture
from auditor.enums import FactKind
from auditor.facts import Coverage, FactRecord
from auditor.registry import Registry

# What a switch's running config proves was looked at, whatever the platform.
RUNNING_CONFIG_COVERS = frozenset(
    {
        FactKind.DEVICE,
        FactKind.INTERFACE,
        FactKind.VRF,
        FactKind.VLAN,
        FactKind.VXLAN_VNI,
        FactKind.ROUTE,
        FactKind.BGP_NEIGHBOR,
        FactKind.ACL,
        FactKind.ACL_BINDING,
        FactKind.MGMT_SERVICE,
        FactKind.QOS_INTERFACE,
    }
)


@dataclass(frozen=True)
class Problem:
    """Something in the evidence that could not be read. The rest of the capture is still used."""

    origin: str
    message: str
    line: int | None = None
    hint: str = "fix or re-collect this evidence"

    def location(self) -> str:
        return f"{self.origin}:{self.line}" if self.line is not None else self.origin

    def __str__(self) -> str:
        return f"{self.location()}: {self.message}"


@dataclass
class NormalizeResult:
    facts: list[FactRecord] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    covers: set[FactKind] = field(default_factory=set)

    def add(self, fact: FactRecord) -> None:
        self.facts.append(fact)

    def coverage_facts(self, target: str, scope: str) -> list[Coverage]:
        return [Coverage(target=target, covers=k, scope=scope) for k in sorted(self.covers)]


Normalizer = Callable[[RawCapture], NormalizeResult]


def _validate_normalizer(name: str, entry: object) -> Normalizer:
    if not callable(entry):
        raise TypeError(f"normalizer {name!r} is not callable")
    return entry


def normalizer_registry() -> Registry[Normalizer]:
    return Registry[Normalizer]("auditor.normalizers", validate=_validate_normalizer).load_entry_points()
