"""Leaf-value parsers for EOS config lines: numbers, VLAN lists, addresses, prefixes, speeds.

Each parser reports a Problem naming the line and returns None when the value cannot be read, so the
caller skips that one element and keeps everything else.
"""

from __future__ import annotations

import ipaddress
import re

from auditor.facts.network import VlanRange
from collectors.parsing.config_tree import Context

MAX_VLAN = 4094
_SPEED = re.compile(r"^(\d+(?:\.\d+)?)([mg])?(?:full|half)?(?:-\d+)?$", re.IGNORECASE)
_MEDIA_SPEED = re.compile(r"(\d+(?:\.\d+)?)(g)?base", re.IGNORECASE)  # `speed sfp-1000baset auto`


def parse_int(
    ctx: Context, text: str, line: int, what: str, *, lo: int = 0, hi: int | None = None
) -> int | None:
    """A decimal integer within [lo, hi]."""
    if not text.isdigit():
        ctx.problem(line, f"{what}: expected a number, got {text!r}")
        return None
    value = int(text)
    if value < lo or (hi is not None and value > hi):
        ctx.problem(line, f"{what}: {value} is out of range {lo}-{hi}")
        return None
    return value


def merge_ranges(ranges: list[VlanRange]) -> list[VlanRange]:
    """Sort and merge overlapping or adjacent ranges."""
    merged: list[VlanRange] = []
    for lo, hi in sorted(ranges):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return merged


def subtract_ranges(ranges: list[VlanRange], removed: list[VlanRange]) -> list[VlanRange]:
    """`ranges` without the VLANs in `removed`."""
    keep = set(expand_ranges(ranges)) - set(expand_ranges(removed))
    return merge_ranges([(v, v) for v in keep])


def expand_ranges(ranges: list[VlanRange]) -> list[int]:
    return [v for lo, hi in ranges for v in range(lo, hi + 1)]


def parse_id_list(
    ctx: Context, text: str, line: int, what: str, hi: int = MAX_VLAN
) -> list[VlanRange] | None:
    """A list such as `10-12,20,30-31` as merged ranges (VLAN lists, VNI lists)."""
    ranges: list[VlanRange] = []
    for part in text.replace(" ", "").split(","):
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not m:
            ctx.problem(line, f"{what}: cannot read {part!r} in {text!r}")
            return None
        lo = int(m.group(1))
        up = int(m.group(2)) if m.group(2) else lo
        if lo > up or lo < 1 or up > hi:
            ctx.problem(line, f"{what}: {part!r} is not a valid range (1-{hi})")
            return None
        ranges.append((lo, up))
    return merge_ranges(ranges)


def parse_id_sequence(ctx: Context, text: str, line: int, what: str, hi: int) -> list[int] | None:
    """A list such as `10-12,20` expanded in the order written (for VLAN -> VNI pairing)."""
    values: list[int] = []
    for part in text.split(","):
        sub = parse_id_list(ctx, part, line, what, hi=hi)
        if sub is None:
            return None
        values.extend(expand_ranges(sub))
    return values


def parse_ipv4_interface(ctx: Context, text: str, line: int) -> str | None:
    """An interface address `A/L` (or `A MASK`), normalized, e.g. '10.0.0.1/31'."""
    if "/" not in text and " " not in text:
        ctx.problem(line, f"IPv4 interface address {text!r} has no prefix length")
        return None
    try:
        return str(ipaddress.IPv4Interface(text.replace(" ", "/")))
    except ValueError:
        ctx.problem(line, f"invalid IPv4 interface address {text!r}")
        return None


def parse_ipv6_interface(ctx: Context, text: str, line: int) -> str | None:
    """An IPv6 interface address `X/L`, normalized to lower-case compressed form."""
    try:
        return str(ipaddress.IPv6Interface(text))
    except ValueError:
        ctx.problem(line, f"invalid IPv6 interface address {text!r}")
        return None


def parse_prefix(ctx: Context, text: str, line: int) -> str | None:
    """A route prefix as its network in CIDR form (host bits cleared, strict=False)."""
    try:
        return str(ipaddress.ip_network(text.replace(" ", "/"), strict=False))
    except ValueError:
        ctx.problem(line, f"invalid prefix {text!r}")
        return None


def is_ip_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def parse_speed_mbps(ctx: Context, words: list[str], line: int) -> int | None:
    """`speed [forced|auto] 100g|40gfull|400g-8|1000full|sfp-1000baset` in Mb/s; `speed auto` is None.

    EOS speed tokens: a number with an optional unit (g = Gb/s, m or none = Mb/s), optional
    duplex and optional lane count suffix (`-8`).
    """
    tokens = [w for w in words[1:] if w.lower() not in {"forced", "auto"}]
    if not tokens:
        return None
    m = _SPEED.match(tokens[-1]) or _MEDIA_SPEED.search(tokens[-1])
    if not m:
        ctx.problem(line, f"cannot read interface speed {' '.join(words[1:])!r}")
        return None
    number = float(m.group(1))
    return int(number * 1000) if (m.group(2) or "").lower() == "g" else int(number)
