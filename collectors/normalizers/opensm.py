"""OpenSM `partitions.conf` -> IbPartition facts (entry point "opensm.partitions").

The format, from OpenSM's doc/partition-config.txt:

    <PartitionName>[=<PKey>][,<flag>[=<value>]]...[,defmember=full|limited|both] : <PortGUIDs> ;

- `#` starts a comment; a statement ends at `;` and may span lines after the `:`.
- Only the low 15 bits of the P_Key count. A P_Key repeated in several statements is one partition:
  OpenSM merges them under the first name, and so do we.
- A port is `GUID[=full|=limited|=both]`, or one of ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS, SELF; with no
  (or an unrecognized) membership it takes `defmember`, itself `limited` unless set. A `defmember=...`
  item between colons changes the default for the ports after it. Multicast group definitions
  (`mgid=...`) are not ports and are skipped.
- The default partition (P_Key 0x7fff) always exists: when the file has no rule for it, OpenSM acts as
  if it said `Default=0x7fff : ALL=limited, SELF=full ;`, so that partition is emitted too.
A statement without a P_Key (OpenSM would generate one) cannot be judged by its key and is reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from auditor.capture import RawCapture
from auditor.enums import FactKind
from auditor.facts import IbPartition, PartitionMember
from auditor.normalize import NormalizeResult, Problem

Membership = Literal["full", "limited", "both"]
KEYWORDS = {"ALL", "ALL_CAS", "ALL_SWITCHES", "ALL_ROUTERS", "SELF"}
DEFAULT_PKEY = 0x7FFF
_MGROUP_ATTRS = {
    "mtu",
    "rate",
    "sl",
    "scope",
    "q_key",
    "qkey",
    "tclass",
    "flow_label",
    "flowlabel",
    "hop_limit",
}
_MGID = re.compile(r"mgid\s*=\s*[0-9A-Fa-f:]+")
_MEMBERSHIPS: dict[str, Membership] = {"full": "full", "limited": "limited", "both": "both"}


@dataclass
class _Partition:
    name: str
    pkey: int
    line: int
    ipoib: bool = False
    members: dict[str, Membership] = field(default_factory=dict)


def normalize_partitions(capture: RawCapture) -> NormalizeResult:
    """Read one partitions.conf. Never raises on bad content: unreadable statements become Problems."""
    result = NormalizeResult()
    fabric = capture.meta.get("fabric") or capture.target
    text = capture.content.decode("utf-8", errors="replace")
    partitions: dict[int, _Partition] = {}
    for line, statement in _statements(text):
        issues: list[str] = []
        try:
            part = _statement(statement, line, issues)
        except ValueError as exc:
            issues.append(f"partition statement not understood: {exc}; skipped")
            part = None
        result.problems += [Problem(capture.origin, issue, line) for issue in issues]
        if part is None:
            continue
        seen = partitions.get(part.pkey)
        if seen is None:
            partitions[part.pkey] = part
        else:  # OpenSM merges definitions of one P_Key under the first name
            seen.ipoib = seen.ipoib or part.ipoib
            seen.members.update(part.members)
    if DEFAULT_PKEY not in partitions:
        implied: dict[str, Membership] = {"ALL": "limited", "SELF": "full"}
        partitions[DEFAULT_PKEY] = _Partition("Default", DEFAULT_PKEY, 0, members=implied)
    for pkey in sorted(partitions):
        p = partitions[pkey]
        result.add(
            IbPartition(
                fabric=fabric,
                name=p.name,
                pkey=pkey,
                default=pkey == DEFAULT_PKEY,
                ipoib=p.ipoib,
                members=[PartitionMember(guid=g, membership=m) for g, m in p.members.items()],
            )
        )
    result.covers = {FactKind.IB_PARTITION}
    return result


def _statements(text: str) -> list[tuple[int, str]]:
    """(line where it starts, text) of each `;`-terminated statement, comments removed."""
    out: list[tuple[int, str]] = []
    current: list[str] = []
    start = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0]
        while line:
            head, sep, line = line.partition(";")
            if head.strip() and not current:
                start = number
            if head.strip():
                current.append(head)
            if sep:
                if current:
                    out.append((start, " ".join(current)))
                current = []
            else:
                break
    if current and " ".join(current).strip():
        out.append((start, " ".join(current)))  # a last statement without `;`: read it anyway
    return out


def _statement(statement: str, line: int, issues: list[str]) -> _Partition:
    definition, sep, rest = statement.partition(":")
    if not sep:
        raise ValueError(f"no ':' between the partition definition and its ports in {statement.strip()!r}")
    head, *flags = [f.strip() for f in definition.split(",")]
    name, _, key = (x.strip() for x in head.partition("="))
    if not key:
        raise ValueError(f"partition {name or '(unnamed)'} has no P_Key (OpenSM would generate one)")
    try:
        pkey = int(key, 0) & DEFAULT_PKEY
    except ValueError as exc:
        raise ValueError(f"P_Key {key!r} of partition {name!r} is not a number") from exc
    part = _Partition(name or f"0x{pkey:04x}", pkey, line)
    default: Membership = "limited"
    for flag in flags:
        word, _, value = (x.strip() for x in flag.partition("="))
        if word == "ipoib":
            part.ipoib = True
        elif word == "defmember":
            default = _MEMBERSHIPS.get(value.lower(), "limited")
    rest = _MGID.sub("mgid", rest)  # IPv6 group ids hold colons: keep them out of the section split
    for section in rest.split(":"):
        for item in (i.strip() for i in section.split(",")):
            port, _, membership = (x.strip() for x in item.partition("="))
            if not port:
                continue
            if port.lower() == "mgid":
                continue  # a multicast group definition, not a port
            if port == "defmember":
                default = _MEMBERSHIPS.get(membership.lower(), "limited")
                continue
            guid = _guid(port)
            if guid is None:
                if port.lower() not in _MGROUP_ATTRS:  # mtu=, rate=, ... belong to a multicast group
                    issues.append(f"partition {part.name}: {port!r} is neither a port GUID nor a keyword")
                continue
            # omitted: the default membership; written but not recognized: limited (OpenSM's reading)
            part.members[guid] = _MEMBERSHIPS.get(membership.lower(), "limited") if membership else default
    return part


def _guid(token: str) -> str | None:
    """Keywords as they are; GUIDs (hex with 0x, or decimal) as 0x + 16 lowercase hex digits."""
    if token.upper() in KEYWORDS:
        return token.upper()
    if not re.fullmatch(r"0[xX][0-9a-fA-F]{1,16}|\d+", token):
        return None
    return f"0x{int(token, 0):016x}"
