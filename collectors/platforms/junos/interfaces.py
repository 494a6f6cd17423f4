"""Junos `interfaces` and `vlans` -> Interface, Vlan, VxlanVni facts.

Junos configures a physical port (IFD, `ge-0/0/0`) and its logical units (IFL, `ge-0/0/0.0`);
addresses, VLAN membership, filters and the routing instance belong to units. A port is one
Interface fact: its unit 0 (how a switch or routed port is configured) is read into the IFD's record,
under the IFD's name (`et-0/0/1`), so a port is checked once; other units are sub-interfaces named
`<ifd>.<unit>`, and the units of `irb`/`vlan` (SVIs) keep their unit (`irb.200`), the bare container
giving no fact. `canonical()` gives that name wherever a unit is referred to. Defaults read here:
- an IFD or unit is enabled unless `disable`; a unit of a disabled IFD is disabled;
- the unit's MTU is its `family inet mtu`, else the IFD's `mtu` (Junos counts L2 headers in the IFD
  MTU; the figure is kept as configured);
- `family ethernet-switching` makes the unit a switchport; `interface-mode` (or the older
  `port-mode`) trunk or access, access by default; `vlan members` are VLAN names or ids, `all`, or
  ranges `100-200`; the IFD's `native-vlan-id` is the trunk's native VLAN;
- `gigether-options|ether-options 802.3ad aeN` puts the port in LAG aeN.
- `address A/L vrrp-group N virtual-address V` and an EVPN IRB's `virtual-gateway-address V` are
  virtual gateway addresses (ipv4_virtual; kinds vrrp and anycast in `addresses`).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

from auditor.facts.network import AddressKind, IfAddress, Interface, Vlan, VxlanVni
from collectors.parsing.addresses import own_addresses, virtual, virtual_list, with_length
from collectors.parsing.config_tree import Context
from collectors.parsing.live_common import IfType
from collectors.platforms.junos.tree import Node

_TYPES: tuple[tuple[str, IfType], ...] = (
    ("ae", "port-channel"),
    ("lo", "loopback"),
    ("irb", "vlan"),
    ("vlan", "vlan"),
    ("fxp", "management"),
    ("em", "management"),
    ("me", "management"),
    ("re0:mgmt", "management"),
    ("re1:mgmt", "management"),
    ("vme", "management"),
    ("vtep", "vxlan"),
    ("gr-", "tunnel"),
    ("ip-", "tunnel"),
    ("st", "tunnel"),
    ("lt-", "tunnel"),
    ("ge-", "ethernet"),
    ("xe-", "ethernet"),
    ("et-", "ethernet"),
    ("mge-", "ethernet"),
    ("fe-", "ethernet"),
)


def interface_type(name: str) -> IfType:
    """The kind of a Junos interface from its name (`xe-0/0/1.0` -> ethernet, `ae3` -> port-channel)."""
    low = name.lower()
    for prefix, kind in _TYPES:
        if low.startswith(prefix) and (prefix.endswith(("-", ":mgmt")) or low[len(prefix) :][:1].isdigit()):
            return kind
        if low == prefix:
            return kind
    return "other"


@dataclass
class Vlans:
    """VLANs by name, and the facts built from them."""

    ids: dict[str, int] = field(default_factory=dict)  # VLAN name -> id
    members: dict[int, list[str]] = field(default_factory=dict)  # id -> member units
    l3: dict[str, int] = field(default_factory=dict)  # l3-interface (irb.N) -> VLAN id


def read_vlan_names(ctx: Context, root: Node) -> Vlans:
    out = Vlans()
    for name, node in root.items("vlans"):
        vid = node.value("vlan-id")
        if vid is None or not vid.isdigit():
            continue
        out.ids[name] = int(vid)
        l3 = node.value("l3-interface")
        if l3:
            out.l3[l3] = int(vid)
    return out


def _vlan_list(ctx: Context, words: list[str], vlans: Vlans, line: int) -> list[tuple[int, int]] | None:
    """VLAN members as ranges; None for `all`."""
    out: list[tuple[int, int]] = []
    for word in words:
        if word == "all":
            return None
        if word in vlans.ids:
            out.append((vlans.ids[word], vlans.ids[word]))
            continue
        lo, _, hi = word.partition("-")
        if lo.isdigit() and (not hi or hi.isdigit()):
            out.append((int(lo), int(hi or lo)))
        else:
            ctx.problem(line, f"vlan members {word!r}: no VLAN of that name")
    return sorted(set(out))


def _addresses(unit: Node, family: str) -> list[str]:
    return _addresses_of([addr for addr, _ in unit.items("family", family, "address")])


def _addresses_of(texts: list[str]) -> list[str]:
    out: list[str] = []
    for addr in texts:
        try:
            out.append(str(ipaddress.ip_interface(addr)))
        except ValueError:
            continue
    return out


def _kinds(unit: Node) -> list[IfAddress]:
    """IPv4 addresses with their kinds: the one marked `primary` (else the first) is the primary, the
    rest secondaries; `address A/L vrrp-group N virtual-address V` (vrrp) and the EVPN IRB's
    `address A/L virtual-gateway-address V` (anycast: every leaf of the fabric answers for it) are
    virtual gateway addresses with the length of A's subnet."""
    own = _addresses(unit, "inet")
    marked = [a for a, n in unit.items("family", "inet", "address") if n.has("primary")]
    first = _addresses_of(marked[:1])
    if first and first[0] in own:
        own = [first[0], *(a for a in own if a != first[0])]
    out = own_addresses(own)
    for addr, node in unit.items("family", "inet", "address"):
        shared: list[tuple[str, AddressKind, int | None]] = [
            (v, "anycast", None) for v in node.values("virtual-gateway-address")
        ]
        for group, g in node.items("vrrp-group"):
            shared += [
                (v, "vrrp", int(group) if group.isdigit() else None) for v in g.values("virtual-address")
            ]
        for text, kind, group_id in shared:
            value = with_length(text, [*_addresses_of([addr]), *own])
            if value is not None and all(a.address != value for a in out):
                out.append(virtual(value, kind, group_id))
    return out


_CONTAINERS = frozenset({"vlan"})  # interface kinds whose units are the interfaces (irb.N, vlan.N)


def canonical(name: str) -> str:
    """The fact name of a Junos interface or unit: `et-0/0/1.0` -> `et-0/0/1`; `irb.200` stays."""
    ifd, dot, unit = name.rpartition(".")
    if dot and unit == "0" and interface_type(ifd) not in _CONTAINERS:
        return ifd
    return name


def read_interfaces(ctx: Context, root: Node, vrf_of: dict[str, str], vlans: Vlans) -> list[Interface]:
    """Port and sub-interface facts. `vrf_of` maps a unit name to its routing instance (others: default)."""
    device = ctx.device
    out: list[Interface] = []
    for ifd, node in root.items("interfaces"):
        if ifd in ("interface-range", "traceoptions") or ifd.startswith("apply-"):
            continue
        kind = interface_type(ifd)
        enabled = not node.has("disable")
        mtu = _int(node.value("mtu"))
        lag = node.value("gigether-options", "802.3ad") or node.value("ether-options", "802.3ad")
        native = _int(node.value("native-vlan-id"))
        port = Interface(
            device=device,
            name=ifd,
            type=kind,
            description=node.value("description"),
            enabled=enabled,
            mtu=mtu,
            speed_mbps=_speed(node.value("speed")),
            port_channel=lag,
            vrf=vrf_of.get(ifd, "default"),
        )
        units = [_unit(ctx, ifd, n, u, enabled, mtu, native, vrf_of, vlans) for n, u in node.items("unit")]
        merged = next((u for u in units if u.name == ifd), None)  # unit 0, under the port's name
        if merged is not None:
            port = merged.model_copy(
                update={
                    "type": kind if kind != "other" else merged.type,
                    "description": port.description or merged.description,
                    "speed_mbps": port.speed_mbps,
                    "port_channel": lag,
                }
            )
        if kind not in _CONTAINERS or not units:
            out.append(port)
        out += [u for u in units if u.name != ifd]
    return out


def _unit(
    ctx: Context,
    ifd: str,
    unit_no: str,
    unit: Node,
    ifd_enabled: bool,
    ifd_mtu: int | None,
    native: int | None,
    vrf_of: dict[str, str],
    vlans: Vlans,
) -> Interface:
    name = canonical(f"{ifd}.{unit_no}")
    switching = unit.get("family", "ethernet-switching")
    mode = None
    access_vlan = None
    allowed: list[tuple[int, int]] | None = None
    if switching is not None:
        raw_mode = switching.value("interface-mode") or switching.value("port-mode") or "access"
        mode = "trunk" if raw_mode == "trunk" else "access"
        members = _vlan_list(ctx, switching.values("vlan", "members"), vlans, switching.line)
        if mode == "access":
            access_vlan = members[0][0] if members else None
        else:
            allowed = members
    mtu = _int(unit.value("family", "inet", "mtu")) or ifd_mtu
    addresses = _kinds(unit)
    kind: IfType = interface_type(ifd)
    if kind == "other" and unit.has("family", "ethernet-switching"):
        kind = "ethernet"
    return Interface(
        device=ctx.device,
        name=name,
        type=kind,
        description=unit.value("description"),
        vrf=vrf_of.get(name, "default"),
        enabled=ifd_enabled and not unit.has("disable"),
        switchport=switching is not None,
        mode="routed" if switching is None and _addresses(unit, "inet") else mode,
        access_vlan=access_vlan,
        native_vlan=native if mode == "trunk" else None,
        trunk_allowed_vlans=allowed if mode == "trunk" else None,
        mtu=mtu,
        ipv4=[a.address for a in addresses if not a.virtual],
        ipv4_virtual=virtual_list(addresses),
        ipv6=_addresses(unit, "inet6"),
        addresses=addresses,
    )


def vlan_facts(ctx: Context, root: Node, vlans: Vlans, interfaces: list[Interface]) -> list[Vlan | VxlanVni]:
    members: dict[int, list[str]] = {}
    for intf in interfaces:
        if not intf.switchport:
            continue
        ids: list[int] = []
        if intf.access_vlan is not None:
            ids.append(intf.access_vlan)
        for lo, hi in intf.trunk_allowed_vlans or []:
            ids.extend(v for v in range(lo, hi + 1) if v in vlans.ids.values())
        for member in ids:
            members.setdefault(member, []).append(intf.name)
    out: list[Vlan | VxlanVni] = []
    for name, node in root.items("vlans"):
        known = vlans.ids.get(name)
        if known is None:
            continue
        vid = known
        listed = [i for i, _ in node.items("interface")]  # older EX syntax: interfaces under the VLAN
        out.append(
            Vlan(
                device=ctx.device,
                vlan_id=vid,
                name=name,
                interfaces=sorted({*members.get(vid, []), *listed}),
            )
        )
        l2_vni = _int(node.value("vxlan", "vni"))
        if l2_vni is not None:
            out.append(VxlanVni(device=ctx.device, vni=l2_vni, vlan=vid))
    for _instance, inst in root.items("routing-instances"):  # EVPN virtual switches: bridge domains
        for _domain, domain in inst.items("bridge-domains"):
            domain_vni = _int(domain.value("vxlan", "vni"))
            if domain_vni is not None:
                out.append(VxlanVni(device=ctx.device, vni=domain_vni, vlan=_int(domain.value("vlan-id"))))
    return out


def _int(word: str | None) -> int | None:
    return int(word) if word is not None and word.isdigit() else None


def _speed(word: str | None) -> int | None:
    if not word:
        return None
    units = {"m": 1, "g": 1000}
    num, unit = word[:-1], word[-1:].lower()
    return int(num) * units[unit] if num.isdigit() and unit in units else None
