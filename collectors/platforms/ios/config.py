"""IOS / IOS-XE running-config sections -> Interface, Vrf, Vlan, Route, BgpNeighbor facts.

The config is split into blocks by ciscoconfparse2's rules
(collectors.parsing.config_tree.parse_tree: IOS indents the same way).
IOS defaults read here (a running-config omits them):
- An interface is enabled unless `shutdown`; it is a switchport only when its block says `switchport`
  (routers and routed ports never do); `no switchport` makes it routed.
- `vrf forwarding X` (vrf definition) and `ip vrf forwarding X` (ip vrf) put it in VRF X.
- HSRP (`standby [N] ip A`) and VRRP (`vrrp N ip A`, VRRPv3 `vrrp N address-family ipv4` / `address A`)
  addresses are virtual gateway addresses (ipv4_virtual; kinds hsrp/vrrp in `addresses`), with the
  length of the interface subnet that holds them.
- `speed N` is Mb/s; `speed auto` says nothing.
- `ip route [vrf X] PREFIX MASK [INTERFACE] [NEXT-HOP] [DISTANCE] [name N]`, and BGP neighbours under
  `router bgp` (default VRF) and `address-family ipv4 vrf X` (VRF X).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from auditor.facts.network import AclBinding, AddressKind, BgpNeighbor, Interface, Route, Vlan, Vrf
from collectors.parsing.addresses import own_addresses, virtual, virtual_list, with_length
from collectors.parsing.config_tree import Config, Context, Node
from collectors.parsing.live_common import (
    as_int,
    interface_type,
    ip_interface,
    ip_network,
    is_ip,
    parse_vlan_list,
    vlan_ranges,
)

_ACCESS_GROUP = re.compile(r"ip(?:v6)? (?:access-group|traffic-filter) (\S+) (in|out)")
_VRF_MEMBER = re.compile(r"(?:ip )?vrf forwarding (\S+)")


@dataclass
class Interfaces:
    interfaces: list[Interface] = field(default_factory=list)
    bindings: list[AclBinding] = field(default_factory=list)


@dataclass
class _If:
    """What the lines of one interface block set."""

    description: str | None = None
    vrf: str = "default"
    enabled: bool = True
    mtu: int | None = None
    speed: int | None = None
    switchport: bool | None = None
    mode: Literal["access", "trunk", "routed"] | None = None
    access: int | None = None
    native: int | None = None
    allowed: list[int] | None = None
    v4: list[str] = field(default_factory=list)
    v6: list[str] = field(default_factory=list)
    channel: str | None = None
    fhrp: list[tuple[str, AddressKind, int]] = field(default_factory=list)  # (address, hsrp|vrrp, group)


def read_interfaces(ctx: Context, config: Config) -> Interfaces:
    out = Interfaces()
    for node, m in config.top(r"interface (.+)"):
        name = m.group(1).replace(" ", "")
        st = _If()
        for child in node.children:
            ag = _ACCESS_GROUP.fullmatch(child.text)
            if ag is not None:
                out.bindings.append(
                    AclBinding(
                        device=ctx.device,
                        acl=ag.group(1),
                        attach_point="interface",
                        name=name,
                        direction="in" if ag.group(2) == "in" else "out",
                    )
                )
            else:
                _line(ctx, st, name, child)
        out.interfaces.append(_build(ctx, name, st))
    return out


def _line(ctx: Context, st: _If, name: str, child: Node) -> None:
    text, words = child.text, child.words
    if text.startswith("description "):
        st.description = child.after("description")
    elif (vm := _VRF_MEMBER.fullmatch(text)) is not None:
        st.vrf = vm.group(1)
    elif text in ("shutdown", "no shutdown"):
        st.enabled = text == "no shutdown"
    elif words[0] == "mtu" and len(words) == 2:
        st.mtu = as_int(words[1])
    elif words[0] == "speed" and len(words) == 2 and words[1].isdigit():
        st.speed = int(words[1])
    elif text.startswith("ip address ") and words[2] not in ("dhcp", "negotiated"):
        value = ip_interface(" ".join(words[2:4]))
        if value is None:
            ctx.problem(child.line, f"interface {name}: cannot read {text!r}")
        else:
            st.v4.append(value)
    elif text.startswith("ipv6 address ") and "/" in words[2]:
        value = ip_interface(words[2])
        if value is not None:
            st.v6.append(value)
    elif text == "no switchport":
        st.switchport, st.mode = False, "routed"
    elif text == "switchport":
        st.switchport = True
    elif text.startswith("switchport mode ") and words[2] in ("access", "trunk"):
        st.switchport, st.mode = True, "access" if words[2] == "access" else "trunk"
    elif text.startswith("switchport access vlan "):
        st.switchport, st.access = True, as_int(words[3])
    elif text.startswith("switchport trunk native vlan "):
        st.native = as_int(words[4])
    elif text.startswith("switchport trunk allowed vlan "):
        st.allowed = _allowed(ctx, child, st.allowed)
    elif words[0] == "channel-group" and len(words) > 1:
        st.channel = f"Port-channel{words[1]}"
    elif words[0] in ("standby", "vrrp"):
        _fhrp(st, child)


_FHRP_LINE = re.compile(r"(standby|vrrp)(?: (\d+))? ip (\d+\.\d+\.\d+\.\d+)(?: secondary)?")
_VRRP3_BLOCK = re.compile(r"vrrp (\d+) address-family ipv4")
_VRRP3_ADDRESS = re.compile(r"address (\d+\.\d+\.\d+\.\d+)(?: primary| secondary)?")


def _fhrp(st: _If, node: Node) -> None:
    """HSRP `standby [N] ip A [secondary]` (group 0 when N is left out), VRRP `vrrp N ip A [secondary]`
    and IOS-XE VRRPv3 `vrrp N address-family ipv4` / `address A [primary|secondary]`."""
    if (m := _FHRP_LINE.fullmatch(node.text)) is not None:
        kind: AddressKind = "hsrp" if m.group(1) == "standby" else "vrrp"
        st.fhrp.append((m.group(3), kind, int(m.group(2) or 0)))
    elif (m := _VRRP3_BLOCK.fullmatch(node.text)) is not None:
        for child in node.children:
            if (a := _VRRP3_ADDRESS.fullmatch(child.text)) is not None:
                st.fhrp.append((a.group(1), "vrrp", int(m.group(1))))


def _build(ctx: Context, name: str, st: _If) -> Interface:
    mode = st.mode or ("routed" if st.v4 and not st.switchport else None)
    addresses = own_addresses(st.v4)
    for text, kind, group in st.fhrp:
        value = with_length(text, st.v4)
        if value is not None and all(a.address != value for a in addresses):
            addresses.append(virtual(value, kind, group))
    return Interface(
        device=ctx.device,
        name=name,
        type=interface_type(name),
        description=st.description,
        vrf=st.vrf,
        enabled=st.enabled,
        switchport=bool(st.switchport),
        mode=mode,
        access_vlan=st.access if mode == "access" else None,
        native_vlan=st.native if mode == "trunk" else None,
        trunk_allowed_vlans=vlan_ranges(st.allowed) if mode == "trunk" and st.allowed is not None else None,
        mtu=st.mtu,
        speed_mbps=st.speed,
        ipv4=st.v4,
        ipv4_virtual=virtual_list(addresses),
        ipv6=st.v6,
        port_channel=st.channel,
        addresses=addresses,
    )


def _allowed(ctx: Context, node: Node, current: list[int] | None) -> list[int] | None:
    rest = node.after("switchport trunk allowed vlan")
    op, _, values = rest.partition(" ")
    if op in ("add", "remove", "except"):
        parsed = parse_vlan_list(values)
    else:
        op, parsed = (
            "set",
            (list(range(1, 4095)) if rest == "all" else [] if rest == "none" else parse_vlan_list(rest)),
        )
    if parsed is None:
        ctx.problem(node.line, f"cannot read VLAN list {rest!r}")
        return current
    if op == "add":
        return sorted(set(current or []) | set(parsed))
    if op == "remove":
        return sorted(set(current if current is not None else range(1, 4095)) - set(parsed))
    if op == "except":
        return sorted(set(range(1, 4095)) - set(parsed))
    return parsed


def read_vrfs(ctx: Context, config: Config, interfaces: list[Interface]) -> list[Vrf]:
    vrfs: dict[str, dict[str, object]] = {"default": {"rd": None, "imp": [], "exp": []}}
    for node, m in config.top(r"(?:vrf definition|ip vrf) (\S+)"):
        entry: dict[str, object] = {"rd": None, "imp": [], "exp": []}
        for child in node.walk():
            words = child.words
            if words[0] == "rd" and len(words) == 2:
                entry["rd"] = words[1]
            elif words[:1] == ["route-target"] and len(words) == 3:
                if words[1] in ("import", "both"):
                    entry["imp"].append(words[2])  # type: ignore[attr-defined]
                if words[1] in ("export", "both"):
                    entry["exp"].append(words[2])  # type: ignore[attr-defined]
        vrfs[m.group(1)] = entry
    for i in interfaces:
        vrfs.setdefault(i.vrf, {"rd": None, "imp": [], "exp": []})
    return [
        Vrf(
            device=ctx.device,
            name=name,
            rd=e["rd"],
            route_targets_import=e["imp"],
            route_targets_export=e["exp"],
            interfaces=[i.name for i in interfaces if i.vrf == name],
        )
        for name, e in vrfs.items()
    ]


def read_vlans(ctx: Context, config: Config, interfaces: list[Interface]) -> list[Vlan]:
    out: list[Vlan] = []
    for node, m in config.top(r"vlan ([\d,\-]+)"):
        ids = parse_vlan_list(m.group(1))
        if ids is None:
            ctx.problem(node.line, f"cannot read VLAN list {m.group(1)!r}")
            continue
        name = next((c.after("name") for c in node.children if c.words[0] == "name"), None)
        for vid in ids:
            members = [
                i.name
                for i in interfaces
                if (i.mode == "access" and i.access_vlan == vid)
                or (
                    i.mode == "trunk"
                    and (
                        i.trunk_allowed_vlans is None
                        or any(lo <= vid <= hi for lo, hi in i.trunk_allowed_vlans)
                    )
                )
            ]
            out.append(Vlan(device=ctx.device, vlan_id=vid, name=name, interfaces=members))
    return out


def _carries(i: Interface, vid: int) -> bool:
    if i.mode == "access":
        return i.access_vlan == vid
    if i.mode == "trunk":
        allowed = i.trunk_allowed_vlans
        return allowed is None or any(lo <= vid <= hi for lo, hi in allowed)
    return False


def read_static_routes(ctx: Context, config: Config) -> list[Route]:
    out: list[Route] = []
    for node, m in config.top(r"ip route (.+)"):
        words = m.group(1).split()
        vrf = "default"
        if words[:1] == ["vrf"] and len(words) > 2:
            vrf, words = words[1], words[2:]
        if len(words) < 3:
            ctx.problem(node.line, f"cannot read static route {node.text!r}")
            continue
        prefix = ip_network(f"{words[0]} {words[1]}")
        if prefix is None:
            ctx.problem(node.line, f"invalid prefix in {node.text!r}")
            continue
        rest = words[2:]
        interface = next_hop = name = None
        distance: int | None = None
        if rest and not is_ip(rest[0]):
            interface, rest = rest[0], rest[1:]
        if rest and is_ip(rest[0]):
            next_hop, rest = rest[0], rest[1:]
        if rest and rest[0].isdigit():
            distance, rest = int(rest[0]), rest[1:]
        if "name" in rest and rest.index("name") + 1 < len(rest):
            name = rest[rest.index("name") + 1]
        out.append(
            Route(
                device=ctx.device,
                vrf=vrf,
                prefix=prefix,
                next_hop=next_hop,
                interface=interface,
                distance=distance or 1,
                name=name,
            )
        )
    return out


def read_bgp(ctx: Context, config: Config) -> list[BgpNeighbor]:
    """BGP neighbours of every `router bgp`, each completed from its peer-group.

    `neighbor G peer-group` defines group G (at router level, or inside an `address-family ipv4 vrf X`
    for that VRF); `neighbor X peer-group G` makes X a member. A member inherits remote-as, shutdown and
    default-originate from its group unless it sets them itself; its description is its own. A group
    defined at router level serves every VRF; one defined in a VRF's address family shadows it there.
    Templates (`template peer-session T` / `template peer-policy T`, used by `neighbor X inherit
    peer-session T` / `inherit peer-policy T`, and chained by `inherit ...` inside a template) fill what
    the neighbour and its group leave unset.
    """
    peers: dict[tuple[str, str], dict[str, object]] = {}
    groups: set[tuple[str, str]] = set()
    templates: dict[str, dict[str, object]] = {}
    inherits: dict[tuple[str, str], list[str]] = {}

    def visit(nodes: tuple[Node, ...], vrf: str) -> None:
        for child in nodes:
            words = child.words
            if words[:2] == ["address-family", "ipv4"] and "vrf" in words[:-1]:
                visit(child.children, words[words.index("vrf") + 1])
                continue
            if words[:1] == ["address-family"]:
                visit(child.children, vrf)
                continue
            if words[:1] == ["template"] and len(words) == 3 and words[1] in ("peer-session", "peer-policy"):
                templates[words[2]] = _template(child)
                continue
            if words[:1] != ["neighbor"] or len(words) < 3:
                continue
            peer, setting = words[1], words[2:]
            entry = peers.setdefault((vrf, peer), {})
            if setting == ["peer-group"]:
                groups.add((vrf, peer))
            elif (
                setting[0] == "inherit"
                and len(setting) == 3
                and setting[1] in ("peer-session", "peer-policy")
            ):
                inherits.setdefault((vrf, peer), []).append(setting[2])
            elif setting[0] == "remote-as" and len(setting) > 1:
                entry["remote_as"] = setting[1]
            elif setting[0] == "peer-group" and len(setting) > 1:
                entry["peer_group"] = setting[1]
            elif setting[0] == "description":
                entry["description"] = " ".join(setting[1:])
            elif setting[0] == "shutdown":
                entry["shutdown"] = True
            elif setting[0] == "default-originate":
                entry["default_originate"] = True
            else:
                _session_setting(entry, setting)

    out: list[BgpNeighbor] = []
    for node, _ in config.top(r"router bgp (\S+)"):
        peers.clear()
        groups.clear()
        templates.clear()
        inherits.clear()
        visit(node.children, "default")
        for key, entry in peers.items():
            vrf, peer = key
            if key in groups or ("default", peer) in groups:
                continue
            merged = _inherit(entry, _group(peers, groups, vrf, entry))
            for name in inherits.get(key, []):
                merged = _inherit(merged, _resolve_template(templates, name, frozenset()))
            if merged.get("remote_as") or merged.get("peer_group"):
                out.append(BgpNeighbor(device=ctx.device, vrf=vrf, peer=peer, **merged))
    return out


_SESSION_KEYS = ("update_source", "import_policies", "export_policies")


def _session_setting(entry: dict[str, object], setting: list[str]) -> None:
    """`update-source IF` and `route-map NAME in|out` of a neighbour, peer-group or template."""
    if setting[0] == "update-source" and len(setting) == 2:
        entry["update_source"] = setting[1]
    elif setting[0] == "route-map" and len(setting) == 3 and setting[2] in ("in", "out"):
        entry["import_policies" if setting[2] == "in" else "export_policies"] = [setting[1]]


def _template(node: Node) -> dict[str, object]:
    """A `template peer-session`/`peer-policy` block's own settings; `_inherits` names its parents."""
    own: dict[str, object] = {}
    parents: list[str] = []
    for child in node.children:
        w = child.words
        if w[0] == "remote-as" and len(w) > 1:
            own["remote_as"] = w[1]
        elif w == ["shutdown"] or w[:2] == ["shutdown", "graceful"]:
            own["shutdown"] = True
        elif w[0] == "default-originate":
            own["default_originate"] = True
        elif w[0] in ("update-source", "route-map"):
            _session_setting(own, w)
        elif w[0] == "inherit" and len(w) == 3 and w[1] in ("peer-session", "peer-policy"):
            parents.append(w[2])
    own["_inherits"] = parents
    return own


def _resolve_template(
    templates: dict[str, dict[str, object]], name: str, seen: frozenset[str]
) -> dict[str, object]:
    """A template's settings completed from the templates it inherits (a cycle stops the chain)."""
    if name in seen or name not in templates:
        return {}
    own = templates[name]
    merged = {k: v for k, v in own.items() if k != "_inherits"}
    parents = own.get("_inherits")
    for parent in parents if isinstance(parents, list) else []:
        merged = _inherit(merged, _resolve_template(templates, str(parent), seen | {name}))
    return merged


def _group(
    peers: dict[tuple[str, str], dict[str, object]],
    groups: set[tuple[str, str]],
    vrf: str,
    entry: dict[str, object],
) -> dict[str, object]:
    """The settings of the neighbour's peer-group: the VRF's own group first, else the router-level one."""
    name = entry.get("peer_group")
    if not isinstance(name, str):
        return {}
    for key in ((vrf, name), ("default", name)):
        if key in groups:
            return peers.get(key, {})
    return {}


def _inherit(entry: dict[str, object], group: dict[str, object]) -> dict[str, object]:
    """The neighbour's own settings, completed by its group's (the neighbour's own setting wins)."""
    merged = dict(entry)
    for key in ("remote_as", "shutdown", "default_originate", *_SESSION_KEYS):
        if key not in merged and key in group:
            merged[key] = group[key]
    return merged
