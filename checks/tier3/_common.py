"""What the tier 3 checks share: which VRFs are backend VRFs, and who is a leaf, a spine, a port.

Backend VRFs: the names in `intent.tiers.backend.vrfs`, compared after the device's spelling is made
canonical (`intent.vrf_aliases`, SONiC's `Vrf` prefix: checks/vrf_names.py); "default" counts only on
backend devices (a frontend switch's global table is not the RDMA fabric), every other name counts on
any device (a backend VRF found on a frontend switch is still a backend VRF, and is judged).

Device roles come from the target (intent `device_roles`): a role containing "spine" is a spine; any
other backend device with a role containing "leaf" or "tor" is a leaf.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from auditor.config.models import BackendTier
from auditor.enums import Tier
from auditor.facts import FactRecord, Interface
from auditor.store.reader import StoredFact
from checks.base import CheckContext, TargetView
from checks.vrf_names import VrfNames

PORT_TYPES = {"ethernet", "port-channel"}


@dataclass(frozen=True)
class Backend:
    intent: BackendTier
    vrfs: frozenset[str]
    names: VrfNames

    @classmethod
    def of(cls, ctx: CheckContext) -> Backend:
        backend = ctx.intent.tiers.backend
        assert isinstance(
            backend, BackendTier
        )  # the runner returns NOT_APPLICABLE when tier 3 is not declared
        return cls(backend, frozenset(backend.vrfs), VrfNames.of(ctx))

    def is_backend_vrf(self, target: str, vrf: str, device_tier: Tier | None) -> bool:
        """Whether `vrf`, as `target` spells it, is a backend VRF there."""
        name = self.names.canonical(target, vrf)
        return name in self.vrfs and (name != "default" or device_tier == Tier.BACKEND)

    def canonical(self, target: str, vrf: str) -> str:
        return self.names.canonical(target, vrf)

    def vlan(self, vid: int) -> bool:
        return any(lo <= vid <= hi for lo, hi in self.intent.vlans)

    def tenant_vrfs(self) -> list[str]:
        """The tenant VRFs by canonical name (two declared spellings of one VRF are one)."""
        return sorted({self.names.intent.canonical_vrf(v) for v in self.vrfs} - {"default"})


def is_spine(role: str | None) -> bool:
    return role is not None and "spine" in role.lower()


def is_leaf(role: str | None) -> bool:
    return role is not None and not is_spine(role) and any(k in role.lower() for k in ("leaf", "tor"))


def device_targets(ctx: CheckContext) -> list[TargetView]:
    return [t for t in ctx.targets if t.kind == "device"]


def backend_devices(ctx: CheckContext) -> list[TargetView]:
    return ctx.targets_in_tier(Tier.BACKEND, "device")


def addresses(intf: Interface) -> list[str]:
    return [*intf.ipv4, *intf.ipv4_virtual, *intf.ipv6]


def unique(facts: Iterable[StoredFact[FactRecord]]) -> list[StoredFact[FactRecord]]:
    """Facts in order, each once (by row id)."""
    seen: dict[int, StoredFact[FactRecord]] = {}
    for f in facts:
        seen.setdefault(f.id, f)
    return list(seen.values())


@dataclass
class DeviceInterfaces:
    """One device's interfaces by name, with port-channel membership resolved."""

    by_name: dict[str, StoredFact[Interface]] = field(default_factory=dict)
    members: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))

    def ports(self) -> list[StoredFact[Interface]]:
        """Ethernet ports and port-channels (not management, loopback, SVI or tunnel interfaces)."""
        return [i for i in self.by_name.values() if i.record.type in PORT_TYPES]


def interfaces_by_device(ctx: CheckContext, names: set[str]) -> dict[str, DeviceInterfaces]:
    """The interfaces of the named devices (a name without any gets an empty DeviceInterfaces). Built
    once per context for every device and shared by the port checks, which must not change it."""
    every = ctx.derived("tier3.interfaces_by_device", lambda: _all_interfaces(ctx))
    return defaultdict(DeviceInterfaces, {name: every[name] for name in names if name in every})


def _all_interfaces(ctx: CheckContext) -> dict[str, DeviceInterfaces]:
    out: dict[str, DeviceInterfaces] = defaultdict(DeviceInterfaces)
    for i in ctx.facts.of(Interface):
        out[i.target].by_name[i.record.name] = i
        if i.record.port_channel:
            out[i.target].members[i.record.port_channel].append(i.record.name)
    return dict(out)
