"""NX-OS `interface` blocks -> Interface facts, their ACL bindings, and the raw QoS settings per port.

Defaults follow what NX-OS prints and omits in `show running-config` (it prints only what differs
from the default), as modelled by Batfish's NX-OS `Interface.defaultShutdown` and
`defaultSwitchportMode` (batfish/batfish, representation/cisco_nxos/Interface.java):

- SVIs (`interface VlanN`), subinterfaces and `nve` are administratively down unless `no shutdown`.
- Whether an unconfigured Ethernet/port-channel port is shut depends on the platform and on
  `system default switchport shutdown`; without that line we count the port as enabled (the
  conservative reading for an auditor: a port we cannot prove down is treated as up).
- Ethernet/port-channel parents are switchports when `system default switchport` is configured,
  or when the block says `switchport` or configures a `switchport ...` sub-command; otherwise routed.
- `mgmt0` is in the management VRF (NX-OS keeps it there); a changed `vrf member` erases the port's
  L3 addresses, as NX-OS does (Batfish's nxos_vrf grammar test documents the same).
- An access port without `switchport access vlan` is in VLAN 1; a trunk's native VLAN defaults to 1
  and, without `switchport trunk allowed vlan`, it carries every VLAN (trunk_allowed_vlans None).
- HSRP and VRRP group addresses (`hsrp N` / `ip A`, `vrrp N` / `address A`, `vrrpv3 N` / `address A`)
  are the SVI's virtual gateway addresses (ipv4_virtual), with the length of the subnet that holds
  them, kinds hsrp/vrrp in `addresses`. The anycast gateway (`fabric forwarding mode anycast-gateway`)
  uses the SVI's own address: it stays in ipv4, and `addresses` gives it the kind anycast.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from auditor.facts import AclBinding, IfAddress, Interface
from auditor.facts.network import AddressKind
from collectors.parsing.addresses import own_addresses, virtual, with_length
from collectors.platforms.nxos.tree import (
    MAX_IFNAMES,
    MAX_VLAN,
    Ctx,
    Node,
    after_words,
    expand_ifnames,
    interface_type,
    parse_int,
    parse_ipv4_interface,
    parse_ipv6_interface,
    parse_vlan_list,
    to_ranges,
)

Direction = Literal["in", "out"]
_ALL_VLANS = frozenset(range(1, MAX_VLAN + 1))
_IF_SPEC = re.compile(r"^[A-Za-z][A-Za-z\-]*\s*\d")
_ACL_ON_PORT = re.compile(
    r"(?:ip (?:port )?access-group|ipv6 (?:port )?traffic-filter|mac port access-group) (\S+)(?: (in|out))?"
)


@dataclass
class IfState:
    """Everything an interface's lines said, in config order; resolved into facts once all is read."""

    name: str
    line: int
    description: str | None = None
    vrf: str = "default"
    shutdown: bool | None = None
    switchport: bool | None = None  # explicit `switchport` / `no switchport`
    switchport_implied: bool = False  # a `switchport ...` sub-command was configured
    mode: str | None = None  # the `switchport mode` keyword
    access_vlan: int | None = None
    native_vlan: int | None = None
    allowed: set[int] | None = None  # None: every VLAN
    mtu: int | None = None
    speed_mbps: int | None = None
    ipv4_primary: str | None = None
    ipv4_secondary: list[str] = field(default_factory=list)
    ipv6: list[str] = field(default_factory=list)
    # HSRP/VRRP group addresses, as written: (address, "hsrp"|"vrrp", group)
    virtual: list[tuple[str, AddressKind, int]] = field(default_factory=list)
    anycast: bool = False  # `fabric forwarding mode anycast-gateway`: its own address is the gateway
    port_channel: str | None = None
    acls: list[tuple[str, Direction]] = field(default_factory=list)
    pfc_mode: str | None = None
    pfc_watchdog: bool | None = None
    qos_in: str | None = None
    queuing_out: str | None = None

    @property
    def has_qos(self) -> bool:
        return any(v is not None for v in (self.pfc_mode, self.pfc_watchdog, self.qos_in, self.queuing_out))


def read_interfaces(roots: list[Node], ctx: Ctx) -> dict[str, IfState]:
    """Every `interface` block, merged by canonical name in config order (NX-OS merges them too)."""
    states: dict[str, IfState] = {}
    budget = MAX_IFNAMES  # interface blocks once ranges are expanded, over the whole config
    for node in roots:
        spec = after_words(node.text, 1)
        if node.words[0] != "interface" or not _IF_SPEC.match(spec):
            continue  # also skips `interface breakout module 1 port 1 map 100g-4x`
        names = expand_ifnames(spec, ctx, node.line, budget)
        budget -= len(names)
        for name in names:
            # mgmt0 lives in the management VRF on NX-OS; it cannot be moved to another one.
            vrf = "management" if interface_type(name) == "management" else "default"
            state = states.setdefault(name, IfState(name=name, line=node.line, vrf=vrf))
            for child in node.children:
                _apply(state, child, ctx)
    return states


def _apply(s: IfState, node: Node, ctx: Ctx) -> None:
    """One interface line; a later line overrides an earlier one, as on the device."""
    w = node.words
    neg = w[0] == "no"
    if neg:
        w = w[1:]
    if not w:
        return
    head = w[0]
    if head == "description":
        s.description = None if neg else after_words(node.text, 1) or None
    elif head == "shutdown" and len(w) == 1:
        s.shutdown = not neg
    elif head == "vrf" and len(w) >= 2 and w[1] == "member":
        new = (
            ("management" if interface_type(s.name) == "management" else "default")
            if neg or len(w) < 3
            else w[2]
        )
        if new != s.vrf:  # NX-OS erases the L3 addresses of a port that changes VRF
            s.ipv4_primary, s.ipv4_secondary, s.ipv6, s.virtual = None, [], [], []
        s.vrf = new
    elif head == "switchport":
        _apply_switchport(s, node, w, neg, ctx)
    elif head == "mtu" and not neg:
        value = parse_int(w[1], 64, 65535) if len(w) > 1 else None
        if value is None:
            ctx.problem(node.line, f"{s.name}: MTU {' '.join(w[1:])!r} is not a number of bytes; skipped")
        else:
            s.mtu = value
    elif head == "speed" and not neg:
        _apply_speed(s, node, w, ctx)
    elif head == "ip" and len(w) >= 2 and w[1] == "address":
        _apply_ipv4(s, node, w[2:], neg, ctx)
    elif head in _FHRP and len(w) >= 2 and w[1].isdigit() and not neg:
        _apply_fhrp(s, node, head, int(w[1]))
    elif w == ["fabric", "forwarding", "mode", "anycast-gateway"]:
        s.anycast = not neg
    elif head == "ipv6" and len(w) >= 3 and w[1] == "address" and not neg:
        if w[2] in ("use-link-local-only", "dhcp", "autoconfig"):
            return
        addr = parse_ipv6_interface(w[2])
        if addr is None:
            ctx.problem(node.line, f"{s.name}: {w[2]!r} is not an IPv6 address/length; skipped")
        elif addr not in s.ipv6:
            s.ipv6.append(addr)
    elif head == "channel-group" and not neg:
        number = parse_int(w[1], 1, 4096) if len(w) > 1 else None
        if number is None:
            ctx.problem(node.line, f"{s.name}: channel-group {' '.join(w[1:])!r} is not a number; skipped")
        else:
            s.port_channel = f"port-channel{number}"
    elif not neg:
        _apply_filters_and_qos(s, w)


def _apply_switchport(s: IfState, node: Node, w: list[str], neg: bool, ctx: Ctx) -> None:
    if len(w) == 1:
        s.switchport = not neg
        return
    if neg:
        return
    s.switchport_implied = True
    if w[1] == "mode" and len(w) >= 3:
        s.mode = w[2]
    elif w[1] == "access" and len(w) >= 4 and w[2] == "vlan":
        vlan = parse_int(w[3], 1, MAX_VLAN)
        if vlan is None:
            ctx.problem(node.line, f"{s.name}: access VLAN {w[3]!r} is not a VLAN id; skipped")
        else:
            s.access_vlan = vlan
    elif w[1] == "trunk" and len(w) >= 4 and w[2] == "native" and w[3] == "vlan":
        vlan = parse_int(w[4], 1, MAX_VLAN) if len(w) > 4 else None
        if vlan is None:
            ctx.problem(node.line, f"{s.name}: native VLAN {' '.join(w[4:])!r} is not a VLAN id; skipped")
        else:
            s.native_vlan = vlan
    elif w[1] == "trunk" and len(w) >= 5 and w[2] == "allowed" and w[3] == "vlan":
        _apply_allowed(s, node, w[4:], ctx)


def _apply_allowed(s: IfState, node: Node, args: list[str], ctx: Ctx) -> None:
    """`allowed vlan LIST | add LIST | remove LIST | except LIST | all | none`."""
    op = args[0] if args[0] in ("add", "remove", "except") else "set"
    listed = " ".join(args[1:] if op != "set" else args)
    if listed in ("all", "none") and op == "set":
        s.allowed = None if listed == "all" else set()
        return
    vlans = parse_vlan_list(listed)
    if vlans is None:
        ctx.problem(node.line, f"{s.name}: allowed VLAN list {listed!r} is not a VLAN list; skipped")
        return
    current = set(_ALL_VLANS) if s.allowed is None else s.allowed
    if op == "set":
        s.allowed = set(vlans)
    elif op == "add":
        s.allowed = None if s.allowed is None else current | set(vlans)
    elif op == "remove":
        s.allowed = current - set(vlans)
    else:
        s.allowed = set(_ALL_VLANS) - set(vlans)
    if s.allowed is not None and s.allowed == _ALL_VLANS:
        s.allowed = None


def _apply_speed(s: IfState, node: Node, w: list[str], ctx: Ctx) -> None:
    if len(w) > 1 and w[1] == "auto":
        s.speed_mbps = None
        return
    value = parse_int(w[1], 1, 10_000_000) if len(w) > 1 else None
    if value is None:
        ctx.problem(node.line, f"{s.name}: speed {' '.join(w[1:])!r} is not a number of Mb/s; skipped")
    else:
        s.speed_mbps = value


def _apply_ipv4(s: IfState, node: Node, args: list[str], neg: bool, ctx: Ctx) -> None:
    if neg:
        if not args:
            s.ipv4_primary, s.ipv4_secondary = None, []
        return
    if not args or args[0] == "dhcp":
        return
    addr = parse_ipv4_interface(args)
    if addr is None:
        ctx.problem(node.line, f"{s.name}: {' '.join(args)!r} is not an IPv4 address/length; skipped")
    elif "secondary" in args:
        if addr not in s.ipv4_secondary:
            s.ipv4_secondary.append(addr)
    else:
        s.ipv4_primary = addr


def _apply_filters_and_qos(s: IfState, w: list[str]) -> None:
    """ACLs on the port (`ip [port] access-group`, `ipv6 [port] traffic-filter`) and QoS lines."""
    text = " ".join(w)
    m = _ACL_ON_PORT.fullmatch(text)
    if m:
        s.acls.append((m.group(1), "out" if m.group(2) == "out" else "in"))
        return
    m = re.fullmatch(r"priority-flow-control mode (on|off|auto)", text)
    if m:
        s.pfc_mode = m.group(1)
        return
    m = re.match(r"priority-flow-control watch-dog(?:-interval)?\b(.*)", text)
    if m:
        s.pfc_watchdog = m.group(1).split()[-1:] != ["off"]
        return
    m = re.fullmatch(r"service-policy (?:type (qos|queuing) )?(input|output) (\S+)", text)
    if m:
        kind = m.group(1) or "qos"
        if kind == "qos" and m.group(2) == "input":
            s.qos_in = m.group(3)
        elif kind == "queuing" and m.group(2) == "output":
            s.queuing_out = m.group(3)


@dataclass(frozen=True)
class SwitchDefaults:
    """`system default switchport [shutdown]`: what an Ethernet port is when its block is silent."""

    switchport: bool = False
    switchport_shutdown: bool | None = None


def read_switch_defaults(roots: list[Node]) -> SwitchDefaults:
    """The global lines that decide what a silent Ethernet port is."""
    switchport, shutdown = False, None
    for node in roots:
        if node.text == "system default switchport":
            switchport = True
        elif node.text == "no system default switchport":
            switchport = False
        elif node.text == "system default switchport shutdown":
            shutdown = True
        elif node.text == "no system default switchport shutdown":
            shutdown = False
    return SwitchDefaults(switchport=switchport, switchport_shutdown=shutdown)


def _is_switchport(s: IfState, defaults: SwitchDefaults) -> bool:
    kind = interface_type(s.name)
    if kind not in ("ethernet", "port-channel") or "." in s.name:
        return False  # only Ethernet and port-channel parents can switch
    if s.switchport is not None:
        return s.switchport
    return s.switchport_implied or defaults.switchport


_FHRP = {"hsrp": "ip", "vrrp": "address", "vrrpv3": "address"}  # group block -> its address line


def _apply_fhrp(s: IfState, group: Node, head: str, number: int) -> None:
    """`hsrp N` / `ip A [secondary]`, `vrrp N` / `address A [secondary]`, `vrrpv3 N address-family
    ipv4` / `address A primary|secondary`: the group's virtual gateway addresses (IPv4 only)."""
    kind: AddressKind = "hsrp" if head == "hsrp" else "vrrp"
    for child in group.children:
        w = child.words
        ipv4 = len(w) >= 2 and w[0] == _FHRP[head] and w[1][:1].isdigit() and ":" not in w[1]
        if ipv4 and all(v[0] != w[1] for v in s.virtual):
            s.virtual.append((w[1], kind, number))


def _addresses(s: IfState, ipv4: list[str]) -> list[IfAddress]:
    """The SVI's addresses with their kinds. Virtual gateway addresses take the length of the interface
    subnet that holds them (/32 if none, or as written). Under `fabric forwarding mode
    anycast-gateway` the SVI's own primary address is the anycast gateway every leaf shares."""
    out = own_addresses(ipv4, "anycast" if s.anycast else "primary")
    seen: set[str] = set()
    for text, kind, group in s.virtual:
        value = with_length(text, ipv4)
        if value is not None and value not in seen:
            seen.add(value)
            out.append(virtual(value, kind, group))
    return out


def _enabled(s: IfState, switchport: bool, defaults: SwitchDefaults) -> bool:
    if s.shutdown is not None:
        return not s.shutdown
    kind = interface_type(s.name)
    if kind in ("vlan", "vxlan") or ("." in s.name and kind in ("ethernet", "port-channel")):
        return False
    return not (kind == "ethernet" and switchport and defaults.switchport_shutdown)


def to_interface(s: IfState, device: str, defaults: SwitchDefaults) -> Interface:
    """The Interface fact, with the NX-OS defaults filled in (see the module docstring)."""
    kind = interface_type(s.name)
    switchport = _is_switchport(s, defaults)
    mode: Literal["access", "trunk", "routed"] | None = None
    if switchport:
        mode = "trunk" if s.mode == "trunk" else "access" if s.mode in (None, "access") else None
    elif kind not in ("vxlan", "other"):
        mode = "routed"
    ipv4 = ([s.ipv4_primary] if s.ipv4_primary else []) + s.ipv4_secondary
    addresses = [] if switchport else _addresses(s, ipv4)
    return Interface(
        device=device,
        name=s.name,
        type=kind,
        description=s.description,
        vrf=s.vrf,
        enabled=_enabled(s, switchport, defaults),
        switchport=switchport,
        mode=mode,
        access_vlan=(s.access_vlan or 1) if mode == "access" else None,
        native_vlan=(s.native_vlan or 1) if mode == "trunk" else None,
        trunk_allowed_vlans=to_ranges(s.allowed) if mode == "trunk" and s.allowed is not None else None,
        mtu=s.mtu,
        speed_mbps=s.speed_mbps,
        ipv4=[] if switchport else ipv4,
        # the anycast SVI's own address stays in ipv4 (where checks have always read it)
        ipv4_virtual=[a.address for a in addresses if a.virtual and a.kind != "anycast"],
        ipv6=[] if switchport else list(s.ipv6),
        port_channel=s.port_channel,
        addresses=addresses,
    )


def to_bindings(s: IfState, iface: Interface) -> list[AclBinding]:
    """Router ACLs carry the port's VRF; port ACLs on a switchport belong to no VRF."""
    vrf = None if iface.switchport else iface.vrf
    return [
        AclBinding(device=iface.device, acl=acl, attach_point="interface", name=s.name, direction=d, vrf=vrf)
        for acl, d in s.acls
    ]
