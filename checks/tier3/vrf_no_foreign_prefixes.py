"""T3-VRF-NO-FOREIGN-PREFIXES: backend VRFs hold only backend (and other private) space.

A prefix in a backend VRF is foreign when it overlaps the frontend or OOB CIDRs (a summary such as
10.0.0.0/8 that covers them counts: it routes their space too) or reaches public space. Looked at:
every Route fact in the VRF (static routes, and live routing tables when collected), its BGP `network`
statements and the addresses of its interfaces. Default routes are T3-VRF-NO-DEFAULT-ROUTE's to judge.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from auditor.enums import FactKind, Severity, TargetStatus, Tier
from auditor.facts import FactRecord, Interface, Route, Vrf
from auditor.store.reader import StoredFact
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.netutil import Network, is_default_route, is_public, overlapping
from checks.tier3._common import Backend, addresses, backend_devices, device_targets, unique

NEEDS = frozenset({FactKind.VRF, FactKind.ROUTE, FactKind.INTERFACE})
Key = tuple[str, str]


class BackendVrfNoForeignPrefixes(Check):
    meta = CheckMeta(
        id="T3-VRF-NO-FOREIGN-PREFIXES",
        title="Backend VRFs hold no frontend, OOB or public prefix",
        tier=Tier.BACKEND,
        severity=Severity.CRITICAL,
        needs=NEEDS,
        rationale=(
            "A frontend, management or public prefix in an RDMA VRF is a path between GPU memory traffic "
            "and networks that must never see it: tenants' pods, BMCs, the internet. The backend fabric "
            "must only route its own space."
        ),
        remediation=(
            "Remove static routes, BGP `network` statements and interface addresses for frontend, OOB or "
            "public space from the backend VRF; reach shared services from the frontend side instead."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        backend = Backend.of(ctx)
        if not backend.vrfs:
            yield self.not_assessed(
                "backend VRFs", "the intent names no backend VRF; declare intent.tiers.backend.vrfs"
            )
            return
        foreign = _foreign_nets(ctx)
        ready, gaps = self.split_assessable(ctx, backend_devices(ctx), NEEDS)
        yield from gaps
        tiers = {t.name: t.tier for t in ready}
        for t in device_targets(ctx):
            if t.tier != Tier.BACKEND and t.status != TargetStatus.FAILED:
                tiers[t.name] = t.tier
        vrfs: dict[Key, StoredFact[Vrf]] = {
            (v.target, v.record.name): v
            for v in ctx.facts.of(Vrf)
            if v.target in tiers and backend.is_backend_vrf(v.record.name, tiers[v.target])
        }
        items: dict[Key, list[tuple[str, StoredFact[FactRecord]]]] = defaultdict(list)
        counted: dict[Key, int] = defaultdict(int)
        for r in ctx.facts.of(Route):
            key = (r.target, r.record.vrf)
            if r.target in tiers and backend.is_backend_vrf(r.record.vrf, tiers[r.target]):
                counted[key] += 1
                why = _why(r.record.prefix, foreign)
                if why:
                    via = r.record.next_hop or r.record.interface or "?"
                    items[key].append((f"{r.record.protocol} route {r.record.prefix} via {via} ({why})", r))
        for i in ctx.facts.of(Interface):
            key = (i.target, i.record.vrf)
            if i.target in tiers and backend.is_backend_vrf(i.record.vrf, tiers[i.target]):
                for addr in addresses(i.record):
                    counted[key] += 1
                    why = _why(addr, foreign)
                    if why:
                        items[key].append((f"{i.record.name} address {addr} ({why})", i))
        for key, v in vrfs.items():
            for prefix in v.record.bgp_networks:
                counted[key] += 1
                why = _why(prefix, foreign)
                if why:
                    items[key].append((f"BGP network {prefix} ({why})", v))
        expected = "only backend or other private prefixes: none in frontend or OOB space, none public"
        for key in sorted(set(vrfs) | set(items)):
            vrf = vrfs.get(key)
            subject = vrf.record.subject() if vrf else f"{key[0]}/vrf {key[1]}"
            if items[key]:
                found = "; ".join(text for text, _ in items[key])
                facts = unique([*([vrf] if vrf else []), *(f for _, f in items[key])])
                yield self.failed(subject, expected, found, *facts, target=key[0])
            else:
                found = f"none among {counted[key]} route(s), address(es) and BGP network(s)"
                yield self.passed(subject, expected, found, *([vrf] if vrf else []), target=key[0])


def _foreign_nets(ctx: CheckContext) -> list[tuple[str, Network]]:
    out: list[tuple[str, Network]] = []
    for label, tier in (("frontend", ctx.intent.tiers.frontend), ("OOB", ctx.intent.tiers.oob)):
        if tier is not None:
            out += [(label, n) for n in tier.networks()]
    return out


def _why(prefix: str, foreign: list[tuple[str, Network]]) -> str | None:
    if is_default_route(prefix):
        return None
    for label, net in foreign:
        if overlapping(prefix, [net]):
            return f"{label} space {net}"
    return "public space" if is_public(prefix) else None
