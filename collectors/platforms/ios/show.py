"""Cisco IOS / IOS-XE CLI text -> facts through ntc-templates' TextFSM templates (entry "ios.show-text").

meta["command"] picks the template (ntc-templates' index, platform cisco_ios; compiled once, see
templates.py) and the mapping of its records:
- show ip route [vrf NAME|*] -> Route (code C connected, L local, S static, O ospf, B bgp, D eigrp,
  R rip, i isis); a record without VRF is in the command's VRF, else "default".
- show ip access-lists -> Acl (standard/extended, entries rebuilt from the template's fields).
- show vrf -> Vrf (name, default RD, interfaces); show ip vrf interfaces -> Vrf (name, interfaces).
- show lldp neighbors [detail] -> LldpNeighbor; show vlan [brief] -> Vlan.
- show interfaces switchport: stored as evidence only: it holds part of an Interface record (no
  address, no VRF); the running config gives whole Interface facts.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from auditor.capture import RawCapture
from auditor.enums import FactKind
from auditor.facts import FactRecord
from auditor.facts.network import Acl, AclEntry, LldpNeighbor, Route, Vlan, Vrf
from auditor.normalize import NormalizeResult
from collectors.parsing.config_tree import Context
from collectors.parsing.live_common import as_int, decode_text, ip_network
from collectors.parsing.show_common import CommandReader, command_key, dispatch
from collectors.platforms.ios.mgmt_state import read_http_status
from collectors.platforms.ios.templates import TEMPLATES

Records = list[dict[str, Any]]
_CODES = {"C": "connected", "L": "local", "S": "static", "O": "ospf", "B": "bgp", "D": "eigrp", "R": "rip"}
_CODES |= {"i": "isis", "M": "mobile", "E": "egp", "o": "odr", "P": "periodic", "H": "nhrp", "l": "lisp"}


def _records(doc: Any) -> Records:
    return [r for r in doc if isinstance(r, dict)] if isinstance(doc, list) else []


def read_routes(ctx: Context, doc: Any) -> list[FactRecord]:
    out: list[FactRecord] = []
    for r in _records(doc):
        if not r.get("network"):
            continue
        prefix = ip_network(f"{r['network']}/{r.get('prefix_length') or 32}")
        if prefix is None:
            ctx.problem(None, f"cannot read route {r.get('network')!r}/{r.get('prefix_length')!r}; skipped")
            continue
        code = str(r.get("protocol", "")).strip()
        out.append(
            Route(
                device=ctx.device,
                vrf=str(r.get("vrf") or "") or "default",
                prefix=prefix,
                protocol=_CODES.get(code, code.lower() or "unknown"),
                next_hop=str(r["nexthop_ip"]) if r.get("nexthop_ip") else None,
                interface=str(r["nexthop_if"]) if r.get("nexthop_if") else None,
                distance=as_int(r.get("distance")),
            )
        )
    return out


def _address(r: dict[str, Any], side: str) -> str | None:
    if r.get(f"{side}_any"):
        return "any"
    if r.get(f"{side}_host"):
        return f"host {r[f'{side}_host']}"
    if r.get(f"{side}_network"):
        wildcard = r.get(f"{side}_wildcard")
        return f"{r[f'{side}_network']} {wildcard}" if wildcard else str(r[f"{side}_network"])
    if r.get(f"{side}_network_object_group_name"):
        return f"object-group {r[f'{side}_network_object_group_name']}"
    return None


def _ports(r: dict[str, Any], side: str) -> str | None:
    match = r.get(f"{side}_port_match")
    if not match:
        return None
    if match == "range":
        return f"range {r.get(f'{side}_port_range_start')} {r.get(f'{side}_port_range_end')}"
    port = r.get(f"{side}_port")
    return f"{match} {' '.join(port) if isinstance(port, list) else port}"


def read_acls(ctx: Context, doc: Any) -> list[FactRecord]:
    acls: dict[str, tuple[bool, list[AclEntry]]] = {}
    for r in _records(doc):
        name = str(r.get("acl_name") or "")
        if not name:
            continue
        standard = str(r.get("acl_type", "")).lower() == "standard"
        entries = acls.setdefault(name, (standard, []))[1]
        action = str(r.get("action") or "").lower()
        if action not in ("permit", "deny"):
            continue  # the ACL's header line
        act: Literal["permit", "deny"] = "permit" if action == "permit" else "deny"
        source, destination = _address(r, "src"), _address(r, "dst")
        sports, dports = _ports(r, "src"), _ports(r, "dst")
        proto = str(r.get("protocol") or "") or None
        words = [r.get("line_num"), act, proto, source, sports, destination, dports]
        entries.append(
            AclEntry(
                sequence=as_int(r.get("line_num")),
                action=act,
                protocol=proto,
                source=source,
                source_ports=sports,
                destination=destination,
                destination_ports=dports,
                text=" ".join(str(w) for w in words if w),
            )
        )
    return [
        Acl(device=ctx.device, name=name, standard=standard, entries=entries)
        for name, (standard, entries) in acls.items()
    ]


def read_vrfs(ctx: Context, doc: Any) -> list[FactRecord]:
    out: list[FactRecord] = []
    for r in _records(doc):
        rd = str(r.get("default_rd") or "")
        interfaces = r.get("interfaces") or []
        out.append(
            Vrf(
                device=ctx.device,
                name=str(r["name"]),
                rd=None if rd in ("", "<not set>") else rd,
                interfaces=[str(i) for i in interfaces]
                if isinstance(interfaces, list)
                else [str(interfaces)],
            )
        )
    return out


def read_vrf_interfaces(ctx: Context, doc: Any) -> list[FactRecord]:
    members: dict[str, list[str]] = {}
    for r in _records(doc):
        if r.get("vrf") and r.get("interface"):
            members.setdefault(str(r["vrf"]), []).append(str(r["interface"]))
    return [Vrf(device=ctx.device, name=name, interfaces=ifs) for name, ifs in members.items()]


def read_lldp(ctx: Context, doc: Any) -> list[FactRecord]:
    out: list[FactRecord] = []
    for r in _records(doc):
        name = r.get("neighbor_name") or r.get("neighbor") or r.get("chassis_id")
        if not r.get("local_interface") or not name:
            continue
        port = r.get("neighbor_interface") or r.get("neighbor_port_id")
        out.append(
            LldpNeighbor(
                device=ctx.device,
                interface=str(r["local_interface"]),
                neighbor=str(name),
                neighbor_interface=str(port) if port else None,
            )
        )
    return out


def read_vlans(ctx: Context, doc: Any) -> list[FactRecord]:
    out: list[FactRecord] = []
    for r in _records(doc):
        vid = as_int(r.get("vlan_id"))
        if vid is None:
            ctx.problem(None, f"cannot read VLAN id {r.get('vlan_id')!r}; skipped")
            continue
        members = r.get("interfaces") or []
        out.append(
            Vlan(
                device=ctx.device, vlan_id=vid, name=str(r.get("vlan_name") or "") or None, interfaces=members
            )
        )
    return out


K = FactKind
READERS = (
    CommandReader(r"show ip route( vrf \S+)?", read_routes, frozenset({K.ROUTE})),
    CommandReader(r"show ip access-lists?( \S+)?", read_acls, frozenset({K.ACL})),
    CommandReader(r"show vrf( detail)?", read_vrfs, frozenset({K.VRF})),
    CommandReader(r"show ip vrf interfaces", read_vrf_interfaces, frozenset({K.VRF})),
    CommandReader(r"show lldp neighbors( detail)?", read_lldp, frozenset({K.LLDP_NEIGHBOR})),
    CommandReader(r"show vlan( brief)?", read_vlans, frozenset({K.VLAN})),
    CommandReader(r"show interfaces? switchport", None),
    CommandReader(r"show ip http server status", read_http_status, frozenset({K.MGMT_SERVICE})),
)


# What IOS prints when a table really is empty (its header, or LLDP's zero count).
_EMPTY_ANSWER = re.compile(
    r"^(Codes: |Gateway of last resort|Routing Table: |Total entries displayed: 0)", re.M
)


def _empty_answer(text: str) -> bool:
    """IOS's answer for an empty table: its header (a route table's codes, a column header row alone),
    or LLDP's zero count."""
    lines = [line for line in text.splitlines() if line.strip()]
    header_only = len(lines) == 1 and len(re.split(r"\s{2,}", lines[0].strip())) >= 3
    return header_only or _EMPTY_ANSWER.search(text) is not None


# IOS prints show output in lines of under 200 characters, columns padded by a few dozen spaces at most.
# ntc-templates' regular expressions backtrack on long runs of blanks (a `show ip access-lists` line of
# 20 KB of spaces took 12 s), so longer runs are shortened and over-long lines left out by name.
MAX_LINE = 1024
_LONG_BLANKS = re.compile(r"[ \t]{65,}")


def _bounded(text: str, ctx: Context) -> str:
    text = _LONG_BLANKS.sub(" " * 64, text)
    lines = text.split("\n")
    for n, line in enumerate(lines, start=1):
        if len(line) > MAX_LINE:
            ctx.problem(n, f"a line of {len(line)} characters, longer than IOS prints: not read")
            lines[n - 1] = ""
    return "\n".join(lines)


def _parser(platform: str) -> Any:
    def load(capture: RawCapture, ctx: Context) -> Any | None:
        command = command_key(capture.meta.get("command", ""))
        try:
            records = TEMPLATES.parse(platform, command, _bounded(decode_text(capture), ctx))
        except Exception as exc:  # a template error must cost this capture only
            ctx.problem(None, f"TextFSM ({platform}) could not read {command!r}: {type(exc).__name__}: {exc}")
            return None
        text = decode_text(capture)
        answered = text.strip() or not command.startswith("show ip access-list")
        if not records and not _empty_answer(text) and answered:
            # Real output with entries always parses; a route table always prints its header and LLDP
            # its count; only `show ip access-lists` answers "none" with nothing. Anything else (a
            # banner, a half-sent page) is not evidence that the table is empty.
            ctx.problem(1, f"the output of {command!r} is not recognised: nothing read, nothing covered")
            return None
        named = re.search(r"\bvrf (\S+)", capture.meta.get("command", ""), re.IGNORECASE)  # name as typed
        if named and named.group(1) != "*":  # `show ip route vrf X` prints no VRF header of its own
            for record in records:
                if isinstance(record, dict) and not record.get("vrf"):
                    record["vrf"] = named.group(1)
        return records

    return load


def normalize_show_text(capture: RawCapture) -> NormalizeResult:
    """One IOS show command's text output. Never raises on bad content."""
    return dispatch(capture, READERS, _parser("cisco_ios"))
