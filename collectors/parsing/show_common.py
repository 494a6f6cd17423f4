"""What the per-command readers of device `show` captures share: the command key and the dispatch.

A show capture names its command in meta["command"]. `command_key` makes it comparable ("show ip route
vrf all | json" -> "show ip route vrf all"); a platform module lists (pattern, reader, covers) and
`dispatch` runs the first reader whose pattern matches. A command listed as evidence-only is stored
and read by nothing (no facts, no coverage, no problem); any other unknown command is a Problem, so a
collector asking for something no reader understands is noticed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from auditor.capture import RawCapture
from auditor.enums import FactKind
from auditor.facts import FactRecord
from auditor.normalize import NormalizeResult
from collectors.parsing.config_tree import Context
from collectors.parsing.live_common import context_of, finish, guard

Reader = Callable[[Context, Any], list[FactRecord]]


@dataclass(frozen=True)
class CommandReader:
    pattern: str  # full match on the command key
    read: Reader | None  # None: evidence only
    covers: frozenset[FactKind] = frozenset()


def command_key(command: str) -> str:
    """Lower case, single spaces, without the output-format pipe (`| json`, `| display json`)."""
    text = re.sub(r"\|\s*(display\s+)?json(\s+\S+)?\s*$", "", command.strip(), flags=re.IGNORECASE)
    text = re.sub(r"\|\s*no-more\s*", "", text, flags=re.IGNORECASE)
    return " ".join(text.lower().split())


def dispatch(
    capture: RawCapture,
    readers: Sequence[CommandReader],
    load: Callable[[RawCapture, Context], Any | None],
) -> NormalizeResult:
    """Find the reader for meta["command"], load the content and read it. Never raises."""
    result = NormalizeResult()
    ctx = context_of(capture)
    command = capture.meta.get("command") or ""
    if not command:
        ctx.problem(None, f"{capture.format} capture without meta['command']: cannot tell what to read")
        return finish(result, ctx)
    key = command_key(command)
    reader = next((r for r in readers if re.fullmatch(r.pattern, key)), None)
    if reader is None:
        ctx.problem(None, f"no reader for {command!r} ({capture.format}); the capture is kept as evidence")
        return finish(result, ctx)
    if reader.read is None:
        return result
    doc = load(capture, ctx)
    if doc is None:
        return finish(result, ctx)
    read = reader.read
    facts = guard(ctx, f"the output of {command!r}", lambda: read(ctx, doc), None)
    if facts is not None:
        result.facts.extend(facts)
        result.covers = set(reader.covers)
    return finish(result, ctx)


def rows(table: Any, table_key: str, row_key: str) -> list[dict[str, Any]]:
    """NX-API's TABLE_x/ROW_x nesting: ROW_x is a dict for one row and a list for several."""
    if not isinstance(table, dict):
        return []
    inner = table.get(table_key)
    if not isinstance(inner, dict):
        return []
    value = inner.get(row_key)
    if isinstance(value, dict):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, dict)]
    return []


def route_protocol(raw: str) -> str:
    """A RIB's protocol name in the facts' vocabulary (static, connected, bgp, ospf, isis, ...)."""
    low = raw.strip().lower()
    if low in ("direct", "connected", "c", "attached"):
        return "connected"
    if low in ("local", "l"):
        return "local"
    if low in ("static", "s", "s*"):
        return "static"
    for name in ("bgp", "ospf", "isis", "eigrp", "rip", "aggregate", "kernel", "hsrp", "vrrp"):
        if name in low:
            return name
    return re.sub(r"-\S*$", "", low) or "unknown"
