"""T1-OOB-NO-DEFAULT-ROUTE: management VRFs and OOB switches route nowhere beyond private space.

Scope: every management VRF (`intent.tiers.oob.vrfs`) on any device, and every VRF of a device of
tier oob. A route there is a violation when it is a default route or reaches public space (anything
outside RFC 1918 and the other special-purpose ranges; see `checks.netutil.SPECIAL_NETWORKS`). Routes
are every Route fact (static routes from configs and, when collected live, the routing table) and the
VRF's BGP `network` statements.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from auditor.enums import FactKind, Severity, Tier
from auditor.facts import FactRecord, Route, Vrf
from auditor.store.reader import StoredFact
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.netutil import is_default_route, is_public
from checks.tier1._common import Oob, device_targets, unique

NEEDS = frozenset({FactKind.ROUTE, FactKind.VRF})
EXPECTED = "no default route and no route to public (non-RFC 1918, non-special) space"


class OobNoDefaultRoute(Check):
    meta = CheckMeta(
        id="T1-OOB-NO-DEFAULT-ROUTE",
        title="Management VRFs and OOB switches have no default or public route",
        tier=Tier.OOB,
        severity=Severity.CRITICAL,
        needs=NEEDS,
        rationale=(
            "BMCs and switch management planes run old, rarely patched firmware. A default route or a route "
            "to public space in the management network is a way out to the internet for anything that "
            "compromises them, and a way in for whatever can answer."
        ),
        remediation=(
            "Remove `ip route [vrf MGMT] 0.0.0.0/0 ...` and routes to public prefixes from management VRFs "
            "and OOB switches; reach firmware and time sources through an internal mirror or proxy inside "
            "the OOB network."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        oob = Oob.of(ctx)
        ready, gaps = self.split_assessable(ctx, device_targets(ctx), NEEDS)
        yield from gaps
        tiers = {t.name: t.tier for t in ready}

        def in_scope(target: str, vrf: str) -> bool:
            return target in tiers and (tiers[target] == Tier.OOB or oob.is_mgmt_vrf(vrf, tiers[target]))

        vrfs: dict[tuple[str, str], StoredFact[Vrf]] = {}
        for v in ctx.facts.of(Vrf):
            if in_scope(v.target, v.record.name):
                vrfs[(v.target, v.record.name)] = v
        routes: dict[tuple[str, str], list[StoredFact[Route]]] = defaultdict(list)
        for r in ctx.facts.of(Route):
            if in_scope(r.target, r.record.vrf):
                routes[(r.target, r.record.vrf)].append(r)
        for key in sorted(set(vrfs) | set(routes)):
            yield self._judge(key, vrfs.get(key), routes[key])

    def _judge(
        self, key: tuple[str, str], vrf: StoredFact[Vrf] | None, routes: list[StoredFact[Route]]
    ) -> Finding:
        target, name = key
        subject = vrf.record.subject() if vrf else f"{target}/vrf {name}"
        bad: list[tuple[str, StoredFact[FactRecord]]] = []
        for r in routes:
            rec = r.record
            kind = "default route" if is_default_route(rec.prefix) else "public route"
            if is_default_route(rec.prefix) or is_public(rec.prefix):
                via = rec.next_hop or rec.interface or "?"
                bad.append((f"{rec.protocol} {kind} {rec.prefix} via {via}", r))
        for prefix in vrf.record.bgp_networks if vrf else []:
            if is_default_route(prefix) or is_public(prefix):
                assert vrf is not None
                bad.append((f"BGP network {prefix}", vrf))
        if bad:
            facts = [f for _, f in bad] + ([vrf] if vrf else [])
            found = "; ".join(text for text, _ in bad)
            return self.failed(subject, EXPECTED, found, *unique(facts), target=target)
        evidence = [vrf] if vrf else []
        found = f"none among {len(routes)} route(s)" + (
            f" and {len(vrf.record.bgp_networks)} BGP network(s)" if vrf else ""
        )
        return self.passed(subject, EXPECTED, found, *evidence, target=target)
