"""T1-OOB-NO-DEFAULT-ROUTE: management VRFs, OOB switches and OOB VPCs route nowhere beyond internal space,
except through a declared OOB gateway.

Scope: every management VRF (`intent.tiers.oob.vrfs`) on any device, every VRF of a device of tier oob,
and the route tables of OOB VPCs and subnets (see checks/tier1/_aws_oob.py). A route there is a
violation when it is a default route or reaches public space (as `intent.addressing` defines it, see
checks/address_space.py) and its next hop is not a declared OOB gateway (`intent.tiers.oob.gateways`,
e.g. the OOB firewall that proxies updates and time). Device routes are every Route fact (static routes
from configs and, when collected live, the routing table) and the VRF's BGP `network` statements (which
originate the prefix: no next hop, never a gateway route).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from auditor.enums import FactKind, Severity, Tier
from auditor.facts import FactRecord, Route, Vrf
from auditor.store.reader import StoredFact
from checks.address_space import AddressSpace, address_space
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.netutil import is_default_route
from checks.tier1._aws_oob import judge_route, oob_route_tables
from checks.tier1._common import Oob, device_targets, unique

NEEDS = frozenset({FactKind.ROUTE, FactKind.VRF})
AWS_NEEDS = frozenset({FactKind.AWS_ROUTE_TABLE, FactKind.AWS_SUBNET})
EXPECTED = "no default route and no route to public space, except through a declared OOB gateway"


class OobNoDefaultRoute(Check):
    meta = CheckMeta(
        id="T1-OOB-NO-DEFAULT-ROUTE",
        title="Management VRFs and OOB switches have no default or public route",
        tier=Tier.OOB,
        severity=Severity.CRITICAL,
        needs=NEEDS | AWS_NEEDS,
        rationale=(
            "BMCs and switch management planes run old, rarely patched firmware. A default route or a route "
            "to public space in the management network is a way out to the internet for anything that "
            "compromises them, and a way in for whatever can answer."
        ),
        remediation=(
            "Remove `ip route [vrf MGMT] 0.0.0.0/0 ...` and routes to public prefixes from management VRFs, "
            "OOB switches and OOB VPC route tables (internet, NAT or egress transit gateways); reach "
            "firmware and time sources through an internal mirror or proxy inside the OOB network, or "
            "declare the OOB firewall that does so in intent.tiers.oob.gateways."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        oob = Oob.of(ctx)
        ready, gaps = self.split_assessable(ctx, device_targets(ctx), NEEDS)
        yield from gaps
        tiers = {t.name: t.tier for t in ready}

        def in_scope(target: str, vrf: str) -> bool:
            return target in tiers and (
                tiers[target] == Tier.OOB or oob.is_mgmt_vrf(vrf, tiers[target], target)
            )

        vrfs: dict[tuple[str, str], StoredFact[Vrf]] = {}
        for v in ctx.facts.of(Vrf):
            if in_scope(v.target, v.record.name):
                vrfs[(v.target, v.record.name)] = v
        routes: dict[tuple[str, str], list[StoredFact[Route]]] = defaultdict(list)
        for r in ctx.facts.of(Route):
            if in_scope(r.target, r.record.vrf):
                routes[(r.target, r.record.vrf)].append(r)
        space = address_space(ctx)
        for key in sorted(set(vrfs) | set(routes)):
            yield self._judge(key, vrfs.get(key), routes[key], oob, space)
        yield from self._clouds(ctx, oob, space)

    def _clouds(self, ctx: CheckContext, oob: Oob, space: AddressSpace) -> Iterable[Finding]:
        for t in [t for t in ctx.targets if t.kind == "aws"]:
            missing = ctx.missing(t, AWS_NEEDS)
            if missing or t.status.value == "failed":
                if oob.intent.aws is not None:
                    why = t.reason or f"no evidence of {', '.join(k.value for k in missing)}"
                    yield self.not_assessed(
                        t.name, f"{t.name}: OOB route tables not assessed: {why}", target=t.name
                    )
                continue
            for _, (table, why) in sorted(oob_route_tables(ctx, oob, t.name).items()):
                bad: list[str] = []
                unknown: list[str] = []
                facts: list[StoredFact[FactRecord]] = [table]
                for route in table.record.routes:
                    verdict = judge_route(ctx, oob, space, table, route)
                    if verdict is None or not verdict.text:
                        facts += verdict.facts if verdict else ()
                        continue
                    (unknown if verdict.unknown else bad).append(verdict.text)
                    facts += verdict.facts
                subject = table.record.subject()
                if bad:
                    yield self.failed(
                        subject, EXPECTED, f"{why}; " + "; ".join(bad), *unique(facts), target=t.name
                    )
                elif unknown:
                    yield self.not_assessed(subject, f"{why}; " + "; ".join(unknown), target=t.name)
                else:
                    found = f"{why}; none among {len(table.record.routes)} route(s)"
                    yield self.passed(subject, EXPECTED, found, *unique(facts), target=t.name)

    def _judge(
        self,
        key: tuple[str, str],
        vrf: StoredFact[Vrf] | None,
        routes: list[StoredFact[Route]],
        oob: Oob,
        space: AddressSpace,
    ) -> Finding:
        target, name = key
        subject = vrf.record.subject() if vrf else f"{target}/vrf {name}"
        bad: list[tuple[str, StoredFact[FactRecord]]] = []
        allowed: list[tuple[str, StoredFact[FactRecord]]] = []
        for r in routes:
            rec = r.record
            kind = "default route" if is_default_route(rec.prefix) else "public route"
            if not (is_default_route(rec.prefix) or space.is_public(rec.prefix)):
                continue
            if oob.is_gateway(rec.next_hop):
                text = f"{rec.protocol} {kind} {rec.prefix} via declared OOB gateway {rec.next_hop}"
                allowed.append((text, r))
            else:
                via = rec.next_hop or rec.interface or "?"
                bad.append((f"{rec.protocol} {kind} {rec.prefix} via {via}", r))
        for prefix in vrf.record.bgp_networks if vrf else []:
            if is_default_route(prefix) or space.is_public(prefix):
                assert vrf is not None
                bad.append((f"BGP network {prefix}", vrf))
        if bad:
            facts = [f for _, f in bad] + ([vrf] if vrf else [])
            found = "; ".join(text for text, _ in bad)
            return self.failed(subject, EXPECTED, found, *unique(facts), target=target)
        evidence: list[StoredFact[FactRecord]] = [f for _, f in allowed] + ([vrf] if vrf else [])
        found = f"none among {len(routes)} route(s)" + (
            f" and {len(vrf.record.bgp_networks)} BGP network(s)" if vrf else ""
        )
        if allowed:
            found = f"{'; '.join(text for text, _ in allowed)} (allowed); no other {found[5:]}"
        return self.passed(subject, EXPECTED, found, *unique(evidence), target=target)
