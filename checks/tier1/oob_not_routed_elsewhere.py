"""T1-OOB-NOT-ROUTED-ELSEWHERE: OOB management space is routed only inside the OOB network.

Devices: no route to, and no interface address in, OOB space in a VRF other than the management VRFs
(OOB-tier devices are the OOB network and are not judged here). OOB space is the declared CIDRs and
those of the AWS VPCs and subnets tagged as OOB. AWS: no VPC route table outside the
OOB VPCs (`intent.tiers.oob.aws.vpc_tags`) routes OOB space; and a transit gateway route table that is
associated with any attachment other than an OOB VPC's holds no active route to OOB space (TGW tables
are judged when they were collected; an account without transit gateways has none; an attachment
declared to the OOB tier in `intent.cloud.attachments`, e.g. the VPN to the on-premises OOB network,
counts as OOB). Host routes to declared jump hosts are allowed everywhere, and so are routes a declared
OOB service needs: inside its destinations, in a VRF or VPC where its sources live (the SNMP pollers'
VRF routing the BMC subnets).

The devices that hold OOB space are judged too (checks/tier1/_oob_advertised.py): a management VRF, on
any device, and every VRF of an OOB switch, must not advertise OOB prefixes to BGP neighbours outside
OOB space (`network` for OOB space, `redistribute connected/static`), export a route target that a
non-management VRF imports, or be leaked from by another VRF.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from auditor.config.models import OobTier
from auditor.enums import FactKind, Severity, Tier
from auditor.facts import (
    AwsRouteTable,
    AwsTgwAttachment,
    AwsTgwRouteTable,
    AwsVpc,
    Device,
    FactRecord,
    Interface,
    Route,
)
from auditor.store.reader import StoredFact
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.netutil import Network, inside, network
from checks.text import clauses, listing
from checks.tier1._common import Oob
from checks.tier1._oob_advertised import oob_leaks

DEVICE_NEEDS = frozenset({FactKind.ROUTE, FactKind.INTERFACE})
AWS_NEEDS = frozenset({FactKind.AWS_ROUTE_TABLE})


class OobNotRoutedElsewhere(Check):
    meta = CheckMeta(
        id="T1-OOB-NOT-ROUTED-ELSEWHERE",
        title="OOB management space is not routed outside the OOB network",
        tier=Tier.OOB,
        severity=Severity.CRITICAL,
        needs=DEVICE_NEEDS | AWS_NEEDS,
        rationale=(
            "BMCs, PDUs and switch management ports must be reachable only from the OOB network and its jump "
            "hosts. A route or an address for OOB space in a frontend or backend VRF, or in a cloud route "
            "table, is a path from workloads to the machines' baseboard controllers."
        ),
        remediation=(
            "Keep OOB prefixes in the management VRF only: remove static routes and interface addresses for "
            "OOB space from other VRFs and from cloud route tables, except host routes to declared jump "
            "hosts."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        oob = ctx.intent.tiers.oob
        assert isinstance(oob, OobTier)
        oob_nets = list(Oob.of(ctx).nets)  # the declared CIDRs and the CIDRs of AWS VPCs/subnets tagged OOB
        if not oob_nets:
            yield self.not_assessed(
                "OOB CIDRs", "the intent names no OOB CIDR; declare intent.tiers.oob.cidrs"
            )
            return
        jump_nets = [n for n in (network(j) for j in oob.jump_hosts) if n is not None]
        devices, gaps = self.split_assessable(
            ctx, [t for t in ctx.targets if t.kind == "device"], DEVICE_NEEDS
        )
        yield from gaps
        clouds, gaps = self.split_assessable(ctx, [t for t in ctx.targets if t.kind == "aws"], AWS_NEEDS)
        yield from gaps
        oob_vrfs = set(oob.vrfs)
        yield from self._devices(
            ctx, {t.name for t in devices if t.tier != Tier.OOB}, oob_nets, jump_nets, oob_vrfs
        )
        yield from self._clouds(
            ctx, {t.name for t in clouds}, oob_nets, jump_nets, oob.aws.vpc_tags if oob.aws else {}
        )
        yield from self._advertised(ctx, {t.name for t in devices})

    @staticmethod
    def _mgmt(ctx: CheckContext, target: str, vrf: str) -> bool:
        """A management VRF as this device spells it (intent.vrf_aliases); these devices are not OOB-tier."""
        return Oob.of(ctx).is_mgmt_vrf(vrf, None, target)

    def _advertised(self, ctx: CheckContext, names: set[str]) -> Iterable[Finding]:
        oob = Oob.of(ctx)
        expected = (
            "OOB prefixes neither advertised to non-OOB BGP neighbours, nor exported by route target to, "
            "nor leaked into, VRFs outside the management VRFs"
        )
        oob_devices = {t.name for t in ctx.targets if t.tier == Tier.OOB}
        for name in sorted(oob_devices & names):
            if not ctx.facts.covered(name, FactKind.VRF):  # the OOB switch's own BGP/VRFs are unknown
                why = f"{name}: whether it hands OOB space out (BGP, route targets, leaks) is unknown"
                why += ": no evidence of vrf"
                yield self.not_assessed(f"{name}/vrf default", why, target=name)
        for leak in oob_leaks(ctx, oob, names):
            target = leak.vrf.target
            if leak.problems:
                found = clauses(leak.problems)
                yield self.failed(leak.subject, expected, found, *leak.facts, target=target)
            elif leak.unknown:
                yield self.not_assessed(leak.subject, f"{leak.subject}: {leak.unknown}", target=target)
            elif target in oob_devices:
                found = "no OOB prefix advertised to a non-OOB peer, exported or leaked"
                yield self.passed(leak.subject, expected, found, *leak.facts, target=target)

    def _devices(
        self,
        ctx: CheckContext,
        names: set[str],
        oob_nets: list[Network],
        jump_nets: list[Network],
        oob_vrfs: set[str],
    ) -> Iterable[Finding]:
        expected = f"no route or address in {', '.join(map(str, oob_nets))} outside VRF(s) {sorted(oob_vrfs)}"
        offenders: dict[str, list[tuple[str, StoredFact[FactRecord]]]] = defaultdict(list)
        counted: dict[str, int] = defaultdict(int)
        connected: dict[tuple[str, str], list[str]] = defaultdict(list)  # (device, vrf) -> its subnets
        for i in ctx.facts.of(Interface):
            connected[(i.target, i.record.vrf)] += [*i.record.ipv4, *i.record.ipv6]
        for r in ctx.facts.of(Route):
            if r.target not in names:
                continue
            counted[r.target] += 1
            rec = r.record
            hit = inside(rec.prefix, oob_nets)
            if (
                hit
                and not self._mgmt(ctx, r.target, rec.vrf)
                and not inside(rec.prefix, jump_nets)
                and not Oob.of(ctx).services.needs_route(rec.prefix, connected[(r.target, rec.vrf)])
            ):
                via = rec.next_hop or rec.interface or "?"
                offenders[r.target].append(
                    (f"{rec.protocol} route {rec.prefix} via {via} in vrf {rec.vrf}", r)
                )
        for i in ctx.facts.of(Interface):
            if i.target not in names:
                continue
            intf = i.record
            for addr in [*intf.ipv4, *intf.ipv6, *intf.ipv4_virtual]:
                counted[i.target] += 1
                if inside(addr, oob_nets) and not self._mgmt(ctx, i.target, intf.vrf):
                    offenders[i.target].append((f"{intf.name} has {addr} (connected) in vrf {intf.vrf}", i))
        device_facts = {d.target: d for d in ctx.facts.of(Device)}
        for name in sorted(names):
            if offenders[name]:
                for text, fact in offenders[name]:
                    yield self.failed(
                        f"{name}: {text.split(' in vrf')[0]}", expected, text, fact, target=name
                    )
            else:
                evidence = [device_facts[name]] if name in device_facts else []
                found = f"none among {counted[name]} route(s) and interface address(es)"
                yield self.passed(name, expected, found, *evidence, target=name)

    def _clouds(
        self,
        ctx: CheckContext,
        names: set[str],
        oob_nets: list[Network],
        jump_nets: list[Network],
        oob_vpc_tags: dict[str, str],
    ) -> Iterable[Finding]:
        oob_vpcs = {
            v.record.vpc_id
            for v in ctx.facts.of(AwsVpc)
            if (oob_vpc_tags and all(v.record.tags.get(k) == val for k, val in oob_vpc_tags.items()))
            or (v.record.cidrs and all(inside(c, oob_nets) for c in v.record.cidrs))
        }
        expected = f"no route to {', '.join(map(str, oob_nets))} outside the OOB VPCs"
        vpc_cidrs = {v.record.vpc_id: v.record.cidrs for v in ctx.facts.of(AwsVpc)}
        for table in ctx.facts.of(AwsRouteTable):
            if table.target not in names or table.record.vpc_id in oob_vpcs:
                continue
            rec = table.record
            bad = [
                f"{r.destination} -> {r.target_type} {r.target_id or ''}".strip()
                for r in rec.routes
                if inside(r.destination, oob_nets)
                and not inside(r.destination, jump_nets)
                and not Oob.of(ctx).services.needs_route(r.destination, vpc_cidrs.get(rec.vpc_id, []))
            ]
            if bad:
                yield self.failed(rec.subject(), expected, "; ".join(bad), table, target=table.target)
            else:
                yield self.passed(
                    rec.subject(),
                    expected,
                    f"none among {len(rec.routes)} route(s)",
                    table,
                    target=table.target,
                )
        yield from self._tgw_tables(ctx, names, oob_nets, jump_nets, oob_vpcs)

    def _tgw_tables(
        self,
        ctx: CheckContext,
        names: set[str],
        oob_nets: list[Network],
        jump_nets: list[Network],
        oob_vpcs: set[str],
    ) -> Iterable[Finding]:
        attachments = {a.record.attachment_id: a for a in ctx.facts.of(AwsTgwAttachment) if a.target in names}
        expected = (
            f"no active route to {', '.join(map(str, oob_nets))} in a transit gateway route table "
            "associated with non-OOB attachments"
        )
        for table in ctx.facts.of(AwsTgwRouteTable):
            if table.target not in names:
                continue
            rec = table.record
            if rec.routes is None:
                why = (
                    f"the routes of transit gateway route table {rec.route_table_id} are not in the evidence"
                )
                yield self.not_assessed(rec.subject(), why, target=table.target)
                continue
            routes = rec.routes
            associated = set(rec.associations or []) | {
                a.record.attachment_id
                for a in attachments.values()
                if a.record.route_table_id == rec.route_table_id
            }
            cloud = ctx.intent.cloud
            outsiders = sorted(
                a
                for a in associated
                if (
                    a not in attachments
                    or attachments[a].record.resource_type != "vpc"
                    or attachments[a].record.resource_id not in oob_vpcs
                )
                # an attachment (or its VPN/peering) declared to the OOB tier is the OOB network
                and cloud.attachment_tier(a, attachments[a].record.resource_id if a in attachments else None)
                != Tier.OOB
            )
            bad = [
                f"{r.destination} -> {', '.join(r.attachment_ids) or r.state}"
                for r in routes
                if r.state == "active"
                and inside(r.destination, oob_nets)
                and not inside(r.destination, jump_nets)
            ]
            facts: list[StoredFact[FactRecord]] = [
                table,
                *(attachments[a] for a in outsiders if a in attachments),
            ]
            if bad and outsiders:
                found = f"{clauses(bad)}, reachable from {listing(outsiders)}"
                yield self.failed(rec.subject(), expected, found, *facts, target=table.target)
            else:
                found = (
                    f"none among {len(routes)} route(s)"
                    if not bad
                    else "OOB routes only for OOB VPC attachments"
                )
                yield self.passed(rec.subject(), expected, found, table, target=table.target)
