"""Bounded YAML and JSON reading for untrusted input (evidence files and the audit config).

A 21 KB YAML file with aliases can expand to gigabytes, and a few thousand nested brackets make the
parsers recurse past the interpreter's limit. Every structured document the auditor reads goes through
here first, so nesting depth, alias expansion and size are refused with a `LimitExceeded` that says which
limit and where, before any recursive or expanding step runs.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import yaml


@dataclass(frozen=True)
class Limits:
    """Bounds on one document. The defaults sit far above any real config, manifest or API reply."""

    max_depth: int = 64
    max_nodes: int = 2_000_000  # scalars and collections after alias expansion
    max_bytes: int = 256 * 1024 * 1024


DEFAULT_LIMITS = Limits()
# libyaml's parser when PyYAML was built with it: the same events, nodes and marks, about ten times
# faster, so the size bound is not also a bound on how long a refusal takes.
SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class LimitExceeded(ValueError):
    """A document breaks a bound; `line` is 1-based where known."""

    def __init__(self, message: str, *, line: int | None = None) -> None:
        self.line = line
        super().__init__(message)


# A JSON string, escapes included; one left open runs to the end (json.loads will refuse it anyway).
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"?', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def check_json_depth(text: str | bytes, limits: Limits = DEFAULT_LIMITS) -> None:
    """Refuse JSON nested deeper than the bound. Linear, and mostly in C: strings are cut out by one
    regex and the brackets left are walked; only a refusal walks the whole text to name its line."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if len(data) > limits.max_bytes:
        raise LimitExceeded(f"document of {len(data)} bytes is over the {limits.max_bytes}-byte limit")
    if data.count(b"[") + data.count(b"{") <= limits.max_depth:
        return
    brackets = _JSON_STRING.sub(b"", data).translate(None, _NOT_BRACKETS)
    depth = 0
    for byte in brackets:
        if byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > limits.max_depth:
                _locate_depth(data, limits)
        else:
            depth -= 1


def _locate_depth(data: bytes, limits: Limits) -> None:
    """Raise LimitExceeded naming the line where the nesting first goes past the bound."""
    depth = 0
    in_string = False
    escaped = False
    line = 1
    for byte in data:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
            continue
        if byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > limits.max_depth:
                raise LimitExceeded(f"nested deeper than {limits.max_depth} levels", line=line)
        elif byte in (0x5D, 0x7D):
            depth -= 1
        elif byte == 0x0A:
            line += 1
    raise LimitExceeded(f"nested deeper than {limits.max_depth} levels")


def load_json(text: str | bytes, limits: Limits = DEFAULT_LIMITS) -> Any:
    """json.loads with the depth and size bounds applied first."""
    check_json_depth(text, limits)
    return json.loads(text)


def _check_yaml_events(loader: Any, limits: Limits) -> None:
    """Walk the event stream once (iteratively): depth, and the node count with aliases expanded."""
    sizes: dict[str, int] = {}  # anchor -> expanded node count of the anchored node
    stack: list[tuple[str | None, int]] = []  # (anchor of the open collection, its subtree size so far)
    total = 0

    def count(nodes: int, line: int | None) -> None:
        """Add `nodes` to the document's total and to the open collection's subtree."""
        nonlocal total
        total += nodes
        if total > limits.max_nodes:
            raise LimitExceeded(f"more than {limits.max_nodes} nodes once aliases are expanded", line=line)
        if stack:
            anchor, inner = stack[-1]
            stack[-1] = (anchor, inner + nodes)

    while loader.check_event():
        event = loader.get_event()
        line = event.start_mark.line + 1 if event.start_mark else None
        if isinstance(event, yaml.AliasEvent):
            if event.anchor not in sizes:
                raise LimitExceeded(f"alias *{event.anchor} refers to no finished anchor", line=line)
            count(sizes[event.anchor], line)
        elif isinstance(event, yaml.ScalarEvent):
            count(1, line)
            if event.anchor:
                sizes[event.anchor] = 1
        elif isinstance(event, yaml.SequenceStartEvent | yaml.MappingStartEvent):
            if len(stack) >= limits.max_depth:
                raise LimitExceeded(f"nested deeper than {limits.max_depth} levels", line=line)
            count(1, line)
            stack.append((event.anchor, 1))
        elif isinstance(event, yaml.SequenceEndEvent | yaml.MappingEndEvent):
            anchor, inner = stack.pop()
            if anchor:
                sizes[anchor] = inner
            if stack:  # the subtree is already in the total; the parent's subtree grows by it
                parent_anchor, parent_inner = stack[-1]
                stack[-1] = (parent_anchor, parent_inner + inner - 1)


def check_yaml(text: str, limits: Limits = DEFAULT_LIMITS) -> None:
    """Refuse YAML over the size, depth or alias-expansion bounds (all documents of a stream)."""
    if len(text) > limits.max_bytes:
        raise LimitExceeded(f"document of {len(text)} characters is over the {limits.max_bytes} limit")
    loader = SafeLoader(text)
    try:
        _check_yaml_events(loader, limits)
    finally:
        loader.dispose()


def load_yaml(text: str, limits: Limits = DEFAULT_LIMITS) -> Any:
    """yaml.safe_load of a single document, after the bounds are checked."""
    check_yaml(text, limits)
    return yaml.load(text, Loader=SafeLoader)  # noqa: S506 - the safe loader (libyaml's when built in)


def load_yaml_all(text: str, limits: Limits = DEFAULT_LIMITS) -> list[Any]:
    """Every document of a YAML stream, after the bounds are checked."""
    check_yaml(text, limits)
    return list(yaml.load_all(text, Loader=SafeLoader))
