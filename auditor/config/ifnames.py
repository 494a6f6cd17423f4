"""Interface-name globs for the port manifest: `Ethernet1-32`, `Ethernet1/*`, `swp1-4s0-3`, `Eth1/1`.

A pattern is matched against a whole interface name, case-insensitively, piece by piece:
- a run of digits matches a run of digits of the same value (`Ethernet1` matches `Ethernet1` and
  `Ethernet01`, never `Ethernet10`); `N-M` matches any run of digits whose value is in N..M;
- `*` matches any text (slashes included: `Ethernet1/*` covers `Ethernet1/1` and the breakout
  `Ethernet1/1/1`), `?` any one character;
- everything else matches itself. The platforms' spellings of one interface family are folded first,
  so a pattern written for one NOS reads the same on another: `Ethernet`, `Eth` and `Et` are one
  family, as are `Port-Channel`, `PortChannel` and `Po`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

_TOKEN = re.compile(r"(\d+-\d+|\d+|\*|\?)")
_HEAD = re.compile(r"^[A-Za-z][A-Za-z-]*")
_FAMILIES = {
    "ethernet": "ethernet",
    "eth": "ethernet",
    "et": "ethernet",
    "port-channel": "port-channel",
    "portchannel": "port-channel",
    "po": "port-channel",
}


def fold(name: str) -> str:
    """Lower case, with the interface family spelt one way (`Eth1/1` -> `ethernet1/1`)."""
    text = name.strip().lower()
    m = _HEAD.match(text)
    if m and m.group(0) in _FAMILIES:
        return _FAMILIES[m.group(0)] + text[m.end() :]
    return text


@dataclass(frozen=True)
class _Num:
    lo: int
    hi: int


@dataclass(frozen=True)
class IfPattern:
    """One compiled pattern; `matches` is exact (the whole name)."""

    text: str
    tokens: tuple[str | _Num, ...]

    def matches(self, name: str) -> bool:
        return _match(self.tokens, 0, fold(name), 0)


@cache
def compile_pattern(text: str) -> IfPattern:
    """Raise ValueError, saying what is wrong, for a pattern that cannot match anything sensible."""
    if not text.strip():
        raise ValueError("an interface pattern must not be empty")
    tokens: list[str | _Num] = []
    for part in _TOKEN.split(fold(text)):
        if not part:
            continue
        if part in ("*", "?"):
            tokens.append(part)
        elif part[0].isdigit():
            lo_s, _, hi_s = part.partition("-")
            lo, hi = int(lo_s), int(hi_s or lo_s)
            if lo > hi:
                raise ValueError(f"interface range {part} in {text!r} runs backwards; write {hi}-{lo}")
            tokens.append(_Num(lo, hi))
        else:
            tokens.append(part)
    return IfPattern(text, tuple(tokens))


def matches_any(patterns: list[str], name: str) -> bool:
    return any(compile_pattern(p).matches(name) for p in patterns)


def _match(tokens: tuple[str | _Num, ...], t: int, name: str, i: int) -> bool:
    if t == len(tokens):
        return i == len(name)
    part = tokens[t]
    if part == "*":
        return any(_match(tokens, t + 1, name, j) for j in range(i, len(name) + 1))
    if part == "?":
        return i < len(name) and _match(tokens, t + 1, name, i + 1)
    if isinstance(part, _Num):
        if i >= len(name) or not name[i].isdigit() or (i > 0 and name[i - 1].isdigit()):
            return False  # a number matches a whole run of digits, never part of one
        j = i
        while j < len(name) and name[j].isdigit():
            j += 1
        return part.lo <= int(name[i:j]) <= part.hi and _match(tokens, t + 1, name, j)
    return name.startswith(part, i) and _match(tokens, t + 1, name, i + len(part))
