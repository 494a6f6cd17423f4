"""Device zones (one per device VRF) and the links their routing and ACLs allow.

A VRF's table is its connected prefixes plus its configured routes (static, as collected; a dynamic
RIB is not in the evidence), matched longest prefix first. A next hop owned by an interface of another
device in the evidence continues the walk there (through the egress interface's `out` ACL and the
ingress interface's `in` ACL); a next hop nobody in the evidence owns leaves it (`ModelContext.exit`).
Delivery to a connected subnet passes that interface's `out` ACL. ACLs are first match with the
implicit deny; an ACL bound but not defined is read as permit (as the platforms forward).
"""

from __future__ import annotations

import ipaddress
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from auditor.enums import Tier
from auditor.facts import Acl, AclBinding, Device, Interface, Route, Vrf
from auditor.store.reader import StoredFact
from checks.lateral import device_acl
from checks.lateral.addresses import IPSet, union_all
from checks.lateral.conns import ConnSet
from checks.lateral.filters import Box, Decision, Entry, first_match
from checks.lateral.graph import Hop, Zone
from checks.lateral.model import Admission, Admitted, ModelContext
from checks.netutil import v4_prefix

MAX_DEPTH = 16


@dataclass(frozen=True)
class DeviceFacts:
    interfaces: Sequence[StoredFact[Interface]]
    routes: Sequence[StoredFact[Route]] = ()
    acls: Sequence[StoredFact[Acl]] = ()
    bindings: Sequence[StoredFact[AclBinding]] = ()
    devices: Sequence[StoredFact[Device]] = ()
    vrfs: Sequence[StoredFact[Vrf]] = ()


@dataclass
class _Vrf:
    zone: str
    device: str
    vrf: str
    connected: list[tuple[IPSet, int, StoredFact[Interface]]] = field(default_factory=list)
    routes: list[tuple[IPSet, int, StoredFact[Route]]] = field(default_factory=list)
    table: list[tuple[int, IPSet, StoredFact[Interface] | StoredFact[Route]]] = field(default_factory=list)


def zone_id(device: str, vrf: str) -> str:
    return f"{device}/vrf {vrf}"


class DeviceNetwork:
    def __init__(self, ctx: ModelContext, facts: DeviceFacts, device_tiers: dict[str, Tier | None]) -> None:
        self.ctx = ctx
        self.vrfs: dict[str, _Vrf] = {}
        self.owner_of_ip: dict[str, tuple[str, StoredFact[Interface]]] = {}
        self.acls = {(a.record.device, a.record.name): a for a in facts.acls}
        self._acl_entries: dict[tuple[str, str, str], list[Entry]] = {}
        self.bindings: dict[tuple[str, str, str], StoredFact[AclBinding]] = {}
        for b in facts.bindings:
            if b.record.attach_point == "interface":
                self.bindings[(b.record.device, b.record.name, b.record.direction)] = b
        vrf_facts = {(v.record.device, v.record.name): v for v in facts.vrfs}
        platforms = {d.record.device: d.record.platform for d in facts.devices}
        for i in facts.interfaces:
            rec = i.record
            if not rec.enabled:
                continue
            for text in (*rec.ipv4, *rec.ipv4_virtual, *rec.ipv6):
                parsed = _interface(text)
                if parsed is None:
                    continue
                subnet, plen, ip = parsed
                v = self._vrf(rec.device, rec.vrf)
                v.connected.append((subnet, plen, i))
                self.owner_of_ip[ip] = (v.zone, i)
        for r in facts.routes:
            route = _prefix(r.record.prefix)
            if route is not None:
                self._vrf(r.record.device, r.record.vrf).routes.append((*route, r))
        for v in self.vrfs.values():
            table: list[tuple[int, IPSet, StoredFact[Interface] | StoredFact[Route]]] = [
                (plen, net, fact) for net, plen, fact in v.connected
            ]
            table.extend((plen, net, fact) for net, plen, fact in v.routes)
            table.sort(key=lambda t: -t[0])  # longest prefix first; connected before static on ties
            v.table = table
            addresses = union_all(subnet for subnet, _, _ in v.connected)  # one merge, not one per subnet
            declared = ctx.intent.canonical_vrf(v.vrf, v.device, platforms.get(v.device))  # aliases
            tier = self._tier(device_tiers.get(v.device), declared, addresses)
            evidence: list[object] = [f for _, _, f in v.connected]
            if (v.device, v.vrf) in vrf_facts:
                evidence.insert(0, vrf_facts[(v.device, v.vrf)])
            zone = Zone(v.zone, "device", addresses, tier, tuple(evidence), source=tier == Tier.FRONTEND)
            ctx.add_zone(zone, self._admission(v))

    def _vrf(self, device: str, vrf: str) -> _Vrf:
        key = zone_id(device, vrf)
        if key not in self.vrfs:
            self.vrfs[key] = _Vrf(key, device, vrf)
        return self.vrfs[key]

    def _tier(self, device_tier: Tier | None, vrf: str, addresses: IPSet) -> Tier | None:
        for tier in (Tier.OOB, Tier.BACKEND, Tier.FRONTEND):
            ti = self.ctx.intent.tiers.get(tier)
            if ti is not None and vrf in ti.vrfs and (tier == Tier.OOB or device_tier in (None, tier)):
                return tier
        return self.ctx.tier_of_addresses(addresses) or device_tier

    # --- filters --------------------------------------------------------------------------------------

    def _acl(self, device: str, interface: str, direction: str, box: Box) -> tuple[Box | None, list[Hop]]:
        """Apply the ACL bound to an interface in a direction: the part of `box` it permits."""
        binding = self.bindings.get((device, interface, direction))
        if binding is None:
            return box, []
        acl = self.acls.get((device, binding.record.acl))
        label = f"{device} {interface} {direction} ACL {binding.record.acl}"
        if acl is None:
            return box, [Hop(f"{label}: not defined, forwards", (binding,))]
        key = (device, binding.record.acl, label)
        if key not in self._acl_entries:
            self._acl_entries[key] = device_acl.entries(
                acl.record.entries, label, acl, self.ctx.service_replies
            )
        decision = first_match(box, self._acl_entries[key])
        cited = "; ".join(e.label.split(": ", 1)[1] for e in decision.deciding) or "implicit deny"
        if not decision.allowed:
            return None, [Hop(f"{label} denies ({cited})", (binding, acl))]
        allowed = self.ctx.without_services(decision.allowed)  # a declared OOB service is no lateral path
        if not allowed:
            return None, [Hop(f"{label} permits only declared OOB services ({cited})", (binding, acl))]
        decision = Decision(allowed, decision.deciding)
        merged = Box(box.src, decision.dst, decision.conns)
        return merged, [Hop(f"{label} permits ({cited})", (binding, acl))]

    def _admission(self, v: _Vrf) -> Admission:
        def admit(src: IPSet, piece: IPSet, conns: ConnSet) -> Admitted:
            reached, allowed, hops = IPSet(), ConnSet(), list[Hop]()
            for net, _, intf in v.connected:
                part = piece.intersect(net)
                if not part:
                    continue
                box, acl_hops = self._acl(v.device, intf.record.name, "out", Box(src, part, conns))
                if box is not None:
                    hops.extend(acl_hops)
                    reached, allowed = reached.union(box.dst), allowed.union(box.conns)
            return Admitted(reached, allowed, tuple(hops))

        return admit

    # --- links ----------------------------------------------------------------------------------------

    def build_links(self) -> None:
        for v in self.vrfs.values():
            zone = self.ctx.graph.zone(v.zone)
            if zone.addresses and self.ctx.pivots(v.zone):  # no hosts, or tier 1/3: nothing to walk
                self._forward(
                    v.zone, zone.addresses, v, IPSet.everything(), ConnSet.everything(), [], {v.zone}, 0
                )

    def _forward(
        self,
        origin: str,
        src: IPSet,
        v: _Vrf,
        piece: IPSet,
        conns: ConnSet,
        hops: list[Hop],
        visited: set[str],
        depth: int,
    ) -> None:
        remaining = piece
        for _plen, net, fact in v.table:
            if not remaining:
                return
            part = remaining.intersect(net)
            if not part:
                continue
            remaining = remaining.subtract(net)
            rec = fact.record
            if isinstance(rec, Interface):
                self._connected(origin, src, v, part, conns, hops, fact)  # type: ignore[arg-type]
            else:
                self._routed(origin, src, v, part, net, conns, hops, fact, visited, depth)  # type: ignore[arg-type]

    def _connected(
        self,
        origin: str,
        src: IPSet,
        v: _Vrf,
        part: IPSet,
        conns: ConnSet,
        hops: list[Hop],
        intf: StoredFact[Interface],
    ) -> None:
        name = intf.record.name
        box, acl_hops = self._acl(v.device, name, "out", Box(src, part, conns))
        if box is None:
            return
        hop = Hop(f"{v.device} vrf {v.vrf}: connected {part.describe()} on {name}", (intf,))
        path = [*hops, hop, *acl_hops]
        if v.zone != origin:
            self.ctx.link(origin, v.zone, box.dst, box.conns, path)
        else:  # the origin's own subnet: only notable when it holds tier-1/3 addresses
            zone_tier = self.ctx.graph.zone(origin).tier
            for tier, space in self.ctx.tier_space.items():
                if tier != zone_tier and box.dst.overlaps(space):
                    self.ctx.to_tiers(
                        origin,
                        box.dst.intersect(space),
                        box.conns,
                        path,
                        f"{v.device} vrf {v.vrf} holds tier addresses",
                    )

    def _routed(
        self,
        origin: str,
        src: IPSet,
        v: _Vrf,
        part: IPSet,
        prefix: IPSet,
        conns: ConnSet,
        hops: list[Hop],
        route: StoredFact[Route],
        visited: set[str],
        depth: int,
    ) -> None:
        rec = route.record
        via = rec.next_hop or rec.interface or "?"
        hop = Hop(f"{v.device} vrf {v.vrf}: {rec.protocol} route {rec.prefix} via {via}", (route,))
        if (rec.interface or "").lower().startswith("null") or (rec.next_hop or "").lower().startswith(
            "null"
        ):
            return
        owner = self.owner_of_ip.get(rec.next_hop or "")
        if owner is None or depth >= MAX_DEPTH:
            self.ctx.exit(
                origin,
                src,
                part,
                prefix,
                conns,
                [*hops, hop],
                f"{v.device} vrf {v.vrf} next hop {via} (not in the evidence)",
            )
            return
        next_zone, ingress = owner
        if next_zone in visited:
            return  # a forwarding loop
        acl_hops: list[Hop] = []
        out: Box | None = Box(src, part, conns)
        egress = self._egress_interface(v, rec.next_hop or "")
        if egress is not None and out is not None:
            out, acl_hops = self._acl(v.device, egress, "out", out)
        if out is None:
            return
        nxt = self.vrfs[next_zone]
        box, in_hops = self._acl(nxt.device, ingress.record.name, "in", out)
        if box is None:
            return
        self._forward(
            origin,
            src,
            nxt,
            box.dst,
            box.conns,
            [*hops, hop, *acl_hops, *in_hops],
            visited | {next_zone},
            depth + 1,
        )

    @staticmethod
    def _egress_interface(v: _Vrf, next_hop: str) -> str | None:
        target = IPSet.parse(next_hop)
        for net, _, intf in v.connected:
            if target and target.issubset(net):
                return intf.record.name
        return None


def _interface(text: str) -> tuple[IPSet, int, str] | None:
    """An interface address as (its subnet, the prefix length, the address); None if unparsable."""
    fast = v4_prefix(text)
    if fast is not None:  # a plain a.b.c.d/len: its address text is already canonical
        addr, plen = fast
        return IPSet.of_span(addr, plen, 32), plen, text.split("/", 1)[0]
    try:
        iface = ipaddress.ip_interface(text)
    except ValueError:
        return None
    return IPSet.of_network(iface.network), iface.network.prefixlen, str(iface.ip)


def _prefix(prefix: str) -> tuple[IPSet, int] | None:
    """A route prefix as (its addresses, the prefix length); None if unparsable (parsed once)."""
    fast = v4_prefix(prefix)
    if fast is not None:
        return IPSet.of_span(*fast, 32), fast[1]
    try:
        net = ipaddress.ip_network(prefix, strict=False)
    except ValueError:
        return None
    return IPSet.of_network(net), net.prefixlen


def device_tiers(
    devices: Iterable[StoredFact[Device]], intent_tier: dict[str, Tier | None]
) -> dict[str, Tier | None]:
    out: dict[str, Tier | None] = defaultdict(lambda: None)
    out.update(intent_tier)
    for d in devices:
        if d.record.tier is not None:
            out[d.record.device] = d.record.tier
    return out
