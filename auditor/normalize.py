"""The normalizer contract: a pure function from one (redacted) capture to typed facts."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points

from auditor.capture import RawCapture
from auditor.enums import FactKind
from auditor.errors import PluginError
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
    # Kinds this capture shows are NOT known on its target, and why (a failed command whose answer the
    # running config cannot stand in for, such as the route table): uncovered whatever else covers them.
    gaps: dict[FactKind, str] = field(default_factory=dict)

    def add(self, fact: FactRecord) -> None:
        self.facts.append(fact)

    def coverage_facts(self, target: str, scope: str) -> list[Coverage]:
        covered = [Coverage(target=target, covers=k, scope=scope) for k in sorted(self.covers)]
        return covered + [
            Coverage(target=target, covers=k, scope=scope, gap=why) for k, why in sorted(self.gaps.items())
        ]


Normalizer = Callable[[RawCapture], NormalizeResult]


def _validate_normalizer(name: str, entry: object) -> Normalizer:
    if not callable(entry):
        raise TypeError(f"normalizer {name!r} is not callable")
    return entry


class NormalizerRegistry(Registry[Normalizer]):
    """Normalizers by format, registered through entry points like every plugin, but each imported only
    when a capture of its format first arrives: the parsers behind them (ciscoconfparse2, TextFSM,
    DuckDB, ...) cost seconds of start-up, and an audit of one platform needs one or two of them.

    Thread-safe: collection workers ask for normalizers concurrently. A plugin that cannot be imported
    fails the captures of its format (each gets a Problem naming the plugin), not the whole run."""

    def __init__(self) -> None:
        super().__init__("auditor.normalizers", validate=_validate_normalizer)
        self._pending: dict[str, EntryPoint] = {}
        self._platform_of: dict[str, str] = {}  # capture format -> the network platform that reads it
        self._lock = threading.Lock()

    def load_entry_points(self) -> NormalizerRegistry:
        """Note every entry point of the group, and the capture formats each registered network platform
        declares (its record names them as "module:function"); nothing is imported yet (see `get`)."""
        from collectors.platforms.registry import platforms  # noqa: PLC0415 - core loads plugins lazily

        found = list(entry_points(group=self.group))
        for name, platform in platforms().items():
            found += [EntryPoint(fmt, target, self.group) for fmt, target in platform.normalizers.items()]
            self._platform_of.update(dict.fromkeys(platform.normalizers, name))
        for ep in sorted(found, key=lambda e: e.name):
            if ep.name not in self._entries and ep.name not in self._pending:
                self._pending[ep.name] = ep
        return self

    def get(self, name: str) -> Normalizer:
        if name in self._entries:
            return self._entries[name]
        with self._lock:
            ep = self._pending.get(name)
            if ep is not None and name not in self._entries:
                try:
                    obj = ep.load()
                except Exception as exc:
                    raise PluginError(f"{self.group}: cannot load {name!r} from {ep.value}: {exc}") from exc
                if name in self._platform_of:  # error and not-configured replies are answered first
                    obj = _gated(self._platform_of[name], name, obj)
                self.register(name, obj)
                del self._pending[name]
        return super().get(name)

    def load_all(self) -> NormalizerRegistry:
        """Import every registered normalizer now (a broken plugin raises PluginError naming it)."""
        for name in list(self._pending):
            self.get(name)
        return self

    def __contains__(self, name: object) -> bool:
        return name in self._entries or name in self._pending

    def __iter__(self) -> Iterator[str]:
        return iter(sorted({*self._entries, *self._pending}))

    def __len__(self) -> int:
        return len(self._entries) + len(self._pending)

    def items(self) -> list[tuple[str, Normalizer]]:
        self.load_all()
        return super().items()


def normalizer_registry() -> NormalizerRegistry:
    return NormalizerRegistry().load_entry_points()


def _gated(platform: str, fmt: str, normalize: Normalizer) -> Normalizer:
    from collectors.platforms.registry import get  # noqa: PLC0415 - core loads plugins lazily
    from collectors.platforms.replies import gate  # noqa: PLC0415

    return gate(get(platform), fmt, normalize)
