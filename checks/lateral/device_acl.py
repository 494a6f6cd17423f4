"""Turn normalized device ACL entries (EOS, NX-OS, IOS syntax) into filter boxes.

Addresses: `any`, `host A`, `A/L`, `A WILDCARD` (a contiguous wildcard; a discontiguous one, or an
object-group name, is read as `any`: an over-approximation that can only add paths, never hide one).
Ports: `eq P...`, `neq P`, `gt P`, `lt P`, `range A B`, with the usual service names.
A TCP entry with `established` matches only packets with ACK or RST set: it neither opens nor stops a
new connection (the SYN), so it is left out of the boxes (T1-OOB-ACCESS-JUMP-HOSTS-ONLY reads it so too).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

from auditor.facts.network import AclEntry
from checks.lateral.addresses import IPSet
from checks.lateral.conns import PORT_MAX, PORT_MIN, ConnSet, protocol_name
from checks.lateral.filters import Box, Entry
from checks.lateral.intervals import IntervalSet
from checks.tier1._acl import established_only

SERVICES = {
    "ftp": 21,
    "ftp-data": 20,
    "ssh": 22,
    "telnet": 23,
    "smtp": 25,
    "domain": 53,
    "tftp": 69,
    "www": 80,
    "http": 80,
    "bgp": 179,
    "ntp": 123,
    "snmp": 161,
    "snmptrap": 162,
    "ldap": 389,
    "https": 443,
    "syslog": 514,
    "ipmi": 623,
    "netconf": 830,
    "bootps": 67,
    "bootpc": 68,
    "radius": 1812,
    "tacacs": 49,
    "isakmp": 500,
    "non500-isakmp": 4500,
    "ldaps": 636,
    "radius-acct": 1813,
}


def address(text: str | None) -> IPSet:
    if text is None or text in ("any", "any4", "any6"):
        return IPSet.everything()
    if text.startswith("host "):
        return IPSet.parse(text.split()[1])
    parts = text.split()
    if len(parts) == 2:
        try:
            base = ipaddress.ip_address(parts[0])
            wildcard = int(ipaddress.ip_address(parts[1]))
        except ValueError:
            return IPSet.everything()
        bits = base.max_prefixlen
        if (wildcard + 1) & wildcard:  # discontiguous wildcard
            return IPSet.everything()
        prefix = bits - wildcard.bit_length()
        return IPSet.parse(f"{base}/{prefix}")
    parsed = IPSet.parse(text)
    return parsed if parsed else IPSet.everything()


def _port(token: str) -> int | None:
    if token.isdigit():
        return int(token)
    return SERVICES.get(token.lower())


def ports(text: str | None) -> IntervalSet:
    full = IntervalSet.of((PORT_MIN, PORT_MAX))
    if not text:
        return full
    op, *args = text.split()
    known = [_port(a) for a in args]
    if not known or None in known:  # a port name not known here may be any port: assume all
        return full
    values = [v for v in known if v is not None]
    if op == "eq":
        return IntervalSet.from_spans((v, v) for v in values)
    if op == "neq":
        return full.subtract(IntervalSet.from_spans((v, v) for v in values))  # none of the list
    if op == "gt":
        return IntervalSet.of((values[0] + 1, PORT_MAX))
    if op == "lt":
        return IntervalSet.of((PORT_MIN, values[0] - 1))
    if op == "range" and len(values) == 2:
        return IntervalSet.of((values[0], values[1]))
    return full


def _is_reply(entry: AclEntry, box: Box, replies: Sequence[Box]) -> bool:
    """The entry's source ports are a declared service's ports, from its servers to its clients."""
    keyed = ConnSet.ports(protocol_name(entry.protocol))
    source_ports = ports(entry.source_ports)
    if protocol_name(entry.protocol) == "TCP":
        keyed = ConnSet(tcp=source_ports)
    elif protocol_name(entry.protocol) == "UDP":
        keyed = ConnSet(udp=source_ports)
    else:
        return False
    return any(
        box.src.issubset(r.src) and box.dst.issubset(r.dst) and keyed.issubset(r.conns) for r in replies
    )


def conns(entry: AclEntry) -> ConnSet:
    proto = protocol_name(entry.protocol)
    if proto in ("ALL", "IPV6"):
        return ConnSet.everything()
    base = ConnSet.ports(proto)
    if proto in ("TCP", "UDP", "SCTP"):
        dst_ports = ports(entry.destination_ports)
        if proto == "TCP":
            return ConnSet(tcp=dst_ports)
        return ConnSet(udp=dst_ports) if proto == "UDP" else ConnSet(sctp=dst_ports)
    return base


def entries(
    acl_entries: list[AclEntry], label: str, fact: object, replies: Sequence[Box] = ()
) -> list[Entry]:
    """The ACL as boxes, in order. `replies`: the replies of declared OOB services (source = the service's
    servers, destination = its clients, connections = the service's own ports): a permit keyed on such a
    source port (`permit udp host NTP eq 123 OOB`) is how a stateless ACL lets replies back in, and is
    read as carrying those replies only (the service is declared), not as opening every port."""
    out: list[Entry] = []
    for entry in acl_entries:
        if entry.action == "remark":
            continue
        if established_only(entry):
            continue  # matches packets of open connections only: no new connection, allowed or denied
        box = Box(address(entry.source), address(entry.destination), conns(entry))
        if entry.action == "permit" and entry.source_ports and _is_reply(entry, box, replies):
            continue
        out.append(Entry(box, entry.action == "permit", f"{label}: {entry.text.strip()}", fact))
    return out
