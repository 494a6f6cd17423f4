"""Read a Kubernetes manifest (YAML stream or JSON) into documents that remember their line numbers.

Findings and problems must point at a line a human can open, so documents are composed node by node
(YAML) or walked with the JSON decoder's positions, not loaded blindly. A syntax error ends only the
document it is in: reading resumes at the next `---` line, and everything before it is kept.
"""

from __future__ import annotations

import json
import re
from collections.abc import Generator, Iterator
from dataclasses import dataclass

import yaml

from auditor.normalize import Problem

_SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_DOC_START = re.compile(r"^---(?:[ \t].*)?$")
_WS = re.compile(r"[ \t\n\r]*")


def _skip(text: str, pos: int) -> int:
    match = _WS.match(text, pos)
    return match.end() if match else pos


@dataclass(frozen=True)
class Document:
    """One top-level document, its 1-based first line, and the first line of each `items` entry."""

    line: int
    data: object
    item_lines: tuple[int, ...] | None = None


def decode_text(content: bytes, origin: str, problems: list[Problem]) -> str:
    """UTF-8 (with or without BOM); undecodable bytes become U+FFFD and one problem names their line."""
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = content.count(b"\n", 0, exc.start) + 1
        problems.append(Problem(origin, f"not valid UTF-8 ({exc.reason}); bad bytes replaced", line))
        return content.decode("utf-8-sig", errors="replace")


def load_documents(content: bytes, origin: str, problems: list[Problem]) -> Iterator[Document]:
    """Yield every readable document; syntax errors become problems with the parser's line."""
    text = decode_text(content, origin, problems)
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        yield from _json_documents(text, origin, problems)
    else:
        yield from _yaml_documents(text, origin, problems)


# --- YAML ---------------------------------------------------------------------------------------


def _yaml_documents(text: str, origin: str, problems: list[Problem]) -> Iterator[Document]:
    lines = text.splitlines(keepends=True)
    offset = 0  # index of the first line of the chunk being parsed
    while offset < len(lines):
        chunk = "".join(lines[offset:])
        error_line = yield from _yaml_chunk(chunk, offset, origin, problems)
        if error_line is None:
            return
        # The broken document may start on the chunk's own `---` line: look past it.
        resume = _next_document_start(lines, offset + max(error_line, 1))
        if resume is None:
            return
        offset = resume


def _yaml_chunk(
    chunk: str, offset: int, origin: str, problems: list[Problem]
) -> Generator[Document, None, int | None]:
    """Yield the documents of one chunk; return the 0-based line of a fatal syntax error, or None."""
    loader = _SafeLoader(chunk)
    try:
        while True:
            try:
                if not loader.check_node():
                    return None
                node = loader.get_node()
            except yaml.YAMLError as exc:
                line = _error_line(exc, chunk)
                problems.append(Problem(origin, f"invalid YAML: {_reason(exc)}", offset + line + 1))
                return line
            if node is None:
                continue
            doc_line = offset + node.start_mark.line + 1
            try:
                data = loader.construct_document(node)
            except yaml.YAMLError as exc:
                # A constructor error (unhashable key, bad tag) spoils one document, not the stream.
                line = _error_line(exc, chunk, default=node.start_mark.line)
                problems.append(Problem(origin, f"invalid YAML: {_reason(exc)}", offset + line + 1))
                loader.constructed_objects = {}
                loader.recursive_objects = {}
                loader.state_generators = []
                continue
            yield Document(doc_line, data, _yaml_item_lines(node, offset))
    finally:
        loader.dispose()


def _yaml_item_lines(node: yaml.Node, offset: int) -> tuple[int, ...] | None:
    if not isinstance(node, yaml.MappingNode):
        return None
    for key, value in node.value:
        if isinstance(key, yaml.ScalarNode) and key.value == "items" and isinstance(value, yaml.SequenceNode):
            return tuple(offset + item.start_mark.line + 1 for item in value.value)
    return None


def _error_line(exc: yaml.YAMLError, chunk: str, default: int = 0) -> int:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    if mark is not None:
        return int(mark.line)
    position = getattr(exc, "position", None)  # ReaderError: a character offset
    if isinstance(position, int):
        return chunk.count("\n", 0, position)
    return default


def _reason(exc: yaml.YAMLError) -> str:
    problem = getattr(exc, "problem", None)
    context = getattr(exc, "context", None)
    if problem:
        return f"{problem} ({context})" if context else str(problem)
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _next_document_start(lines: list[str], error_line: int) -> int | None:
    """The `---` line that starts the document after the broken one (the error line itself may be one)."""
    for index in range(max(error_line, 0), len(lines)):
        if _DOC_START.match(lines[index].rstrip("\r\n")):
            return index
    return None


# --- JSON ---------------------------------------------------------------------------------------


class _LineCounter:
    """Maps character offsets to 1-based lines, incrementally (offsets only grow)."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._pos = 0
        self._line = 1

    def line(self, pos: int) -> int:
        if pos < self._pos:  # not expected; stay correct anyway
            self._pos, self._line = 0, 1
        self._line += self._text.count("\n", self._pos, pos)
        self._pos = pos
        return self._line


def _json_documents(text: str, origin: str, problems: list[Problem]) -> Iterator[Document]:
    """One JSON value, or several concatenated (`kubectl get ns -o json; kubectl get netpol -o json`)."""
    decoder = json.JSONDecoder()
    counter = _LineCounter(text)
    pos = _skip(text, 0)
    while pos < len(text):
        try:
            data, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            problems.append(Problem(origin, f"invalid JSON: {exc.msg}", exc.lineno))
            return
        line = counter.line(pos)
        item_lines = None
        if isinstance(data, dict) and isinstance(data.get("items"), list):
            item_lines = _json_item_lines(text, pos, counter, len(data["items"]))
        yield Document(line, data, item_lines)
        pos = _skip(text, end)


def _json_item_lines(text: str, start: int, counter: _LineCounter, count: int) -> tuple[int, ...] | None:
    """Walk the top-level keys of an already-validated object to find where each `items` entry starts."""
    decoder = json.JSONDecoder()

    def skip(pos: int) -> int:
        return _skip(text, pos)

    pos = skip(start + 1)
    found: tuple[int, ...] | None = None
    while pos < len(text) and text[pos] == '"':
        key, pos = json.decoder.scanstring(text, pos + 1)  # type: ignore[attr-defined]
        pos = skip(skip(pos) + 1)  # past ':'
        if key == "items" and text[pos] == "[":
            starts: list[int] = []
            pos = skip(pos + 1)
            while text[pos] != "]":
                starts.append(pos)
                _, pos = decoder.raw_decode(text, pos)
                pos = skip(pos)
                if text[pos] == ",":
                    pos = skip(pos + 1)
            found = tuple(counter.line(p) for p in starts)
            pos += 1
        else:
            _, pos = decoder.raw_decode(text, pos)
        pos = skip(pos)
        if pos < len(text) and text[pos] == ",":
            pos = skip(pos + 1)
    return found if found is not None and len(found) == count else None
