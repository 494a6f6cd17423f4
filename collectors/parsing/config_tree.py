"""An EOS running-config as a small typed tree with 1-based line numbers.

The hierarchy is ciscoconfparse2's (a line belongs to the nearest line above it that is indented
less; blank and `!` lines belong to nothing), built here in one pass into frozen `Node`s so the other
modules are typed and can always name the line they read. ciscoconfparse2 itself takes 20 to 50 times
longer on the same config (~50 ms for 800 lines; a production switch has tens of thousands), and
normalizing holds the GIL that the collection workers share; tests/normalizers/test_config_tree.py
keeps the library as the oracle: both give the same tree for every config in the fixtures.
Free text is blanked first: EOS's between a `comment`/`banner ...` line and `EOF`, IOS's between a
`banner TYPE <delimiter>` line and the delimiter. It is prose, and a line such as `shutdown` inside it
must not be read as configuration.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from auditor.normalize import Problem

_FREE_TEXT_START = re.compile(r"^\s*(comment|banner\s+\S+)\s*$")
_FREE_TEXT_END = "EOF"
# Configs nest a handful of levels. A hostile one indented a thousand levels deep would make the tree
# (built and walked recursively) overflow the interpreter's stack: lines past this depth are kept,
# as children of the deepest block allowed.
MAX_DEPTH = 64
DELIMITED_BANNER = re.compile(r"^\s*banner\s+\w+\s+(?P<delim>\^C|\S)(?P<rest>.*)$")


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
    """Replace the bodies of comments and banners by `!` so they are never read as commands.

    The line count is kept, so line numbers stay those of the capture.
    """
    out: list[str] = []
    end: str | None = None  # what closes the free text being skipped, if any
    for raw in lines:
        if end is not None:
            out.append("!")
            if (raw.strip() == end) if end == _FREE_TEXT_END else (end in raw):
                end = None
            continue
        out.append(raw)
        if _FREE_TEXT_START.match(raw):
            out[-1], end = "!", _FREE_TEXT_END
        elif (banner := DELIMITED_BANNER.match(raw)) and banner["delim"] not in banner["rest"]:
            end = banner["delim"]  # the banner is not closed on its own line: its body follows
    return out


def _is_config(text: str) -> bool:
    stripped = text.strip()
    return bool(stripped) and not stripped.startswith("!")


def parse_tree(lines: list[str]) -> Config:
    """The indentation hierarchy of a config (IOS syntax: EOS and IOS indent the same way)."""
    return Config(nodes=tuple(b.freeze() for b in indented_blocks(blank_free_text(lines), _is_config)))


def indented_blocks(lines: list[str], is_config: Callable[[str], bool]) -> list[Block]:
    """The top-level blocks of `lines`: each line belongs to the nearest line above it that is indented
    less; lines that are not configuration (blank, comments) belong to nothing and hold nothing. The
    tree is at most MAX_DEPTH deep."""
    top: list[Block] = []
    stack: list[Block] = []  # the chain of open blocks, least indented first
    for number, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not is_config(text):
            continue
        indent = len(raw) - len(raw.lstrip())
        while stack and stack[-1].indent >= indent:
            stack.pop()
        del stack[MAX_DEPTH - 1 :]
        block = Block(indent, text, number)
        (stack[-1].children if stack else top).append(block)
        stack.append(block)
    return top


@dataclass
class Block:
    """One stripped line, its 1-based number and indentation, and the blocks indented under it."""

    indent: int
    text: str
    line: int
    children: list[Block] = field(default_factory=list)

    def freeze(self) -> Node:
        return Node(self.text, self.line, tuple(c.freeze() for c in self.children))
