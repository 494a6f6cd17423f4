"""SONiC's FRR configuration (/etc/sonic/frr/frr.conf or bgpd.conf + staticd.conf, `show runningconfiguration
bgp`) -> Vrf, BgpNeighbor and Route facts (entry point "sonic.frr").

SONiC in split routing mode (docker_routing_config_mode "split", the way many fabrics run it) keeps BGP,
its VRF instances, EVPN route targets and static routes in FRR's own files, beside config_db.json; in
that mode config_db's BGP tables are empty or stale and this is the routing truth. Read here (FRR's
syntax, `vtysh` "write" layout: top-level blocks, one-space indents, `exit`/`exit-vrf`/`exit-address-family`):
- `router bgp ASN [vrf V]`: `neighbor P remote-as AS|external|internal`, `neighbor P interface [remote-as
  ..]` (unnumbered), `neighbor G peer-group` (a group, not a peer), `neighbor P peer-group G`, `neighbor P
  description ...`, `neighbor P shutdown`; under `address-family ipv4|ipv6 unicast`: `network P`,
  `redistribute SRC`, `import vrf S` (a leak from S), `neighbor P default-originate`; under
  `address-family l2vpn evpn` of a VRF instance: `rd RD`, `route-target import|export|both RT...` (the
  L3 VNI's route targets; `route-target` inside a `vni N` block is a MAC-VRF's and is left out). A peer
  takes remote-as, shutdown and default-originate it does not set from its peer group.
- `vrf V` blocks: `vni N` (the L3 VNI), `ip route`/`ipv6 route` (static routes of V).
- `ip route P NEXTHOP|IFNAME|blackhole [IFNAME] [DISTANCE] [vrf V] [nexthop-vrf W]` at the top level
  (vrf V: V's table); a next hop in another VRF is a leak.
An address-family's lines are read under it, or following it at the same indent up to
`exit-address-family` (as NVIDIA's documentation prints FRR snippets). The device is the file's
`hostname` line. A VRF's BGP facts come from here and its interfaces from config_db: both name the VRF,
so the VRF appears once per file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from auditor.capture import RawCapture
from auditor.enums import FactKind
from auditor.facts import FactRecord
from auditor.facts.network import BgpNeighbor, Route, Vrf
from auditor.normalize import NormalizeResult
from collectors.parsing.config_tree import Context, Node, parse_tree
from collectors.parsing.live_common import context_of, decode_text, finish, ip_network, is_ip

COVERS = frozenset({FactKind.VRF, FactKind.BGP_NEIGHBOR, FactKind.ROUTE})
# the first words of FRR's top-level statements (vtysh `write` output); a file made mostly of others is
# not FRR's, and one made of these alone (a route-map, no BGP) is read: it configures no BGP, no route
FRR_STATEMENTS = frozenset(
    [
        "frr",
        "hostname",
        "log",
        "service",
        "agentx",
        "password",
        "enable",
        "router",
        "vrf",
        "ip",
        "ipv6",
        "route-map",
        "bgp",
        "interface",
        "line",
        "debug",
        "access-list",
        "prefix-list",
        "pbr-map",
        "nexthop-group",
        "bfd",
        "segment-routing",
        "mpls",
        "zebra",
        "end",
        "exit",
        "exit-vrf",
        "no",
        "table",
        "fpm",
        "allow-external-route-update",
        "username",
        "domainname",
    ]
)
_ROUTER = re.compile(r"router bgp (\d+(?:\.\d+)?)(?: vrf (\S+))?")
_ROUTE = re.compile(r"ip(?:v6)? route (\S+) (.+)")
_KEYWORDS = ("vrf", "nexthop-vrf", "tag", "label", "table", "color", "segments")  # each takes a value
_AF = re.compile(r"address-family (ipv4|ipv6|l2vpn) (unicast|evpn)")


@dataclass
class _Peer:
    remote_as: str | None = None
    group: str | None = None
    description: str | None = None
    shutdown: bool = False
    originate: bool = False
    is_group: bool = False
    update_source: str | None = None
    route_map_in: str | None = None
    route_map_out: str | None = None


@dataclass
class _Vrf:
    rd: str | None = None
    imports: list[str] = field(default_factory=list)
    exports: list[str] = field(default_factory=list)
    networks: list[str] = field(default_factory=list)
    redistribute: list[str] = field(default_factory=list)
    leaks: list[str] = field(default_factory=list)
    vni: int | None = None
    peers: dict[str, _Peer] = field(default_factory=dict)


class _Reader:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.vrfs: dict[str, _Vrf] = {}
        self.routes: list[Route] = []

    def vrf(self, name: str) -> _Vrf:
        return self.vrfs.setdefault(name, _Vrf())

    def bgp(self, node: Node, vrf_name: str) -> None:
        v = self.vrf(vrf_name)
        afi: str | None = None  # an address-family whose lines follow at the same indent, not under it
        for child in node.children:
            words = child.words
            if (m := _AF.fullmatch(child.text)) is not None:
                afi = m.group(1)
                self.family(child.children, v, vrf_name, afi)
            elif words[0] in ("exit-address-family", "exit"):
                afi = None
            elif afi is not None:
                self.family((child,), v, vrf_name, afi)
            elif words[0] == "neighbor" and len(words) >= 3:
                self.neighbor(v, words[1], words[2:], in_af=False)

    def neighbor(self, v: _Vrf, name: str, rest: list[str], *, in_af: bool) -> None:
        peer = v.peers.setdefault(name, _Peer())
        if rest[0] == "interface":
            rest = rest[1:]
            if not rest:
                return
        key, args = rest[0], rest[1:]
        if in_af:
            if key == "default-originate":
                peer.originate = True
            elif key == "route-map" and len(args) == 2 and args[1] in ("in", "out"):
                if args[1] == "in":
                    peer.route_map_in = args[0]
                else:
                    peer.route_map_out = args[0]
            return
        if key == "peer-group":
            if args:
                peer.group = args[0]
            else:
                peer.is_group = True
        elif key == "remote-as" and args:
            peer.remote_as = args[0]
        elif key == "description":
            peer.description = " ".join(args) or None
        elif key == "shutdown":
            peer.shutdown = True
        elif key == "update-source" and args:
            peer.update_source = args[0]

    def family(self, lines: tuple[Node, ...], v: _Vrf, vrf_name: str, afi: str) -> None:
        for child in lines:
            words = child.words
            if afi == "l2vpn":
                if words[0] == "rd" and len(words) > 1:
                    v.rd = words[1]
                elif words[0] == "route-target" and len(words) > 2:
                    kind, values = words[1], words[2:]
                    if kind in ("import", "both"):
                        v.imports += values
                    if kind in ("export", "both"):
                        v.exports += values
                continue  # `vni N` blocks: MAC-VRF route targets, not routes between VRFs
            if words[0] == "neighbor" and len(words) >= 3:
                self.neighbor(v, words[1], words[2:], in_af=True)
            elif words[0] == "network" and len(words) > 1:
                v.networks.append(words[1])
            elif words[0] == "redistribute" and len(words) > 1:
                v.redistribute.append(words[1])
            elif words[:2] == ["import", "vrf"] and len(words) > 2 and words[2] != "route-map":
                leak = f"router bgp vrf {vrf_name} address-family {afi} unicast import vrf {words[2]}"
                v.leaks.append(leak)

    def vrf_block(self, node: Node, name: str) -> None:
        v = self.vrf(name)
        for child in node.children:
            words = child.words
            if words[0] == "vni" and len(words) > 1 and words[1].isdigit():
                v.vni = int(words[1])
            elif (m := _ROUTE.fullmatch(child.text)) is not None:
                self.route(child, m, name)

    def route(self, node: Node, m: re.Match[str], vrf_name: str) -> None:
        prefix = ip_network(m.group(1))
        if prefix is None:
            self.ctx.problem(node.line, f"static route {m.group(1)!r}: not a prefix; skipped")
            return
        words = m.group(2).split()
        hop = interface = hop_vrf = None
        distance: int | None = None
        i = 0
        while i < len(words):
            w = words[i]
            if w in _KEYWORDS and i + 1 < len(words):
                if w == "vrf":
                    vrf_name = words[i + 1]
                elif w == "nexthop-vrf":
                    hop_vrf = words[i + 1]
                i += 2
                continue
            if w in ("blackhole", "reject", "Null0"):
                interface = "blackhole"
            elif is_ip(w) and hop is None:
                hop = w
            elif w.isdigit():
                distance = int(w)
            elif w not in ("onlink",) and interface is None:
                interface = w
            i += 1
        if hop_vrf and hop_vrf != vrf_name:
            via = hop or interface
            self.vrf(vrf_name).leaks.append(f"ip route vrf {vrf_name} {prefix} {via} nexthop-vrf {hop_vrf}")
        self.routes.append(
            Route(
                device=self.ctx.device,
                vrf=vrf_name,
                prefix=prefix,
                next_hop=hop,
                interface=interface,
                distance=distance,
            )
        )


def normalize_frr(capture: RawCapture) -> NormalizeResult:
    """Facts, problems and coverage of one FRR configuration. Never raises on bad content."""
    result = NormalizeResult()
    ctx = context_of(capture)
    config = parse_tree(decode_text(capture).splitlines())
    reader = _Reader(ctx)
    known = sum(1 for node in config.nodes if node.words[0] in FRR_STATEMENTS)
    if not known or known < len(config.nodes) - known:
        ctx.problem(1, "not an FRR configuration: most top-level lines are no FRR statements")
        return finish(result, ctx)
    for node in config.nodes:
        words = node.words
        if (m := _ROUTER.fullmatch(node.text)) is not None:
            reader.bgp(node, m.group(2) or "default")
        elif words[0] == "vrf" and len(words) == 2:
            reader.vrf_block(node, words[1])
        elif (m := _ROUTE.fullmatch(node.text)) is not None:
            reader.route(node, m, "default")
    facts: list[FactRecord] = list(reader.routes)
    for name, v in reader.vrfs.items():
        facts.append(
            Vrf(
                device=ctx.device,
                name=name,
                rd=v.rd,
                route_targets_import=list(dict.fromkeys(v.imports)),
                route_targets_export=list(dict.fromkeys(v.exports)),
                l3_vni=v.vni,
                leaks=v.leaks,
                bgp_networks=list(dict.fromkeys(v.networks)),
                bgp_redistribute=list(dict.fromkeys(v.redistribute)),
            )
        )
        for peer_name, p in v.peers.items():
            if p.is_group:
                continue
            g = v.peers.get(p.group or "", _Peer())
            facts.append(
                BgpNeighbor(
                    device=ctx.device,
                    vrf=name,
                    peer=peer_name,
                    remote_as=p.remote_as or g.remote_as,
                    peer_group=p.group,
                    description=p.description,
                    default_originate=p.originate or g.originate,
                    shutdown=p.shutdown or g.shutdown,
                    update_source=p.update_source or g.update_source,
                    import_policies=[x] if (x := p.route_map_in or g.route_map_in) else [],
                    export_policies=[x] if (x := p.route_map_out or g.route_map_out) else [],
                )
            )
    result.facts.extend(facts)
    result.covers = set(COVERS)
    return finish(result, ctx)
