"""An EOS running-config as a small typed tree with 1-based line numbers.

ciscoconfparse2 builds the indentation hierarchy; this module turns its objects into frozen `Node`s
so the other EOS modules are typed, never touch the library, and can always name the line they read.
Free text that EOS stores between a `comment`/`banner ...` line and `EOF` is blanked first: it is
prose, and a line such as `shutdown` inside it must not be read as configuration.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from auditor.normalize import Problem

_FREE_TEXT_START = re.compile(r"^\s*(comment|banner\s+\S+)\s*$")
_FREE_TEXT_END = "EOF"


@dataclass(frozen=True)
class Node:
    """One configuration line (stripped) and the lines indented under it."""

    text: str
    line: int
    children: tuple[Node, ...] = ()

    @property
    def words(self) -> list[str]:
        return self.text.split()

    def after(self, prefix: str) -> str:
        """The text following `prefix` (which the caller has already matched)."""
        return self.text[len(prefix) :].strip()

    def walk(self) -> Iterator[Node]:
        """This node's children and all their descendants, in config order."""
        for child in self.children:
            yield child
            yield from child.walk()


@dataclass
class Context:
    """What every EOS parsing step shares: the fact owner and where problems are reported."""

    device: str
    origin: str
    problems: list[Problem] = field(default_factory=list)

    def problem(self, line: int | None, message: str) -> None:
        self.problems.append(Problem(origin=self.origin, message=message, line=line))


@dataclass(frozen=True)
class Config:
    """The top-level lines of a running-config, each with its sub-tree."""

    nodes: tuple[Node, ...]

    def top(self, pattern: str) -> Iterator[tuple[Node, re.Match[str]]]:
        """Top-level nodes whose whole text matches `pattern`, with the match."""
        rx = re.compile(pattern)
        for node in self.nodes:
            m = rx.fullmatch(node.text)
            if m:
                yield node, m


def blank_free_text(lines: list[str]) -> list[str]:
    """Replace comment/banner bodies (up to `EOF`) by `!` so they are never read as commands.

    The line count is kept, so line numbers stay those of the capture.
    """
    out: list[str] = []
    in_free_text = False
    for raw in lines:
        if in_free_text:
            out.append("!")
            if raw.strip() == _FREE_TEXT_END:
                in_free_text = False
            continue
        if _FREE_TEXT_START.match(raw):
            in_free_text = True
            out.append("!")
            continue
        out.append(raw)
    return out


def _is_config(text: str) -> bool:
    stripped = text.strip()
    return bool(stripped) and not stripped.startswith("!")


def _convert(obj: object) -> Node:
    children = tuple(_convert(c) for c in getattr(obj, "children", []) if _is_config(str(c.text)))
    return Node(
        text=str(getattr(obj, "text", "")).strip(),
        line=int(getattr(obj, "linenum", 0)) + 1,
        children=children,
    )


def parse_tree(lines: list[str]) -> Config:
    """Build the hierarchy with ciscoconfparse2 (IOS syntax: EOS indents the same way)."""
    from ciscoconfparse2 import CiscoConfParse  # noqa: PLC0415  (seconds to import: only when a config is read)

    parsed = CiscoConfParse(
        blank_free_text(lines), syntax="ios", loguru=False, ignore_blank_lines=False, factory=False
    )
    top = [obj for obj in parsed.objs if obj.parent is obj and _is_config(str(obj.text))]
    return Config(nodes=tuple(_convert(obj) for obj in top))
