"""T3-NO-ROUTE-LEAK: nothing carries routes between a backend VRF and the rest of the network.

For every backend VRF (see checks/tier3/_common.py):
- no route-target flow with a non-backend VRF anywhere in the audited network, read from the one
  fabric-wide route-target graph (checks/route_targets.py): the VRF imports no RT that a non-backend VRF
  exports, and exports no RT that a non-backend VRF imports. RTs shared among backend VRFs (the same
  VRF on every leaf, `route-target both` on itself) are not leaks here; between tenants they are
  T3-TENANT-ISOLATION's to judge;
- no inter-VRF leak statement (EOS `router general` leaks and `egress-vrf` routes, NX-OS
  `import/export vrf`), recorded by the normalizers on both VRFs they join, that joins the VRF to a
  non-backend VRF (checks/tier3/_leaks.py reads which VRFs a statement names; one between backend VRFs
  is T3-TENANT-ISOLATION's when it crosses tenants, and one naming no VRF counts as a leak);
- no BGP neighbour whose address lies outside the backend CIDRs (unnumbered and peer-group peers have
  no address to judge and are not reported). A neighbour in frontend, OOB or public space is a foreign
  prefix in the VRF: T3-VRF-NO-FOREIGN-PREFIXES reports it, once; this check reports the others (a
  corporate or undeclared router).
Finding texts name a count and the first few VRFs on the other end, never all of them.
"""

from __future__ import annotations

import ipaddress
from collections import defaultdict
from collections.abc import Iterable

from auditor.enums import FactKind, Severity, TargetStatus, Tier
from auditor.facts import BgpNeighbor, FactRecord, Vrf
from auditor.store.reader import StoredFact
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.netutil import inside
from checks.route_targets import RouteTargetGraph, VrfNode, describe, rt_values
from checks.text import clauses
from checks.tier3._common import Backend, backend_devices, device_targets, unique
from checks.tier3._leaks import leak_vrfs
from checks.tier3.vrf_no_foreign_prefixes import ForeignSpace

NEEDS = frozenset({FactKind.VRF, FactKind.BGP_NEIGHBOR})


def route_targets(vrf: Vrf) -> set[str]:
    """The RT values a VRF imports or exports (address family dropped, `auto` left out)."""
    return rt_values([*vrf.route_targets_import, *vrf.route_targets_export])


def _not_backend(node: VrfNode) -> bool:
    return node.tier != Tier.BACKEND


class BackendNoRouteLeak(Check):
    meta = CheckMeta(
        id="T3-NO-ROUTE-LEAK",
        title="No route leaking into or out of backend VRFs",
        tier=Tier.BACKEND,
        severity=Severity.CRITICAL,
        needs=NEEDS,
        rationale=(
            "A route-target shared with a frontend VRF, a leak statement or a BGP session to a router "
            "outside the fabric joins the RDMA fabric to other networks even when no static route says so."
        ),
        remediation=(
            "Give backend VRFs route-targets no other VRF uses, remove `leak routes` / `import vrf` "
            "statements that touch them, and peer only with backend addresses."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        backend = Backend.of(ctx)
        if not backend.vrfs:
            yield self.not_assessed(
                "backend VRFs", "the intent names no backend VRF; declare intent.tiers.backend.vrfs"
            )
            return
        ready, gaps = self.split_assessable(ctx, backend_devices(ctx), NEEDS)
        yield from gaps
        tiers = {t.name: t.tier for t in ready}
        for t in device_targets(ctx):
            if t.tier != Tier.BACKEND and t.status != TargetStatus.FAILED:
                tiers[t.name] = t.tier
        graph = RouteTargetGraph.of(ctx)
        ours: list[StoredFact[Vrf]] = [
            v
            for v in ctx.facts.of(Vrf)
            if v.target in tiers and backend.is_backend_vrf(v.target, v.record.name, tiers[v.target])
        ]
        peers: dict[tuple[str, str], list[StoredFact[BgpNeighbor]]] = defaultdict(list)
        for n in ctx.facts.of(BgpNeighbor):
            peers[(n.target, n.record.vrf)].append(n)
        nets = backend.intent.networks()
        foreign = ForeignSpace.of(ctx)
        expected = (
            "no route-target flow to or from a non-backend VRF, no inter-VRF leak, "
            f"BGP neighbours only in {', '.join(map(str, nets)) or 'the backend CIDRs (none declared)'} "
            "(or in foreign space, which T3-VRF-NO-FOREIGN-PREFIXES reports)"
        )
        for v in sorted(ours, key=lambda f: f.record.subject()):
            bad: list[tuple[str, StoredFact[FactRecord]]] = []
            node = graph.node(v)
            flows = graph.leaks(node, _not_backend)
            evidence = unique([f.source.fact if f.sink is node else f.sink.fact for f in flows])
            bad += [(text, v) for text in describe(node, flows)]
            bad += [("", f) for f in evidence[:10]]  # the other ends, cited (a few)
            for leak in v.record.leaks:
                if not _within_backend(backend, v, leak, tiers[v.target]):
                    bad.append((f"leak: {leak}", v))
            for n in peers[(v.target, v.record.name)]:
                if _outside(n.record.peer, nets) and not foreign.peer(n.record.peer):
                    bad.append(
                        (
                            f"BGP neighbour {n.record.peer} (AS {n.record.remote_as or '?'}) "
                            "outside the backend CIDRs",
                            n,
                        )
                    )
            if bad:
                found = clauses(text for text, _ in bad if text)
                yield self.failed(
                    v.record.subject(), expected, found, *unique([v, *(f for _, f in bad)]), target=v.target
                )
            else:
                found = (
                    f"{len(route_targets(v.record))} route-target(s), none exchanged with a non-backend "
                    "VRF; no leak; "
                    f"{len(peers[(v.target, v.record.name)])} BGP neighbour(s) in backend space"
                )
                yield self.passed(v.record.subject(), expected, found, v, target=v.target)


def _within_backend(backend: Backend, vrf: StoredFact[Vrf], leak: str, tier: Tier | None) -> bool:
    """A leak statement whose other VRFs are all backend VRFs keeps routes inside the backend (between
    tenants it is T3-TENANT-ISOLATION's); one that names no other VRF (a route back into its own VRF)
    leaks nothing. A statement that names no VRF at all is a leak to somewhere unknown."""
    named = leak_vrfs(leak)
    if not named:
        return False
    own = backend.canonical(vrf.target, vrf.record.name)
    others = [n for n in named if backend.canonical(vrf.target, n) != own]
    return all(backend.is_backend_vrf(vrf.target, n, tier) for n in others)


def _outside(peer: str, nets: list[ipaddress.IPv4Network | ipaddress.IPv6Network]) -> bool:
    try:
        addr = ipaddress.ip_address(peer)
    except ValueError:
        return False  # unnumbered or peer-group: no address to judge
    if addr.is_link_local:
        return False  # IPv6 unnumbered peering: the address says nothing about the peer
    return inside(str(addr), nets) is None
