"""NX-OS running-config as a tree of numbered lines, plus the small value parsers every section shares.

The hierarchy (which line belongs to which block) is ciscoconfparse2's, built in one pass by
collectors.parsing.config_tree.indented_blocks (tests/normalizers/test_config_tree.py holds the
library as the oracle); this module gives the section parsers plain typed nodes, and carries the
problem list so a bad value costs one element, never the capture.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field
from typing import Literal

from auditor.normalize import Problem
from collectors.parsing.config_tree import Block, blank_free_text, indented_blocks


@dataclass
class Node:
    """One configuration line: stripped text, 1-based line number, and the lines nested under it."""

    text: str
    line: int
    children: list[Node] = field(default_factory=list)

    @property
    def words(self) -> list[str]:
        return self.text.split()

    def sub(self, *prefixes: str) -> list[Node]:
        """Children whose first words are exactly `prefixes`."""
        n = len(prefixes)
        return [c for c in self.children if tuple(c.words[:n]) == prefixes]


def after_words(text: str, n: int) -> str:
    """The text after the first `n` words, spacing kept (descriptions, names, remarks)."""
    m = re.match(rf"^\s*(?:\S+\s+){{{n}}}(.*)$", text)
    return m.group(1).strip() if m else ""


def is_comment(text: str) -> bool:
    """Blank lines and `!` / `#` comments carry no configuration."""
    return not text or text.startswith(("!", "#"))


def parse_tree(lines: list[str]) -> list[Node]:
    """Top-level nodes of the config, comments, blank lines and banner bodies dropped, line numbers
    kept (1-based)."""
    blocks = indented_blocks(blank_free_text(lines), lambda text: not is_comment(text))
    return [_node(b) for b in blocks]


def _node(block: Block) -> Node:
    return Node(text=block.text, line=block.line, children=[_node(c) for c in block.children])


@dataclass
class Ctx:
    """What every section parser needs: where the capture came from, and where problems go."""

    origin: str
    device: str
    problems: list[Problem] = field(default_factory=list)

    def problem(self, line: int | None, message: str, hint: str = "fix or re-collect this evidence") -> None:
        self.problems.append(Problem(origin=self.origin, message=message, line=line, hint=hint))


# --- interface names -------------------------------------------------------------------------------

# (canonical spelling, shortest accepted abbreviation) as NX-OS prints and accepts them.
_IF_PREFIXES: tuple[tuple[str, int], ...] = (
    ("Ethernet", 1),
    ("port-channel", 2),
    ("Vlan", 2),
    ("loopback", 2),
    ("mgmt", 2),
    ("nve", 2),
    ("Tunnel", 2),
    ("Null", 2),
)
# Spellings other tools print for an NX-OS interface: NAPALM's nxos_ssh getters say `Management0` for
# mgmt0 (napalm-mocked-data nxos_ssh test_get_interfaces, beside `mgmt0` in get_network_instances).
_IF_ALIASES = {"management": "mgmt"}
_IF_SPLIT = re.compile(r"^([A-Za-z][A-Za-z\-]*?)\s*(\d[\d/.:]*)$")


def _split_range(part: str) -> tuple[str, str, str] | None:
    """`Ethernet1/1-4` -> ("Ethernet1/", "1", "4"), or None: what `^(.*?)(\\d+)-(\\d+)$` matched,
    without its backtracking (quadratic in a run of digits: `interface Ethernet1/5 111...` of 20,000
    digits took 35 s)."""
    head, dash, hi = part.rpartition("-")
    if not dash or not hi.isdecimal():
        return None
    start = len(head)
    while start and head[start - 1].isdecimal():
        start -= 1
    if start == len(head):
        return None
    return head[:start], head[start:], hi


def canon_ifname(raw: str) -> str:
    """Canonical NX-OS spelling of an interface name ('eth1/1', 'Po10', 'vlan3' -> 'Ethernet1/1', ...).

    NX-OS accepts any unambiguous abbreviation and any case, and prints the canonical form in
    `show running-config`; a hand-edited config may use either, so both must name the same interface.
    """
    m = _IF_SPLIT.match(raw.strip())
    if not m:
        return raw.strip()
    prefix, rest = m.group(1).lower(), m.group(2)
    prefix = _IF_ALIASES.get(prefix, prefix)
    for canon, min_len in _IF_PREFIXES:
        if len(prefix) >= min_len and canon.lower().startswith(prefix):
            return canon + rest
    return m.group(1) + rest


MAX_IFNAMES = 65536  # interfaces one header may name: beyond it, hostile input, never built


def expand_ifnames(spec: str, ctx: Ctx, line: int, limit: int = MAX_IFNAMES) -> list[str]:
    """`Ethernet1/1-4, Ethernet1/7` -> each interface; a range ends in its last number. A header naming
    more than `limit` interfaces is a problem and names none."""
    names: list[str] = []
    last_prefix = ""
    for raw in spec.split(","):
        part = raw.strip()
        if not part:
            continue
        if part[0].isdigit() and last_prefix:
            part = last_prefix + part
        m = _split_range(part)
        if m and not m[0].endswith("."):
            if len(m[1]) > 9 or len(m[2]) > 9:  # no port number has ten digits
                ctx.problem(line, f"interface range {part[:60]!r} is not a valid range; skipped")
                continue
            lo, hi = int(m[1]), int(m[2])
            if hi < lo or hi - lo > 4096:
                ctx.problem(line, f"interface range {part!r} is not a valid range; skipped")
                continue
            if len(names) + hi - lo + 1 > limit:
                ctx.problem(line, f"interface list names over {limit} interfaces; skipped")
                return []
            base = canon_ifname(m[0] + m[1])
            stem = base[: len(base) - len(m[1])]
            names.extend(f"{stem}{n}" for n in range(lo, hi + 1))
        else:
            names.append(canon_ifname(part))
        alpha = re.match(r"^[A-Za-z\-]+", names[-1] if names else "")
        last_prefix = alpha.group(0) if alpha else ""
    return names


IfKind = Literal["ethernet", "port-channel", "vlan", "loopback", "management", "vxlan", "tunnel", "other"]
_IF_KINDS: tuple[tuple[str, IfKind], ...] = (
    ("Ethernet", "ethernet"),
    ("port-channel", "port-channel"),
    ("Vlan", "vlan"),
    ("loopback", "loopback"),
    ("mgmt", "management"),
    ("nve", "vxlan"),
    ("Tunnel", "tunnel"),
)


def interface_type(name: str) -> IfKind:
    """The fact model's interface type, read from the canonical name."""
    for prefix, kind in _IF_KINDS:
        if name.startswith(prefix):
            return kind
    return "other"


# --- values ----------------------------------------------------------------------------------------

MAX_VLAN = 4094


def parse_int(text: str, lo: int, hi: int) -> int | None:
    """A decimal in [lo, hi], or None."""
    if not text.isdigit():
        return None
    value = int(text)
    return value if lo <= value <= hi else None


def parse_vlan_list(text: str) -> list[int] | None:
    """'1,301-304, 559' -> [1, 301, 302, 303, 304, 559]; None if any part is not a VLAN id or range."""
    vlans: list[int] = []
    for part in re.split(r"\s*,\s*", text.strip()):
        if not part:
            return None
        lo_s, _, hi_s = part.partition("-")
        lo = parse_int(lo_s.strip(), 1, MAX_VLAN)
        hi = parse_int(hi_s.strip(), 1, MAX_VLAN) if hi_s else lo
        if lo is None or hi is None or hi < lo:
            return None
        vlans.extend(range(lo, hi + 1))
    return vlans


def to_ranges(vlans: set[int]) -> list[tuple[int, int]]:
    """{1, 2, 3, 7} -> [(1, 3), (7, 7)]."""
    ranges: list[tuple[int, int]] = []
    for v in sorted(vlans):
        if ranges and ranges[-1][1] == v - 1:
            ranges[-1] = (ranges[-1][0], v)
        else:
            ranges.append((v, v))
    return ranges


def parse_ipv4_interface(words: list[str]) -> str | None:
    """'10.0.0.1/24' or '10.0.0.1 255.255.255.0' -> '10.0.0.1/24'; None if not an IPv4 address."""
    if not words:
        return None
    if "/" in words[0]:
        text = words[0]
    elif len(words) >= 2 and re.fullmatch(r"\d+\.\d+\.\d+\.\d+", words[1]):
        text = f"{words[0]}/{words[1]}"
    else:
        return None  # a bare address is not an interface address
    try:
        return ipaddress.IPv4Interface(text).with_prefixlen
    except ValueError:
        return None


def parse_ipv6_interface(word: str) -> str | None:
    """'2001:db8::1/64' -> the same in compressed form; None if not an IPv6 address/length."""
    if "/" not in word:
        return None
    try:
        return ipaddress.IPv6Interface(word).with_prefixlen
    except ValueError:
        return None


def parse_prefix(words: list[str]) -> tuple[str, int] | None:
    """A route or network prefix in CIDR or address-mask form -> (network CIDR, words used)."""
    if not words:
        return None
    try:
        if "/" in words[0]:
            return str(ipaddress.ip_network(words[0], strict=False)), 1
        if len(words) >= 2 and re.fullmatch(r"\d+\.\d+\.\d+\.\d+", words[1]):
            return str(ipaddress.IPv4Network(f"{words[0]}/{words[1]}", strict=False)), 2
    except ValueError:
        return None
    return None


def parse_ip(word: str) -> str | None:
    """An IPv4 or IPv6 address in canonical form, or None."""
    try:
        return str(ipaddress.ip_address(word))
    except ValueError:
        return None
