"""EOS interface ranges, lists and repeated blocks -> one `interface X` block per interface.

EOS accepts `interface Ethernet1-4`, `interface Ethernet5,7`, `interface Ethernet1/1-4` and mixed lists
(`interface Ethernet1-2,Port-Channel10`), and a config file may configure one interface in several
blocks (a range block with the shared settings, then the port's own block). The lines apply to every
interface named, in file order, so a later line wins: each interface gets one block holding the lines of
every block that names it, in order, placed where it was first named. Every module that reads
`interface X` blocks then sees the interface once, with its settings merged.

Range items: `<Type><path><n>[-<m>]`, where a type may be left out after the first item (`Ethernet5,7`),
the range runs over the last number (`Ethernet1/1-4` = Ethernet1/1..Ethernet1/4; `Ethernet1/1-1/4`
too), and a range ends at or after its start. A name that is not such a list stays as written.
"""

from __future__ import annotations

import re

from collectors.parsing.config_tree import Config, Context, Node

MAX_RANGE = 4096  # more interfaces than any switch has: a typo, not a range
MAX_EXPANDED = 65536  # interface blocks after expansion, per config: beyond it, hostile input
_HEADER = re.compile(r"interface (\S+)")
_ITEM = re.compile(
    r"(?P<type>[A-Za-z](?:[A-Za-z-]*[A-Za-z])?)?(?P<path>(?:\d+/)*)(?P<lo>\d+)(?P<sub>\.\d+)?"
    r"(?:-(?P<hipath>(?:\d+/)*)(?P<hi>\d+))?"
)


def expand_name(ctx: Context, spec: str, line: int, limit: int = MAX_EXPANDED) -> list[str] | None:
    """The interfaces an `interface` header names; [spec] when it is one plain name or not a list; None
    when they would be more than `limit` (hostile input: nothing is built beyond it)."""
    if "," not in spec and not _is_range(spec):
        return [spec]
    names: list[str] = []
    kind: str | None = None
    for item in spec.split(","):
        m = _ITEM.fullmatch(item)
        if not m or (m["type"] is None and kind is None):
            ctx.problem(line, f"cannot read interface list item {item!r} in 'interface {spec}'; skipped")
            continue
        kind = m["type"] or kind
        if len(m["lo"]) > 9 or len(m["hi"] or "") > 9:  # no port number has ten digits
            ctx.problem(line, f"interface list item {item[:60]!r} is not an interface; skipped")
            continue
        lo, hi = int(m["lo"]), int(m["hi"] or m["lo"])
        if m["hi"] is not None and (m["sub"] or (m["hipath"] and m["hipath"] != m["path"])):
            ctx.problem(line, f"interface range {item!r} spans more than its last number; skipped")
            continue
        if hi < lo or hi - lo >= MAX_RANGE:
            ctx.problem(line, f"interface range {item!r} runs backwards or is too long; skipped")
            continue
        if len(names) + hi - lo + 1 > limit:
            return None
        names += [f"{kind}{m['path']}{n}{m['sub'] or ''}" for n in range(lo, hi + 1)]
    return names


def _is_range(spec: str) -> bool:
    m = _ITEM.fullmatch(spec)
    return bool(m and m["hi"] is not None)


def merge_interfaces(ctx: Context, config: Config) -> Config:
    """The config with each interface in one block: ranges and lists expanded, repeated blocks merged."""
    merged: dict[str, list[Node]] = {}
    headers: dict[str, int] = {}
    slots: list[Node | str] = []  # config order: other top-level nodes, or an interface's first place
    budget = MAX_EXPANDED
    for node in config.nodes:
        m = _HEADER.fullmatch(node.text)
        if not m:
            slots.append(node)
            continue
        names = expand_name(ctx, m.group(1), node.line, budget)
        if names is None:
            ctx.problem(node.line, f"over {MAX_EXPANDED} interface blocks once ranges are expanded; skipped")
            continue
        budget -= len(names)
        for name in names:
            if name not in merged:
                merged[name], headers[name] = [], node.line
                slots.append(name)
            merged[name].extend(node.children)
    return Config(
        nodes=tuple(
            s if isinstance(s, Node) else Node(f"interface {s}", headers[s], tuple(merged[s])) for s in slots
        )
    )
