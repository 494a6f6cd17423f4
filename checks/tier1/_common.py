"""What the tier 1 checks share: the OOB intent in usable form, and which VRFs count as management.

Readings every T1 check applies the same way:
- The management VRFs are `intent.tiers.oob.vrfs` on any device.
- On a device of tier oob (an OOB switch), the default VRF is the OOB network itself: such a switch
  routes OOB space in its global table, so its default VRF counts as a management VRF too.
- A jump host is an address or prefix from `intent.tiers.oob.jump_hosts`; a source is "a jump host"
  only when it lies entirely inside one of them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from auditor.config.models import OobTier
from auditor.enums import Tier
from auditor.facts import FactRecord, Interface
from auditor.store.reader import StoredFact
from checks.base import CheckContext, TargetView
from checks.netutil import Network, inside, network, networks_of


@dataclass(frozen=True)
class Oob:
    """The declared OOB network, parsed once per check run."""

    intent: OobTier
    nets: tuple[Network, ...]
    jump_nets: tuple[Network, ...]
    vrfs: frozenset[str]

    @classmethod
    def of(cls, ctx: CheckContext) -> Oob:
        oob = ctx.intent.tiers.oob
        assert isinstance(oob, OobTier)  # the runner returns NOT_APPLICABLE when tier 1 is not declared
        return cls(oob, tuple(oob.networks()), tuple(networks_of(oob.jump_hosts)), frozenset(oob.vrfs))

    def is_mgmt_vrf(self, vrf: str, device_tier: Tier | None) -> bool:
        return vrf in self.vrfs or (vrf == "default" and device_tier == Tier.OOB)

    def in_oob(self, prefix: str) -> bool:
        return inside(prefix, self.nets) is not None

    def is_jump_host(self, prefix: str) -> bool:
        return inside(prefix, self.jump_nets) is not None

    def jump_text(self) -> str:
        return ", ".join(str(n) for n in self.jump_nets) or "none declared"

    def cidr_text(self) -> str:
        return ", ".join(str(n) for n in self.nets)


def device_targets(ctx: CheckContext) -> list[TargetView]:
    return [t for t in ctx.targets if t.kind == "device"]


def addresses(intf: Interface) -> list[str]:
    """Every address configured on an interface, anycast gateway addresses included."""
    return [*intf.ipv4, *intf.ipv4_virtual, *intf.ipv6]


def subnet(address: str) -> Network | None:
    """The connected subnet of an interface address ("10.0.0.1/24" -> 10.0.0.0/24)."""
    return network(address)


def unique(facts: Iterable[StoredFact[FactRecord]]) -> list[StoredFact[FactRecord]]:
    """Facts in order, each once (by row id): a finding lists the evidence it rests on, not repeats."""
    seen: dict[int, StoredFact[FactRecord]] = {}
    for f in facts:
        seen.setdefault(f.id, f)
    return list(seen.values())
