"""NX-OS VRFs (`vrf context`), static routes and BGP (`router bgp`) -> Vrf, Route, BgpNeighbor facts.

VRF names are kept as written: the NX-OS Unicast Routing guide describes the `vrf context` name as a
case-sensitive string. Route targets come from the VRF's `address-family ipv4 unicast` (`both` fills
import and export; EVPN ones are stored as "evpn RT"). Leaks are kept verbatim: `import vrf ...` /
`export vrf ...` under either address family, and static routes whose next hop lives in another VRF
(`ip route P NH vrf OTHER`), recorded on the VRF that holds the route.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from auditor.facts import BgpNeighbor, Route
from collectors.platforms.nxos.tree import (
    Ctx,
    Node,
    after_words,
    canon_ifname,
    parse_int,
    parse_ip,
    parse_prefix,
)

MAX_VNI = 16_777_214


@dataclass
class VrfState:
    name: str
    line: int
    rd: str | None = None
    l3_vni: int | None = None
    rt_import: list[str] = field(default_factory=list)
    rt_export: list[str] = field(default_factory=list)
    leaks: list[str] = field(default_factory=list)
    bgp_networks: list[str] = field(default_factory=list)
    bgp_redistribute: list[str] = field(default_factory=list)


def _add(items: list[str], value: str) -> None:
    if value not in items:
        items.append(value)


Leak = tuple[str, str]  # (VRF that the statement involves, the statement with where it was written)


def read_vrfs(roots: list[Node], ctx: Ctx, routes: list[Route]) -> dict[str, VrfState]:
    """`default` always exists; every `vrf context X` adds X (including `management` when written).

    A leak is recorded on both VRFs it joins, once every VRF is known (the other may come later).
    """
    vrfs: dict[str, VrfState] = {"default": VrfState(name="default", line=0)}
    out = _Sink(ctx, routes)
    for node in roots:
        w = node.words
        if w[:2] == ["vrf", "context"] and len(w) >= 3:
            vrf = vrfs.setdefault(w[2], VrfState(name=w[2], line=node.line))
            for child in node.children:
                _apply_vrf_line(vrf, child, out)
        elif w[0] in ("ip", "ipv6") and len(w) >= 2 and w[1] == "route":
            _static_route(vrfs["default"], node, out)
    for name, text in out.leaks:
        if name in vrfs:
            _add(vrfs[name].leaks, text)
    return vrfs


def _apply_vrf_line(vrf: VrfState, node: Node, out: _Sink) -> None:
    ctx = out.ctx
    w = node.words
    if w[0] == "rd" and len(w) >= 2:
        vrf.rd = w[1]
    elif w[0] == "vni" and len(w) >= 2:
        vni = parse_int(w[1], 1, MAX_VNI)
        if vni is None:
            ctx.problem(node.line, f"vrf {vrf.name}: VNI {w[1]!r} is not a VXLAN network id; skipped")
        else:
            vrf.l3_vni = vni
    elif w[0] in ("ip", "ipv6") and len(w) >= 2 and w[1] == "route":
        _static_route(vrf, node, out, vrf.name)
    elif w[0] == "address-family" and len(w) >= 2:
        for child in node.children:
            cw = child.words
            if cw[0] == "route-target" and w[1] == "ipv4":
                _route_target(vrf, child, ctx)
            elif cw[0] in ("import", "export") and len(cw) >= 2 and cw[1] == "vrf":
                # `import vrf default [N] map RM`, `export vrf default [N] map RM [allow-vpn]`
                text = f"vrf context {vrf.name} / {node.text} / {child.text}"
                out.leaks.append((vrf.name, text))
                if len(cw) >= 3 and cw[2] != "advertise-vpn":
                    out.leaks.append((cw[2], text))


def _route_target(vrf: VrfState, node: Node, ctx: Ctx) -> None:
    """`route-target import|export|both RT|auto [evpn]` -> "RT" / "evpn RT"."""
    w = node.words
    if len(w) < 3 or w[1] not in ("import", "export", "both"):
        ctx.problem(node.line, f"vrf {vrf.name}: route-target line {node.text!r} not understood; skipped")
        return
    value = f"evpn {w[2]}" if w[3:4] == ["evpn"] else w[2]
    if w[1] in ("import", "both"):
        _add(vrf.rt_import, value)
    if w[1] in ("export", "both"):
        _add(vrf.rt_export, value)


@dataclass
class _Sink:
    """Where VRF-context parsing puts what it finds beyond the VRF itself."""

    ctx: Ctx
    routes: list[Route]
    leaks: list[Leak] = field(default_factory=list)


@dataclass
class _Hop:
    next_hop: str | None = None
    interface: str | None = None
    name: str | None = None
    distance: int | None = None
    vrf: str | None = None  # `vrf V`: the next hop is resolved in another VRF


def _read_hop(args: list[str]) -> _Hop | str:
    """The words after the prefix -> where the route points, or the word that was not understood."""
    hop = _Hop()
    i = 0
    while i < len(args):
        word = args[i]
        if word in ("name", "tag", "track", "vrf") and i + 1 < len(args):
            if word == "name":
                hop.name = args[i + 1]
            elif word == "vrf":
                hop.vrf = args[i + 1]
            i += 2
            continue
        ip = parse_ip(word) if word[:1].isdigit() or ":" in word else None
        if ip is not None and hop.next_hop is None:
            hop.next_hop = ip
        elif word.isdigit() and (hop.next_hop or hop.interface) and hop.distance is None:
            hop.distance = parse_int(word, 1, 255)
        elif word[:1].isalpha() and hop.interface is None and hop.next_hop is None:
            hop.interface = canon_ifname(word)
        else:
            return word
        i += 1
    return hop


def _static_route(vrf: VrfState, node: Node, out: _Sink, in_context: str | None = None) -> None:
    """`ip route P[/L | MASK] {NH | IF [NH]} [vrf V] [track N] [name N] [tag T] [PREF]`."""
    args = node.words[2:]
    parsed = parse_prefix(args)
    where = f"vrf {vrf.name}: route"
    if parsed is None:
        shown = " ".join(args[:1] if "/" in "".join(args[:1]) else args[:2])
        out.ctx.problem(node.line, f"{where} prefix {shown!r} is not a prefix; skipped")
        return
    prefix, used = parsed
    hop = _read_hop(args[used:])
    if isinstance(hop, str):
        out.ctx.problem(node.line, f"{where} {prefix}: {hop!r} not understood; route skipped")
        return
    if hop.next_hop is None and hop.interface is None:
        out.ctx.problem(node.line, f"{where} {prefix} has no next hop; skipped")
        return
    if hop.vrf is not None and hop.vrf != vrf.name:
        text = node.text if in_context is None else f"vrf context {in_context} / {node.text}"
        out.leaks.extend([(vrf.name, text), (hop.vrf, text)])
    out.routes.append(
        Route(
            device=out.ctx.device,
            vrf=vrf.name,
            prefix=prefix,
            next_hop=hop.next_hop,
            interface=hop.interface,
            distance=hop.distance,
            name=hop.name,
        )
    )


# --- BGP ---------------------------------------------------------------------------------------------


@dataclass
class _Peer:
    """What a neighbor or a `template peer` says itself, before inheritance."""

    remote_as: str | None = None
    description: str | None = None
    default_originate: bool | None = None
    shutdown: bool | None = None
    template: str | None = None  # `inherit peer T`: NX-OS's nearest thing to a peer group
    inherit: list[str] = field(default_factory=list)  # every template it inherits from, in order
    update_source: str | None = None
    route_map_in: str | None = None
    route_map_out: str | None = None


def _read_peer(node: Node, inline: list[str]) -> _Peer:
    peer = _Peer()
    if inline[:1] == ["remote-as"] and len(inline) >= 2:
        peer.remote_as = inline[1]
    for child in node.children:
        w = child.words
        if w[0] == "remote-as" and len(w) >= 2 and w[1] != "route-map":
            peer.remote_as = w[1]
        elif w[0] == "description":
            peer.description = after_words(child.text, 1) or None
        elif w == ["shutdown"]:
            peer.shutdown = True
        elif w == ["no", "shutdown"]:
            peer.shutdown = False
        elif w[0] == "inherit" and len(w) >= 3 and w[1] in ("peer", "peer-session"):
            peer.inherit.append(w[2])
            if w[1] == "peer":
                peer.template = w[2]
        elif w[0] == "default-originate":  # peer-policy templates carry it at top level
            peer.default_originate = True
        elif w[0] == "update-source" and len(w) == 2:
            peer.update_source = w[1]
        elif w[0] == "route-map":  # peer-policy templates carry it at top level
            _route_map(peer, w)
        elif w[0] == "address-family" and w[1:2] in (["ipv4"], ["ipv6"]):
            for af_line in child.children:
                aw = af_line.words
                if aw[0] == "default-originate":
                    peer.default_originate = True
                elif aw[0] == "inherit" and len(aw) >= 3 and aw[1] == "peer-policy":
                    peer.inherit.append(aw[2])
                elif aw[0] == "route-map":
                    _route_map(peer, aw)
    return peer


def _route_map(peer: _Peer, w: list[str]) -> None:
    """`route-map NAME in|out` of a neighbour's address family or a peer-policy template."""
    if len(w) == 3 and w[2] in ("in", "out"):
        if w[2] == "in":
            peer.route_map_in = w[1]
        else:
            peer.route_map_out = w[1]


def _resolve(peer: _Peer, templates: dict[str, _Peer], seen: frozenset[str] = frozenset()) -> _Peer:
    """A neighbor's own values win; missing ones come from its templates (which may inherit too)."""
    out = dataclasses.replace(peer, inherit=list(peer.inherit))
    for name in peer.inherit:
        if name in seen or name not in templates:
            continue
        base = _resolve(templates[name], templates, seen | {name})
        out.remote_as = out.remote_as or base.remote_as
        out.description = out.description or base.description
        if out.default_originate is None:
            out.default_originate = base.default_originate
        if out.shutdown is None:
            out.shutdown = base.shutdown
        out.update_source = out.update_source or base.update_source
        out.route_map_in = out.route_map_in or base.route_map_in
        out.route_map_out = out.route_map_out or base.route_map_out
    return out


def read_bgp(roots: list[Node], ctx: Ctx, vrfs: dict[str, VrfState]) -> list[BgpNeighbor]:
    """Neighbors of `router bgp` and of its `vrf X` blocks, and the networks each VRF originates."""
    neighbors: list[BgpNeighbor] = []
    for node in roots:
        if node.words[:2] != ["router", "bgp"]:
            continue
        templates = {
            c.words[2]: _read_peer(c, [])
            for c in node.children
            if c.words[0] == "template" and len(c.words) >= 3
        }
        bgp = _Bgp(ctx, vrfs, templates, neighbors)
        bgp.read_vrf(node, "default")
        for child in node.sub("vrf"):
            if len(child.words) >= 2:
                bgp.read_vrf(child, child.words[1])
    return neighbors


@dataclass
class _Bgp:
    """One `router bgp` process: its templates, and where neighbors and originated networks go."""

    ctx: Ctx
    vrfs: dict[str, VrfState]
    templates: dict[str, _Peer]
    out: list[BgpNeighbor]

    def read_vrf(self, node: Node, vrf: str) -> None:
        state = self.vrfs.get(vrf)
        for child in node.children:
            w = child.words
            if w[0] == "neighbor" and len(w) >= 2:
                self.out.append(self._neighbor(child, vrf))
            elif w[0] == "address-family" and w[1:2] in (["ipv4"], ["ipv6"]) and state is not None:
                _read_bgp_af(child, w[1], state, self.ctx)

    def _neighbor(self, node: Node, vrf: str) -> BgpNeighbor:
        w = node.words
        peer = _resolve(_read_peer(node, w[2:]), self.templates)
        address = parse_ip(w[1])
        parsed = parse_prefix([w[1]]) if address is None else None
        return BgpNeighbor(
            device=self.ctx.device,
            vrf=vrf,
            peer=address or (parsed[0] if parsed else w[1]),
            remote_as=peer.remote_as,
            peer_group=peer.template,
            description=peer.description,
            default_originate=bool(peer.default_originate),
            shutdown=bool(peer.shutdown),
            update_source=peer.update_source,
            import_policies=[peer.route_map_in] if peer.route_map_in else [],
            export_policies=[peer.route_map_out] if peer.route_map_out else [],
        )


def _read_bgp_af(node: Node, family: str, vrf: VrfState, ctx: Ctx) -> None:
    """`network P` and `aggregate-address P` are what BGP originates; `redistribute` kept as written."""
    for child in node.children:
        w = child.words
        if w[0] in ("network", "aggregate-address") and len(w) >= 2:
            parsed = parse_prefix(w[1:])
            if parsed is None:
                ctx.problem(child.line, f"vrf {vrf.name}: BGP {w[0]} {w[1]!r} is not a prefix; skipped")
            else:
                _add(vrf.bgp_networks, parsed[0])
        elif w[0] == "redistribute" and len(w) >= 2:
            rest = after_words(child.text, 1)
            _add(vrf.bgp_redistribute, rest if family == "ipv4" else f"{rest} (address-family {family})")
