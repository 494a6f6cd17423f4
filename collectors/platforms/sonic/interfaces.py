"""SONiC config_db ports, port-channels, SVIs, loopbacks, sub-interfaces and eth0 -> Interface and Vlan facts.

SONiC defaults read here (config_db omits them; values from the sonic-yang-models):
- PORT and PORTCHANNEL `admin_status` defaults to "down" (sonic-port.yang, sonic-portchannel.yang);
  VLAN, loopback, sub-interface and the management port default to "up".
- A port with VLAN_MEMBER entries is a switchport: "tagged" memberships make it a trunk (allowed = every
  member VLAN, native = its untagged VLAN), untagged only makes it an access port. A newer `mode` field on
  PORT/PORTCHANNEL (access/trunk/routed) wins when present.
- L3 settings live in INTERFACE / PORTCHANNEL_INTERFACE / VLAN_INTERFACE / LOOPBACK_INTERFACE /
  VLAN_SUB_INTERFACE / MGMT_INTERFACE: "NAME" carries vrf_name, "NAME|A/L" one address.
- A VLAN_INTERFACE with static_anycast_gateway "true" (SONiC's SAG, MAC in SAG|GLOBAL) answers its IPv4
  addresses as the anycast gateway every leaf shares: they are ipv4_virtual, kind sag in `addresses`
  (IPv6 stays in ipv6).
- eth0 is in VRF "mgmt" when MGMT_VRF_CONFIG|vrf_global has mgmtVrfEnabled "true".
- PORT speed is in Mb/s.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from auditor.facts.network import IfAddress, Interface, Vlan
from collectors.parsing.addresses import own_addresses
from collectors.parsing.config_tree import Context
from collectors.parsing.live_common import as_int, interface_type, ip_interface, vlan_ranges
from collectors.platforms.sonic.db import Db

L3_TABLES = (
    "INTERFACE",
    "PORTCHANNEL_INTERFACE",
    "VLAN_INTERFACE",
    "LOOPBACK_INTERFACE",
    "VLAN_SUB_INTERFACE",
    "MGMT_INTERFACE",
)
_VLAN_NAME = re.compile(r"^Vlan(\d+)$")
Mode = Literal["access", "trunk", "routed"]


@dataclass
class _Port:
    name: str
    admin_default: str
    row: dict[str, object] = field(default_factory=dict)
    vrf: str = "default"
    l3: bool = False
    ipv4: list[str] = field(default_factory=list)
    ipv6: list[str] = field(default_factory=list)
    tagged: set[int] = field(default_factory=set)
    untagged: set[int] = field(default_factory=set)
    port_channel: str | None = None
    anycast: bool = False  # VLAN_INTERFACE static_anycast_gateway: its addresses are the anycast gateway


def mgmt_vrf_enabled(db: Db) -> bool:
    row = db.table("MGMT_VRF_CONFIG").get("vrf_global", {})
    return str(row.get("mgmtVrfEnabled", "false")).lower() == "true"


def vlan_id(name: str, row: dict[str, object] | None = None) -> int | None:
    if row is not None and as_int(row.get("vlanid")) is not None:
        return as_int(row.get("vlanid"))
    m = _VLAN_NAME.match(name)
    return int(m.group(1)) if m else None


class _Ports(dict[str, _Port]):
    def get_or_add(self, name: str, admin_default: str = "up") -> _Port:
        if name not in self:
            self[name] = _Port(name, admin_default)
        return self[name]


def read_interfaces(ctx: Context, db: Db) -> tuple[list[Interface], list[Vlan]]:
    ports = _Ports()
    port = ports.get_or_add
    for name, row in db.table("PORT").items():
        port(name, "down").row = row
    for name, row in db.table("PORTCHANNEL").items():
        port(name, "down").row = row
    for name, row in db.table("MGMT_PORT").items():
        port(name).row = row
    for name, row in db.table("VLAN_SUB_INTERFACE").items():
        if "|" not in name:
            port(name).row = row
    _read_l3(ctx, db, port)
    _read_members(ctx, db, port)
    if mgmt_vrf_enabled(db):
        for p in ports.values():
            if interface_type(p.name) == "management":
                p.vrf = "mgmt"
    vlan_rows = db.table("VLAN")
    interfaces = [_build(ctx, p, vlan_rows) for p in ports.values()]
    return interfaces, _vlans(ctx, db, ports)


def _read_l3(ctx: Context, db: Db, port: Callable[..., _Port]) -> None:
    for table in L3_TABLES:
        for key, row in db.table(table).items():
            name, _, addr = key.partition("|")
            p = port(name)
            p.l3 = True
            if not addr:
                if row.get("vrf_name"):
                    p.vrf = str(row["vrf_name"])
                if table == "VLAN_INTERFACE" and str(row.get("static_anycast_gateway", "")).lower() == "true":
                    p.anycast = True
                if table == "VLAN_SUB_INTERFACE" and not p.row:
                    p.row = row
                continue
            value = ip_interface(addr)
            if value is None:
                ctx.problem(db.line_of(table, key), f"{table}|{key}: cannot read address {addr!r}")
            elif ":" in value:
                p.ipv6.append(value)
            else:
                p.ipv4.append(value)


def _read_members(ctx: Context, db: Db, port: Callable[..., _Port]) -> None:
    for key in db.table("PORTCHANNEL_MEMBER"):
        pc, _, member = key.partition("|")
        if not member:
            ctx.problem(db.line_of("PORTCHANNEL_MEMBER", key), f"PORTCHANNEL_MEMBER|{key}: no member port")
            continue
        port(member, "down").port_channel = pc
    for key, row in db.table("VLAN_MEMBER").items():
        vlan, _, member = key.partition("|")
        vid = vlan_id(vlan, db.table("VLAN").get(vlan))
        if not member or vid is None:
            ctx.problem(db.line_of("VLAN_MEMBER", key), f"VLAN_MEMBER|{key}: cannot read VLAN and member")
            continue
        p = port(member, "down")
        (p.tagged if row.get("tagging_mode", "untagged") == "tagged" else p.untagged).add(vid)


def _mode(p: _Port) -> Mode | None:
    configured = p.row.get("mode")
    if configured in ("access", "trunk", "routed"):
        return configured
    if p.tagged:
        return "trunk"
    if p.untagged:
        return "access"
    return "routed" if p.l3 else None


def _build(ctx: Context, p: _Port, vlan_rows: dict[str, dict[str, object]]) -> Interface:
    row = p.row
    kind = interface_type(p.name)
    if kind == "vlan":
        row = {**vlan_rows.get(p.name, {}), **row}
    mode = _mode(p)
    switchport = mode in ("access", "trunk")
    members = p.tagged | p.untagged
    untagged = sorted(p.untagged)
    description = row.get("description")
    return Interface(
        device=ctx.device,
        name=p.name,
        type=kind,
        description=str(description) if description else None,
        vrf=p.vrf,
        enabled=str(row.get("admin_status", p.admin_default)).lower() == "up",
        switchport=switchport,
        mode=mode,
        access_vlan=untagged[0] if mode == "access" and untagged else None,
        native_vlan=untagged[0] if mode == "trunk" and untagged else None,
        trunk_allowed_vlans=vlan_ranges(members) if mode == "trunk" else None,
        mtu=as_int(row.get("mtu")),
        speed_mbps=as_int(row.get("speed")),
        ipv4=[] if p.anycast else p.ipv4,
        ipv4_virtual=p.ipv4 if p.anycast else [],
        ipv6=p.ipv6,
        port_channel=p.port_channel,
        addresses=[IfAddress(address=a, kind="sag") for a in p.ipv4] if p.anycast else own_addresses(p.ipv4),
    )


def _vlans(ctx: Context, db: Db, ports: dict[str, _Port]) -> list[Vlan]:
    out: list[Vlan] = []
    for name, row in db.table("VLAN").items():
        vid = vlan_id(name, row)
        if vid is None:
            ctx.problem(db.line_of("VLAN", name), f"VLAN|{name}: no VLAN id in the name or vlanid")
            continue
        members = [p.name for p in ports.values() if vid in p.tagged or vid in p.untagged]
        description = row.get("description")
        out.append(
            Vlan(
                device=ctx.device,
                vlan_id=vid,
                name=str(description) if description else None,
                interfaces=members,
            )
        )
    return out
