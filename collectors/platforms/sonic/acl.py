"""SONiC ACL_TABLE / ACL_RULE and the management plane -> Acl, AclBinding, MgmtService.

- A table's family comes from its type (L3 -> ipv4, L3V6/MIRRORV6 -> ipv6, L2 -> mac) or, for a custom
  type, from ACL_TABLE_TYPE's MATCHES (SRC_IPV6/DST_IPV6 -> ipv6).
- Rules are listed highest PRIORITY first (SONiC evaluates by priority, not by name); the priority is the
  entry's `sequence`. PACKET_ACTION FORWARD/ACCEPT/REDIRECT -> permit, DROP/REJECT -> deny; a mirror
  rule does not filter, so it is a permit. A match that is absent means any.
- Data-plane tables bind to their `ports` in the direction of `stage` (default ingress). CTRLPLANE
  tables bind to their `services` (SSH, SNMP, NTP, ...) as management bindings.
- SSH always runs on SONiC, in the default VRF, and config_db cannot move it. With VRFs on the box (the
  management VRF, data VRFs) SONiC runs with tcp_l3mdev_accept=1, so that socket answers in every VRF:
  the service is reported in vrf "*", fenced only by a CTRLPLANE ACL (caclmgrd) bound to SSH. Without
  VRFs it is the default VRF. SNMP listens where SNMP_AGENT_ADDRESS_CONFIG ("IP|PORT|VRF", empty VRF =
  default; a loopback IP answers nobody else) says, else like SSH; it is reported only when SNMP is
  configured.
"""

from __future__ import annotations

import ipaddress
from typing import Literal

from auditor.facts.network import Acl, AclBinding, AclEntry, MgmtService
from collectors.parsing.config_tree import Context
from collectors.parsing.live_common import as_int
from collectors.platforms.sonic.db import Db, Row, as_list
from collectors.platforms.sonic.interfaces import mgmt_vrf_enabled

Family = Literal["ipv4", "ipv6", "mac"]
_PROTOCOLS = {"1": "icmp", "6": "tcp", "17": "udp", "58": "icmpv6", "132": "sctp"}
_PERMIT = ("FORWARD", "ACCEPT", "REDIRECT")
_DENY = ("DROP", "REJECT")
_SNMP_TABLES = ("SNMP", "SNMP_COMMUNITY", "SNMP_USER", "SNMP_AGENT_ADDRESS_CONFIG")


def _vrfs_beside_default(db: Db) -> bool:
    """Does the box have VRFs other than the default one (the management VRF, or data VRFs)?"""
    return mgmt_vrf_enabled(db) or any(db.table(t) for t in ("VRF", "VNET"))


def _loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def _family(db: Db, table: Row) -> Family:
    kind = str(table.get("type", "")).upper()
    if kind == "L2":
        return "mac"
    if "V6" in kind:
        return "ipv6"
    matches = as_list(db.table("ACL_TABLE_TYPE").get(kind, {}).get("MATCHES"))
    if any(m in ("SRC_IPV6", "DST_IPV6") for m in matches):
        return "ipv6"
    return "ipv4"


def read_acls(ctx: Context, db: Db) -> tuple[list[Acl], list[AclBinding]]:
    rules: dict[str, list[tuple[str, Row]]] = {}
    for key, row in db.table("ACL_RULE").items():
        table_name, _, rule_name = key.partition("|")
        rules.setdefault(table_name, []).append((rule_name, row))
    acls: list[Acl] = []
    bindings: list[AclBinding] = []
    for name, table in db.table("ACL_TABLE").items():
        entries = [_entry(ctx, db, name, rule, row) for rule, row in rules.pop(name, [])]
        entries.sort(key=lambda e: (-(e.sequence or 0), e.text))
        acls.append(Acl(device=ctx.device, name=name, family=_family(db, table), entries=entries))
        bindings += _bindings(ctx, name, table)
    for orphan_table, orphans in rules.items():
        line = db.line_of("ACL_RULE", f"{orphan_table}|{orphans[0][0]}")
        ctx.problem(line, f"ACL_RULE entries for table {orphan_table!r}, which ACL_TABLE does not define")
    return acls, bindings


def _entry(ctx: Context, db: Db, table: str, rule: str, row: Row) -> AclEntry:
    action_text = str(row.get("PACKET_ACTION", "")).upper()
    action: Literal["permit", "deny"] = "permit"
    if action_text.startswith(_DENY):
        action = "deny"
    elif action_text and not action_text.startswith(_PERMIT):
        line = db.line_of("ACL_RULE", f"{table}|{rule}")
        ctx.problem(line, f"ACL_RULE|{table}|{rule}: unknown PACKET_ACTION {action_text!r}, read as permit")
    proto = row.get("IP_PROTOCOL")
    text = " ".join(f"{k}={_show(v)}" for k, v in sorted(row.items()))
    return AclEntry(
        sequence=as_int(row.get("PRIORITY")),
        action=action,
        protocol=_PROTOCOLS.get(str(proto), str(proto)) if proto not in (None, "") else None,
        source=str(row.get("SRC_IP") or row.get("SRC_IPV6") or "any"),
        source_ports=_ports(row, "L4_SRC_PORT"),
        destination=str(row.get("DST_IP") or row.get("DST_IPV6") or "any"),
        destination_ports=_ports(row, "L4_DST_PORT"),
        text=f"{rule}: {text}",
    )


def _show(value: object) -> str:
    return ",".join(value) if isinstance(value, list) else str(value)


def _ports(row: Row, field: str) -> str | None:
    if row.get(field) not in (None, ""):
        return f"eq {row[field]}"
    span = row.get(f"{field}_RANGE")
    if span:
        lo, _, hi = str(span).partition("-")
        return f"range {lo} {hi or lo}"
    return None


def _bindings(ctx: Context, name: str, table: Row) -> list[AclBinding]:
    direction: Literal["in", "out"] = "out" if str(table.get("stage", "")).lower() == "egress" else "in"
    if str(table.get("type", "")).upper() == "CTRLPLANE":
        return [
            AclBinding(device=ctx.device, acl=name, attach_point="management", name=s.lower())
            for s in as_list(table.get("services"))
        ]
    return [
        AclBinding(device=ctx.device, acl=name, attach_point="interface", name=p, direction=direction)
        for p in as_list(table.get("ports"))
    ]


def read_mgmt(ctx: Context, db: Db, bindings: list[AclBinding]) -> list[MgmtService]:
    default_vrfs = ["*"] if _vrfs_beside_default(db) else ["default"]

    def acl_for(service: str) -> str | None:
        return next((b.acl for b in bindings if b.attach_point == "management" and b.name == service), None)

    services = [
        MgmtService(device=ctx.device, service="ssh", vrf=vrf, acl=acl_for("ssh")) for vrf in default_vrfs
    ]
    if any(db.table(t) for t in _SNMP_TABLES):
        agents = [[*key.split("|"), "", "", ""] for key in db.table("SNMP_AGENT_ADDRESS_CONFIG")]
        agent_vrfs = [vrf or "default" for address, _, vrf, *_ in agents if not _loopback(address)]
        if agents and not agent_vrfs:
            return services  # bound to 127.0.0.1 / ::1 only: nobody else can reach it
        for vrf in dict.fromkeys(agent_vrfs or default_vrfs):
            services.append(MgmtService(device=ctx.device, service="snmp", vrf=vrf, acl=acl_for("snmp")))
    return services
