"""SONiC config_db VRF, STATIC_ROUTE, BGP_NEIGHBOR and VXLAN tables -> Vrf, Route, BgpNeighbor, VxlanVni.

- VRFs: the VRF table, plus "default" (always there) and "mgmt" when the management VRF is enabled.
  `VRF|name` "vni" is the VRF's L3 VNI (0 = none).
- STATIC_ROUTE keys are "PREFIX" (default VRF) or "VRF|PREFIX"; nexthop, ifname, distance and
  nexthop-vrf are comma-separated lists, one element per next hop; `blackhole: true` discards.
  A next hop in another VRF (nexthop-vrf) is a route leak and is listed on the VRF's `leaks`.
- BGP route targets, RD, networks, redistribution and VRF imports: see _bgp_vrfs.
- BGP_NEIGHBOR keys are "PEER" (default VRF) or "VRF|PEER"; a neighbour takes the asn and admin_status
  it does not set itself from its BGP_PEER_GROUP|VRF|NAME (peer_group_name). On SONiC images that keep
  BGP in FRR's own config (split mode) these tables may be empty: FRR's config is not part of config_db.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from auditor.facts.network import BgpNeighbor, Interface, Route, Vrf, VxlanVni
from collectors.parsing.config_tree import Context
from collectors.parsing.live_common import as_int, ip_network
from collectors.platforms.sonic.db import Db, as_list
from collectors.platforms.sonic.interfaces import mgmt_vrf_enabled, vlan_id


@dataclass
class Routing:
    vrfs: list[Vrf] = field(default_factory=list)
    routes: list[Route] = field(default_factory=list)
    neighbors: list[BgpNeighbor] = field(default_factory=list)
    vnis: list[VxlanVni] = field(default_factory=list)


def _split_vrf(key: str) -> tuple[str, str]:
    vrf, sep, rest = key.partition("|")
    return (vrf, rest) if sep else ("default", key)


def read_routing(ctx: Context, db: Db, interfaces: list[Interface]) -> Routing:
    out = Routing()
    leaks: dict[str, list[str]] = {}
    out.routes = _static_routes(ctx, db, leaks) + _mgmt_routes(ctx, db)
    out.neighbors = _neighbors(ctx, db)
    out.vnis = _vnis(ctx, db)
    names = ["default", *db.table("VRF")]
    if mgmt_vrf_enabled(db):
        names.append("mgmt")
    names += [i.vrf for i in interfaces]
    bgp = _bgp_vrfs(ctx, db, leaks)
    for name in dict.fromkeys(names):
        row = db.table("VRF").get(name, {})
        vni = as_int(row.get("vni"))
        b = bgp.get(name, _BgpVrf())
        out.vrfs.append(
            Vrf(
                device=ctx.device,
                name=name,
                rd=b.rd,
                route_targets_import=list(dict.fromkeys(b.imports)),
                route_targets_export=list(dict.fromkeys(b.exports)),
                l3_vni=vni or None,
                leaks=leaks.get(name, []),
                bgp_networks=list(dict.fromkeys(b.networks)),
                bgp_redistribute=list(dict.fromkeys(b.redistribute)),
                interfaces=[i.name for i in interfaces if i.vrf == name],
            )
        )
    return out


@dataclass
class _BgpVrf:
    rd: str | None = None
    imports: list[str] = field(default_factory=list)
    exports: list[str] = field(default_factory=list)
    networks: list[str] = field(default_factory=list)
    redistribute: list[str] = field(default_factory=list)


def _bgp_vrfs(ctx: Context, db: Db, leaks: dict[str, list[str]]) -> dict[str, _BgpVrf]:
    """Per VRF: its EVPN route targets and RD, BGP networks, redistribution and VRF imports, from the
    tables frrcfgd renders into FRR (unified mode).

    - BGP_GLOBALS_EVPN_RT|VRF|L2VPN_EVPN|RT {route-target-type: import|export|both}: `route-target TYPE RT`
      under the VRF's `address-family l2vpn evpn`, i.e. the RTs of its L3 VNI (type-5 routes);
    - BGP_GLOBALS_AF|VRF|l2vpn_evpn {import-rts, export-rts, route-distinguisher}: the same as lists;
    - BGP_GLOBALS_AF_NETWORK|VRF|AF|PREFIX: `network PREFIX`; ROUTE_REDISTRIBUTE|VRF|SRC|bgp|AF:
      `redistribute SRC`; BGP_GLOBALS_AF|VRF|AF {import_vrf: S}: `import vrf S`, a route leak from S.
    BGP_GLOBALS_EVPN_VNI_RT (per L2 VNI) holds MAC-VRF route targets, which are not routes between VRFs.
    """
    out: dict[str, _BgpVrf] = {}
    for key, row in db.table("BGP_GLOBALS_EVPN_RT").items():
        parts = key.split("|")
        if len(parts) != 3 or parts[1].lower() != "l2vpn_evpn":
            continue
        vrf, _, rt = parts
        kind = str(row.get("route-target-type", "both")).lower()
        if kind not in ("import", "export", "both"):
            line = db.line_of("BGP_GLOBALS_EVPN_RT", key)
            ctx.problem(line, f"BGP_GLOBALS_EVPN_RT|{key}: unknown route-target-type {kind!r}; skipped")
            continue
        b = out.setdefault(vrf, _BgpVrf())
        if kind in ("import", "both"):
            b.imports.append(rt)
        if kind in ("export", "both"):
            b.exports.append(rt)
    for key, row in db.table("BGP_GLOBALS_AF").items():
        vrf, _, family = key.partition("|")
        b = out.setdefault(vrf, _BgpVrf())
        if family.lower() == "l2vpn_evpn":
            b.imports += as_list(row.get("import-rts"))
            b.exports += as_list(row.get("export-rts"))
            rd = row.get("route-distinguisher") or row.get("evpn_rd")
            b.rd = str(rd) if rd else b.rd
        source = row.get("import_vrf")
        if source:
            leaks.setdefault(vrf, []).append(f"BGP_GLOBALS_AF|{key} import_vrf {source} (vrf {source})")
    for key in db.table("BGP_GLOBALS_AF_NETWORK"):
        parts = key.split("|")
        if len(parts) == 3:
            out.setdefault(parts[0], _BgpVrf()).networks.append(parts[2])
    for key in db.table("ROUTE_REDISTRIBUTE"):
        parts = key.split("|")
        if len(parts) == 4 and parts[2] == "bgp":
            out.setdefault(parts[0], _BgpVrf()).redistribute.append(parts[1])
    return out


def _static_routes(ctx: Context, db: Db, leaks: dict[str, list[str]]) -> list[Route]:
    routes: list[Route] = []
    for key, row in db.table("STATIC_ROUTE").items():
        vrf, raw_prefix = _split_vrf(key)
        prefix = ip_network(raw_prefix)
        if prefix is None:
            ctx.problem(db.line_of("STATIC_ROUTE", key), f"STATIC_ROUTE|{key}: invalid prefix {raw_prefix!r}")
            continue
        hops = as_list(row.get("nexthop"))
        ifnames = as_list(row.get("ifname"))
        distances = as_list(row.get("distance"))
        hop_vrfs = as_list(row.get("nexthop-vrf"))
        blackholes = as_list(row.get("blackhole"))
        for i in range(max(len(hops), len(ifnames), 1)):
            hop = _at(hops, i)
            ifname = _at(ifnames, i)
            if (_at(blackholes, i) or "false").lower() == "true":
                hop, ifname = None, "blackhole"
            hop_vrf = _at(hop_vrfs, i)
            if hop_vrf and hop_vrf != vrf:
                leaks.setdefault(vrf, []).append(
                    f"STATIC_ROUTE|{key} nexthop {hop or ifname or '-'} nexthop-vrf {hop_vrf}"
                )
            distance = _at(distances, i) or _at(distances, 0)
            routes.append(
                Route(
                    device=ctx.device,
                    vrf=vrf,
                    prefix=prefix,
                    protocol="static",
                    next_hop=None if hop in (None, "0.0.0.0", "::") else hop,  # noqa: S104 (an unset next hop)
                    interface=ifname,
                    distance=as_int(distance),
                )
            )
    return routes


def _mgmt_routes(ctx: Context, db: Db) -> list[Route]:
    """With the management VRF on, eth0's gateway is its default route and `forced_mgmt_routes` go the
    same way. Without it SONiC installs them as source-based policy routes, which are not in a VRF's
    table, so none is reported then."""
    if not mgmt_vrf_enabled(db):
        return []
    out: list[Route] = []
    for key, row in db.table("MGMT_INTERFACE").items():
        name, _, addr = key.partition("|")
        gateway = str(row.get("gwaddr") or "")
        if not addr or not gateway:
            continue
        default = "::/0" if ":" in addr else "0.0.0.0/0"
        for raw in [default, *as_list(row.get("forced_mgmt_routes"))]:
            prefix = ip_network(raw)
            if prefix is None:
                ctx.problem(db.line_of("MGMT_INTERFACE", key), f"MGMT_INTERFACE|{key}: bad route {raw!r}")
                continue
            if (":" in prefix) != (":" in gateway):
                continue  # a route of the other family goes through the other address's entry
            out.append(Route(device=ctx.device, vrf="mgmt", prefix=prefix, next_hop=gateway, interface=name))
    return out


def _at(items: list[str], i: int) -> str | None:
    return items[i] if i < len(items) and items[i] else None


def _originating(db: Db, table: str) -> set[tuple[str, str]]:
    """(VRF, peer or peer group) whose address-family entry sends a default route: BGP_NEIGHBOR_AF /
    BGP_PEER_GROUP_AF "VRF|PEER|AFI_SAFI" (or "PEER|AFI_SAFI": default VRF) with send_default_route true,
    which frrcfgd renders as `neighbor PEER default-originate`."""
    out: set[tuple[str, str]] = set()
    for key, row in db.table(table).items():
        parts = key.split("|")
        if len(parts) not in (2, 3) or str(row.get("send_default_route", "false")).lower() != "true":
            continue
        out.add((parts[0], parts[1]) if len(parts) == 3 else ("default", parts[0]))
    return out


def _neighbors(ctx: Context, db: Db) -> list[BgpNeighbor]:
    out: list[BgpNeighbor] = []
    originate = _originating(db, "BGP_NEIGHBOR_AF")
    group_originate = _originating(db, "BGP_PEER_GROUP_AF")
    groups = db.table("BGP_PEER_GROUP")
    for key, own in db.table("BGP_NEIGHBOR").items():
        vrf, peer = _split_vrf(key)
        group = str(own.get("peer_group_name") or "")
        pg = groups.get(f"{vrf}|{group}") or (groups.get(group) if vrf == "default" else None) or {}
        # a neighbour's own setting wins over its peer group's
        inherited = ("asn", "admin_status", "local_addr")
        row = {**{k: pg[k] for k in inherited if group and pg.get(k) not in (None, "")}, **own}
        asn = row.get("asn")
        out.append(
            BgpNeighbor(
                device=ctx.device,
                vrf=vrf,
                peer=peer,
                remote_as=str(asn) if asn not in (None, "") else None,
                peer_group=str(row["peer_group_name"]) if row.get("peer_group_name") else None,
                description=str(row["name"]) if row.get("name") else None,
                default_originate=(vrf, peer) in originate or (vrf, group) in group_originate,
                shutdown=str(row.get("admin_status", "up")).lower() == "down",
                update_source=str(row["local_addr"]) if row.get("local_addr") else None,
            )
        )
    return out


def _vnis(ctx: Context, db: Db) -> list[VxlanVni]:
    out: list[VxlanVni] = []
    for key, row in db.table("VXLAN_TUNNEL_MAP").items():
        vni = as_int(row.get("vni"))
        vlan = vlan_id(str(row.get("vlan", "")))
        if vni is None or vlan is None:
            ctx.problem(db.line_of("VXLAN_TUNNEL_MAP", key), f"VXLAN_TUNNEL_MAP|{key}: needs vni and vlan")
            continue
        out.append(VxlanVni(device=ctx.device, vni=vni, vlan=vlan))
    for name, row in db.table("VRF").items():
        vni = as_int(row.get("vni"))
        if vni:
            out.append(VxlanVni(device=ctx.device, vni=vni, vrf=name))
    return out
