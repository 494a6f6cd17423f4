"""T3-VRF-NO-DEFAULT-ROUTE: backend RDMA VRFs hold no default route and originate none."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from auditor.enums import FactKind, Severity, TargetStatus, Tier
from auditor.facts import BgpNeighbor, FactRecord, Route, Vrf
from auditor.store.reader import StoredFact
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.netutil import is_default_route
from checks.text import clauses
from checks.vrf_names import VrfNames

NEEDS = frozenset({FactKind.VRF, FactKind.ROUTE, FactKind.BGP_NEIGHBOR})


class BackendVrfNoDefaultRoute(Check):
    meta = CheckMeta(
        id="T3-VRF-NO-DEFAULT-ROUTE",
        title="Backend VRFs have no default route",
        tier=Tier.BACKEND,
        severity=Severity.CRITICAL,
        needs=NEEDS,
        rationale=(
            "A default route in an RDMA VRF gives GPU memory traffic a way out of the fabric and gives "
            "anything outside a way in; the backend must only know its own prefixes."
        ),
        remediation=(
            "Remove static 0.0.0.0/0 and ::/0 routes from the backend VRF, drop `network 0.0.0.0/0` and "
            "`default-originate` from its BGP configuration, and filter default routes at its borders."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        backend = ctx.intent.tiers.backend
        assert backend is not None  # the runner returns NOT_APPLICABLE when the tier is not declared
        if not backend.vrfs:
            yield self.not_assessed(
                "backend VRFs", "the intent names no backend VRF; declare intent.tiers.backend.vrfs"
            )
            return
        declared = set(backend.vrfs)
        names = VrfNames.of(ctx)
        devices = [t for t in ctx.targets if t.kind == "device"]
        backend_devices = [t for t in devices if t.tier == Tier.BACKEND]
        ready, gaps = self.split_assessable(ctx, backend_devices, NEEDS)
        yield from gaps
        ready_names = {t.name for t in ready} | {
            t.name for t in devices if t.tier != Tier.BACKEND and t.status != TargetStatus.FAILED
        }

        routes: dict[tuple[str, str], list[StoredFact[Route]]] = defaultdict(list)
        for r in ctx.facts.of(Route):
            routes[(r.record.device, r.record.vrf)].append(r)
        originators: dict[tuple[str, str], list[StoredFact[BgpNeighbor]]] = defaultdict(list)
        for n in ctx.facts.of(BgpNeighbor):
            if n.record.default_originate:
                originators[(n.record.device, n.record.vrf)].append(n)

        seen_vrfs: set[str] = set()
        for vrf in ctx.facts.of(Vrf):
            rec = vrf.record
            target = ctx.target(vrf.target)
            canonical = names.canonical(vrf.target, rec.name)  # the device's spelling, as declared
            if canonical not in declared or vrf.target not in ready_names:
                continue
            if canonical == "default" and (target is None or target.tier != Tier.BACKEND):
                continue  # the default VRF is a backend VRF only on backend devices
            seen_vrfs.add(canonical)
            yield self._judge(vrf, routes[(rec.device, rec.name)], originators[(rec.device, rec.name)])

        for name in sorted({names.intent.canonical_vrf(n) for n in declared} - seen_vrfs):
            if ready:
                yield self.not_assessed(
                    f"vrf {name}",
                    f"backend VRF {name} is declared but was found on none of {len(ready)} backend devices",
                    expected=f"vrf {name} present on backend devices",
                )

    def _judge(
        self,
        vrf: StoredFact[Vrf],
        routes: list[StoredFact[Route]],
        originators: list[StoredFact[BgpNeighbor]],
    ) -> Finding:
        rec = vrf.record
        bad_routes = [r for r in routes if is_default_route(r.record.prefix)]
        bad_networks = [p for p in rec.bgp_networks if is_default_route(p)]
        expected = "no default route (0.0.0.0/0, ::/0), no `network 0.0.0.0/0`, no default-originate"
        if not (bad_routes or bad_networks or originators):
            return self.passed(
                rec.subject(),
                expected,
                f"none among {len(routes)} static route(s) and the VRF's BGP configuration",
                vrf,
                target=vrf.target,
            )
        found = [f"{r.record.protocol} route {r.record.prefix} via {_via(r.record)}" for r in bad_routes]
        found += [f"BGP network {p}" for p in bad_networks]
        found += [f"default-originate to BGP neighbor {n.record.peer}" for n in originators]
        facts: list[StoredFact[FactRecord]] = [vrf, *bad_routes, *originators]
        return self.failed(rec.subject(), expected, clauses(found), *facts, target=vrf.target)


def _via(route: Route) -> str:
    return route.next_hop or route.interface or "?"
