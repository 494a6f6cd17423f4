"""Redaction of raw captures: secrets are replaced before anything is hashed, stored, reported or logged.

Only the secret value is replaced, by the single token ``<redacted>``, so a redacted config still
parses (``username admin privilege 15 secret sha512 <redacted>``). The rules are in
:mod:`auditor.evidence.redact_rules`. Redaction is idempotent: redacting twice changes nothing more.

JSON is handled structurally enough to stay valid: JSON-aware rules run on the raw text, and every
string literal that may hold a config (e.g. NAPALM's ``{"running": "...\\n..."}``) is decoded, redacted
as text, and its secret spans are mapped back onto the raw bytes, so escapes and every non-secret
byte are kept as they were.
"""

from __future__ import annotations

import bisect
import itertools
import json
import logging
import re
import zlib
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

import yaml

from auditor.errors import AuditorError
from auditor.evidence.redact_flowlog import unclean_segments
from auditor.evidence.redact_parquet import parquet_text
from auditor.evidence.redact_rules import RULE_NAMES, RULES, Anchor, Block, Pattern, Scope
from auditor.evidence.redact_scan import SCANNER_RULES, is_secret_name, scan
from auditor.evidence.redact_struct import STRUCT_RULES, StructHit, Unredactable, json_spans, yaml_spans
from auditor.normalize import Problem

__all__ = [
    "ALL_RULE_NAMES",
    "REDACTED",
    "REFUSED_PREFIX",
    "RedactingFilter",
    "Redaction",
    "RedactionRefused",
    "redact",
    "redact_problems",
    "redact_text",
]

REDACTED = "<redacted>"
REFUSED_PREFIX = (
    "not stored: "  # the message of a refused capture's problem (the redaction report counts them)
)

_GZIP_MAGIC = b"\x1f\x8b"
_PARQUET_MAGIC = b"PAR1"
_BINARY_SCAN_LIMIT = 256 * 1024 * 1024  # decompressed bytes looked at in a binary capture
# Every rule's name, in priority order: the named rules, then the structural ones, then the scanner's.
ALL_RULE_NAMES: tuple[str, ...] = tuple(dict.fromkeys((*RULE_NAMES, *STRUCT_RULES, *SCANNER_RULES)))
_NAME_INDEX = {name: i for i, name in enumerate(ALL_RULE_NAMES)}
# Formats whose content is JSON (or JSON lines): one that does not parse cannot be walked by key.
_JSON_FORMATS = frozenset(
    {
        "aws.describe",
        "aws.flowlog.aggregate",
        "eos.show-json",
        "nxos.show-json",
        "cumulus.nvue-json",
        "sonic.config-db",
        "napalm.getters",
    }
)
_YAML_FORMATS = frozenset({"k8s.manifest"})
_YAML_DOC = re.compile(r"^(?:apiVersion|kind|clusters|users|contexts|current-context)[ \t]*:", re.M)
# What makes an unparseable structured document unsafe to store: a Secret, or a value under a key that
# names a credential (its secrets can no longer be located by key, only guessed by line).
_SECRET_KIND = re.compile(r"""^[ \t]*["']?kind["']?[ \t]*:[ \t]*["']?Secret\b""", re.M)
_KEY_VALUE = re.compile(
    r"""^[ \t]*(?:-[ \t]+)?["']?(?P<key>[\w.-]+)["']?[ \t]*[:=][ \t]*(?P<value>[^\s#].*)$""", re.M
)

_MAX_JSON_DEPTH = 4  # JSON in a JSON string (kubectl's last-applied-configuration) in a JSON string ...
_JSON_STRING = re.compile(r'"([^"\\]*(?:\\.[^"\\]*)*)"', re.S)
_JSON_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|(.))", re.S)
_JSON_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}
# Gates of the rules that only run on text: a JSON string holding none of them is not decoded.
# An escaped ASCII letter (`\u0070assword`) could hide a gate, so such strings are decoded too.
_TEXT_GATES = (*sorted({p.gate for r in RULES for p in r.patterns if not p.json_safe}), "\\u00")
_BRACES = re.compile(r"[{}]")
_KEY_COLON = re.compile(r"[ \t\r\n]*:")
_K8S_SECRET_KIND = re.compile(r"""kind["']?[ \t]*:[ \t]*["']?Secret(?![\w-])""")
_K8S_SECRET_KEYS = ("data", "stringData")
_LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
_RULE_INDEX = {rule.name: i for i, rule in enumerate(RULES)}
_K8S_RULE = _RULE_INDEX["k8s-secret-data"]

_Span = tuple[int, int, int]  # start, end, index of the rule in RULES (lower wins on overlap)


@dataclass(frozen=True)
class Redaction:
    """The redacted bytes and what was taken out of them (counts only, never the values)."""

    content: bytes
    count: int
    kinds: dict[str, int]


class RedactionRefused(AuditorError):
    """A capture that cannot be redacted safely: it is never stored, and the run records a problem."""

    hint = (
        "fix or re-collect this evidence; it was not stored, because it could hold a secret we cannot locate"
    )

    def __init__(self, reason: str, *, origin: str = "", line: int | None = None) -> None:
        self.reason, self.origin, self.line = reason, origin, line
        where = f"{origin}:{line}" if line is not None else origin
        super().__init__(f"{where}: not stored: {reason}" if where else f"not stored: {reason}")


def redact(content: bytes, fmt: str = "", origin: str = "") -> Redaction:
    """Redact a raw capture; bytes that are not valid UTF-8 round-trip unchanged.

    Raises RedactionRefused when the capture cannot be redacted safely: nesting or YAML aliases past
    the bounds, a structured document that does not parse yet holds secret-looking words, or binary
    content (compressed, Parquet) that holds a secret."""
    if _is_binary(content):
        _refuse_binary_secret(content, origin)
        return Redaction(content=content, count=0, kinds={})
    text = content.decode("utf-8", errors="surrogateescape")
    try:
        redacted, kinds = _redact(text, fmt=fmt, strict=True)
    except Unredactable as exc:
        raise RedactionRefused(exc.reason, origin=origin, line=text.count("\n", 0, exc.offset) + 1) from None
    if not kinds:
        return Redaction(content=content, count=0, kinds={})
    return Redaction(
        content=redacted.encode("utf-8", errors="surrogateescape"), count=sum(kinds.values()), kinds=kinds
    )


def redact_text(text: str) -> tuple[str, dict[str, int]]:
    """Redact a string; returns the new text and the count of secrets replaced per rule name.

    Never refuses (log messages, error texts): what the bounded walks cannot reach is left to the
    line rules and the scanner."""
    try:
        return _redact(text, fmt="", strict=False)
    except Unredactable:  # pragma: no cover - non-strict walks do not raise
        return REDACTED, {"unredactable": 1}


def _redact(text: str, *, fmt: str, strict: bool) -> tuple[str, dict[str, int]]:
    if fmt == "aws.flowlog":  # only the lines that are not plain records are searched
        found: list[_Span] = []
        for low, high in unclean_segments(text):
            try:
                inner = _spans(text[low:high], depth=0, strict=strict)
            except Unredactable as exc:
                raise Unredactable(exc.reason, low + exc.offset) from None
            found.extend((low + s, low + e, r) for s, e, r in inner)
        spans = _merge(found)
    else:
        spans = _merge(_spans(text, depth=0, fmt=fmt, strict=strict))
    if not spans:
        return text, {}
    parts: list[str] = []
    kinds: Counter[str] = Counter()
    pos = 0
    for start, end, rule in spans:
        parts.append(text[pos:start])
        parts.append(REDACTED)
        kinds[ALL_RULE_NAMES[rule]] += 1
        pos = end
    parts.append(text[pos:])
    return "".join(parts), dict(kinds)


class RedactingFilter(logging.Filter):
    """Redacts each record's message, exception text and stack before any handler formats it.

    Attach it to handlers: a filter on a logger does not see records propagated from its children.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record in place; never drops it."""
        try:
            message = record.getMessage()
        except Exception:  # a malformed record: redact its raw msg, let logging report the rest
            message = str(record.msg)
        redacted, kinds = redact_text(message)
        if kinds:
            record.msg, record.args = redacted, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact_text(record.exc_text)[0]
        if record.stack_info:
            record.stack_info = redact_text(record.stack_info)[0]
        return True


def _is_binary(content: bytes) -> bool:
    if content.startswith(_GZIP_MAGIC):
        return True
    return len(content) >= 8 and content.startswith(_PARQUET_MAGIC) and content.endswith(_PARQUET_MAGIC)


def _refuse_binary_secret(content: bytes, origin: str) -> None:
    """Binary bytes cannot be redacted without corrupting them: one that holds a secret is refused."""
    data = content
    if content.startswith(_GZIP_MAGIC):
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            data = inflater.decompress(content, _BINARY_SCAN_LIMIT)
        except zlib.error:
            data = b""
    texts: Iterable[str] = [data.decode("latin-1")]
    if content.startswith(_PARQUET_MAGIC):  # compressed column pages: read the values back
        texts = itertools.chain(texts, parquet_text(content))
    for text in texts:
        found = sorted({h.rule for h in scan(text) if h.rule != "high-entropy-string"})
        found += sorted(
            {RULES[r].name for _, _, r in _collect(text, json_raw=False) if RULES[r].marks_line is False}
        )
        if found:
            raise RedactionRefused(
                f"binary content holds what looks like a secret ({', '.join(found)})", origin=origin
            )


def _spans(text: str, depth: int, fmt: str = "", strict: bool = False, rescan: bool = True) -> list[_Span]:
    """Secret spans in `text` from all three layers; in a JSON document, string literals are also
    searched as text (a config inside NAPALM's JSON, a manifest inside last-applied-configuration).

    `rescan` False: `text` is a JSON string without escapes, already scanned as part of its document."""
    spans, is_json = _structured_spans(text, depth, fmt, strict)
    if rescan:
        spans.extend((h.start, h.end, _NAME_INDEX[h.rule]) for h in scan(text))
    if depth >= _MAX_JSON_DEPTH or not is_json:
        return [s for s in spans + _collect(text, json_raw=False) if text[s[0] : s[1]] != REDACTED]
    spans += _collect(text, json_raw=True)
    for low, high in _strings_to_search(text):
        if _KEY_COLON.match(text, high + 1):
            continue  # an object key: the rules look at values (keys are walked by structure)
        body = text[low:high]
        decoded, to_raw = _decode_json_string(body)
        try:
            inner = _spans(decoded, depth + 1, strict=strict, rescan="\\" in body)
        except Unredactable as exc:
            raise Unredactable(exc.reason, low) from None
        spans.extend((low + to_raw(s), low + to_raw(e), r) for s, e, r in inner)
    return [s for s in spans if text[s[0] : s[1]] != REDACTED]


def _structured_spans(text: str, depth: int, fmt: str, strict: bool) -> tuple[list[_Span], bool]:
    """Secrets located by the document's structure: JSON and YAML keys, pairs, argument lists, Secrets;
    and whether the text is JSON (a whole document or JSON lines; a Junos `{master:0}` prompt is not)."""
    head = text.lstrip("\ufeff \t\r\n")[:1]
    hits = None
    structured = False
    if head in ("{", "["):
        structured = fmt in _JSON_FORMATS or fmt in _YAML_FORMATS or depth > 0
        hits = _bounded(json_spans, text, strict)
    is_json = hits is not None
    if hits is None and (fmt in _YAML_FORMATS or (not fmt and _YAML_DOC.search(text))):
        structured = True
        hits = _bounded(yaml_spans, text, strict)
    if hits is not None:
        return [(h.start, h.end, _NAME_INDEX[h.rule]) for h in hits], is_json
    if strict and structured and depth == 0 and _secret_looking(text):
        raise Unredactable(f"{fmt or 'structured'} content does not parse and holds secret-looking words", 0)
    return _k8s_secret_spans(text), False


def _secret_looking(text: str) -> bool:
    if _SECRET_KIND.search(text) or any(h.rule != "high-entropy-string" for h in scan(text)):
        return True
    for m in _KEY_VALUE.finditer(text):
        value = m["value"].strip("\"' ,")
        if is_secret_name(m["key"]) and value and value[0] not in "{[|>&*$<" and value != REDACTED:
            return True
    return False


def _bounded(
    walk: Callable[[str], list[StructHit] | None], text: str, strict: bool
) -> list[StructHit] | None:
    """A structural walk; past the bounds it refuses (strict) or gives way to the line rules (logs)."""
    try:
        return walk(text)
    except Unredactable:
        if strict:
            raise
        return None


def _strings_to_search(text: str) -> list[tuple[int, int]]:
    """Bodies of the JSON string literals that hold a text-rule gate, in order.

    Strict JSON strings never span lines, so the literal around a gate is found on the gate's line;
    after a hit the search goes on past that literal, so a large literal is located once per gate.
    """
    lowered = text.lower()
    if len(lowered) != len(text):  # case folding changed lengths (rare scripts): search every string
        return [m.span(1) for m in _JSON_STRING.finditer(text)]
    lines = _LineLiterals(text)
    found: dict[int, int] = {}
    for gate in _TEXT_GATES:
        pos = lowered.find(gate)
        while pos != -1:
            literal = lines.literal_at(pos)
            if literal is None:
                pos = lowered.find(gate, pos + 1)
                continue
            found[literal[0]] = literal[1]
            pos = lowered.find(gate, literal[1])
    return sorted(found.items())


class _LineLiterals:
    """The string literals of each line of a JSON text, found once per line on demand."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._line_starts: list[int] = []
        self._lines: dict[int, tuple[int, list[int], list[int]]] = {}

    def literal_at(self, pos: int) -> tuple[int, int] | None:
        """The (start, end) of the body of the string literal holding `pos`, if any."""
        i = bisect.bisect_right(self._line_starts, pos) - 1
        if i >= 0 and pos < self._lines[self._line_starts[i]][0]:
            line_end, starts, ends = self._lines[self._line_starts[i]]
        else:
            text = self._text
            line_start = text.rfind("\n", 0, pos) + 1
            line_end = text.find("\n", pos)
            line_end = len(text) if line_end == -1 else line_end
            literals = [m.span(1) for m in _JSON_STRING.finditer(text, line_start, line_end)]
            starts, ends = [s for s, _ in literals], [e for _, e in literals]
            self._lines[line_start] = (line_end, starts, ends)
            bisect.insort(self._line_starts, line_start)
        j = bisect.bisect_right(starts, pos) - 1
        return (starts[j], ends[j]) if j >= 0 and pos < ends[j] else None


class _RawOffsets:
    """Maps an offset in a decoded JSON string back to its offset in the raw (escaped) body."""

    def __init__(self, decoded_starts: list[int], raw_starts: list[int]) -> None:
        self._decoded, self._raw = decoded_starts, raw_starts

    def __call__(self, offset: int) -> int:
        i = bisect.bisect_right(self._decoded, offset) - 1
        return self._raw[i] + (offset - self._decoded[i])


class _TwoCharEscapes:
    """The common case, every escape two characters long (`\\n`, `\\"`): one bisect per offset."""

    def __init__(self, escapes_decoded: list[int]) -> None:
        self._escapes = escapes_decoded

    def __call__(self, offset: int) -> int:
        return offset + bisect.bisect_left(self._escapes, offset)


def _decode_json_string(body: str) -> tuple[str, _RawOffsets | _TwoCharEscapes]:
    """Decode a JSON string body and keep a map from decoded offsets back to raw ones."""
    if "\\u" not in body:
        try:
            decoded = json.loads(f'"{body}"')
        except ValueError:
            pass
        else:
            raw = [m.start() for m in _JSON_ESCAPE.finditer(body)]
            return decoded, _TwoCharEscapes([pos - i for i, pos in enumerate(raw)])
    out: list[str] = []
    decoded_starts, raw_starts = [0], [0]
    length = pos = 0
    for m in _JSON_ESCAPE.finditer(body):
        if m.start() > pos:
            out.append(body[pos : m.start()])
            length += m.start() - pos
            decoded_starts.append(length)
            raw_starts.append(m.start())
        hexcode, char = m.group(1), m.group(2)
        out.append(chr(int(hexcode, 16)) if hexcode else _JSON_SIMPLE_ESCAPES.get(char, char))
        length += 1
        pos = m.end()
        decoded_starts.append(length)
        raw_starts.append(pos)
    out.append(body[pos:])
    return "".join(out), _RawOffsets(decoded_starts, raw_starts)


def _collect(text: str, *, json_raw: bool) -> list[_Span]:
    """Run every rule; fallback rules skip lines a specific rule matched (even if already redacted)."""
    spans: list[_Span] = []
    handled: set[int] = set()
    lowered = text.lower()
    gates: dict[str, bool] = {}
    for priority, rule in enumerate(RULES):
        for pattern in rule.patterns:
            if json_raw and not pattern.json_safe:
                continue
            present = gates.get(pattern.gate)
            if present is None:
                present = gates[pattern.gate] = pattern.gate in lowered
            if not present:
                continue
            for low, high in _windows(text, pattern.block):
                for m in pattern.regex.finditer(text, low, high):
                    pos = m.start()
                    if not _glued_ok(text, pos, pattern.anchor):
                        continue
                    line_start = _line_start(text, pos)
                    if not _anchored(text, line_start, pos, pattern):
                        continue
                    block = pattern.block
                    if block and block.kind is Scope.INDENT and not _in_indented_block(text, pos, block):
                        continue
                    if rule.fallback and line_start in handled:
                        continue
                    if rule.marks_line and not rule.fallback:
                        handled.add(line_start)
                    found_by = priority
                    for group, name in pattern.dispatch:
                        if m.start(group) != -1:
                            found_by = _RULE_INDEX[name]
                    for group in pattern.groups:
                        start, end = m.span(group)
                        if start < end and text[start:end] != REDACTED:
                            spans.append((start, end, found_by))
    return spans


def _glued_ok(text: str, pos: int, anchor: Anchor) -> bool:
    """Cheap first check: the character before the match."""
    if pos == 0:
        return True
    before = text[pos - 1]
    if anchor is Anchor.WORD:
        return not (before.isalnum() or before in "_-")
    if anchor is Anchor.ALNUM:
        return not before.isalnum()
    if anchor in (Anchor.LINE, Anchor.YAML):  # indentation, a list dash, or the `n` of an escaped `\n`
        return before in " \t\r\n-n"
    return True


def _line_start(text: str, pos: int) -> int:
    """Start of the line holding `pos`; an escaped `\\n` (config inside a JSON or repr string) counts."""
    start = text.rfind("\n", 0, pos) + 1
    escaped = text.rfind("\\n", start, pos)
    return escaped + 2 if escaped >= 0 else start


def _anchored(text: str, line_start: int, pos: int, pattern: Pattern) -> bool:
    anchor = pattern.anchor
    if anchor is Anchor.LINE:
        if pattern.line_prefix is None:
            if text[line_start:pos].strip(" \t"):
                return False
        elif not pattern.line_prefix.fullmatch(text, line_start, pos):
            return False
    if anchor is Anchor.YAML and text[line_start:pos].strip(" \t-"):
        return False
    return not (pattern.reject_prefix and pattern.reject_prefix.search(text[line_start:pos]))


def _windows(text: str, block: Block | None) -> list[tuple[int, int]]:
    """Where a pattern may match: the whole text, or the bodies of its brace block."""
    if block is None or block.kind is Scope.INDENT:
        return [(0, len(text))]
    windows: list[tuple[int, int]] = []
    for m in block.header.finditer(text):
        if _is_line_start(text, m.start()):
            windows.append((m.end(), _closing_brace(text, m.end())))
    return windows


def _is_line_start(text: str, pos: int) -> bool:
    return not text[text.rfind("\n", 0, pos) + 1 : pos].strip(" \t")


def _closing_brace(text: str, pos: int) -> int:
    depth = 1
    for m in _BRACES.finditer(text, pos):
        depth += 1 if m.group() == "{" else -1
        if depth == 0:
            return m.start()
    return len(text)


def _in_indented_block(text: str, pos: int, block: Block) -> bool:
    """Whether the line at `pos` sits under a header of `block`: the nearest less-indented line above."""
    line_start = text.rfind("\n", 0, pos) + 1
    indent = len(text[line_start:pos]) - len(text[line_start:pos].lstrip(" \t"))
    end = line_start - 1
    while end > 0:
        start = text.rfind("\n", 0, end) + 1
        line = text[start:end]
        body = line.lstrip(" \t")
        if body and len(line) - len(body) < indent:
            return block.header.match(body) is not None
        end = start - 1
    return False


def _merge(spans: list[_Span]) -> list[_Span]:
    """Overlapping spans become one secret, credited to the most specific (earliest) rule."""
    merged: list[_Span] = []
    for start, end, rule in sorted(spans, key=lambda s: (s[0], -s[1])):
        if merged and start < merged[-1][1]:
            last_start, last_end, last_rule = merged[-1]
            merged[-1] = (last_start, max(last_end, end), min(last_rule, rule))
        else:
            merged.append((start, end, rule))
    return merged


def _k8s_secret_spans(text: str) -> list[_Span]:
    """Values of `data`/`stringData` in Kubernetes Secret objects, located with PyYAML's node marks."""
    if not _K8S_SECRET_KIND.search(text):
        return []
    try:
        documents = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
    except (yaml.YAMLError, RecursionError):
        return _k8s_secret_spans_fallback(text)
    spans: list[_Span] = []
    stack: list[yaml.Node] = [d for d in documents if d is not None]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:  # an alias: walked once (a Secret full of aliases took 55 s without this)
            continue
        seen.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            fields = {k.value: v for k, v in node.value if isinstance(k, yaml.ScalarNode)}
            kind = fields.get("kind")
            if isinstance(kind, yaml.ScalarNode) and kind.value == "Secret":
                spans.extend(_secret_value_spans(text, fields))
            stack.extend(v for _, v in node.value)
    return spans


def _secret_value_spans(text: str, fields: dict[str, yaml.Node]) -> list[_Span]:
    values: list[yaml.Node] = []
    for key in _K8S_SECRET_KEYS:
        node = fields.get(key)
        if isinstance(node, yaml.MappingNode):
            values.extend(v for _, v in node.value)
    metadata = fields.get("metadata")
    if isinstance(metadata, yaml.MappingNode):  # kubectl keeps the whole applied Secret here
        for key, value in metadata.value:
            if key.value == "annotations" and isinstance(value, yaml.MappingNode):
                values.extend(v for k, v in value.value if k.value == _LAST_APPLIED)
    spans: list[_Span] = []
    for node in values:
        if not isinstance(node, yaml.ScalarNode):
            continue
        start, end = node.start_mark.index, node.end_mark.index
        if node.style in ('"', "'"):
            start, end = start + 1, end - 1
        elif node.style in ("|", ">"):  # keep the indicator line: only the content lines go
            start = text.find("\n", start, end) + 1 or end
            while start < end and text[start] in " \t":
                start += 1
        while end > start and text[end - 1] in " \t\r\n":
            end -= 1
        if start < end and text[start:end] != REDACTED:
            spans.append((start, end, _K8S_RULE))
    return spans


_YAML_DATA_BLOCK = re.compile(
    r"^(?P<ind>[ \t]*)(?:data|stringData):[ \t]*\n(?P<body>(?:(?P=ind)[ \t]+.*(?:\n|$))*)", re.M
)
# `key: value`, and the content lines of block scalars (`key: |` then indented lines) as a whole.
_YAML_DATA_VALUE = re.compile(r"^[ \t]+(?:[\w.-]+:[ \t]*)?(?P<v>\S(?:.*\S)?)[ \t]*$", re.M)
_JSON_DATA_OBJECT = re.compile(r'"(?:data|stringData)"[ \t\r\n]*:[ \t\r\n]*\{(?P<body>[^{}]*)\}')
_JSON_DATA_VALUE = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"[ \t\r\n]*:[ \t\r\n]*"(?P<v>[^"\\]*(?:\\.[^"\\]*)*)"')


def _k8s_secret_spans_fallback(text: str) -> list[_Span]:
    """Unparseable input that names a Secret: hide every data map's values, erring on the safe side."""
    spans: list[_Span] = []
    for block, value in ((_YAML_DATA_BLOCK, _YAML_DATA_VALUE), (_JSON_DATA_OBJECT, _JSON_DATA_VALUE)):
        for m in block.finditer(text):
            for v in value.finditer(text, m.start("body"), m.end("body")):
                if v.group("v") != REDACTED:
                    spans.append((v.start("v"), v.end("v"), _K8S_RULE))
    return spans


def redact_problems(problems: list[Problem]) -> list[Problem]:
    """Problems quote evidence (a garbled line, a driver's error): their texts are redacted before storing."""
    out: list[Problem] = []
    for p in problems:
        message, hint = redact_text(p.message)[0], redact_text(p.hint)[0]
        out.append(p if (message, hint) == (p.message, p.hint) else replace(p, message=message, hint=hint))
    return out
