"""What the tier 1 checks share: the OOB intent in usable form, and which VRFs count as management.

Readings every T1 check applies the same way:
- The management VRFs are `intent.tiers.oob.vrfs` on any device.
- On a device of tier oob (an OOB switch), the default VRF is the OOB network itself: such a switch
  routes OOB space in its global table, so its default VRF counts as a management VRF too.
- A jump host is an address or prefix from `intent.tiers.oob.jump_hosts`; a source is "a jump host"
  only when it lies entirely inside one of them.
- OOB space is the declared OOB CIDRs plus, with evidence of AWS, the CIDRs of the VPCs and subnets the
  OOB tier's `aws` tags select (an OOB VPC is OOB space whether or not its CIDR was declared).
- Declared services (`intent.tiers.oob.services`, checks/oob_services.py) authorise traffic beyond the
  jump hosts; declared gateways (`intent.tiers.oob.gateways`) are where a management default route may go.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from auditor.config.models import OobTier
from auditor.enums import Tier
from auditor.facts import AwsSubnet, AwsVpc, FactRecord, Interface
from auditor.store.reader import StoredFact
from checks.base import CheckContext, TargetView
from checks.netutil import Network, address, inside, network, networks_of
from checks.oob_services import OobServices
from checks.vrf_names import VrfNames

# The management VRF each platform builds in for its management port (it can hold nothing else).
PLATFORM_MGMT_VRFS: dict[str, frozenset[str]] = {
    "nxos": frozenset({"management"}),
    "nxos_ssh": frozenset({"management"}),
    "sonic": frozenset({"mgmt"}),
    "cumulus": frozenset({"mgmt"}),
    "ios": frozenset({"mgmt-intf", "mgmt-vrf"}),
    "junos": frozenset({"mgmt_junos"}),
}


@dataclass(frozen=True)
class Oob:
    """The declared OOB network, parsed once per check run."""

    intent: OobTier
    nets: tuple[Network, ...]
    jump_nets: tuple[Network, ...]
    vrfs: frozenset[str]
    services: OobServices = field(default_factory=OobServices)
    gateway_nets: tuple[Network, ...] = ()
    gateway_ids: frozenset[str] = frozenset()
    names: VrfNames | None = None  # device VRF spellings -> declared names (intent.vrf_aliases)

    @classmethod
    def of(cls, ctx: CheckContext) -> Oob:
        """The declared OOB network, with the CIDRs of AWS VPCs/subnets tagged as OOB added to its space."""
        return ctx.derived("tier1-oob", lambda: cls._build(ctx))

    @classmethod
    def _build(cls, ctx: CheckContext) -> Oob:
        oob = ctx.intent.tiers.oob
        assert isinstance(oob, OobTier)  # the runner returns NOT_APPLICABLE when tier 1 is not declared
        nets = [*oob.networks()]
        for extra in tagged_aws_networks(ctx, oob):
            if inside(str(extra), nets) is None:
                nets.append(extra)
        gateways = [g for g in oob.gateways if network(g) is not None]
        return cls(
            oob,
            tuple(nets),
            tuple(networks_of(oob.jump_hosts)),
            frozenset(oob.vrfs),
            OobServices.of(ctx.intent),
            tuple(networks_of(gateways)),
            frozenset(g for g in oob.gateways if network(g) is None),
            VrfNames.of(ctx),
        )

    def is_gateway(self, next_hop: str | None) -> bool:
        """Whether a next hop (an address, or an AWS route target id) is a declared OOB gateway."""
        if not next_hop:
            return False
        if next_hop in self.gateway_ids:
            return True
        return address(next_hop) is not None and inside(next_hop, self.gateway_nets) is not None

    def is_mgmt_vrf(self, vrf: str, device_tier: Tier | None, device: str | None = None) -> bool:
        """`vrf` as `device` spells it (aliases made canonical when the device is given). A platform's
        built-in management VRF (NX-OS `management`, SONiC and Cumulus `mgmt`, IOS-XE `Mgmt-intf`/`Mgmt-vrf`,
        Junos `mgmt_junos`) is one whether or not the intent names it: it holds the management port only."""
        if device is not None and self.names is not None:
            platform = (self.names.platforms.get(device) or "").lower()
            if vrf.lower() in PLATFORM_MGMT_VRFS.get(platform, ()):
                return True
            vrf = self.names.canonical(device, vrf)
        return vrf in self.vrfs or (vrf == "default" and device_tier == Tier.OOB)

    def in_oob(self, prefix: str) -> bool:
        return inside(prefix, self.nets) is not None

    def is_jump_host(self, prefix: str) -> bool:
        return inside(prefix, self.jump_nets) is not None

    def jump_text(self) -> str:
        return ", ".join(str(n) for n in self.jump_nets) or "none declared"

    def cidr_text(self) -> str:
        return ", ".join(str(n) for n in self.nets)


def tagged_aws_networks(ctx: CheckContext, oob: OobTier) -> list[Network]:
    """CIDRs of the AWS VPCs and subnets that the OOB tier's `aws` tags select (empty without tags)."""
    if oob.aws is None:
        return []
    vpc_tags, subnet_tags = oob.aws.vpc_tags, oob.aws.subnet_tags
    out: list[str] = []
    for v in ctx.facts.of(AwsVpc):
        if vpc_tags and all(v.record.tags.get(k) == val for k, val in vpc_tags.items()):
            out += v.record.cidrs
    for s in ctx.facts.of(AwsSubnet):
        if (
            s.record.cidr
            and subnet_tags
            and all(s.record.tags.get(k) == val for k, val in subnet_tags.items())
        ):
            out.append(s.record.cidr)
    return networks_of(out)


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
