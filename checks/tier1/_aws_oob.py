"""Which AWS route tables serve the OOB network, and where their default and public routes lead.

An OOB route table is one associated with an OOB subnet, or the main table of an OOB VPC (it serves
every subnet without an explicit association). A VPC or subnet is OOB when the OOB tier's `aws` tags
select it or its CIDR lies inside the declared OOB CIDRs.

A default or public route (public as `intent.addressing` defines it) leads to the internet when its
target is an internet, NAT, egress-only or carrier gateway, or a transit gateway whose route table for
this VPC's attachment itself sends default or public traffic onward (to another attachment, e.g. an
egress VPC) that is neither a declared OOB gateway nor an attachment declared to the OOB tier
(`intent.cloud.attachments`: the attachment's id, or the VPN connection or peering it carries). A route to
a declared OOB gateway (`intent.tiers.oob.gateways`: an
address of an appliance ENI or an AWS target id) is allowed, and so is a route to a peering or VPN gateway
declared to the OOB tier in `intent.cloud.attachments` (a VPN gateway also by the id of a VPN connection
that ends on it: the VPN to the on-site OOB network). Any other default route (an appliance, a VPN
gateway, a peering) that is not declared leaves the OOB network to an undeclared place: reported.
"""

from __future__ import annotations

from dataclasses import dataclass

from auditor.config.models import OobTier
from auditor.enums import Tier
from auditor.facts import (
    AwsGateway,
    AwsNetworkInterface,
    AwsRoute,
    AwsRouteTable,
    AwsSubnet,
    AwsTgwAttachment,
    AwsTgwRouteTable,
    AwsVpc,
    FactRecord,
)
from auditor.store.reader import StoredFact
from checks.address_space import AddressSpace
from checks.base import CheckContext
from checks.netutil import is_default_route
from checks.tier1._common import Oob

INTERNET_TARGETS = {"internet-gateway", "nat-gateway", "egress-only-internet-gateway", "carrier-gateway"}
INTERNET_PREFIXES = ("igw-", "nat-", "eigw-", "cagw-")


@dataclass(frozen=True)
class RouteVerdict:
    text: str  # what the route does, for the finding
    facts: tuple[StoredFact[FactRecord], ...] = ()
    unknown: bool = False  # the evidence does not say where it leads (NOT_ASSESSED, never PASS)


def _tags_match(tags: dict[str, str], wanted: dict[str, str]) -> bool:
    return bool(wanted) and all(tags.get(k) == v for k, v in wanted.items())


def oob_route_tables(
    ctx: CheckContext, oob: Oob, target: str
) -> dict[str, tuple[StoredFact[AwsRouteTable], str]]:
    """route table id -> (fact, why it serves OOB) for one AWS target."""
    intent: OobTier = oob.intent
    vpc_tags = intent.aws.vpc_tags if intent.aws else {}
    subnet_tags = intent.aws.subnet_tags if intent.aws else {}
    oob_vpcs: dict[str, str] = {}
    for v in ctx.facts.of(AwsVpc):
        if v.target != target:
            continue
        if _tags_match(v.record.tags, vpc_tags):
            oob_vpcs[v.record.vpc_id] = f"VPC {v.record.vpc_id} is tagged as OOB"
        elif v.record.cidrs and all(oob.in_oob(c) for c in v.record.cidrs):
            oob_vpcs[v.record.vpc_id] = f"VPC {v.record.vpc_id} ({', '.join(v.record.cidrs)}) is OOB space"
    oob_subnets: dict[str, tuple[str, str]] = {}  # subnet -> (vpc, why)
    for s in ctx.facts.of(AwsSubnet):
        if s.target != target:
            continue
        sub = s.record
        if _tags_match(sub.tags, subnet_tags):
            oob_subnets[sub.subnet_id] = (sub.vpc_id, f"subnet {sub.subnet_id} is tagged as OOB")
        elif sub.cidr and oob.in_oob(sub.cidr):
            oob_subnets[sub.subnet_id] = (sub.vpc_id, f"subnet {sub.subnet_id} ({sub.cidr}) is OOB space")
        elif sub.vpc_id in oob_vpcs:
            oob_subnets[sub.subnet_id] = (sub.vpc_id, oob_vpcs[sub.vpc_id])
    tables = [t for t in ctx.facts.of(AwsRouteTable) if t.target == target]
    associated = {sid for t in tables for sid in t.record.subnet_ids}
    out: dict[str, tuple[StoredFact[AwsRouteTable], str]] = {}
    for table in tables:
        rec = table.record
        why = next((oob_subnets[s][1] for s in rec.subnet_ids if s in oob_subnets), None)
        if why is None and rec.main:
            implicit = [s for s, (vpc, _) in oob_subnets.items() if vpc == rec.vpc_id and s not in associated]
            if rec.vpc_id in oob_vpcs:
                why = f"main table of {oob_vpcs[rec.vpc_id]}"
            elif implicit:
                why = f"main table serving {oob_subnets[implicit[0]][1]}"
        if why is not None:
            out[rec.route_table_id] = (table, why)
    return out


def judge_route(
    ctx: CheckContext, oob: Oob, space: AddressSpace, table: StoredFact[AwsRouteTable], route: AwsRoute
) -> RouteVerdict | None:
    """None when the route is fine; otherwise what is wrong with it."""
    dest = route.destination
    if dest.startswith("pl-") or route.target_type == "local" or (route.state or "active") == "blackhole":
        return None
    default = is_default_route(dest)
    if not default and not space.is_public(dest):
        return None
    kind = "default route" if default else "public route"
    target_id = route.target_id or ""
    if oob.is_gateway(target_id) or any(
        oob.is_gateway(ip) for ip in _eni_addresses(ctx, table.target, target_id)
    ):
        return None
    where = f"{kind} {dest} -> {route.target_type} {target_id}".rstrip()
    if route.target_type in INTERNET_TARGETS or target_id.startswith(INTERNET_PREFIXES):
        return RouteVerdict(f"{where}: to the internet")
    if route.target_type == "transit-gateway" or target_id.startswith("tgw-"):
        return _through_tgw(ctx, oob, space, table, target_id, where)
    if ctx.intent.cloud.attachment_tier(target_id, *_vpns_on(ctx, table.target, target_id)) == Tier.OOB:
        return None  # a peering or VPN gateway declared OOB (or whose VPN is): the OOB network's own way
    if default:
        return RouteVerdict(f"{where}: not a declared OOB gateway (intent.tiers.oob.gateways)")
    return RouteVerdict(f"{where}: public space through a gateway that is not declared")


def _vpns_on(ctx: CheckContext, target: str, gateway_id: str) -> list[str]:
    """The VPN connections that end on a VPN gateway (DescribeVpnConnections' VpnGatewayId)."""
    if not gateway_id.startswith("vgw-"):
        return []
    return [
        g.record.gateway_id
        for g in ctx.facts.of(AwsGateway)
        if g.target == target and g.record.gateway_type == "vpn-connection" and g.record.via == gateway_id
    ]


def _eni_addresses(ctx: CheckContext, target: str, target_id: str) -> list[str]:
    """The private addresses behind a route target: a network interface's, or those of the interfaces
    attached to an instance (an EC2 firewall or NAT instance: the CLI names the route by its InstanceId)."""
    if not target_id.startswith(("eni-", "i-")):
        return []
    return [
        ip
        for e in ctx.facts.of(AwsNetworkInterface)
        if e.target == target and target_id in (e.record.interface_id, e.record.attachment)
        for ip in e.record.private_ips
    ]


def _through_tgw(
    ctx: CheckContext, oob: Oob, space: AddressSpace, table: StoredFact[AwsRouteTable], tgw: str, where: str
) -> RouteVerdict:
    vpc = table.record.vpc_id
    attachments = [
        a
        for a in ctx.facts.of(AwsTgwAttachment)
        if a.record.transit_gateway_id == tgw and a.record.resource_id == vpc
    ]
    tgw_tables = {t.record.route_table_id: t for t in ctx.facts.of(AwsTgwRouteTable)}
    # what each attachment leads to (a VPN connection, a peering): declared by either id
    resources = {
        a.record.attachment_id: a.record.resource_id
        for a in ctx.facts.of(AwsTgwAttachment)
        if a.record.resource_id
    }
    for a in attachments:
        rt_id = a.record.route_table_id or next(
            (t for t, f in tgw_tables.items() if a.record.attachment_id in (f.record.associations or [])),
            None,
        )
        tgw_table = tgw_tables.get(rt_id or "")
        if tgw_table is None or tgw_table.record.routes is None:
            continue
        for r in tgw_table.record.routes:
            onward = [
                x
                for x in r.attachment_ids
                if x != a.record.attachment_id
                and x not in oob.gateway_ids
                and ctx.intent.cloud.attachment_tier(x, resources.get(x)) != Tier.OOB
            ]
            if (
                r.state != "blackhole"
                and onward
                and (is_default_route(r.destination) or space.is_public(r.destination))
            ):
                text = (
                    f"{where}: transit gateway route table {rt_id} sends {r.destination} onward to "
                    f"{', '.join(onward)}: out of the OOB network (not a declared OOB gateway)"
                )
                return RouteVerdict(text, (a, tgw_table))
        return RouteVerdict("", (a, tgw_table))  # the transit gateway keeps it inside: fine
    return RouteVerdict(
        f"{where}: the transit gateway's route table for {vpc} is not in the evidence", unknown=True
    )
