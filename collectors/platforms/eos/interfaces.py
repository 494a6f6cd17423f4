"""EOS `interface X` blocks -> Interface facts and the ACLs bound to interfaces.

EOS defaults read here (a running-config omits defaults):
- Ethernet and Port-Channel interfaces are switchports unless `no switchport`; a subinterface
  (`Ethernet1.10`) is always routed; Vlan, Loopback, Management, Vxlan, Tunnel are never switchports.
- A switchport without `switchport mode` is an access port (in VLAN 1 when `switchport access vlan`
  is absent: access_vlan stays None, meaning "the default VLAN").
- `switchport mode trunk phone` is a trunk; `dot1q-tunnel` (and tap/tool) ports take untagged
  frames into one VLAN, so they are reported as "access", the nearest mode in the model.
- A trunk with no `switchport trunk allowed vlan` line carries every VLAN (None).
- Switchport settings under `no switchport` stay in the config but are inert; they are still
  reported as configured (mode "routed" tells a reader they do not apply).
- Shared gateway addresses are kept as virtual addresses (ipv4_virtual) with their kind in `addresses`:
  `ip address virtual A/L` (anycast), `ip virtual-router address A` (varp), `vrrp N ipv4 A` (vrrp).
- `vrf X` moves the interface and, as EOS does, removes the addresses configured before it; `no vrf`
  moves it back to the default VRF. Ranges, lists and repeated blocks arrive merged per interface
  (collectors/platforms/eos/ranges.py), so a later block's line wins.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from auditor.facts.network import AclBinding, AddressKind, IfAddress, Interface, VlanRange
from collectors.parsing.addresses import own_addresses, virtual, with_length
from collectors.parsing.config_tree import Config, Context, Node
from collectors.parsing.values import (
    MAX_VLAN,
    merge_ranges,
    parse_id_list,
    parse_int,
    parse_ipv4_interface,
    parse_ipv6_interface,
    parse_speed_mbps,
    subtract_ranges,
)

IfType = Literal["ethernet", "port-channel", "vlan", "loopback", "management", "vxlan", "tunnel", "other"]
_TYPES: tuple[tuple[str, IfType], ...] = (
    ("ethernet", "ethernet"),
    ("port-channel", "port-channel"),
    ("vlan", "vlan"),
    ("loopback", "loopback"),
    ("management", "management"),
    ("vxlan", "vxlan"),
    ("tunnel", "tunnel"),
)
_ACCESS_GROUP = re.compile(r"(?:ip|ipv6|mac) access-group (\S+)(?: (in|out))?")
_CHANNEL_GROUP = re.compile(r"channel-group (\d+)(?: mode \S+)?")


def interface_type(name: str) -> IfType:
    low = name.lower()
    for prefix, kind in _TYPES:
        if low.startswith(prefix):
            return kind
    return "other"


@dataclass
class _State:
    """What the lines of one interface block set, before defaults are applied."""

    description: str | None = None
    vrf: str = "default"
    enabled: bool = True
    switchport_cmd: bool | None = None
    mode_raw: str | None = None
    access_vlan: int | None = None
    native_vlan: int | None = None
    trunk_allowed: list[VlanRange] | None = None
    mtu: int | None = None
    speed: int | None = None
    ipv4: list[str] = field(default_factory=list)
    ipv4_virtual: list[str] = field(default_factory=list)
    ipv6: list[str] = field(default_factory=list)
    port_channel: str | None = None
    service_profile: str | None = None
    # shared gateway addresses as written (length optional): (address, kind, group, line) of
    # `ip virtual-router address A[/L]` (varp) and `vrrp N ipv4|ip A [secondary]` (vrrp)
    varp: list[tuple[str, AddressKind, int | None, int]] = field(default_factory=list)
    anycast: list[str] = field(default_factory=list)  # `ip address virtual A/L`: kind anycast


def parse_interfaces(ctx: Context, config: Config) -> tuple[list[Interface], list[AclBinding]]:
    """Every `interface X` block, with the ACLs applied to it."""
    interfaces: list[Interface] = []
    bindings: list[AclBinding] = []
    for node, m in config.top(r"interface (\S+)"):
        name = m.group(1)
        state = _State()
        for child in node.children:
            if not child.children:
                _read_line(ctx, state, child)
            binding = _binding(ctx, name, child)
            if binding:
                bindings.append(binding)
        interfaces.append(_build(ctx, name, state))
    return interfaces, bindings


def _binding(ctx: Context, name: str, child: Node) -> AclBinding | None:
    m = _ACCESS_GROUP.fullmatch(child.text)
    if not m:
        return None
    direction: Literal["in", "out"] = "out" if m.group(2) == "out" else "in"
    return AclBinding(
        device=ctx.device, acl=m.group(1), attach_point="interface", name=name, direction=direction
    )


def _read_line(ctx: Context, st: _State, node: Node) -> None:
    text, words, line = node.text, node.words, node.line
    if text.startswith("description "):
        st.description = node.after("description")
    elif len(words) == 2 and words[0] == "vrf":
        _set_vrf(st, words[1])
    elif len(words) == 3 and words[:2] == ["vrf", "forwarding"]:
        _set_vrf(st, words[2])
    elif words[:2] == ["no", "vrf"]:  # `no vrf [X]`, `no vrf forwarding [X]`: back to the default VRF
        _set_vrf(st, "default")
    elif text == "shutdown":
        st.enabled = False
    elif text == "no shutdown":
        st.enabled = True
    elif text == "switchport":
        st.switchport_cmd = True
    elif text == "no switchport":
        st.switchport_cmd = False
    elif text.startswith("switchport mode "):
        st.mode_raw = node.after("switchport mode")
    elif text.startswith("switchport access vlan "):
        st.access_vlan = parse_int(ctx, words[3], line, "access VLAN", lo=1, hi=MAX_VLAN)
    elif text.startswith("switchport trunk native vlan "):
        if words[4] != "tag":  # `native vlan tag`: the native VLAN is tagged, no VLAN id here
            st.native_vlan = parse_int(ctx, words[4], line, "native VLAN", lo=1, hi=MAX_VLAN)
    elif text.startswith("switchport trunk allowed vlan "):
        _trunk_allowed(ctx, st, words[4:], line)
    elif words[0] == "mtu" and len(words) == 2:
        st.mtu = parse_int(ctx, words[1], line, "MTU", lo=68, hi=65535)
    elif words[0] == "speed":
        st.speed = parse_speed_mbps(ctx, words, line)
    elif words[:2] == ["ip", "address"]:
        _ipv4(ctx, st, words[2:], line)
    elif words[:3] == ["ip", "virtual-router", "address"] and len(words) == 4:
        st.varp.append((words[3], "varp", None, line))
    elif (
        words[0] == "vrrp"
        and len(words) >= 4
        and words[2] in ("ipv4", "ip")
        and _VRRP_ADDR.fullmatch(words[3])
    ):
        st.varp.append((words[3], "vrrp", int(words[1]) if words[1].isdigit() else None, line))
    elif words[:2] == ["ipv6", "address"] and len(words) >= 3:
        _ipv6(ctx, st, words[2:], line)
    elif words[0] == "channel-group":
        m = _CHANNEL_GROUP.fullmatch(text)
        if m:
            st.port_channel = f"Port-Channel{int(m.group(1))}"
        else:
            ctx.problem(line, f"cannot read {text!r}")
    elif words[0] == "service-profile" and len(words) == 2:
        st.service_profile = words[1]
    elif words[:2] == ["no", "service-profile"]:
        st.service_profile = None


_VRRP_ADDR = re.compile(r"\d+\.\d+\.\d+\.\d+")  # not `vrrp 3 ipv4 version 3`


def _set_vrf(st: _State, vrf: str) -> None:
    """EOS removes an interface's IP addresses when it changes VRF (merged blocks can do that)."""
    if vrf != st.vrf:
        st.ipv4, st.ipv4_virtual, st.ipv6, st.varp, st.anycast = [], [], [], [], []
    st.vrf = vrf


def _trunk_allowed(ctx: Context, st: _State, args: list[str], line: int) -> None:
    """`none`, `all`, a list, or `add|remove|except LIST` (EOS normally saves the plain list)."""
    if args == ["none"]:
        st.trunk_allowed = []
        return
    if args == ["all"]:
        st.trunk_allowed = None
        return
    op = args[0] if args and args[0] in {"add", "remove", "except"} else ""
    listed = parse_id_list(ctx, "".join(args[1:] if op else args), line, "trunk allowed VLANs")
    if listed is None:
        return
    current = st.trunk_allowed if st.trunk_allowed is not None else [(1, MAX_VLAN)]
    if op == "add":
        st.trunk_allowed = merge_ranges(current + listed) if st.trunk_allowed is not None else None
    elif op == "remove":
        st.trunk_allowed = subtract_ranges(current, listed)
    elif op == "except":
        st.trunk_allowed = subtract_ranges([(1, MAX_VLAN)], listed)
    else:
        st.trunk_allowed = listed


def _ipv4(ctx: Context, st: _State, args: list[str], line: int) -> None:
    """`ip address A/L [secondary]`, `ip address virtual A/L [secondary]`; dhcp/unnumbered carry none."""
    if not args or args[0] in {"dhcp", "unnumbered"}:
        return
    target = st.ipv4
    if args[0] == "virtual":
        target, args = st.ipv4_virtual, args[1:]
    if args and args[-1] == "secondary":
        args = args[:-1]
    if not args:
        ctx.problem(line, "ip address without an address")
        return
    value = parse_ipv4_interface(ctx, " ".join(args), line)
    if value is not None:
        target.append(value)
        if target is st.ipv4_virtual:
            st.anycast.append(value)


def _ipv6(ctx: Context, st: _State, args: list[str], line: int) -> None:
    """`ipv6 address X/L [eui-64]`; link-local, virtual, autoconfig and dhcp forms are skipped."""
    if args[0] in {"virtual", "auto-config", "autoconfig", "dhcp"} or "link-local" in args:
        return
    value = parse_ipv6_interface(ctx, args[0], line)
    if value is not None:
        st.ipv6.append(value)


def _varp(ctx: Context, st: _State) -> list[IfAddress]:
    """VARP's `ip virtual-router address A` (the older form of `ip address virtual`) and VRRP's
    `vrrp N ipv4 A`: the shared gateway address of the SVI's subnet. Without a length it takes the
    length of the primary address whose subnet holds it, as EOS does; one outside every subnet is kept
    as a host address. Returns every address with its kind, the interface's own first."""
    out = own_addresses(st.ipv4) + [virtual(a, "anycast") for a in st.anycast]
    for text, kind, group, line in st.varp:
        value = with_length(text, st.ipv4)
        if value is None:
            ctx.problem(line, f"invalid {'virtual-router' if kind == 'varp' else 'vrrp'} address {text!r}")
            continue
        out.append(virtual(value, kind, group))
        if value not in st.ipv4_virtual:
            st.ipv4_virtual.append(value)
    return out


def _build(ctx: Context, name: str, st: _State) -> Interface:
    addresses = _varp(ctx, st)
    kind = interface_type(name)
    switchport = False
    mode: Literal["access", "trunk", "routed"] | None = None
    if kind in {"ethernet", "port-channel"}:
        is_subinterface = "." in name
        switchport = not is_subinterface and st.switchport_cmd is not False
        if not switchport:
            mode = "routed"
        elif (st.mode_raw or "").startswith("trunk"):
            mode = "trunk"
        else:
            mode = "access"
    return Interface(
        device=ctx.device,
        name=name,
        type=kind,
        description=st.description,
        vrf=st.vrf,
        enabled=st.enabled,
        switchport=switchport,
        mode=mode,
        access_vlan=st.access_vlan,
        native_vlan=st.native_vlan,
        trunk_allowed_vlans=st.trunk_allowed,
        mtu=st.mtu,
        speed_mbps=st.speed,
        ipv4=st.ipv4,
        ipv4_virtual=st.ipv4_virtual,
        ipv6=st.ipv6,
        port_channel=st.port_channel,
        service_profile=st.service_profile,
        addresses=addresses,
    )
