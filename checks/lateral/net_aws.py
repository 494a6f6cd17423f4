"""AWS zones (one per subnet) and the links routing, NACLs and security groups allow.

Leaving subnet A: A's security groups (egress) and NACL (egress) must allow; the subnet's route table
(explicit association, else the VPC's main table) is matched longest prefix first. `local` lands in the
VPC's other subnets, a peering connection in the peer VPC's subnets, a transit gateway follows the TGW
route table its VPC attachment is associated with (to a VPC attachment's subnets, or out of the
evidence for VPN / Direct Connect / peering attachments). Landing in subnet B passes B's NACL (ingress)
and security groups (ingress). From the internet (the public space of the intent's address space), a
subnet whose table routes to an internet gateway is reachable through the same admission. A NACL's
return-traffic rule (`intent.cloud.nacl_return_traffic`, tcp 1024-65535 from anywhere) stays an allow
here: the stateful security groups behind it decide, so a path through it is a real one (a group open on
8443 to the internet is reachable through that rule).
An attachment declared to tier 1 or 3 in `intent.cloud.attachments` (a TGW attachment, a VPN connection
or gateway, a peering) leads to that tier whatever the route's prefix: a route to it reaches the tier,
when what lies behind it is not in the evidence (a VPN, Direct Connect, another account's VPC). A VPC
attachment or peering whose VPC's subnets are in the evidence is walked into instead, like any other:
its subnets are of the declared tier (unless their tags say otherwise) and their NACLs and security groups
decide whether the route is a path.
A transit gateway route table whose routes are not in the evidence leaves the walk there, like a
missing table. Prefix-list routes and gateway endpoints are not modelled.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from auditor.enums import Tier
from auditor.facts import (
    AwsGateway,
    AwsNetworkAcl,
    AwsNetworkInterface,
    AwsRouteTable,
    AwsSecurityGroup,
    AwsSubnet,
    AwsTgwAttachment,
    AwsTgwRouteTable,
    AwsVpc,
)
from auditor.store.reader import StoredFact
from checks.address_space import AddressSpace
from checks.lateral.addresses import IPSet, union_all
from checks.lateral.aws_filters import nacl_entries, sg_entries
from checks.lateral.conns import ConnSet
from checks.lateral.filters import Box, Decision, Entry, combine, first_match, union_allow
from checks.lateral.graph import INTERNET, Hop, Zone, tier_node
from checks.lateral.model import TARGET_TIERS, Admission, Admitted, ModelContext

_EXITS = {"vpn-gateway", "gateway", "instance", "network-interface", "local-gateway", "core-network"}
_TO_INTERNET = {"internet-gateway", "nat-gateway", "egress-only-internet-gateway", "carrier-gateway"}


@dataclass(frozen=True)
class AwsFacts:
    subnets: Sequence[StoredFact[AwsSubnet]]
    vpcs: Sequence[StoredFact[AwsVpc]] = ()
    route_tables: Sequence[StoredFact[AwsRouteTable]] = ()
    gateways: Sequence[StoredFact[AwsGateway]] = ()
    security_groups: Sequence[StoredFact[AwsSecurityGroup]] = ()
    nacls: Sequence[StoredFact[AwsNetworkAcl]] = ()
    interfaces: Sequence[StoredFact[AwsNetworkInterface]] = ()
    tgw_attachments: Sequence[StoredFact[AwsTgwAttachment]] = ()
    tgw_route_tables: Sequence[StoredFact[AwsTgwRouteTable]] = ()


def _matches(tags: dict[str, str], wanted: dict[str, str]) -> bool:
    return bool(wanted) and all(tags.get(k) == v for k, v in wanted.items())


def _require_unique_ids(subnets: Sequence[StoredFact[AwsSubnet]]) -> None:
    """AWS gives every subnet an id no other account or region has, and the model joins route tables,
    NACLs and ENIs to subnets by that id. Evidence holding one id in two places (an account's export
    copied into another's folder) cannot be joined: say so rather than join the wrong subnet."""
    seen: dict[str, str] = {}
    for s in subnets:
        where = seen.setdefault(s.record.subnet_id, s.record.subject())
        if where != s.record.subject():
            raise ValueError(
                f"subnet id {s.record.subnet_id} appears as {where} and as {s.record.subject()}: AWS ids "
                "are unique across accounts and regions, so one of these exports is not what AWS reported "
                "(a copied folder?); collect each account again or remove the copy"
            )


class AwsNetwork:
    def __init__(self, ctx: ModelContext, facts: AwsFacts) -> None:
        self.ctx = ctx
        self.f = facts
        # The internet as a source: the public space as the intent defines it (checks/address_space).
        self.internet = IPSet.parse(*(str(n) for n in AddressSpace.from_intent(ctx.intent).public_networks()))
        # VPN connections by the VPN gateway they end on: a route to the VGW leads into them. A VPN that
        # ends on a transit gateway is reached only where the TGW route table sends traffic to its
        # attachment (_tgw), never by every route to that transit gateway.
        self.vpn_of_gateway: dict[str, list[str]] = defaultdict(list)
        for vpn in facts.gateways:
            via = vpn.record.via or ""
            if vpn.record.gateway_type == "vpn-connection" and via and not via.startswith("tgw-"):
                self.vpn_of_gateway[via].append(vpn.record.gateway_id)
        self.subnets = {s.record.subnet_id: s for s in facts.subnets}
        _require_unique_ids(facts.subnets)
        self.vpcs = {v.record.vpc_id: v for v in facts.vpcs}
        self.by_vpc: dict[str, list[StoredFact[AwsSubnet]]] = defaultdict(list)
        for s in facts.subnets:
            self.by_vpc[s.record.vpc_id].append(s)
        self.addresses = {
            sid: IPSet.parse(*([s.record.cidr] if s.record.cidr else []), *s.record.ipv6_cidrs)
            for sid, s in self.subnets.items()
        }
        self.tables: dict[str, StoredFact[AwsRouteTable]] = {}
        main: dict[str, StoredFact[AwsRouteTable]] = {}
        for t in facts.route_tables:
            for sid in t.record.subnet_ids:
                self.tables[sid] = t
            if t.record.main:
                main[t.record.vpc_id] = t
        for sid, s in self.subnets.items():
            if sid not in self.tables and s.record.vpc_id in main:
                self.tables[sid] = main[s.record.vpc_id]
        self.nacls: dict[str, StoredFact[AwsNetworkAcl]] = {}
        default_nacl = {n.record.vpc_id: n for n in facts.nacls if n.record.is_default}
        for n in facts.nacls:
            for sid in n.record.subnet_ids:
                self.nacls[sid] = n
        for sid, s in self.subnets.items():
            if sid not in self.nacls and s.record.vpc_id in default_nacl:
                self.nacls[sid] = default_nacl[s.record.vpc_id]
        self.sgs = {g.record.group_id: g for g in facts.security_groups}
        self._sg_cache: dict[tuple[str, bool], list[Entry]] = {}
        self._sg_merged: dict[tuple[str, bool], list[Entry]] = {}
        self.candidates, self.eni_known = self._candidate_groups()
        self.group_addresses: dict[str, IPSet] = defaultdict(IPSet)
        for sid, groups in self.candidates.items():
            for g in groups:
                self.group_addresses[g] = self.group_addresses[g].union(self.addresses[sid])
        self.gateways = {g.record.gateway_id: g for g in facts.gateways}
        self.attachments: dict[str, list[StoredFact[AwsTgwAttachment]]] = defaultdict(list)
        for a in facts.tgw_attachments:
            self.attachments[a.record.transit_gateway_id].append(a)
        self.tgw_tables = {t.record.route_table_id: t for t in facts.tgw_route_tables}
        # a VPC whose TGW attachment (or the VPC itself) is declared to a tier belongs to it
        cloud = ctx.intent.cloud
        self.declared_vpcs: dict[str, Tier] = {}
        for a in facts.tgw_attachments:
            vpc_id = a.record.resource_id
            if a.record.resource_type == "vpc" and vpc_id:
                tier = cloud.attachment_tier(a.record.attachment_id, vpc_id)
                if tier is not None:
                    self.declared_vpcs.setdefault(vpc_id, tier)
        for vpc_id in self.vpcs:
            declared_tier = cloud.attachment_tier(vpc_id)
            if declared_tier is not None:
                self.declared_vpcs.setdefault(vpc_id, declared_tier)
        for sid, s in self.subnets.items():
            tier = self._tier(s)
            evidence = tuple(x for x in (s, self.tables.get(sid), self.nacls.get(sid)) if x is not None)
            zone = Zone(
                s.record.subject(), "aws", self.addresses[sid], tier, evidence, source=tier == Tier.FRONTEND
            )
            ctx.add_zone(zone, self._admission(sid))

    def _candidate_groups(self) -> tuple[dict[str, list[str]], set[str]]:
        """Groups that may be on a host in each subnet: from ENIs, else every group of the VPC."""
        out: dict[str, list[str]] = {sid: [] for sid in self.subnets}
        eni_vpcs: set[str] = set()
        for eni in self.f.interfaces:
            sid = eni.record.subnet_id
            if sid in out:
                eni_vpcs.add(self.subnets[sid].record.vpc_id)
                out[sid].extend(g for g in eni.record.security_groups if g not in out[sid])
        by_vpc: dict[str | None, list[str]] = defaultdict(list)  # once: a scan per subnet is quadratic
        for g in self.f.security_groups:
            by_vpc[g.record.vpc_id].append(g.record.group_id)
        for sid, s in self.subnets.items():
            if s.record.vpc_id not in eni_vpcs:
                out[sid] = sorted(by_vpc.get(s.record.vpc_id, []))
        return out, eni_vpcs

    def _tier(self, s: StoredFact[AwsSubnet]) -> Tier | None:
        vpc = self.vpcs.get(s.record.vpc_id)
        vtags = vpc.record.tags if vpc else {}
        for tier in (Tier.OOB, Tier.BACKEND, Tier.FRONTEND):
            ti = self.ctx.intent.tiers.get(tier)
            if (
                ti is not None
                and ti.aws is not None
                and (_matches(vtags, ti.aws.vpc_tags) or _matches(s.record.tags, ti.aws.subnet_tags))
            ):
                return tier
        if s.record.vpc_id in self.declared_vpcs:
            return self.declared_vpcs[s.record.vpc_id]
        return self.ctx.tier_of_addresses(self.addresses[s.record.subnet_id])

    # --- filters ------------------------------------------------------------------------------------

    def _sg(self, sid: str, query: Box, *, ingress: bool) -> tuple[Decision, Hop]:
        groups = [self.sgs[g] for g in self.candidates.get(sid, []) if g in self.sgs]
        decision = union_allow(query, self._merged(sid, groups, ingress=ingress))
        vpc = self.subnets[sid].record.vpc_id
        scope = "its interfaces" if vpc in self.eni_known else "any group of the VPC (no ENI evidence)"
        way = "ingress" if ingress else "egress"
        if decision.allowed:
            cited = "; ".join(e.label for e in decision.deciding[:3])
            facts = tuple(
                f for e in decision.deciding for f in (e.fact if isinstance(e.fact, tuple) else (e.fact,))
            )
            hop = Hop(f"security groups ({scope}) {way}: {cited}", facts)
        else:
            hop = Hop(f"security groups ({scope}) allow no such {way}", tuple(groups))
        return decision, hop

    def _merged(self, sid: str, groups: list[StoredFact[AwsSecurityGroup]], *, ingress: bool) -> list[Entry]:
        """The subnet's candidate rules with the same connections merged into one entry: a union of
        allows is the same set, and a subnet's rules share few distinct port specs."""
        key = (sid, ingress)
        if key not in self._sg_merged:
            by_conns: dict[ConnSet, list[Entry]] = defaultdict(list)
            for g in groups:
                gkey = (g.record.group_id, ingress)
                if gkey not in self._sg_cache:
                    self._sg_cache[gkey] = sg_entries(
                        g, ingress=ingress, group_addresses=self.group_addresses
                    )
                for entry in self._sg_cache[gkey]:
                    by_conns[entry.box.conns].append(entry)
            merged: list[Entry] = []
            for entries in by_conns.values():
                box = entries[0].box
                peers = union_all(e.box.src if ingress else e.box.dst for e in entries)
                box = Box(peers, box.dst, box.conns) if ingress else Box(box.src, peers, box.conns)
                label = entries[0].label + (
                    f" (and {len(entries) - 1} more rule(s))" if len(entries) > 1 else ""
                )
                facts = tuple({id(e.fact): e.fact for e in entries}.values())
                merged.append(Entry(box, True, label, facts))
            self._sg_merged[key] = merged
        return self._sg_merged[key]

    def _nacl(self, sid: str, query: Box, *, egress: bool) -> tuple[Decision, Hop | None]:
        nacl = self.nacls.get(sid)
        if nacl is None:
            return Decision([query], []), None
        decision = first_match(query, nacl_entries(nacl, egress=egress))
        cited = (
            "; ".join(e.label for e in decision.deciding[:3]) or f"{nacl.record.network_acl_id} implicit deny"
        )
        return decision, Hop(cited, (nacl,))

    def _admission(self, sid: str) -> Admission:
        def admit(src: IPSet, piece: IPSet, conns: ConnSet) -> Admitted:
            query = Box(src, piece, conns)
            nacl, nacl_hop = self._nacl(sid, query, egress=False)
            sg, sg_hop = self._sg(sid, query, ingress=True)
            both = combine(nacl, sg)
            hops = tuple(h for h in (nacl_hop, sg_hop) if h is not None)
            return Admitted(both.dst, both.conns, hops)

        return admit

    # --- links --------------------------------------------------------------------------------------

    def build_links(self) -> None:
        for sid, subnet in self.subnets.items():
            if self.ctx.pivots(subnet.record.subject()):
                self._from_subnet(sid)
            self._from_internet(sid)

    def _from_internet(self, sid: str) -> None:
        table = self.tables.get(sid)
        if table is None:
            return
        igw = next(
            (
                r
                for r in table.record.routes
                if r.target_type == "internet-gateway" or (r.target_id or "").startswith("igw-")
            ),
            None,
        )
        if igw is None:
            return
        gw = self.gateways.get(igw.target_id or "")
        where = "attached to " + ", ".join(gw.record.vpc_ids) if gw else "internet gateway"
        hops = [
            Hop(f"{igw.target_id} ({where})", (gw,) if gw else ()),
            Hop(
                f"{table.record.route_table_id} routes {igw.destination} to {igw.target_id}: a public subnet",
                (table,),
            ),
        ]
        admitted = self.ctx.admissions[self.subnets[sid].record.subject()](
            self.internet, self.addresses[sid], ConnSet.everything()
        )
        if admitted.addresses and admitted.conns:
            self.ctx.link(
                INTERNET,
                self.subnets[sid].record.subject(),
                admitted.addresses,
                admitted.conns,
                [*hops, *admitted.hops],
            )

    def _from_subnet(self, sid: str) -> None:
        origin = self.subnets[sid].record.subject()
        src = self.addresses[sid]
        table = self.tables.get(sid)
        if not src or table is None:
            return
        routes = sorted(
            ((IPSet.parse(r.destination), r) for r in table.record.routes if IPSet.parse(r.destination)),
            key=lambda x: -_prefixlen(x[1].destination),
        )
        remaining = IPSet.everything()
        for prefix, route in routes:
            part = remaining.intersect(prefix)
            if not part:
                continue
            remaining = remaining.subtract(prefix)
            if route.state == "blackhole":
                continue
            query = Box(src, part, ConnSet.everything())
            sg, sg_hop = self._sg(sid, query, ingress=False)
            nacl, nacl_hop = self._nacl(sid, query, egress=True)
            out = combine(sg, nacl)
            if not out.allowed:
                continue
            target = route.target_id if route.target_id and route.target_id != route.target_type else ""
            text = f"{table.record.route_table_id}: {route.destination} -> {route.target_type} {target}"
            hop = Hop(text.rstrip(), (table,))
            hops = [h for h in (sg_hop, nacl_hop) if h is not None]
            self._route(
                origin,
                sid,
                src,
                out.dst,
                prefix,
                route.target_type,
                route.target_id or "",
                out.conns,
                [*hops, hop],
            )

    def _route(
        self,
        origin: str,
        sid: str,
        src: IPSet,
        part: IPSet,
        prefix: IPSet,
        target_type: str,
        target_id: str,
        conns: ConnSet,
        hops: list[Hop],
    ) -> None:
        vpc = self.subnets[sid].record.vpc_id
        if not self._peer_in_evidence(target_id, vpc) and self._declared(
            origin, part, target_id, conns, hops, *self.vpn_of_gateway.get(target_id, [])
        ):
            return
        if target_type == "local" or target_id == "local":
            self._land(
                origin, src, part, conns, hops, [s for s in self.by_vpc[vpc] if s.record.subnet_id != sid]
            )
        elif target_type == "vpc-peering":
            pcx = self.gateways.get(target_id)
            peers = [v for v in (pcx.record.vpc_ids if pcx else []) if v != vpc]
            landing = [s for v in peers for s in self.by_vpc.get(v, [])]
            if landing:
                self._land(
                    origin,
                    src,
                    part,
                    conns,
                    [*hops, Hop(f"peering {target_id}", (pcx,) if pcx else ())],
                    landing,
                )
            else:
                self.ctx.exit(
                    origin, src, part, prefix, conns, hops, f"peering {target_id} (peer VPC not in evidence)"
                )
        elif target_type == "transit-gateway":
            self._tgw(origin, vpc, src, part, prefix, target_id, conns, hops)
        elif target_type in _TO_INTERNET or target_id.startswith(("igw-", "nat-", "eigw-")):
            return  # the internet is not a pivot for frontend sources (its own finding covers it)
        elif target_type in _EXITS or target_id.startswith("vgw-"):
            self.ctx.exit(origin, src, part, prefix, conns, hops, f"{target_type} {target_id}")

    def _peer_in_evidence(self, target_id: str, vpc: str) -> bool:
        """A peering whose other VPC's subnets are in the evidence: the walk lands there (their filters
        decide) rather than taking the peering's declared tier as reached."""
        pcx = self.gateways.get(target_id) if target_id.startswith("pcx-") else None
        return pcx is not None and any(v != vpc and self.by_vpc.get(v) for v in pcx.record.vpc_ids)

    def _declared(
        self, origin: str, part: IPSet, target: str, conns: ConnSet, hops: list[Hop], *more: str
    ) -> bool:
        """A route to an attachment declared to tier 1 or 3 reaches that tier (True: linked)."""
        declared = self.ctx.intent.cloud.attachment_tier(target, *more)
        if declared not in TARGET_TIERS or declared not in self.ctx.tier_space:
            return False
        which = next(i for i in (target, *more) if self.ctx.intent.cloud.attachment_tier(i) == declared)
        self.ctx.link(
            origin,
            tier_node(declared),
            part,
            conns,
            [*hops, Hop(f"{which} is declared to tier {declared.value} (intent.cloud.attachments)")],
        )
        return True

    def _land(
        self,
        origin: str,
        src: IPSet,
        part: IPSet,
        conns: ConnSet,
        hops: list[Hop],
        subnets: Sequence[StoredFact[AwsSubnet]],
    ) -> None:
        for s in subnets:
            piece = part.intersect(self.addresses[s.record.subnet_id])
            if not piece:
                continue
            zone = s.record.subject()
            admitted = self.ctx.admissions[zone](src, piece, conns)
            if admitted.addresses and admitted.conns:
                self.ctx.link(origin, zone, admitted.addresses, admitted.conns, [*hops, *admitted.hops])

    def _tgw(
        self,
        origin: str,
        vpc: str,
        src: IPSet,
        part: IPSet,
        prefix: IPSet,
        tgw: str,
        conns: ConnSet,
        hops: list[Hop],
    ) -> None:
        attachment = next(
            (
                a
                for a in self.attachments.get(tgw, [])
                if a.record.resource_type == "vpc"
                and a.record.resource_id == vpc
                and a.record.state in (None, "available")
            ),
            None,
        )
        table_id = attachment.record.route_table_id if attachment else None
        if attachment is not None and table_id is None:
            table_id = next(
                (
                    t
                    for t, rt in self.tgw_tables.items()
                    if attachment.record.attachment_id in (rt.record.associations or [])
                ),
                None,
            )
        table = self.tgw_tables.get(table_id or "")
        if attachment is None or table is None or table.record.routes is None:
            self.ctx.exit(
                origin,
                src,
                part,
                prefix,
                conns,
                hops,
                f"{tgw} (its attachments, route tables or routes are not in the evidence)",
            )
            return
        via = [
            *hops,
            Hop(
                f"{tgw}: {attachment.record.attachment_id} (vpc {vpc}) associated with "
                f"{table.record.route_table_id}",
                (attachment,),
            ),
        ]
        remaining = part
        routes = table.record.routes or []
        for route in sorted(routes, key=lambda r: -_prefixlen(r.destination)):
            rprefix = IPSet.parse(route.destination)
            piece = remaining.intersect(rprefix)
            if not piece:
                continue
            remaining = remaining.subtract(rprefix)
            if route.state == "blackhole":
                continue
            for att_id in route.attachment_ids:
                att = next(
                    (a for a in self.attachments.get(tgw, []) if a.record.attachment_id == att_id), None
                )
                hop = Hop(
                    f"{table.record.route_table_id}: {route.destination} -> {att_id} ({route.type})", (table,)
                )
                resource = att.record.resource_id if att is not None else None
                landing = (
                    att is not None
                    and att.record.resource_type == "vpc"
                    and att.record.resource_id in self.by_vpc
                )
                if not landing and self._declared(
                    origin, piece, att_id, conns, [*via, hop], *[r for r in (resource,) if r]
                ):
                    continue
                if att is not None and landing:
                    self._land(
                        origin,
                        src,
                        piece,
                        conns,
                        [*via, hop, Hop(f"{att_id}: vpc {att.record.resource_id}", (att,))],
                        self.by_vpc[att.record.resource_id or ""],
                    )
                else:
                    kind = att.record.resource_type if att else "attachment not in evidence"
                    self.ctx.exit(origin, src, piece, rprefix, conns, [*via, hop], f"{att_id} ({kind})")


def _prefixlen(destination: str) -> int:
    try:
        return int(destination.rsplit("/", 1)[1])
    except (IndexError, ValueError):
        return -1
