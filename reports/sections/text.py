"""Plain text for people, in one place: code syntax that check texts carry over from Python and Markdown
is worded as prose. Every renderer (PDF, HTML) and every derived section goes through `prose`/`plain`."""

from __future__ import annotations

import re

# Code syntax that check texts carry over from Python and Markdown, read in the PDF as prose instead:
# a Python list repr (`['MGMT', 'management']`, `[3, 4]`, `[443]`) becomes "MGMT, management";
# a flat JSON object becomes "(port 9090, protocol TCP)"; `code` is set in the monospace font.
# Not touched: an index (`egress[0]`, preceded by a name) and a "[1]" that numbers a line.
_ITEM = r"""(?:'[^'\n]*'|"[^"\n]*"|-?\d+(?:\.\d+)?)"""
_PY_LIST = re.compile(rf"(?<![\w\]\)])\[(?P<items>(?:{_ITEM}(?:, {_ITEM})*)?)\]")
_LIST_ITEM = re.compile(_ITEM)
_SCALAR = r"""(?:"[^"\n]*"|-?\d+(?:\.\d+)?|true|false|null)"""
_FLAT_OBJECT = re.compile(rf'\{{(?P<pairs>"[^"\n]*": {_SCALAR}(?:, "[^"\n]*": {_SCALAR})*)\}}')
_PAIR = re.compile(rf'"(?P<key>[^"\n]*)": (?P<value>{_SCALAR})')


def _unquote(item: str) -> str:
    return item[1:-1] if item[:1] in "'\"" else item


def _list_text(m: re.Match[str]) -> str:
    items = [_unquote(i) for i in _LIST_ITEM.findall(m["items"])]
    numbering = len(items) == 1 and not m["items"].startswith(("'", '"'))
    at_line_start = m.start() == 0 or m.string[m.start() - 1] == "\n"
    if numbering and at_line_start:
        return m.group()  # "[1] a -> b": a numbered line, not a list
    return ", ".join(items) if items else "none"


def _object_text(m: re.Match[str]) -> str:
    return "(" + ", ".join(f"{_unquote(k)} {_unquote(v)}" for k, v in _PAIR.findall(m["pairs"])) + ")"


def prose(text: str) -> str:
    """`text` with Python lists and flat JSON objects worded as plain text (see _PY_LIST)."""
    if "[" in text:
        text = _PY_LIST.sub(_list_text, text)
    if "{" in text:
        text = _FLAT_OBJECT.sub(_object_text, text)
    return text


def plain(text: str) -> str:
    """Prose without Markdown backticks: for text drawn verbatim (charts, drawings, plain cells)."""
    return prose(text).replace("`", "")
