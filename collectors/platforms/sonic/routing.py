"""SONiC config_db VRF, STATIC_ROUTE, BGP_NEIGHBOR and VXLAN tables -> Vrf, Route, BgpNeighbor, VxlanVni.

- VRFs: the VRF table, plus "default" (always there) and "mgmt" when the management VRF is enabled.
  `VRF|name` "vni" is the VRF's L3 VNI (0 = none).
- STATIC_ROUTE keys are "PREFIX" (default VRF) or "VRF|PREFIX"; nexthop, ifname, distance and
  nexthop-vrf are comma-separated lists, one element per next hop; `blackhole: true` discards.
  A next hop in another VRF (nexthop-vrf) is a route leak and is listed on the VRF's `leaks`.
- BGP_NEIGHBOR keys are "PEER" (default VRF) or "VRF|PEER". On SONiC images that keep BGP in FRR's
  own config (split mode) these tables may be empty: FRR's config is not part of config_db.
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
    for name in dict.fromkeys(names):
        row = db.table("VRF").get(name, {})
        vni = as_int(row.get("vni"))
        out.vrfs.append(
            Vrf(
                device=ctx.device,
                name=name,
                l3_vni=vni or None,
                leaks=leaks.get(name, []),
                interfaces=[i.name for i in interfaces if i.vrf == name],
            )
        )
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


def _neighbors(ctx: Context, db: Db) -> list[BgpNeighbor]:
    out: list[BgpNeighbor] = []
    for key, row in db.table("BGP_NEIGHBOR").items():
        vrf, peer = _split_vrf(key)
        asn = row.get("asn")
        out.append(
            BgpNeighbor(
                device=ctx.device,
                vrf=vrf,
                peer=peer,
                remote_as=str(asn) if asn not in (None, "") else None,
                peer_group=str(row["peer_group_name"]) if row.get("peer_group_name") else None,
                description=str(row["name"]) if row.get("name") else None,
                shutdown=str(row.get("admin_status", "up")).lower() == "down",
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
