"""NVIDIA Onyx (MLNX-OS) `show running-config` -> network facts (entries "onyx.running-config" and
"onyx.show-text").

Onyx prints its config flat: every setting repeats its object (`interface ethernet 1/1 mtu 9216 force`,
`vlan 10 name "users"`), grouped under `##` comment banners. Each line is read on its own, so a line
that cannot be read costs only itself (a Problem with its line number). Read, as the Onyx command
reference documents them:
- interface ethernet A/B[-A/C] | port-channel N | vlan N | loopback N | mgmt0 + description, mtu,
  speed (100G...), shutdown, channel-group, switchport mode/access vlan/trunk allowed-vlan, no
  switchport, vrf forwarding, ip address (A/L or A MASK), ipv6 address, dcb priority-flow-control mode
  on, qos trust L2|L3|both, traffic-class N congestion-control ecn, ipv4 port access-group NAME,
  magp N ip virtual-router address A (the MLAG pair's shared gateway: ipv4_virtual, kind magp).
- vlan N [name X]; vrf definition NAME [rd X]; ip route [vrf V] PREFIX HOP|INTERFACE;
  router bgp ASN [vrf V] peer-group G; router bgp ASN [vrf V] neighbor A|G remote-as N|peer-group G|
  description X|shutdown|update-source X|route-map R in|out (a member inherits what it does not set).
- dcb priority-flow-control enable (switch-wide) and dcb priority-flow-control priority N enable.
- ssh server enable (on unless `no ssh server enable`), snmp-server enable, web http(s) enable.
Interface names are Onyx's short forms: Eth1/1, Po1, Vlan10, Loopback0, mgmt0.
`onyx.show-text` captures are stored as evidence only: ntc-templates has no Onyx templates.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import Literal

from auditor.capture import RawCapture
from auditor.enums import FactKind
from auditor.facts import FactRecord
from auditor.facts.network import (
    AclBinding,
    BgpNeighbor,
    IfAddress,
    Interface,
    MgmtService,
    QosInterface,
    Route,
    Vlan,
    Vrf,
)
from auditor.normalize import NormalizeResult
from collectors.parsing.addresses import own_addresses, virtual, virtual_list, with_length
from collectors.parsing.config_tree import Context
from collectors.parsing.live_common import (
    as_int,
    context_of,
    decode_text,
    device_fact,
    finish,
    interface_type,
    ip_interface,
    ip_network,
    is_ip,
    parse_vlan_list,
    vlan_ranges,
)
from collectors.parsing.show_common import CommandReader, dispatch

COVERS = frozenset(
    {
        FactKind.DEVICE,
        FactKind.INTERFACE,
        FactKind.VRF,
        FactKind.VLAN,
        FactKind.ROUTE,
        FactKind.BGP_NEIGHBOR,
        FactKind.ACL_BINDING,
        FactKind.MGMT_SERVICE,
        FactKind.QOS_INTERFACE,
    }
)
_IF = re.compile(
    r"interface (ethernet (\d+/\d+(?:/\d+)?)(?:-(\d+/\d+(?:/\d+)?))?"
    r"|port-channel (\d+)|vlan (\d+)|loopback (\d+)|(mgmt\d+))(?: (.*))?$"
)
_SPEED = re.compile(r"^(\d+(?:\.\d+)?)([GM])$", re.IGNORECASE)


@dataclass
class _If:
    name: str
    line: int
    description: str | None = None
    enabled: bool = True
    mtu: int | None = None
    speed: int | None = None
    routed: bool = False
    mode: Literal["access", "trunk"] | None = None
    access: int | None = None
    allowed: list[int] | None = None
    vrf: str = "default"
    v4: list[str] = field(default_factory=list)
    v6: list[str] = field(default_factory=list)
    channel: str | None = None
    pfc: bool = False
    trust: str | None = None
    ecn: set[int] = field(default_factory=set)
    magp: list[tuple[str, int]] = field(default_factory=list)  # `magp N ip virtual-router address A`


@dataclass
class _State:
    interfaces: dict[str, _If] = field(default_factory=dict)
    vlans: dict[int, str | None] = field(default_factory=dict)
    vrfs: dict[str, str | None] = field(default_factory=lambda: {"default": None})
    routes: list[Route] = field(default_factory=list)
    peers: dict[tuple[str, str], dict[str, object]] = field(default_factory=dict)
    peer_groups: set[tuple[str, str]] = field(default_factory=set)  # (vrf, name) `router bgp N peer-group G`
    bindings: list[AclBinding] = field(default_factory=list)
    pfc_global: bool = False
    pfc_priorities: set[int] = field(default_factory=set)
    services: dict[str, bool] = field(default_factory=lambda: {"ssh": True})
    hostname: str | None = None
    version: str | None = None


def _names(m: re.Match[str]) -> list[str]:
    if m.group(2):
        first, last = m.group(2), m.group(3) or m.group(2)
        head, _, lo = first.rpartition("/")
        hi = last.rpartition("/")[2]
        if not (lo.isdigit() and hi.isdigit()):
            return []
        return [f"Eth{head}/{n}" for n in range(int(lo), int(hi) + 1)]
    if m.group(4):
        return [f"Po{m.group(4)}"]
    if m.group(5):
        return [f"Vlan{m.group(5)}"]
    if m.group(6):
        return [f"Loopback{m.group(6)}"]
    return [m.group(7)]


def _words(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def _interface_setting(ctx: Context, st: _State, ifc: _If, rest: str, line: int) -> None:  # noqa: PLR0915 (one branch per setting)
    w = _words(rest)
    if not w:
        return
    if w[0] == "force":
        return
    if w[0] == "description":
        ifc.description = " ".join(w[1:]) or None
    elif w[0] == "shutdown":
        ifc.enabled = False
    elif w[:2] == ["no", "shutdown"]:
        ifc.enabled = True
    elif w[0] == "mtu" and len(w) > 1:
        ifc.mtu = as_int(w[1])
    elif w[0] == "speed" and len(w) > 1 and (sm := _SPEED.match(w[1])):
        ifc.speed = int(float(sm.group(1)) * (1000 if sm.group(2).upper() == "G" else 1))
    elif w[0] == "channel-group" and len(w) > 1:
        ifc.channel = f"Po{w[1]}"
    elif w[:2] == ["no", "switchport"]:
        ifc.routed = True
    elif w[:2] == ["switchport", "mode"] and len(w) > 2:
        ifc.mode = "access" if w[2] == "access" else "trunk"
    elif w[:3] == ["switchport", "access", "vlan"] and len(w) > 3:
        ifc.access = as_int(w[3])
    elif w[:3] == ["switchport", "trunk", "allowed-vlan"] and len(w) > 3:
        values = w[4] if w[3] in ("add", "remove") and len(w) > 4 else w[3]
        vlans = (
            list(range(1, 4095)) if values == "all" else [] if values == "none" else parse_vlan_list(values)
        )
        if vlans is None:
            ctx.problem(line, f"{ifc.name}: cannot read VLAN list {values!r}")
        elif w[3] == "add":
            ifc.allowed = sorted(set(ifc.allowed or []) | set(vlans))
        elif w[3] == "remove":
            ifc.allowed = sorted(set(ifc.allowed or []) - set(vlans))
        else:
            ifc.allowed = vlans
    elif w[:2] == ["vrf", "forwarding"] and len(w) > 2:
        ifc.vrf = w[2]
    elif w[:2] in (["ip", "address"], ["ipv6", "address"]) and len(w) > 2:
        if len(w) > 3 and w[3].startswith("/"):  # Onyx prints "ip address 10.0.0.1 /24"
            w = [*w[:2], w[2] + w[3], *w[4:]]
        value = ip_interface(" ".join(w[2:4]) if len(w) > 3 and is_ip(w[3]) else w[2])
        if value is None:
            ctx.problem(line, f"{ifc.name}: cannot read address {' '.join(w[2:])!r}")
        else:
            (ifc.v6 if ":" in value else ifc.v4).append(value)
    elif w[0] == "magp" and w[2:5] == ["ip", "virtual-router", "address"] and len(w) > 5 and w[1].isdigit():
        ifc.magp.append((w[5], int(w[1])))
    elif w[:4] == ["dcb", "priority-flow-control", "mode", "on"]:
        ifc.pfc = True
    elif w[:2] == ["qos", "trust"] and len(w) > 2:
        ifc.trust = {"l3": "dscp", "both": "dscp", "l2": "cos"}.get(w[2].lower(), w[2].lower())
    elif w[0] == "traffic-class" and len(w) > 3 and w[2:4] == ["congestion-control", "ecn"]:
        if (tc := as_int(w[1])) is not None:
            ifc.ecn.add(tc)
    elif "access-group" in w and w.index("access-group") + 1 < len(w):
        acl = w[w.index("access-group") + 1]
        direction: Literal["in", "out"] = "out" if w[-1] == "out" else "in"
        st.bindings.append(
            AclBinding(
                device=ctx.device, acl=acl, attach_point="interface", name=ifc.name, direction=direction
            )
        )


def _global(ctx: Context, st: _State, text: str, line: int) -> None:
    w = _words(text)
    if w[:1] == ["hostname"] and len(w) > 1:
        st.hostname = w[1]
    elif w[:1] == ["vlan"] and len(w) > 1:
        ids = parse_vlan_list(w[1])
        if ids is None:
            ctx.problem(line, f"cannot read VLAN {w[1]!r}")
            return
        for vid in ids:
            if w[2:3] == ["name"] and len(w) > 3:
                st.vlans[vid] = w[3]
            else:
                st.vlans.setdefault(vid, None)
    elif w[:2] == ["vrf", "definition"] and len(w) > 2:
        st.vrfs.setdefault(w[2], None)
        if w[3:4] == ["rd"] and len(w) > 4:
            st.vrfs[w[2]] = w[4]
    elif w[:2] == ["ip", "route"]:
        _route(ctx, st, w[2:], line)
    elif w[:2] == ["router", "bgp"]:
        _bgp(st, w)
    elif w[:3] == ["dcb", "priority-flow-control", "enable"]:
        st.pfc_global = True
    elif w[:3] == ["dcb", "priority-flow-control", "priority"] and len(w) > 4 and w[4] == "enable":
        if (p := as_int(w[3])) is not None:
            st.pfc_priorities.add(p)
    elif w[:3] == ["no", "ssh", "server"]:
        st.services["ssh"] = False
    elif w[:2] == ["snmp-server", "enable"]:
        st.services["snmp"] = True
    elif w[:2] in (["web", "http"], ["web", "https"]):
        st.services[w[1]] = w[2:3] == ["enable"]
    elif w[:3] in (["no", "web", "http"], ["no", "web", "https"]):
        st.services[w[2]] = False


def _bgp(st: _State, w: list[str]) -> None:
    """`router bgp ASN [vrf V] peer-group G` declares a group; `... neighbor A|G KEY VALUE` sets a
    neighbour's or a group's remote-as, peer-group, description, shutdown, update-source, route-map."""
    vrf = w[w.index("vrf") + 1] if "vrf" in w[:-1] else "default"
    if "neighbor" not in w:
        if "peer-group" in w[:-1]:
            st.peer_groups.add((vrf, w[w.index("peer-group") + 1]))
        return
    i = w.index("neighbor")
    if i + 2 >= len(w):
        return
    entry = st.peers.setdefault((vrf, w[i + 1]), {})
    key, values = w[i + 2], w[i + 3 :]
    if key == "remote-as" and values:
        entry["remote_as"] = values[0]
    elif key == "peer-group" and values:
        entry["peer_group"] = values[0]
    elif key == "description":
        entry["description"] = " ".join(values)
    elif key == "shutdown":
        entry["shutdown"] = True
    elif key == "update-source" and values:
        entry["update_source"] = " ".join(values)  # an address or an interface (`loopback 0`)
    elif key == "route-map" and len(values) == 2 and values[1] in ("in", "out"):
        entry["import_policies" if values[1] == "in" else "export_policies"] = [values[0]]


_GROUP_KEYS = ("remote_as", "description", "shutdown", "update_source", "import_policies", "export_policies")


def _neighbors(ctx: Context, st: _State) -> list[BgpNeighbor]:
    """Neighbours (not the groups themselves), each completed by its peer-group's settings: what the
    neighbour sets itself wins (Onyx user manual, BGP peer groups)."""
    out: list[BgpNeighbor] = []
    for (vrf, peer), entry in st.peers.items():
        if (vrf, peer) in st.peer_groups:
            continue
        merged = dict(entry)
        group = merged.get("peer_group")
        if isinstance(group, str) and (vrf, group) in st.peer_groups:
            for key, value in st.peers.get((vrf, group), {}).items():
                if key in _GROUP_KEYS:
                    merged.setdefault(key, value)
        out.append(BgpNeighbor(device=ctx.device, vrf=vrf, peer=peer, **merged))
    return out


def _route(ctx: Context, st: _State, w: list[str], line: int) -> None:
    vrf = "default"
    if w[:1] == ["vrf"] and len(w) > 2:
        vrf, w = w[1], w[2:]
    if len(w) >= 3 and is_ip(w[0]) and is_ip(w[1]) and "/" not in w[0]:
        w = [f"{w[0]}/{w[1]}", *w[2:]]
    prefix = ip_network(w[0]) if w else None
    if prefix is None or len(w) < 2:
        ctx.problem(line, f"cannot read static route {' '.join(w)!r}")
        return
    hop = w[1]
    st.routes.append(
        Route(
            device=ctx.device,
            vrf=vrf,
            prefix=prefix,
            next_hop=hop if is_ip(hop) else None,
            interface=None if is_ip(hop) else hop,
            distance=1,
        )
    )


def _read(ctx: Context, lines: list[str]) -> _State:
    st = _State()
    for number, raw in enumerate(lines, 1):
        text = raw.strip()
        if text.startswith("## Hostname:"):
            st.hostname = st.hostname or text.split(":", 1)[1].strip() or None
        elif text.startswith("## Product release:"):
            st.version = text.split(":", 1)[1].strip() or None
        if not text or text.startswith("#"):
            continue
        m = _IF.match(text)
        if m is None:
            _global(ctx, st, text, number)
            continue
        names = _names(m)
        if not names:
            ctx.problem(number, f"cannot read the interface range in {text!r}")
        for name in names:
            ifc = st.interfaces.setdefault(name, _If(name, number))
            _interface_setting(ctx, st, ifc, m.group(8) or "", number)
    return st


def _interfaces(ctx: Context, st: _State) -> list[Interface]:
    out = []
    for i in st.interfaces.values():
        mode: Literal["access", "trunk", "routed"] | None
        kind = interface_type(i.name)
        switchable = kind in ("ethernet", "port-channel") and not i.routed and not i.channel
        mode = None if not switchable else (i.mode or "access")
        if i.routed or (kind in ("vlan", "loopback", "management") and i.v4):
            mode = "routed"
        out.append(
            Interface(
                device=ctx.device,
                name=i.name,
                type=kind,
                description=i.description,
                vrf=i.vrf,
                enabled=i.enabled,
                switchport=mode in ("access", "trunk"),
                mode=mode,
                access_vlan=(i.access or 1) if mode == "access" else None,
                trunk_allowed_vlans=vlan_ranges(i.allowed)
                if mode == "trunk" and i.allowed is not None
                else None,
                mtu=i.mtu,
                speed_mbps=i.speed,
                ipv4=i.v4,
                ipv4_virtual=virtual_list(addresses := _addresses(i)),
                ipv6=i.v6,
                port_channel=i.channel,
                addresses=addresses,
            )
        )
    return out


def _addresses(i: _If) -> list[IfAddress]:
    """Own addresses, then MAGP's shared gateway addresses (the length of the subnet holding them)."""
    out = own_addresses(i.v4)
    for text, group in i.magp:
        value = with_length(text, i.v4)
        if value is not None and all(a.address != value for a in out):
            out.append(virtual(value, "magp", group))
    return out


def _allowed(i: _If) -> list[tuple[int, int]] | None:
    return vlan_ranges(i.allowed) if i.allowed is not None else None


def _qos(ctx: Context, st: _State) -> list[QosInterface]:
    out = []
    for i in st.interfaces.values():
        if interface_type(i.name) != "ethernet":
            continue
        on = st.pfc_global and i.pfc
        out.append(
            QosInterface(
                device=ctx.device,
                interface=i.name,
                pfc_enabled=on,
                pfc_no_drop_priorities=sorted(st.pfc_priorities) if on else [],
                ecn_queues=sorted(i.ecn),
                trust=i.trust,
            )
        )
    return out


def normalize_running_config(capture: RawCapture) -> NormalizeResult:
    """Facts, problems and coverage of one Onyx running-config. Never raises on bad content."""
    result = NormalizeResult()
    ctx = context_of(capture)
    lines = re.split(r"\r\n|\n|\r", decode_text(capture))
    if not any(line.strip() and not line.strip().startswith("#") for line in lines):
        ctx.problem(None, "empty running-config: nothing to read")
        return finish(result, ctx)
    try:
        st = _read(ctx, lines)
    except Exception as exc:  # containment: the problems found so far are kept
        ctx.problem(None, f"could not read the config: {type(exc).__name__}: {exc}")
        return finish(result, ctx)
    interfaces = _interfaces(ctx, st)
    for i in interfaces:
        st.vrfs.setdefault(i.vrf, None)
    facts: list[FactRecord] = [device_fact(capture, ctx, "onyx", hostname=st.hostname, os_version=st.version)]
    facts += interfaces
    facts += [
        Vrf(device=ctx.device, name=n, rd=rd, interfaces=[i.name for i in interfaces if i.vrf == n])
        for n, rd in st.vrfs.items()
    ]
    facts += [
        Vlan(
            device=ctx.device,
            vlan_id=vid,
            name=name,
            interfaces=[
                i.name
                for i in interfaces
                if i.access_vlan == vid or any(lo <= vid <= hi for lo, hi in i.trunk_allowed_vlans or [])
            ],
        )
        for vid, name in st.vlans.items()
    ]
    facts += st.routes
    facts += _neighbors(ctx, st)
    facts += st.bindings
    facts += [MgmtService(device=ctx.device, service=s, enabled=on) for s, on in st.services.items()]
    facts += _qos(ctx, st)
    result.facts.extend(facts)
    result.covers = set(COVERS)
    return finish(result, ctx)


READERS = (CommandReader(r"show interfaces? ethernet( .*)?", None),)


def normalize_show_text(capture: RawCapture) -> NormalizeResult:
    """Onyx CLI text: known commands are kept as evidence; no public TextFSM template reads them."""
    return dispatch(capture, READERS, lambda _c, _x: None)
