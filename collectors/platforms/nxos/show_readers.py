"""Readers of NX-OS `show ... | json` outputs (NX-API's TABLE_x/ROW_x structure), one per command.

- show ip route vrf all: TABLE_vrf.ROW_vrf[{"vrf-name-out", TABLE_addrf.ROW_addrf[{"addrf",
  TABLE_prefix.ROW_prefix[{"ipprefix", TABLE_path.ROW_path[{"ipnexthop", "ifname", "pref",
  "clientname", "ubest"}]}]}]}] -> one Route per unicast-best path; the protocol is the path's
  clientname without its instance ("bgp-65001" -> bgp, "direct" -> connected, "ospf-1" -> ospf).
- show ip access-lists: TABLE_ip_ipv6_mac.ROW_ip_ipv6_mac[{"acl_name", TABLE_seqno.ROW_seqno[{"seqno",
  "permitdeny" | "remark", "proto" | "proto_str", "src_any" | "src_ip_prefix", "src_port_op",
  "src_port1_num", "src_port2_num", "dest_any" | "dest_ip_prefix", "dest_port_op", ...}]}] (the field
  names Ansible's nxos_acl module reads) -> Acl; the entry text is rebuilt in CLI order.
- show nve vni: TABLE_nve_vni.ROW_nve_vni[{"vni", "type": "L2 [10]" | "L3 [VRF]"}] -> VxlanVni.
- show interface priority-flow-control: see `read_pfc`.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from auditor.facts import FactRecord
from auditor.facts.network import Acl, AclEntry, QosInterface, Route, VxlanVni
from collectors.parsing.config_tree import Context
from collectors.parsing.live_common import as_int, ip_network
from collectors.parsing.show_common import route_protocol, rows

_VNI_TYPE = re.compile(r"^(L2|L3)\s*\[(.+)\]$")


def read_routes(ctx: Context, doc: Any) -> list[FactRecord]:
    out: list[FactRecord] = []
    for vrf_row in rows(doc, "TABLE_vrf", "ROW_vrf"):
        vrf = str(vrf_row.get("vrf-name-out") or "default")
        for af in rows(vrf_row, "TABLE_addrf", "ROW_addrf"):
            for prefix_row in rows(af, "TABLE_prefix", "ROW_prefix"):
                raw = str(prefix_row.get("ipprefix", ""))
                prefix = ip_network(raw)
                if prefix is None:
                    ctx.problem(None, f"vrf {vrf}: cannot read prefix {raw!r}; skipped")
                    continue
                for path in rows(prefix_row, "TABLE_path", "ROW_path"):
                    if str(path.get("ubest", "true")).lower() != "true":
                        continue  # multicast-best or backup paths are not unicast forwarding
                    out.append(
                        Route(
                            device=ctx.device,
                            vrf=vrf,
                            prefix=prefix,
                            protocol=route_protocol(str(path.get("clientname", "unknown"))),
                            next_hop=_hop(path.get("ipnexthop")),
                            interface=str(path["ifname"]) if path.get("ifname") else None,
                            distance=as_int(path.get("pref")),
                        )
                    )
    return out


def _hop(value: Any) -> str | None:
    text = str(value or "").strip()
    return None if text in ("", "0.0.0.0", "::") else text  # noqa: S104 (an attached route's hop)


def read_acls(ctx: Context, doc: Any) -> list[FactRecord]:
    out: list[FactRecord] = []
    for acl in rows(doc, "TABLE_ip_ipv6_mac", "ROW_ip_ipv6_mac"):
        name = acl.get("acl_name")
        if not name:
            ctx.problem(None, "an access list without acl_name; skipped")
            continue
        family = str(acl.get("op_ip_ipv6_mac", "ip")).lower()
        entries = [_entry(e) for e in rows(acl, "TABLE_seqno", "ROW_seqno")]
        out.append(
            Acl(
                device=ctx.device,
                name=str(name),
                family="ipv6" if family == "ipv6" else "mac" if family == "mac" else "ipv4",
                entries=entries,
            )
        )
    return out


def _ports(row: dict[str, Any], side: str) -> str | None:
    op = row.get(f"{side}_port_op")
    if not op:
        return None
    first = row.get(f"{side}_port1_num", row.get(f"{side}_port1_str", ""))
    second = row.get(f"{side}_port2_num", row.get(f"{side}_port2_str", ""))
    return f"{op} {first} {second}".strip() if op == "range" else f"{op} {first}".strip()


def _entry(row: dict[str, Any]) -> AclEntry:
    seq = as_int(row.get("seqno"))
    if row.get("remark"):
        return AclEntry(sequence=seq, action="remark", text=f"{seq} remark {row['remark']}")
    action: Literal["permit", "deny"] = "deny" if str(row.get("permitdeny")).lower() == "deny" else "permit"
    proto = row.get("proto_str") or row.get("proto") or row.get("ip")
    source = str(row.get("src_any") or row.get("src_ip_prefix") or "") or None
    destination = str(row.get("dest_any") or row.get("dest_ip_prefix") or "") or None
    src_ports, dst_ports = _ports(row, "src"), _ports(row, "dest")
    parts = [
        str(seq),
        action,
        str(proto or ""),
        source or "",
        src_ports or "",
        destination or "",
        dst_ports or "",
    ]
    return AclEntry(
        sequence=seq,
        action=action,
        protocol=str(proto) if proto else None,
        source=source,
        source_ports=src_ports,
        destination=destination,
        destination_ports=dst_ports,
        text=" ".join(str(p) for p in parts if p),
    )


def read_nve_vni(ctx: Context, doc: Any) -> list[FactRecord]:
    out: list[FactRecord] = []
    for row in rows(doc, "TABLE_nve_vni", "ROW_nve_vni"):
        vni = as_int(row.get("vni"))
        m = _VNI_TYPE.match(str(row.get("type", "")).strip())
        if vni is None or not m:
            ctx.problem(None, f"nve vni row {row.get('vni')!r}: cannot read vni and type; skipped")
            continue
        if m.group(1) == "L2":
            vlan = as_int(m.group(2))
            if vlan is None:
                ctx.problem(None, f"nve vni {vni}: L2 type without a VLAN ({row.get('type')!r}); skipped")
                continue
            out.append(VxlanVni(device=ctx.device, vni=vni, vlan=vlan))
        else:
            out.append(VxlanVni(device=ctx.device, vni=vni, vrf=m.group(2)))
    return out


def _bitmap(value: Any) -> int | None:
    """A VL bitmap as an int: a number, or a hex string ("0x8", "08")."""
    if as_int(value) is not None:
        return as_int(value)
    text = str(value or "").strip().lower()
    return int(text, 16) if re.fullmatch(r"(0x)?[0-9a-f]+", text) else None


def read_pfc(ctx: Context, doc: Any) -> list[FactRecord]:
    """`show interface priority-flow-control`: per port, the PFC mode and operational state.

    The text output is `Port Mode Oper(VL bmap) RxPPP TxPPP` ("Ethernet1/1 On On (8) 0 0"); its JSON
    rows (TABLE_pfc.ROW_pfc, no public capture) are read as ifname, mode, oper and an optional VL
    bitmap ("vl_bmap"/"oper_vl_bmap", bit N = priority N). PFC counts as enabled when the operational
    state is On; the watchdog, ECN and trust are not in this output (None/empty = not shown).
    """
    out: list[FactRecord] = []
    for row in rows(doc, "TABLE_pfc", "ROW_pfc"):
        name = row.get("ifname") or row.get("if_name") or row.get("interface")
        oper = str(row.get("oper", row.get("oper_state", ""))).strip().lower()
        if not name or not oper:
            ctx.problem(None, f"priority-flow-control row without ifname/oper: {sorted(row)}; skipped")
            continue
        bitmap = as_int(row.get("oper_vl_bmap", row.get("vl_bmap")))
        if bitmap is None and isinstance(row.get("vl_bmap"), str):
            bitmap = (
                int(str(row["vl_bmap"]), 16)
                if re.fullmatch(r"(0x)?[0-9a-fA-F]+", str(row["vl_bmap"]))
                else None
            )
        priorities = [p for p in range(8) if bitmap is not None and bitmap >> p & 1]
        out.append(
            QosInterface(
                device=ctx.device,
                interface=str(name),
                pfc_enabled=oper.startswith("on"),
                pfc_no_drop_priorities=priorities,
            )
        )
    return out
