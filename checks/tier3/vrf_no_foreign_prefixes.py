"""T3-VRF-NO-FOREIGN-PREFIXES: backend VRFs hold only backend (and other internal) space.

A prefix in a backend VRF is foreign when it overlaps the frontend or OOB CIDRs (a summary such as
10.0.0.0/8 that covers them counts: it routes their space too) or reaches public space (as the intent's
`addressing` defines it: checks/address_space.py). Looked at: every Route fact in the VRF (static
routes, and live routing tables when collected), its BGP `network` statements, the addresses of its
interfaces, and its BGP neighbours and peerings: a neighbour address (or a `bgp listen range`) in
frontend, OOB or public space is a session with a foreign network inside the fabric. Unnumbered and
link-local peers have no address to judge. Default routes are T3-VRF-NO-DEFAULT-ROUTE's to judge.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from auditor.enums import FactKind, Severity, TargetStatus, Tier
from auditor.facts import BgpNeighbor, FactRecord, Interface, Route, Vrf
from auditor.store.reader import StoredFact
from checks.address_space import AddressSpace, address_space
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.netutil import Network, is_default_route, network, overlapping
from checks.text import clauses
from checks.tier3._common import Backend, addresses, backend_devices, device_targets, unique

NEEDS = frozenset({FactKind.VRF, FactKind.ROUTE, FactKind.INTERFACE, FactKind.BGP_NEIGHBOR})
Key = tuple[str, str]
SHOWN = 10  # offending items named per VRF; the rest are counted


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
            "must only route its own space, and peer only with its own routers."
        ),
        remediation=(
            "Remove static routes, BGP `network` statements, interface addresses and BGP neighbours for "
            "frontend, OOB or public space from the backend VRF; reach shared services from the frontend "
            "side instead."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        backend = Backend.of(ctx)
        if not backend.vrfs:
            yield self.not_assessed(
                "backend VRFs", "the intent names no backend VRF; declare intent.tiers.backend.vrfs"
            )
            return
        judge = ForeignSpace.of(ctx)
        ready, gaps = self.split_assessable(ctx, backend_devices(ctx), NEEDS)
        yield from gaps
        tiers = {t.name: t.tier for t in ready}
        for t in device_targets(ctx):
            if t.tier != Tier.BACKEND and t.status != TargetStatus.FAILED:
                tiers[t.name] = t.tier

        def ours(target: str, vrf: str) -> bool:
            return target in tiers and backend.is_backend_vrf(target, vrf, tiers[target])

        vrfs: dict[Key, StoredFact[Vrf]] = {
            (v.target, v.record.name): v for v in ctx.facts.of(Vrf) if ours(v.target, v.record.name)
        }
        items: dict[Key, list[tuple[str, StoredFact[FactRecord]]]] = defaultdict(list)
        counted: dict[Key, int] = defaultdict(int)
        for r in ctx.facts.of(Route):
            key = (r.target, r.record.vrf)
            if ours(*key):
                counted[key] += 1
                why = judge.why(r.record.prefix)
                if why:
                    via = r.record.next_hop or r.record.interface or "?"
                    items[key].append((f"{r.record.protocol} route {r.record.prefix} via {via} ({why})", r))
        for i in ctx.facts.of(Interface):
            key = (i.target, i.record.vrf)
            if ours(*key):
                for addr in addresses(i.record):
                    counted[key] += 1
                    why = judge.why(addr, host=True)
                    if why:
                        items[key].append((f"{i.record.name} address {addr} ({why})", i))
        for n in ctx.facts.of(BgpNeighbor):
            key = (n.target, n.record.vrf)
            if ours(*key):
                counted[key] += 1
                why = judge.peer(n.record.peer)
                if why:
                    asn = f" (AS {n.record.remote_as})" if n.record.remote_as else ""
                    items[key].append((f"BGP neighbour {n.record.peer}{asn} ({why})", n))
        for key, v in vrfs.items():
            for prefix in v.record.bgp_networks:
                counted[key] += 1
                why = judge.why(prefix)
                if why:
                    items[key].append((f"BGP network {prefix} ({why})", v))
        expected = (
            "only backend or other internal prefixes and BGP neighbours: none in frontend or OOB space, "
            "none public"
        )
        for key in sorted(set(vrfs) | set(items)):
            vrf = vrfs.get(key)
            subject = vrf.record.subject() if vrf else f"{key[0]}/vrf {key[1]}"
            if items[key]:
                texts = [text for text, _ in items[key]]
                found = clauses(texts, SHOWN)
                facts = unique([*([vrf] if vrf else []), *(f for _, f in items[key])])
                yield self.failed(subject, expected, found, *facts, target=key[0])
            else:
                found = (
                    f"none among {counted[key]} route(s), address(es), BGP network(s) and BGP neighbour(s)"
                )
                yield self.passed(subject, expected, found, *([vrf] if vrf else []), target=key[0])


class ForeignSpace:
    """Why a prefix or a peer address is foreign to the backend, or None (shared with T3-NO-ROUTE-LEAK,
    which leaves foreign peers to this check)."""

    def __init__(self, foreign: list[tuple[str, Network]], space: AddressSpace) -> None:
        self.foreign = foreign
        self.space = space

    @classmethod
    def of(cls, ctx: CheckContext) -> ForeignSpace:
        return ctx.derived("tier3.foreign_space", lambda: cls(_foreign_nets(ctx), address_space(ctx)))

    def why(self, prefix: str, *, host: bool = False) -> str | None:
        if is_default_route(prefix):
            return None
        for label, net in self.foreign:
            if overlapping(prefix, [net]):
                return f"{label} space {net}"
        return "public space" if self.space.is_public(prefix, host=host) else None

    def peer(self, peer: str) -> str | None:
        """A neighbour address or a listen range; unnumbered (interface, peer-group) and link-local peers
        say nothing about who is on the other end."""
        net = network(peer)
        if net is None:
            return None
        if net.num_addresses == 1 and net.network_address.is_link_local:
            return None
        why = self.why(str(net))
        return f"peering with {why}" if why else None


def _foreign_nets(ctx: CheckContext) -> list[tuple[str, Network]]:
    out: list[tuple[str, Network]] = []
    for label, tier in (("frontend", ctx.intent.tiers.frontend), ("OOB", ctx.intent.tiers.oob)):
        if tier is not None:
            out += [(label, n) for n in tier.networks()]
    return out
