"""What the normalizers of live device captures share: the Device fact, JSON decoding with a located
Problem, interface kinds across vendors' names, and leaf values (addresses, prefixes, numbers).

Problems are collected on a `config_tree.Context` (device, origin, problems) so every device normalizer
reports them the same way; a value that cannot be read costs that element only.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Callable
from typing import Any, Literal, TypeVar

from auditor import safeload
from auditor.capture import RawCapture
from auditor.enums import Tier
from auditor.facts.network import Device
from auditor.normalize import NormalizeResult
from collectors.parsing.config_tree import Context

IfType = Literal["ethernet", "port-channel", "vlan", "loopback", "management", "vxlan", "tunnel", "other"]
T = TypeVar("T")

# Longest prefixes first: "port-channel" before "po", "mgmt" before "m...".
_IF_PREFIXES: tuple[tuple[str, IfType], ...] = (
    ("port-channel", "port-channel"),
    ("portchannel", "port-channel"),
    ("bond", "port-channel"),
    ("po", "port-channel"),
    ("ae", "port-channel"),
    ("management", "management"),
    ("mgmt", "management"),
    ("ma", "management"),
    ("ethernet", "ethernet"),
    ("gigabitethernet", "ethernet"),
    ("tengigabitethernet", "ethernet"),
    ("twentyfivegige", "ethernet"),
    ("fortygigabitethernet", "ethernet"),
    ("hundredgige", "ethernet"),
    ("fourhundredgige", "ethernet"),
    ("fastethernet", "ethernet"),
    ("appgigabitethernet", "ethernet"),
    ("swp", "ethernet"),
    ("eth", "ethernet"),
    ("gi", "ethernet"),
    ("te", "ethernet"),
    ("twe", "ethernet"),
    ("fo", "ethernet"),
    ("hu", "ethernet"),
    ("fa", "ethernet"),
    ("et", "ethernet"),
    ("vlan", "vlan"),
    ("vl", "vlan"),
    ("loopback", "loopback"),
    ("lo", "loopback"),
    ("vxlan", "vxlan"),
    ("nve", "vxlan"),
    ("tunnel", "tunnel"),
    ("tu", "tunnel"),
)
_IF_WORD = re.compile(r"[A-Za-z][A-Za-z\-]*")


def interface_type(name: str) -> IfType:
    """The kind of an interface from its name, in any vendor's spelling (long or abbreviated)."""
    if name.strip().lower() == "eth0":
        return "management"
    m = _IF_WORD.match(name.strip())
    word = m.group(0).lower() if m else ""
    for prefix, kind in _IF_PREFIXES:
        exact_only = len(prefix) <= 3  # abbreviations must be the whole word ("po1", not "power")
        if (word == prefix) if exact_only else word.startswith(prefix):
            return kind
    return "other"


def device_of(capture: RawCapture) -> str:
    return capture.meta.get("device") or capture.target


def context_of(capture: RawCapture) -> Context:
    return Context(device=device_of(capture), origin=capture.origin)


def tier_of(capture: RawCapture, ctx: Context) -> Tier | None:
    raw = capture.meta.get("tier")
    if not raw:
        return None
    try:
        return Tier(raw)
    except ValueError:
        ctx.problem(None, f"unknown tier {raw!r} in capture meta")
        return None


def device_fact(
    capture: RawCapture,
    ctx: Context,
    platform: str,
    *,
    hostname: str | None = None,
    os_version: str | None = None,
    model: str | None = None,
) -> Device:
    return Device(
        device=ctx.device,
        hostname=hostname or ctx.device,
        platform=capture.meta.get("platform") or platform,
        tier=tier_of(capture, ctx),
        role=capture.meta.get("role") or None,
        os_version=os_version or None,
        model=model or None,
    )


def decode_text(capture: RawCapture) -> str:
    return capture.content.decode("utf-8", errors="replace")


def load_json(capture: RawCapture, ctx: Context, what: str) -> Any | None:
    """The capture's JSON document, or None with a Problem naming the line where it breaks.

    Read through the bounded loader: a device never nests its JSON dozens of levels deep, and the
    standard parser would recurse past the interpreter's limit on a hostile file."""
    text = decode_text(capture)
    if not text.strip():
        ctx.problem(None, f"empty {what}: nothing to read")
        return None
    try:
        return safeload.load_json(text)
    except safeload.LimitExceeded as exc:
        ctx.problem(exc.line, f"{what} refused: {exc}")
        return None
    except json.JSONDecodeError as exc:
        ctx.problem(exc.lineno, f"{what} is not valid JSON: {exc.msg} (column {exc.colno})")
        return None
    except ValueError as exc:  # a number of thousands of digits (int_max_str_digits)
        ctx.problem(None, f"{what} cannot be read: {exc}")
        return None
    except RecursionError:  # belt and braces: the depth bound above should make this unreachable
        ctx.problem(None, f"{what} refused: nested too deeply")
        return None


def guard(ctx: Context, what: str, step: Callable[[], T], fallback: T) -> T:
    """Run one reading step; an unexpected failure costs that step, never the capture."""
    try:
        return step()
    except Exception as exc:  # containment is the point
        ctx.problem(None, f"could not read {what}: {type(exc).__name__}: {exc}")
        return fallback


def finish(result: NormalizeResult, ctx: Context) -> NormalizeResult:
    result.problems = sorted(ctx.problems, key=lambda p: (p.line is not None, p.line or 0))
    return result


def as_int(value: object) -> int | None:
    """An integer from JSON that may be a number or a numeric string; None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    return None


def ip_interface(address: str, length: int | str | None = None) -> str | None:
    """`A/L` (or `A` with `length`, or `A MASK`) in normalized interface notation, or None."""
    text = address.strip()
    if length is not None and "/" not in text:
        text = f"{text}/{length}"
    text = text.replace(" ", "/")
    try:
        return str(ipaddress.ip_interface(text))
    except ValueError:
        return None


def ip_network(prefix: str) -> str | None:
    """A route prefix as its network in CIDR form (host bits cleared), or None."""
    try:
        return str(ipaddress.ip_network(prefix.strip().replace(" ", "/"), strict=False))
    except ValueError:
        return None


def is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def vlan_ranges(vlans: set[int] | list[int]) -> list[tuple[int, int]]:
    """Sorted, merged (lo, hi) ranges of a VLAN set."""
    out: list[tuple[int, int]] = []
    for v in sorted(set(vlans)):
        if out and v == out[-1][1] + 1:
            out[-1] = (out[-1][0], v)
        else:
            out.append((v, v))
    return out


def parse_vlan_list(text: str) -> list[int] | None:
    """`10-12,20` (or space separated) as the VLAN ids, or None when a part cannot be read."""
    out: list[int] = []
    for part in re.split(r"[,\s]+", text.strip()):
        if not part:
            continue
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not m:
            return None
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        if lo > hi or lo < 1 or hi > 4094:
            return None
        out.extend(range(lo, hi + 1))
    return out


def line_of(text: str, needle: str) -> int | None:
    """The 1-based line where `needle` first appears in the capture, to point a Problem at it."""
    pos = text.find(needle)
    return text.count("\n", 0, pos) + 1 if pos >= 0 else None
