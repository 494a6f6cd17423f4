"""The EOS `router bgp` block -> BgpNeighbor facts and the per-VRF BGP settings Vrf facts carry.

Readings of EOS semantics:
- Peer groups are defined once, at the router level (`neighbor G peer group`, or the older
  `neighbor G peer-group`), and used by neighbors of every VRF.
- A neighbor inherits remote-as, default-originate, shutdown, update-source and its route-maps
  (`route-map R in|out`, router level or address family) from its peer group when it does not set
  them itself. Its description is its own.
- default-originate counts on the neighbor or its group, at router level or in an address family;
  the EVPN address family's `neighbor X default-route` is the EVPN form of the same thing.
- A neighbor exists when a line at router (or router-VRF) level names it; address-family lines only
  tune neighbors declared there. Unnumbered peers (`neighbor interface Ethernet1 peer-group G`) and
  dynamic peers (`bgp listen range P peer-group G`) are reported with the interface or prefix as peer;
  when they accept AS numbers by `peer-filter`, remote_as is None (the filter decides, not the group).
- Route targets are kept as "RT", or "<address-family> RT" (e.g. "evpn 10:10"); `both` (and
  `import export`) counts for import and export. A route-target `route-map`/`rcf` form is a filter,
  not a target, and is skipped.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from auditor.facts.network import BgpNeighbor
from collectors.parsing.config_tree import Config, Context, Node
from collectors.parsing.values import is_ip_address, parse_prefix

_RT_FILTERS = {"route-map", "rcf"}


@dataclass
class BgpVrfInfo:
    """What `router bgp` says about one VRF (default: the router-level lines)."""

    rd: str | None = None
    rt_import: list[str] = field(default_factory=list)
    rt_export: list[str] = field(default_factory=list)
    networks: list[str] = field(default_factory=list)
    redistribute: list[str] = field(default_factory=list)


@dataclass
class _Peer:
    """A neighbor or a peer group, as the lines that name it set it."""

    remote_as: str | None = None
    peer_group: str | None = None
    description: str | None = None
    default_originate: bool = False
    shutdown: bool = False
    peer_filter: bool = False  # the AS comes from a peer-filter, not from the group
    update_source: str | None = None
    route_map_in: str | None = None
    route_map_out: str | None = None


@dataclass
class BgpResult:
    neighbors: list[BgpNeighbor] = field(default_factory=list)
    vrfs: dict[str, BgpVrfInfo] = field(default_factory=dict)


def parse_bgp(ctx: Context, config: Config) -> BgpResult:
    result = BgpResult()
    for node, _ in config.top(r"router bgp \S+"):
        groups = _peer_groups(node)
        sections: list[tuple[str, Node]] = [("default", node)]
        sections += [(c.words[1], c) for c in node.children if len(c.words) == 2 and c.words[0] == "vrf"]
        for vrf, section in sections:
            info = result.vrfs.setdefault(vrf, BgpVrfInfo())
            peers = _section(ctx, section, groups, info)
            result.neighbors += [_neighbor(ctx, vrf, name, p, groups) for name, p in peers.items()]
    return result


def _peer_groups(router: Node) -> dict[str, _Peer]:
    """Peer groups and their own settings (router level and router-level address families)."""
    groups: dict[str, _Peer] = {}
    for child in router.children:
        w = child.words
        if w[0] == "neighbor" and (w[2:] == ["peer", "group"] or w[2:] == ["peer-group"]):
            groups[w[1]] = _Peer()
    for child in router.children:
        if child.words[0] == "neighbor" and child.words[1] in groups:
            _apply(groups[child.words[1]], child.words[2:], child.text)
        elif child.words[0] == "address-family":
            for sub in child.children:
                if len(sub.words) > 2 and sub.words[0] == "neighbor" and sub.words[1] in groups:
                    _apply_af(groups[sub.words[1]], sub.words[2:])
    return groups


def _apply(peer: _Peer, rest: list[str], text: str) -> None:
    """One `neighbor X <rest>` line at router or router-VRF level."""
    if rest[:2] == ["peer", "group"] and len(rest) == 3:
        peer.peer_group = rest[2]
    elif rest[:1] == ["peer-group"] and len(rest) == 2:
        peer.peer_group = rest[1]
    elif rest[:1] == ["remote-as"] and len(rest) >= 2:
        peer.remote_as = rest[1]
    elif rest[:1] == ["description"]:
        peer.description = text.split(" description ", 1)[1].strip()
    elif rest == ["shutdown"] or rest[:2] == ["shutdown", "reason"]:
        peer.shutdown = True
    elif rest[:1] == ["default-originate"]:
        peer.default_originate = True
    elif rest[:1] == ["update-source"] and len(rest) == 2:
        peer.update_source = rest[1]
    else:
        _route_map(peer, rest)


def _apply_af(peer: _Peer, rest: list[str]) -> None:
    if rest[:1] in (["default-originate"], ["default-route"]):
        peer.default_originate = True
    else:
        _route_map(peer, rest)


def _route_map(peer: _Peer, rest: list[str]) -> None:
    """`route-map NAME in|out`, at router level or in an address family."""
    if rest[:1] == ["route-map"] and len(rest) == 3 and rest[2] in ("in", "out"):
        if rest[2] == "in":
            peer.route_map_in = rest[1]
        else:
            peer.route_map_out = rest[1]


def _section(ctx: Context, section: Node, groups: dict[str, _Peer], info: BgpVrfInfo) -> dict[str, _Peer]:
    """Neighbors and VRF settings of the router level or of one `vrf X` block."""
    peers: dict[str, _Peer] = {}
    is_vrf = section.words[0] == "vrf"
    for child in section.children:
        w = child.words
        if w[0] == "neighbor" and len(w) > 2 and w[1] not in groups and w[1] != "interface":
            _apply(peers.setdefault(w[1], _Peer()), w[2:], child.text)
        elif w[:2] == ["neighbor", "interface"] and len(w) >= 3:
            peers[w[2]] = _unnumbered(w[3:])
        elif w[:3] == ["bgp", "listen", "range"] and len(w) >= 4:
            prefix = parse_prefix(ctx, w[3], child.line)
            if prefix:
                peers[prefix] = _unnumbered(w[4:])
        elif w[0] == "rd" and len(w) == 2 and is_vrf:
            info.rd = w[1]
        elif w[0] == "route-target" and is_vrf:
            _route_target(info, w[1:])
        elif w[0] == "network" and len(w) >= 2:
            _network(ctx, info, w[1], child.line)
        elif w[0] == "redistribute":
            info.redistribute.append(child.after("redistribute"))
        elif w[0] == "address-family":
            _address_family(ctx, child, peers, info)
    return peers


def _unnumbered(rest: list[str]) -> _Peer:
    """`... peer-group G [remote-as N] [peer-filter F]` of an interface or listen-range peer."""
    peer = _Peer()
    for word, value in itertools.pairwise(rest):
        if word == "peer-group":
            peer.peer_group = value
        elif word == "remote-as":
            peer.remote_as = value
        elif word == "peer-filter":
            peer.peer_filter = True
    return peer


def _route_target(info: BgpVrfInfo, rest: list[str]) -> None:
    directions: list[str] = []
    while rest and rest[0] in {"import", "export", "both"}:
        directions.append(rest.pop(0))
    if not rest or not directions or _RT_FILTERS & set(rest):
        return
    value = " ".join(rest)
    if "import" in directions or "both" in directions:
        info.rt_import.append(value)
    if "export" in directions or "both" in directions:
        info.rt_export.append(value)


def _network(ctx: Context, info: BgpVrfInfo, text: str, line: int) -> None:
    prefix = parse_prefix(ctx, text, line)
    if prefix and prefix not in info.networks:
        info.networks.append(prefix)


def _address_family(ctx: Context, af: Node, peers: dict[str, _Peer], info: BgpVrfInfo) -> None:
    """Networks, redistribution and default-originate inside `address-family X`."""
    family = af.after("address-family")
    for sub in af.children:
        w = sub.words
        if w[0] == "network" and len(w) >= 2:
            _network(ctx, info, w[1], sub.line)
        elif w[0] == "redistribute":
            info.redistribute.append(f"{sub.after('redistribute')} (address-family {family})")
        elif w[0] == "neighbor" and len(w) > 2 and w[1] in peers:
            _apply_af(peers[w[1]], w[2:])


def _neighbor(ctx: Context, vrf: str, name: str, peer: _Peer, groups: dict[str, _Peer]) -> BgpNeighbor:
    group = groups.get(peer.peer_group or "", _Peer())
    return BgpNeighbor(
        device=ctx.device,
        vrf=vrf,
        peer=name if not is_ip_address(name) else name.lower(),
        remote_as=peer.remote_as or (None if peer.peer_filter else group.remote_as),
        peer_group=peer.peer_group,
        description=peer.description,
        default_originate=peer.default_originate or group.default_originate,
        shutdown=peer.shutdown or group.shutdown,
        update_source=peer.update_source or group.update_source,
        import_policies=[p] if (p := peer.route_map_in or group.route_map_in) else [],
        export_policies=[p] if (p := peer.route_map_out or group.route_map_out) else [],
    )
