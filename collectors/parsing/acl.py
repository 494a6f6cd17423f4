"""EOS `ip|ipv6 access-list [standard] NAME` and `mac access-list NAME` -> Acl facts.

Entries are read best-effort (action, protocol, source/destination, ports); the entry text is always
kept verbatim, so a report never depends on this parse. Lines in an ACL block that are not entries
(`counters per-entry`, `permit response traffic nat`, `statistics per-entry`) are settings, skipped.
"""

from __future__ import annotations

import re
from typing import Literal

from auditor.facts.network import Acl, AclEntry
from collectors.parsing.config_tree import Config, Context, Node
from collectors.parsing.port_names import is_port
from collectors.parsing.values import is_ip_address

Family = Literal["ipv4", "ipv6", "mac"]
_FAMILIES: dict[str, Family] = {"ip": "ipv4", "ipv6": "ipv6", "mac": "mac"}
_ACTIONS: dict[str, Literal["permit", "deny"]] = {"permit": "permit", "deny": "deny"}
_PORT_PROTOCOLS = {"tcp", "udp", "sctp", "6", "17", "132"}
_MAC = re.compile(r"[0-9a-fA-F]{1,4}(?:[.:][0-9a-fA-F]{1,4}){2,5}")


def parse_acls(ctx: Context, config: Config) -> list[Acl]:
    acls: list[Acl] = []
    for node, m in config.top(r"(ip|ipv6|mac) access-list (standard )?(\S+)"):
        family = _FAMILIES[m.group(1)]
        standard = m.group(2) is not None
        entries = [e for e in (_entry(c, family, standard) for c in node.children) if e is not None]
        acls.append(
            Acl(device=ctx.device, name=m.group(3), family=family, standard=standard, entries=entries)
        )
    return acls


def _entry(node: Node, family: Family, standard: bool) -> AclEntry | None:
    words = node.words
    sequence: int | None = None
    if words[0].isdigit():
        sequence, words = int(words[0]), words[1:]
    if not words or words[1:3] == ["response", "traffic"]:
        return None
    if words[0] == "remark":
        return AclEntry(sequence=sequence, action="remark", text=node.text)
    action = _ACTIONS.get(words[0])
    if action is None:
        return None
    rest = words[1:]
    if standard:
        source, _ = _address(rest, 0, family)
        return AclEntry(sequence=sequence, action=action, source=source, text=node.text)
    return _extended(sequence, action, rest, family, node.text)


def _extended(
    sequence: int | None, action: Literal["permit", "deny"], rest: list[str], family: Family, text: str
) -> AclEntry:
    i = 0
    if rest[:1] == ["vlan"]:  # `vlan [inner] N MASK` qualifier before the protocol
        i = 4 if rest[1:2] == ["inner"] else 3
    protocol: str | None = None
    if family != "mac" and i < len(rest):
        protocol, i = rest[i], i + 1
    source, i = _address(rest, i, family)
    source_ports, i = _ports(rest, i) if protocol in _PORT_PROTOCOLS else (None, i)
    destination, i = _address(rest, i, family)
    destination_ports, i = _ports(rest, i) if protocol in _PORT_PROTOCOLS else (None, i)
    if family == "mac" and i < len(rest):
        protocol = rest[i]
    return AclEntry(
        sequence=sequence,
        action=action,
        protocol=protocol,
        source=source,
        source_ports=source_ports,
        destination=destination,
        destination_ports=destination_ports,
        text=text,
    )


def _is_address(token: str, family: Family) -> bool:
    return bool(_MAC.fullmatch(token)) if family == "mac" else is_ip_address(token)


def _address(tokens: list[str], i: int, family: Family) -> tuple[str | None, int]:
    """`any`, `host A`, `A/L`, `A WILDCARD` (or `MAC MASK`); anything else is taken as a name."""
    if i >= len(tokens):
        return None, i
    word = tokens[i]
    if word == "any":
        return "any", i + 1
    if word == "host" and i + 1 < len(tokens):
        return f"host {tokens[i + 1]}", i + 2
    if "/" in word:
        return word, i + 1
    if _is_address(word, family) and i + 1 < len(tokens) and _is_address(tokens[i + 1], family):
        return f"{word} {tokens[i + 1]}", i + 2
    return word, i + 1


def _ports(tokens: list[str], i: int) -> tuple[str | None, int]:
    """`eq|neq P [P ...]` (a set: any of / none of them), `gt|lt P`, `range A B`, as written."""
    if i >= len(tokens):
        return None, i
    op = tokens[i]
    if op in {"gt", "lt"} and i + 1 < len(tokens):
        return f"{op} {tokens[i + 1]}", i + 2
    if op == "range" and i + 2 < len(tokens):
        return f"range {tokens[i + 1]} {tokens[i + 2]}", i + 3
    if op in {"eq", "neq"} and i + 1 < len(tokens):
        # EOS and IOS take a list (`eq isakmp non500-isakmp`, `eq www 443`): every following number
        # or port name belongs to it; the first other word is the next field.
        j = i + 2
        while j < len(tokens) and is_port(tokens[j]):
            j += 1
        return " ".join(tokens[i:j]), j
    return None, i
