"""Safe HTML from untrusted text: every string from a run goes through `esc` or `attr`.

Subjects, messages, hostnames and descriptions come from device configs and cloud APIs, so they may hold
markup meant to run as script. Text is escaped (quotes too, so it is safe in attributes), control
characters are blanked, and invisible format characters (bidi overrides, zero-width) are spelled out
as [U+XXXX] so a hostname cannot display as another."""

from __future__ import annotations

import re
import unicodedata
from html import escape

from reports.sections.text import prose

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_SLUG = re.compile(r"[^A-Za-z0-9_-]+")
TRUNCATED = " … [truncated: {n:,} characters in all; the JSON report has the full text]"


def clean(text: str) -> str:
    """`text` with controls blanked, lone surrogates replaced and format characters made visible."""
    if text.isascii():
        return _CONTROL.sub(" ", text)
    text = _SURROGATE.sub("\ufffd", _CONTROL.sub(" ", text))
    out = []
    for ch in text:
        category = unicodedata.category(ch)
        if category == "Cc" and ch not in "\t\n\r":
            out.append(" ")
        elif category in ("Cf", "Co", "Cn", "Zl", "Zp"):
            out.append(f"[U+{ord(ch):04X}]")
        else:
            out.append(ch)
    return "".join(out)


def esc(text: object, *, limit: int | None = None, empty: str = "—") -> str:
    """Escaped text for an element's content or an attribute value; `empty` for None or ""."""
    if text is None or text == "":
        return escape(empty)
    value = str(text)
    suffix = ""
    if limit is not None and len(value) > limit:
        value, suffix = value[:limit].rstrip(), TRUNCATED.format(n=len(value))
    return escape(clean(value), quote=True) + escape(suffix)


def code_spans(text: str, *, limit: int | None = None) -> str:
    """Escaped prose (Python lists and JSON objects worded, as in the PDF) with Markdown `code` spans
    (as check texts write them) set as <code>."""
    if limit is not None and len(text) > limit:
        return esc(prose(text), limit=limit)
    if "`" not in text:
        return esc(prose(text))
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an odd number of backticks: the last one opens nothing
        parts[-2:] = [parts[-2] + parts[-1]]
    return "".join(
        f"<code>{esc(p, empty='')}</code>" if i % 2 else esc(prose(p), empty="") for i, p in enumerate(parts)
    )


def slug(text: str) -> str:
    """An id-safe token (anchors such as #check-T3-VRF-NO-DEFAULT-ROUTE)."""
    return _SLUG.sub("_", text).strip("_") or "x"


def table(head: list[str], rows: list[str], *, cls: str = "grid", ident: str = "") -> str:
    """A table from escaped header labels (given as markup) and ready <tr> rows."""
    id_attr = f' id="{esc(ident)}"' if ident else ""
    ths = "".join(f'<th scope="col">{h}</th>' for h in head)
    return (
        f'<table class="{cls}"{id_attr}><thead><tr>{ths}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
    )


def row(cells: list[str], *, cls: str = "") -> str:
    """A <tr> of ready cell markup (each cell already escaped)."""
    attr = f' class="{cls}"' if cls else ""
    return f"<tr{attr}>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"


def pill(tone: str | None, text: str) -> str:
    """A worded status badge (`tone` a status value, WAIVED, or None for 'not evaluated')."""
    return f'<span class="pill tone-{esc(tone or "none")}">{esc(text)}</span>'


def status_pill(status: object, result: str = "") -> str:
    """The worst status of some checks as a badge, with their worded result beside it."""
    value = getattr(status, "value", None)
    label = str(value).replace("_", " ") if value else "NOT EVALUATED"
    return pill(value, label) + (f" {esc(result)}" if result else "")
