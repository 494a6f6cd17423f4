"""Which AWS subnets serve models: the frontend tier's `aws` tags, per assessable AWS target.

Model-serving subnets are the subnets whose tags include `intent.tiers.frontend.aws.subnet_tags`,
inside VPCs whose tags include `vpc_tags` (when given); with only `vpc_tags`, every subnet of those
VPCs. Checks of their security groups, NACLs and routes share this module.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from auditor.enums import FactKind
from auditor.facts import AwsNetworkInterface, AwsSubnet, AwsVpc
from auditor.store.reader import StoredFact
from checks.address_space import AddressSpace, address_space
from checks.base import Check, CheckContext, Finding
from checks.netutil import Network, network

BASE_NEEDS = frozenset({FactKind.AWS_VPC, FactKind.AWS_SUBNET})


def tags_match(tags: Mapping[str, str], wanted: Mapping[str, str]) -> bool:
    return all(tags.get(k) == v for k, v in wanted.items())


@dataclass
class ServingScope:
    """One AWS target's model-serving subnets and the VPCs they (or the tags) put in scope."""

    target: str
    subnets: list[StoredFact[AwsSubnet]] = field(default_factory=list)
    vpcs: dict[str, StoredFact[AwsVpc]] = field(default_factory=dict)  # the frontend VPCs

    @property
    def subnet_ids(self) -> set[str]:
        return {s.record.subnet_id for s in self.subnets}


def serving_scopes(
    check: Check, ctx: CheckContext, needs: Iterable[FactKind]
) -> tuple[list[ServingScope], list[Finding]]:
    """Per assessable AWS target, its serving subnets; NOT_ASSESSED findings for the rest."""
    frontend = ctx.intent.tiers.frontend
    assert frontend is not None
    tags = frontend.aws
    if tags is None or (not tags.subnet_tags and not tags.vpc_tags):
        reason = "the intent names no model-serving subnets; declare intent.tiers.frontend.aws tags"
        return [], [check.not_assessed("model-serving subnets", reason)]
    ready, gaps = check.split_assessable(
        ctx, [t for t in ctx.targets if t.kind == "aws"], {*BASE_NEEDS, *needs}
    )
    scopes = {t.name: ServingScope(t.name) for t in ready}
    for vpc in ctx.facts.of(AwsVpc):
        scope = scopes.get(vpc.target)
        if scope is not None and tags.vpc_tags and tags_match(vpc.record.tags, tags.vpc_tags):
            scope.vpcs[vpc.record.vpc_id] = vpc
    all_vpcs = {(v.target, v.record.vpc_id): v for v in ctx.facts.of(AwsVpc)}
    for subnet in ctx.facts.of(AwsSubnet):
        scope = scopes.get(subnet.target)
        if scope is None:
            continue
        rec = subnet.record
        in_vpc = not tags.vpc_tags or rec.vpc_id in scope.vpcs
        if in_vpc and (not tags.subnet_tags or tags_match(rec.tags, tags.subnet_tags)):
            scope.subnets.append(subnet)
            owner = all_vpcs.get((subnet.target, rec.vpc_id))
            if not tags.vpc_tags and owner is not None:
                scope.vpcs.setdefault(rec.vpc_id, owner)
    out = [s for _, s in sorted(scopes.items()) if s.subnets]
    if ready and not out:
        wanted = ", ".join(f"{k}={v}" for k, v in {**tags.vpc_tags, **tags.subnet_tags}.items())
        reason = f"no subnet in {', '.join(t.name for t in ready)} carries the model-serving tags ({wanted})"
        gaps.append(check.not_assessed("model-serving subnets", reason))
    return out, gaps


def world(cidr: str | None) -> bool:
    """0.0.0.0/0 or ::/0: every address (CIS AWS 5.2/5.3 wording)."""
    return cidr is not None and cidr.endswith("/0")


@dataclass(frozen=True)
class Internet:
    """What counts as "the internet" for a security group or NACL rule: 0.0.0.0/0 and ::/0, and any CIDR
    holding public space as the intent defines it (checks/address_space: declared `external` ranges
    included), except the address space of the VPCs in the evidence (a VPC's own public IPv6 or BYOIP
    block is cloud-internal, not the internet) and the public addresses of its ENIs (Elastic IPs)."""

    space: AddressSpace
    cloud: tuple[Network, ...]

    def holds(self, cidr: str | None) -> bool:
        if cidr is None:
            return False
        if world(cidr):
            return True
        net = network(cidr)
        if net is None or not self.space.is_public(cidr):
            return False
        return not any(net.version == c.version and net.subnet_of(c) for c in self.cloud)  # type: ignore[arg-type]


def internet(ctx: CheckContext) -> Internet:
    """Built once per run and shared by the AWS checks."""

    def build() -> Internet:
        nets = {
            n
            for v in ctx.facts.of(AwsVpc)
            for c in [*v.record.cidrs, *v.record.ipv6_cidrs]
            if (n := network(c))
        }
        # the evidence's own public addresses (an ENI's Elastic IP, e.g. a NAT gateway's) are not strangers
        nets |= {n for e in ctx.facts.of(AwsNetworkInterface) if (n := network(e.record.public_ip or ""))}
        return Internet(address_space(ctx), tuple(sorted(nets, key=str)))

    return ctx.derived("aws-internet", build)


PROTOCOL_NAMES = {"-1": "all", "6": "tcp", "17": "udp", "1": "icmp", "58": "icmpv6"}


def protocol_name(protocol: str) -> str:
    return PROTOCOL_NAMES.get(protocol, protocol.lower())


def path_mtu_discovery(protocol: str, icmp_type: int | None) -> bool:
    """An ICMP error message that path MTU discovery needs from anywhere, which AWS documents as a rule for
    security groups and NACLs in front of load balancers: "destination unreachable" (ICMP type 3, code 4
    "fragmentation needed" among them) and ICMPv6 "destination unreachable" / "packet too big" (types 1, 2).
    An error message opens no connection, so admitting it from the internet is no opening. A rule for
    every ICMP type (-1, or no type) is not one of these."""
    proto = protocol_name(protocol)
    if proto == "icmp":
        return icmp_type == 3
    if proto == "icmpv6":
        return icmp_type in (1, 2)
    return False
