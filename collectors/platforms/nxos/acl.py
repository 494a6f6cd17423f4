"""NX-OS `ip access-list`, `ipv6 access-list` and `mac access-list` blocks -> Acl facts.

Entry numbering follows NX-OS: an entry written without a sequence number gets 10 more than the
highest number so far (10 for the first), and entries are evaluated in sequence order whatever order
they were typed in (Batfish's nxos_ip_access_list grammar test documents the same rule). NX-OS has no
standard ACLs; `ip access-list standard` names an ACL called "standard".
"""

from __future__ import annotations

import ipaddress
import re
from typing import Literal

from auditor.facts import Acl, AclEntry
from collectors.platforms.nxos.tree import Ctx, Node

Family = Literal["ipv4", "ipv6", "mac"]
_FAMILIES: dict[str, Family] = {"ip": "ipv4", "ipv6": "ipv6", "mac": "mac"}
_PORT_PROTOCOLS = ("tcp", "udp", "sctp")
_PORT_OPS = {"eq": 1, "neq": 1, "gt": 1, "lt": 1, "range": 2, "portgroup": 1}


class EntryError(ValueError):
    """An ACL entry whose addresses or ports cannot be read."""


def read_acls(roots: list[Node], ctx: Ctx) -> list[Acl]:
    """Every IPv4, IPv6 and MAC ACL; an unreadable entry is reported and left out, the ACL kept."""
    acls: list[Acl] = []
    for node in roots:
        w = node.words
        if len(w) != 3 or w[0] not in _FAMILIES or w[1] != "access-list":
            continue
        family = _FAMILIES[w[0]]
        entries: list[AclEntry] = []
        highest = 0
        for child in node.children:
            cw = child.words
            has_seq = cw[0].isdigit()
            action = cw[1] if has_seq and len(cw) > 1 else cw[0]
            if action not in ("permit", "deny", "remark"):
                continue  # statistics per-entry, fragments ..., ignore routable
            seq = int(cw[0]) if has_seq else highest + 10
            highest = max(highest, seq)
            try:
                entries.append(_entry(seq, action, cw[2:] if has_seq else cw[1:], child.text, family))
            except EntryError as exc:
                ctx.problem(child.line, f"access-list {w[2]}: entry {child.text!r}: {exc}; entry skipped")
        entries.sort(key=lambda e: e.sequence or 0)
        acls.append(Acl(device=ctx.device, name=w[2], family=family, entries=entries))
    return acls


def _entry(seq: int, action: str, args: list[str], text: str, family: Family) -> AclEntry:
    if action == "remark":
        return AclEntry(sequence=seq, action="remark", text=text)
    act: Literal["permit", "deny"] = "permit" if action == "permit" else "deny"
    rest = list(args)
    if family == "mac":
        src = _mac_address(rest)
        dst = _mac_address(rest)
        return AclEntry(
            sequence=seq,
            action=act,
            protocol=rest[0] if rest else None,
            source=src,
            destination=dst,
            text=text,
        )
    if not rest:
        raise EntryError("no protocol")
    protocol = rest.pop(0).lower()
    src = _address(rest, family)
    src_ports = _ports(rest) if protocol in _PORT_PROTOCOLS else None
    dst = _address(rest, family)
    dst_ports = _ports(rest) if protocol in _PORT_PROTOCOLS else None
    return AclEntry(
        sequence=seq,
        action=act,
        protocol=protocol,
        source=src,
        source_ports=src_ports,
        destination=dst,
        destination_ports=dst_ports,
        text=text,
    )


def _address(rest: list[str], family: Family) -> str:
    """`any`, `host A`, `A/L`, `A WILDCARD`, `addrgroup NAME` -> "any", "host A", CIDR or the group."""
    if not rest:
        raise EntryError("address missing")
    word = rest.pop(0)
    if word == "any":
        return "any"
    if word in ("host", "addrgroup"):
        if not rest:
            raise EntryError(f"{word} without a value")
        value = rest.pop(0)
        if word == "addrgroup":
            return value
        try:
            return f"host {ipaddress.ip_address(value)}"
        except ValueError as exc:
            raise EntryError(f"{value!r} is not an IP address") from exc
    try:
        if "/" in word:
            net = ipaddress.ip_network(word, strict=False)
        elif family == "ipv4" and rest and re.fullmatch(r"\d+\.\d+\.\d+\.\d+", rest[0]):
            wildcard = rest.pop(0)
            try:
                net = ipaddress.IPv4Network(f"{word}/{wildcard}", strict=False)
            except ValueError:
                ipaddress.IPv4Address(word)  # non-contiguous wildcard: keep it as written
                return f"{word} {wildcard}"
        else:
            raise EntryError(f"{word!r} is not an address")
    except ValueError as exc:
        raise EntryError(f"{word!r} is not an address or prefix") from exc
    if (family == "ipv4") != (net.version == 4):
        raise EntryError(f"{word!r} is not an {family} prefix")
    return str(net)


def _ports(rest: list[str]) -> str | None:
    """`eq P`, `range A B`, `portgroup G`, ... as written; None when no port match follows."""
    if not rest or rest[0] not in _PORT_OPS:
        return None
    op = rest.pop(0)
    count = _PORT_OPS[op]
    if len(rest) < count:
        raise EntryError(f"port operator {op!r} without its value")
    values = [rest.pop(0) for _ in range(count)]
    return " ".join([op, *values])


def _mac_address(rest: list[str]) -> str:
    if not rest:
        raise EntryError("MAC address missing")
    word = rest.pop(0)
    if word == "any":
        return "any"
    if word == "host" and rest:
        return f"host {rest.pop(0)}"
    if rest:
        return f"{word} {rest.pop(0)}"
    raise EntryError(f"MAC address {word!r} without its mask")
