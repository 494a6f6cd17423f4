"""Readers of the NVUE object model (`nv config show -o json`, Cumulus Linux 5.x) -> facts.

The tree (NVIDIA's NVUE reference; keys are the `nv set` path words):
- interface/NAME: type (swp, bond, svi, loopback, eth, ...), link/{mtu, speed, state/{up|down}},
  description, ip/{vrf, address/{A/L: {}}, vrr/{address/{A/L: {}}, enable}} (VRR: the virtual gateway
  address shared by an MLAG or EVPN pair, ipv4_virtual; IPv6 ones join ipv6), bond/member/{swp: {}},
  bridge/domain/DOMAIN/{access: VLAN, vlan: {VLAN: {}}, untagged: VLAN}, acl/NAME/{inbound|outbound: {}},
  vlan (an SVI's VLAN).
- bridge/domain/DOMAIN: vlan/{VLAN: {vni: {VNI: {}}}}, untagged (the native VLAN, default 1). A port
  in a domain without its own vlan list carries every VLAN of the domain (a trunk).
- vrf/NAME: router/static/PREFIX/via/{HOP|INTERFACE|blackhole: {vrf: OTHER (a leak)}} (+ distance),
  router/bgp/neighbor/PEER/{remote-as, peer-group, description, address-family/ipv4-unicast/
  default-route-origination/enable}, each unset one taken from its peer-group/PG, evpn/vni/{VNI: {}}.
- acl/NAME and system/control-plane/acl: see acl.py.
- qos: see qos.py.
- vrf/NAME/router/bgp: rd, route-import/from-evpn/route-target/RT and route-export/to-evpn/route-target/RT
  (the VRF's L3 VNI route targets), address-family/ipv4-unicast/{redistribute/SRC, network/PREFIX,
  route-import/from-vrf/list/VRF (a route leak)}.
- interface/NAME/link/breakout/{4x|2x|...}: the port is split into NAMEs0.. and is no port itself.
- system/hostname; system/ssh-server/vrf/{VRF: {}}; service/snmp-server/{enable, listening-address/
  {ADDRESS: {vrf}}} (localhost and loopback addresses answer nobody else and are left out).
  Without ssh-server vrf, SSH follows eth0's VRF (mgmt by default).
Defaults: a configured interface's link state is up (`state: down` as a key or a value); speed "auto"
says nothing; an interface without `type` is typed by its name (swpN, bondN, vlanN, lo, eth0).
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any, Literal

from auditor.facts import FactRecord
from auditor.facts.network import (
    AclBinding,
    BgpNeighbor,
    IfAddress,
    Interface,
    MgmtService,
    Route,
    Vlan,
    Vrf,
    VxlanVni,
)
from collectors.parsing.addresses import own_addresses
from collectors.parsing.config_tree import Context
from collectors.parsing.live_common import IfType, as_int, ip_interface, ip_network, is_ip, vlan_ranges
from collectors.platforms.cumulus.acl import control_plane_acls

Tree = dict[str, Any]
_TYPES: dict[str, IfType] = {
    "swp": "ethernet",
    "bond": "port-channel",
    "svi": "vlan",
    "loopback": "loopback",
    "eth": "management",
    "sub": "ethernet",
    "peerlink": "port-channel",
}
_SPEED = re.compile(r"^(\d+(?:\.\d+)?)([MGT])$", re.IGNORECASE)


def d(value: Any) -> Tree:
    return value if isinstance(value, dict) else {}


def _speed(value: Any) -> int | None:
    m = _SPEED.match(str(value or ""))
    if not m:
        return None
    scale = {"m": 1, "g": 1000, "t": 1_000_000}[m.group(2).lower()]
    return int(float(m.group(1)) * scale)


_NAMED = (
    (re.compile(r"^swp\d+(s\d+)?$"), "swp"),
    (re.compile(r"^swp\d+(s\d+)?\.\d+$"), "sub"),
    (re.compile(r"^bond\d*|^peerlink$"), "bond"),
    (re.compile(r"^vlan\d+$"), "svi"),
    (re.compile(r"^lo$"), "loopback"),
    (re.compile(r"^eth\d+$"), "eth"),
)


def _type_by_name(name: str) -> str:
    """NVUE writes `type` on every interface it creates; a file without it is read by the name's form."""
    return next((kind for pattern, kind in _NAMED if pattern.match(name)), "")


def broken_out(link: Tree) -> bool:
    """A port split by `link breakout 2x|4x|8x...` (its netdev is gone; swpNs0.. carry its lanes)."""
    modes = link.get("breakout")
    keys = list(d(modes)) if isinstance(modes, dict) else [str(modes)] if modes else []
    return any(re.match(r"^[2-9]x", k) for k in keys)


def _domains(tree: Tree) -> dict[str, tuple[list[int], int]]:
    """domain -> (its VLANs, its untagged VLAN)."""
    out = {}
    for name, body in d(d(tree.get("bridge")).get("domain")).items():
        vlans = [v for v in (as_int(k) for k in d(d(body).get("vlan"))) if v is not None]
        out[name] = (vlans, as_int(d(body).get("untagged")) or 1)
    return out


def read_interfaces(ctx: Context, tree: Tree) -> tuple[list[Interface], list[AclBinding]]:
    domains = _domains(tree)
    members = {
        member: bond
        for bond, body in d(tree.get("interface")).items()
        for member in d(d(d(body).get("bond")).get("member"))
    }
    interfaces: list[Interface] = []
    bindings: list[AclBinding] = []
    for name, raw in d(tree.get("interface")).items():
        body = d(raw)
        link = d(body.get("link"))
        if broken_out(link):
            continue  # its lanes are the swpNsM ports; the parent is no port of its own
        ip = d(body.get("ip"))
        addresses = [a for a in (ip_interface(k) for k in d(ip.get("address")) if k != "dhcp") if a]
        vrr = d(ip.get("vrr"))
        on = str(vrr.get("enable", "on")) != "off"
        virtual = [a for a in (ip_interface(k) for k in d(vrr.get("address"))) if a] if on else []
        bad = [k for k in d(ip.get("address")) if k != "dhcp" and ip_interface(k) is None]
        for k in bad:
            ctx.problem(None, f"interface {name}: cannot read address {k!r}; skipped")
        mode: Literal["access", "trunk", "routed"] | None = "routed" if addresses else None
        access = native = None
        allowed: list[tuple[int, int]] | None = None
        for domain, raw_port in d(d(body.get("bridge")).get("domain")).items():
            port = d(raw_port)
            vlans, untagged = domains.get(domain, ([], 1))
            if port.get("access") is not None:
                mode, access = "access", as_int(port.get("access"))
            else:
                own = [v for v in (as_int(k) for k in d(port.get("vlan"))) if v is not None]
                mode, allowed = "trunk", vlan_ranges(own or vlans)
                native = as_int(port.get("untagged")) or untagged
        raw_state = link.get("state")
        state = d(raw_state) if isinstance(raw_state, dict) else {str(raw_state): {}} if raw_state else {}
        interfaces.append(
            Interface(
                device=ctx.device,
                name=name,
                type=_TYPES.get(str(body.get("type") or _type_by_name(name)), "other"),
                description=str(body["description"]) if body.get("description") else None,
                vrf=str(ip.get("vrf") or "default"),
                enabled="down" not in state,
                switchport=mode in ("access", "trunk"),
                mode=mode,
                access_vlan=access,
                native_vlan=native,
                trunk_allowed_vlans=allowed,
                mtu=as_int(link.get("mtu")),
                speed_mbps=_speed(link.get("speed")),
                ipv4=[a for a in addresses if ":" not in a],
                ipv4_virtual=[a for a in virtual if ":" not in a],
                addresses=own_addresses([a for a in addresses if ":" not in a])
                + [IfAddress(address=a, kind="vrr") for a in virtual if ":" not in a],
                ipv6=[a for a in addresses + virtual if ":" in a],
                port_channel=members.get(name),
            )
        )
        for acl, directions in d(body.get("acl")).items():
            for direction in d(directions):
                if direction in ("inbound", "outbound"):
                    bindings.append(
                        AclBinding(
                            device=ctx.device,
                            acl=acl,
                            attach_point="interface",
                            name=name,
                            direction="in" if direction == "inbound" else "out",
                        )
                    )
    return interfaces, bindings


def read_vlans_and_vnis(ctx: Context, tree: Tree, interfaces: list[Interface]) -> list[FactRecord]:
    out: list[FactRecord] = []
    for body in d(d(tree.get("bridge")).get("domain")).values():
        for key, vlan_body in d(d(body).get("vlan")).items():
            vid = as_int(key)
            if vid is None:
                ctx.problem(None, f"bridge VLAN {key!r} is not a number; skipped")
                continue
            ports = [
                i.name
                for i in interfaces
                if i.access_vlan == vid or any(lo <= vid <= hi for lo, hi in i.trunk_allowed_vlans or [])
            ]
            out.append(Vlan(device=ctx.device, vlan_id=vid, interfaces=ports))
            for vni in d(d(vlan_body).get("vni")):
                if as_int(vni) is not None:
                    out.append(VxlanVni(device=ctx.device, vni=int(vni), vlan=vid))
    for name, vrf in d(tree.get("vrf")).items():
        for vni in d(d(d(vrf).get("evpn")).get("vni")):
            if as_int(vni) is not None:
                out.append(VxlanVni(device=ctx.device, vni=int(vni), vrf=name))
    return out


def read_routing(ctx: Context, tree: Tree, interfaces: list[Interface]) -> list[FactRecord]:
    out: list[FactRecord] = []
    names = ["default", *d(tree.get("vrf")), *(i.vrf for i in interfaces)]
    for name in dict.fromkeys(names):
        vrf = d(d(tree.get("vrf")).get(name))
        router = d(vrf.get("router"))
        vnis = [as_int(v) for v in d(d(vrf.get("evpn")).get("vni"))]
        bgp = d(router.get("bgp"))
        out.append(
            Vrf(
                device=ctx.device,
                name=name,
                rd=str(bgp["rd"]) if bgp.get("rd") not in (None, "", "auto") else None,
                route_targets_import=_rts(bgp, "route-import", "from-evpn"),
                route_targets_export=_rts(bgp, "route-export", "to-evpn"),
                l3_vni=next((v for v in vnis if v), None),
                leaks=_vrf_leaks(name, bgp) + _static_leaks(name, router),
                bgp_networks=_families(bgp, lambda af: list(d(af.get("network")))),
                bgp_redistribute=_families(bgp, _redistributed),
                interfaces=[i.name for i in interfaces if i.vrf == name],
            )
        )
        for raw_prefix, static in d(router.get("static")).items():
            prefix = ip_network(raw_prefix)
            if prefix is None:
                ctx.problem(None, f"vrf {name}: invalid static prefix {raw_prefix!r}; skipped")
                continue
            for via in d(d(static).get("via")) or {"": {}}:
                out.append(
                    Route(
                        device=ctx.device,
                        vrf=name,
                        prefix=prefix,
                        next_hop=via if is_ip(via) else None,
                        interface=via if via and not is_ip(via) else None,
                        distance=as_int(d(static).get("distance")) or 1,
                    )
                )
        groups = d(bgp.get("peer-group"))
        for peer, raw_peer in d(bgp.get("neighbor")).items():
            nb = d(raw_peer)
            group = d(groups.get(str(nb.get("peer-group", ""))))
            out.append(
                BgpNeighbor(
                    device=ctx.device,
                    vrf=name,
                    peer=peer,
                    remote_as=_own_or_group(nb, group, "remote-as"),
                    peer_group=str(nb["peer-group"]) if nb.get("peer-group") else None,
                    description=str(nb["description"]) if nb.get("description") else None,
                    default_originate=_originates(nb) or _originates(group),
                    shutdown=str(nb.get("enable") or group.get("enable") or "on") == "off",
                    update_source=_own_or_group(nb, group, "update-source"),  # NVUE 5.3+: address or port
                )
            )
    return out


def _own_or_group(nb: Tree, group: Tree, key: str) -> str | None:
    """A neighbour's setting, else its peer group's (`peer-group PG remote-as external`)."""
    value = nb.get(key) if nb.get(key) not in (None, "") else group.get(key)
    return str(value) if value not in (None, "") else None


def _static_leaks(name: str, router: Tree) -> list[str]:
    """`vrf V router static P via HOP vrf OTHER`: a static route whose next hop is in another VRF."""
    out: list[str] = []
    for prefix, static in d(router.get("static")).items():
        for hop, body in d(d(static).get("via")).items():
            other = d(body).get("vrf")
            if other and str(other) != name:
                out.append(f"vrf {name} router static {prefix} via {hop} vrf {other}")
    return out


def _originates(peer: Tree) -> bool:
    """`neighbor P address-family ipv4-unicast|ipv6-unicast default-route-origination enable on` (on the
    neighbour or its peer group)."""
    families = d(peer.get("address-family"))
    return any(
        str(d(d(families.get(f)).get("default-route-origination")).get("enable", "off")) == "on"
        for f in ("ipv4-unicast", "ipv6-unicast")
    )


def _rts(bgp: Tree, direction: str, evpn: str) -> list[str]:
    """`vrf V router bgp route-import from-evpn route-target RT` / `route-export to-evpn ...`: the VRF's
    IP-VRF (L3 VNI) route targets; `auto` is derived from the VRF's own VNI."""
    return [str(rt) for rt in d(d(d(bgp.get(direction)).get(evpn)).get("route-target"))]


def _families(bgp: Tree, pick: Any) -> list[str]:
    out: list[str] = []
    for family in ("ipv4-unicast", "ipv6-unicast"):
        af = d(d(bgp.get("address-family")).get(family))
        if str(af.get("enable", "on")) != "off":
            out += pick(af)
    return list(dict.fromkeys(out))


def _redistributed(af: Tree) -> list[str]:
    """`address-family ipv4-unicast redistribute connected|static|kernel|ospf enable on`."""
    sources = d(af.get("redistribute")).items()
    return [src for src, body in sources if str(d(body).get("enable", "on")) != "off"]


def _vrf_leaks(name: str, bgp: Tree) -> list[str]:
    """`vrf V router bgp address-family ipv4-unicast route-import from-vrf list S`: V takes S's routes.
    The statement, followed by "(vrf S)" so that the leak readers, which place VRFs by the word
    `vrf`, can name the source."""
    out: list[str] = []
    for family, raw in d(bgp.get("address-family")).items():
        for src in d(d(d(d(raw).get("route-import")).get("from-vrf")).get("list")):
            statement = f"vrf {name} router bgp address-family {family} route-import from-vrf list {src}"
            out.append(f"{statement} (vrf {src})")
    return out


def is_loopback(address: str) -> bool:
    """`localhost`, 127.0.0.0/8 or ::1: a listener only the box itself can reach."""
    try:
        return address == "localhost" or ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def read_mgmt(ctx: Context, tree: Tree, interfaces: list[Interface]) -> list[MgmtService]:
    eth0_vrf = next((i.vrf for i in interfaces if i.name == "eth0"), "mgmt")
    system = d(tree.get("system"))
    ssh_vrfs = list(d(d(system.get("ssh-server")).get("vrf"))) or [eth0_vrf]
    fence = next(iter(control_plane_acls(tree)), None)
    out = [MgmtService(device=ctx.device, service="ssh", vrf=v, acl=fence) for v in ssh_vrfs]
    snmp = d(d(tree.get("service")).get("snmp-server"))
    if snmp:
        on = str(snmp.get("enable", "off")) == "on"
        addresses = d(snmp.get("listening-address"))
        vrfs = [str(d(body).get("vrf") or "default") for a, body in addresses.items() if not is_loopback(a)]
        if addresses and not vrfs:
            return out  # `listening-address localhost` only: answers on the switch itself, nowhere else
        for vrf in dict.fromkeys(vrfs or ["default"]):
            out.append(MgmtService(device=ctx.device, service="snmp", vrf=vrf, enabled=on, acl=fence))
    return out
