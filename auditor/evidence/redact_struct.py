"""Structure-aware redaction of JSON and YAML: secrets found by where they sit, not by how they look.

A value is a secret when its key says so (`password`, `clientSecret`, `DB_TOKEN`), when it is the
`value` of a `{name|Key: <secret name>, value|Value: ...}` pair (container env, AWS tags, CloudFormation
parameters), when it is the data of a Kubernetes Secret, or when it follows a secret flag in an argument
list (`["--token", "x"]`, `["-u", "user:pass"]`). Only the value's characters are replaced, so the
document stays valid and every other byte stays put.

Both walks are iterative and bounded: nesting deeper than MAX_DEPTH, or YAML aliases that would expand
past MAX_EXPANDED nodes, raise Unredactable (with the offset of the place) instead of overflowing the
stack or the memory, because a document we cannot walk is a document we cannot promise is clean.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml

from auditor.evidence.redact_scan import is_secret_name

__all__ = [
    "MAX_DEPTH",
    "MAX_EXPANDED",
    "STRUCT_RULES",
    "StructHit",
    "Unredactable",
    "json_spans",
    "yaml_spans",
]

MAX_DEPTH = 100  # real manifests and describe dumps nest < 40 (CRD schemas are the deepest)
MAX_EXPANDED = 200_000  # nodes a YAML stream may expand to through aliases
KEY_RULE, PAIR_RULE, ARG_RULE, K8S_RULE = (
    "structured-secret-key",
    "structured-secret-pair",
    "structured-secret-argument",
    "k8s-secret-data",
)
STRUCT_RULES = (KEY_RULE, PAIR_RULE, ARG_RULE)
_NAME_KEYS = ("name", "Name", "key", "Key", "ParameterKey", "OptionName", "TagKey", "variable", "Variable")
_VALUE_KEYS = ("value", "Value", "ParameterValue", "TagValue", "OptionValue")
_SECRET_KEYS = ("data", "stringData")
_LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
_FLAG = re.compile(r"--?(?P<name>[A-Za-z][\w.-]*)(?:=(?P<v>.+))?", re.S)
_USER_FLAGS = frozenset({"-u", "--user", "--proxy-user"})
_NON_LITERAL = frozenset({"", "true", "false", "null", "none", "None", "<redacted>"})


class Unredactable(Exception):
    """The text cannot be walked safely; `offset` is where (in the text given)."""

    def __init__(self, reason: str, offset: int) -> None:
        super().__init__(reason)
        self.reason = reason
        self.offset = offset


@dataclass(frozen=True)
class StructHit:
    start: int
    end: int
    rule: str


def _literal(value: str) -> bool:
    return value not in _NON_LITERAL and value[:1] not in ("$", "{", "<")


def _pair_name(value: str) -> bool:
    """A pair's name names a credential anywhere in it (`DB_PASSWORD_PROD`, `prod/api-token`)."""
    return is_secret_name(value) or any(is_secret_name(part) for part in re.split(r"[/.:\s]+", value) if part)


# ---------------------------------------------------------------- a scalar: where its value sits


@dataclass
class _Str:
    """A string value: `start:end` is the raw text of its characters (inside any quotes)."""

    start: int
    end: int
    value: str  # the decoded value
    exact: bool  # the raw text is the value (no escapes, folding or indentation in between)

    def text(self) -> str:
        return self.value

    def part(self, value: str) -> tuple[int, int]:
        """The raw span of `value`, a suffix of this string (the whole string when escapes blur it)."""
        if self.exact and self.value.endswith(value):
            return self.end - len(value), self.end
        return self.start, self.end


def _json_str(m: re.Match[str]) -> _Str:
    raw = m.group(1)
    if "\\" not in raw:
        return _Str(m.start(1), m.end(1), raw, True)
    try:
        decoded = json.loads(f'"{raw}"')
    except ValueError:
        decoded = raw
    return _Str(m.start(1), m.end(1), decoded if isinstance(decoded, str) else raw, False)


@dataclass
class _Map:
    strings: dict[str, _Str] = field(default_factory=dict)
    maps: dict[str, _Map] = field(default_factory=dict)  # only the children a rule looks into


def _judge_map(m: _Map, hits: list[StructHit]) -> None:
    for key, value in m.strings.items():
        if is_secret_name(key) and _literal(value.text()):
            hits.append(StructHit(value.start, value.end, KEY_RULE))
    name = next((m.strings[k] for k in _NAME_KEYS if k in m.strings), None)
    paired = next((m.strings[k] for k in _VALUE_KEYS if k in m.strings), None)
    if name is not None and paired is not None and _pair_name(name.text()) and _literal(paired.text()):
        hits.append(StructHit(paired.start, paired.end, PAIR_RULE))
    kind = m.strings.get("kind")
    if kind is not None and kind.text() == "Secret":
        for key in _SECRET_KEYS:
            data = m.maps.get(key)
            if data is not None:
                hits.extend(
                    StructHit(s.start, s.end, K8S_RULE) for s in data.strings.values() if s.end > s.start
                )
        notes = m.maps.get("metadata", _Map()).maps.get("annotations")
        applied = notes.strings.get(_LAST_APPLIED) if notes is not None else None
        if applied is not None:  # kubectl keeps the whole applied Secret here
            hits.append(StructHit(applied.start, applied.end, K8S_RULE))


def _judge_args(items: list[_Str], hits: list[StructHit]) -> None:
    """An argument vector: `--token=x`, `--password x`, `-u user:pass`."""
    previous: str | None = None
    for item in items:
        value = item.text()
        if previous is not None and _literal(value):
            if previous in _USER_FLAGS and ":" in value:
                secret = value.split(":", 1)[1]
                if secret:
                    hits.append(StructHit(*item.part(secret), ARG_RULE))
            else:
                flag = _FLAG.fullmatch(previous)
                if flag and flag["v"] is None and is_secret_name(flag["name"]) and not value.startswith("-"):
                    hits.append(StructHit(item.start, item.end, ARG_RULE))
        flag = _FLAG.fullmatch(value)
        if flag and flag["v"] is not None and is_secret_name(flag["name"]) and _literal(flag["v"]):
            hits.append(StructHit(*item.part(flag["v"]), ARG_RULE))
        previous = value


# ---------------------------------------------------------------- JSON: an iterative tokenizer

_WS = re.compile(r"[ \t\r\n]*")
_STRING = re.compile(r'"([^"\\]*(?:\\.[^"\\]*)*)"', re.S)
_LITERAL = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null")
_KEEP_MAPS = frozenset({"data", "stringData", "metadata", "annotations"})


class _JsonSyntax(Exception):
    pass


@dataclass
class _Frame:
    is_map: bool
    key: str | None  # the key this container sits under in its parent map
    node: _Map | None = None
    items: list[_Str] | None = None
    pending: str | None = None  # a map's key awaiting its value
    count: int = 0


def json_spans(text: str) -> list[StructHit] | None:
    """Secret spans of a JSON document or JSON lines; None when the text is not JSON.

    The C parser first reads the document and a walk of its objects decides whether anything is a
    secret by structure; only then does the token walk below locate the values (it is exact about
    offsets, but a Python loop per token: most documents, large describe dumps among them, skip it)."""
    documents = _parse_fast(text)
    if documents is not None and not _any_hit(documents):
        return []
    try:
        return _JsonWalk(text).run()
    except _JsonSyntax:
        return None


def _parse_fast(text: str) -> list[Any] | None:
    """The documents (objects as lists of pairs, duplicates kept), or None: not JSON, or too deep."""
    try:
        return [json.loads(text, object_pairs_hook=_Pairs)]
    except RecursionError:
        return None
    except ValueError:
        pass
    documents: list[Any] = []
    try:
        for line in text.splitlines():
            if line.strip():
                documents.append(json.loads(line, object_pairs_hook=_Pairs))
    except (ValueError, RecursionError):
        return None
    return documents


class _Pairs(list[tuple[str, Any]]):
    """A JSON object as its pairs in order (a duplicate key is a second pair, not a lost value)."""


def _any_hit(documents: list[Any]) -> bool:
    """Whether a walk of the parsed documents finds a structural secret (or nesting past the bound).

    The same judgement as _judge_map/_judge_args, asked as a yes/no on plain values (no spans)."""
    stack: list[tuple[Any, int]] = [(d, 1) for d in documents]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True  # the token walk raises Unredactable with the place
        if isinstance(node, _Pairs):
            if _pairs_hit(node):
                return True
            stack.extend((v, depth + 1) for _, v in node if isinstance(v, list))
        elif isinstance(node, list):
            strings = [v for v in node if isinstance(v, str)]
            if any(v.startswith("-") for v in strings):
                hits: list[StructHit] = []
                _judge_args([_Str(0, 1, v, True) for v in strings], hits)
                if hits:
                    return True
            stack.extend((v, depth + 1) for v in node if isinstance(v, list))
    return False


def _pairs_hit(pairs: _Pairs) -> bool:
    strings: dict[str, str] = {}
    for key, value in pairs:
        if isinstance(value, str):
            if is_secret_name(key) and _literal(value):
                return True
            strings[key] = value
    if strings.get("kind") == "Secret":
        return True  # the token walk finds its data
    name = next((strings[k] for k in _NAME_KEYS if k in strings), None)
    value = next((strings[k] for k in _VALUE_KEYS if k in strings), None)
    return name is not None and value is not None and _pair_name(name) and _literal(value)


class _JsonWalk:
    """One pass over the tokens with an explicit stack: no recursion, memory bounded by the open path."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.hits: list[StructHit] = []
        self.stack: list[_Frame] = []
        self.seen_value = False  # a top-level value was read (JSON lines: more may follow)

    def skip(self, pos: int) -> int:
        return _WS.match(self.text, pos).end()  # type: ignore[union-attr]

    def run(self) -> list[StructHit]:
        text = self.text
        pos = self.skip(1 if text.startswith("\ufeff") else 0)
        while pos < len(text):
            frame = self.stack[-1] if self.stack else None
            char = text[pos]
            if char == ",":
                pos = self.comma(frame, pos)
            elif char in "}]":
                pos = self.end(frame, char, pos)
            elif frame is not None and frame.count > 0:
                raise _JsonSyntax  # two values without a comma
            elif frame is not None and frame.is_map and frame.pending is None:
                pos = self.key(frame, pos)
            else:
                pos = self.value(frame, char, pos)
        if self.stack:
            raise _JsonSyntax
        return self.hits

    def comma(self, frame: _Frame | None, pos: int) -> int:
        if frame is None or frame.count <= 0 or (frame.is_map and frame.pending is not None):
            raise _JsonSyntax
        pos = self.skip(pos + 1)
        if pos < len(self.text) and self.text[pos] in "}]":
            raise _JsonSyntax  # a trailing comma
        frame.count = -frame.count  # negative: a value must follow
        return pos

    def end(self, frame: _Frame | None, char: str, pos: int) -> int:
        if frame is None or frame.is_map != (char == "}") or frame.count < 0:
            raise _JsonSyntax
        if frame.is_map and frame.pending is not None:
            raise _JsonSyntax
        self.stack.pop()
        _close(frame, self.stack, self.hits)
        self.seen_value = self.seen_value or not self.stack
        return self.skip(pos + 1)

    def key(self, frame: _Frame, pos: int) -> int:
        m = _STRING.match(self.text, pos)
        if m is None:
            raise _JsonSyntax
        frame.pending = _json_str(m).value
        pos = self.skip(m.end())
        if pos >= len(self.text) or self.text[pos] != ":":
            raise _JsonSyntax
        return self.skip(pos + 1)

    def value(self, frame: _Frame | None, char: str, pos: int) -> int:
        if frame is None and self.seen_value and char not in "{[":
            raise _JsonSyntax  # JSON lines hold objects and arrays, not bare scalars after the first
        if char in "{[":
            if len(self.stack) >= MAX_DEPTH:
                raise Unredactable(f"JSON nested deeper than {MAX_DEPTH} levels", pos)
            key = frame.pending if frame is not None and frame.is_map else None
            self.stack.append(_Frame(True, key, node=_Map()) if char == "{" else _Frame(False, key, items=[]))
            return self.skip(pos + 1)
        if char == '"':
            m = _STRING.match(self.text, pos)
            if m is None:
                raise _JsonSyntax
            _scalar(frame, _json_str(m))
        else:
            m = _LITERAL.match(self.text, pos)
            if m is None:
                raise _JsonSyntax
            _scalar(frame, None)
        self.seen_value = self.seen_value or frame is None
        return self.skip(m.end())


def _scalar(frame: _Frame | None, value: _Str | None) -> None:
    if frame is None:
        return
    if frame.is_map:
        if frame.node is None or frame.pending is None:
            raise _JsonSyntax
        if value is not None:
            frame.node.strings[frame.pending] = value
        frame.pending = None
    elif value is not None and frame.items is not None:
        frame.items.append(value)
    frame.count = abs(frame.count) + 1


def _close(frame: _Frame, stack: list[_Frame], hits: list[StructHit]) -> None:
    if frame.is_map:
        assert frame.node is not None
        _judge_map(frame.node, hits)
    else:
        assert frame.items is not None
        _judge_args(frame.items, hits)
    parent = stack[-1] if stack else None
    if parent is None:
        return
    if parent.is_map:
        assert parent.node is not None
        if frame.is_map and frame.key in _KEEP_MAPS and frame.node is not None:
            parent.node.maps[frame.key] = frame.node
        parent.pending = None
    parent.count = abs(parent.count) + 1


# ---------------------------------------------------------------- YAML: a bounded composer


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser when built with it
_RESOLVER = yaml.resolver.Resolver()


def _compose(text: str) -> list[yaml.Node]:
    """PyYAML nodes built from the parser's events with an explicit stack.

    PyYAML's own composer recurses once per level (a RecursionError on deep input); this one cannot,
    and it refuses nesting past MAX_DEPTH itself. Aliases become shared nodes, as in PyYAML."""
    documents: list[yaml.Node] = []
    stack: list[yaml.Node] = []
    keys: list[yaml.Node | None] = []  # per open mapping: the key waiting for its value
    anchors: dict[str, yaml.Node] = {}
    events: Iterator[Any] = yaml.parse(text, Loader=_LOADER)  # marks of libyaml or PyYAML: both have .index
    for event in events:
        node: yaml.Node
        kind = type(event)  # compared by identity: `event` stays Any (libyaml's marks are typed apart)
        if kind is yaml.AliasEvent:
            if event.anchor not in anchors:
                raise Unredactable(f"YAML alias *{event.anchor} names no anchor", event.start_mark.index)
            node = anchors[event.anchor]
        elif kind is yaml.ScalarEvent:
            tag = event.tag
            if tag is None or tag == "!":
                tag = _RESOLVER.resolve(yaml.ScalarNode, event.value, event.implicit)  # type: ignore[no-untyped-call]
            node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, style=event.style)
        elif kind in (yaml.MappingStartEvent, yaml.SequenceStartEvent):
            if len(stack) >= MAX_DEPTH:
                raise Unredactable(f"YAML nested deeper than {MAX_DEPTH} levels", event.start_mark.index)
            mapping = kind is yaml.MappingStartEvent
            cls = yaml.MappingNode if mapping else yaml.SequenceNode
            node = cls(event.tag or "", [], event.start_mark, event.end_mark, flow_style=event.flow_style)
            if event.anchor is not None:
                anchors[event.anchor] = node
            _attach(node, stack, keys, documents)
            stack.append(node)
            keys.append(None)
            continue
        elif kind in (yaml.MappingEndEvent, yaml.SequenceEndEvent):
            stack.pop().end_mark = event.end_mark
            keys.pop()
            continue
        else:  # stream and document boundaries
            continue
        if kind is yaml.ScalarEvent and event.anchor is not None:
            anchors[event.anchor] = node
        _attach(node, stack, keys, documents)
    return documents


def _attach(
    node: yaml.Node, stack: list[yaml.Node], keys: list[yaml.Node | None], docs: list[yaml.Node]
) -> None:
    if not stack:
        docs.append(node)
        return
    parent = stack[-1]
    if isinstance(parent, yaml.MappingNode):
        key = keys[-1]
        if key is None:
            keys[-1] = node
        else:
            parent.value.append((key, node))
            keys[-1] = None
    else:
        parent.value.append(node)


def yaml_spans(text: str) -> list[StructHit] | None:
    """Secret spans of a YAML stream; None when it does not parse (the caller decides what that means)."""
    try:
        documents = _compose(text)
    except yaml.YAMLError:
        return None
    _bound_expansion(documents)
    hits: list[StructHit] = []
    seen: set[int] = set()
    stack = list(documents)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue  # an alias: its target is walked once, wherever it is referenced
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            _judge_map(_yaml_map(text, node), hits)
            stack.extend(v for _, v in node.value)
            stack.extend(k for k, _ in node.value if not isinstance(k, yaml.ScalarNode))
        elif isinstance(node, yaml.SequenceNode):
            _judge_args([s for s in (_yaml_str(text, v) for v in node.value) if s is not None], hits)
            stack.extend(node.value)
    return hits


def _yaml_map(text: str, node: yaml.MappingNode) -> _Map:
    m = _Map()
    for k, v in node.value:
        if not isinstance(k, yaml.ScalarNode):
            continue
        if isinstance(v, yaml.ScalarNode):
            s = _yaml_str(text, v)
            if s is not None:
                m.strings[k.value] = s
        elif isinstance(v, yaml.MappingNode) and k.value in _KEEP_MAPS:
            m.maps[k.value] = _yaml_map(text, v)
    return m


def _yaml_str(text: str, node: yaml.Node) -> _Str | None:
    """A string scalar's value span: quotes and a block scalar's indicator line stay outside."""
    if not isinstance(node, yaml.ScalarNode) or node.tag != "tag:yaml.org,2002:str":
        return None
    start, end = node.start_mark.index, node.end_mark.index
    while start < end and text[start] in "&!":  # an anchor or a tag before the value
        while start < end and text[start] not in " \t\r\n":
            start += 1
        while start < end and text[start] in " \t\r\n":
            start += 1
    if node.style in ('"', "'"):
        start, end = start + 1, end - 1
    elif node.style in ("|", ">"):
        start = text.find("\n", start, end) + 1 or end
        while start < end and text[start] in " \t":
            start += 1
    while end > start and text[end - 1] in " \t\r\n":
        end -= 1
    if start >= end:
        return None
    return _Str(start, end, node.value, text[start:end] == node.value)


def _bound_expansion(documents: list[yaml.Node]) -> None:
    """Refuse a stream whose aliases expand past MAX_EXPANDED nodes (a billion-laughs document)."""
    sizes: dict[int, int] = {}
    for document in documents:
        stack: list[tuple[yaml.Node, bool]] = [(document, False)]
        while stack:
            node, ready = stack.pop()
            if id(node) in sizes:
                continue
            children = _children(node)
            if not ready:
                stack.append((node, True))
                stack.extend((c, False) for c in children if id(c) not in sizes)
                continue
            total = 1 + sum(sizes.get(id(c), 1) for c in children)
            sizes[id(node)] = total
            if total > MAX_EXPANDED:
                raise Unredactable(
                    f"YAML aliases expand to more than {MAX_EXPANDED:,} nodes", node.start_mark.index
                )


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []
