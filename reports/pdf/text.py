"""Turning untrusted strings into safe Paragraph markup.

Subjects, messages and found values come from devices and cloud APIs: they may hold `<`, `&`, control
characters or scripts the base-14 fonts cannot draw. Everything reaching a Paragraph goes through `esc`."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from xml.sax.saxutils import escape

from reportlab.pdfbase import pdfmetrics

from reports.pdf.styles import FONT, MONO
from reports.sections.text import prose

_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
TRUNCATED_NOTE = " … [truncated: {n:,} characters in all; the JSON report has the full text]"


@lru_cache(maxsize=4096)
def _drawable(ch: str) -> bool:
    """True if the base-14 font (or its Symbol/ZapfDingbats fallbacks) has a glyph for `ch`."""
    font = pdfmetrics.getFont(FONT)
    for f in [font, *font.substitutionFonts]:
        try:
            ch.encode(f.encName)
        except UnicodeEncodeError:
            continue
        return True
    return False


def _clean(text: str) -> str:
    """Blank out control characters; spell out undrawable ones as [U+XXXX] rather than black boxes."""
    if text.isascii():  # the common case, kept fast for tables of thousands of rows
        return _ASCII_CONTROL.sub(" ", text)
    out: list[str] = []
    for ch in text:
        category = unicodedata.category(ch)
        if ch in "\n\t":
            out.append(ch)
        elif category == "Cc":
            out.append(" ")
        elif category.startswith("C") or not (ord(ch) < 128 or _drawable(ch)):
            out.append(f"[U+{ord(ch):04X}]")
        else:
            out.append(ch)
    return "".join(out)


def _markup(text: str) -> str:
    """Cleaned, escaped markup; Markdown `code` spans in the monospace font, a stray backtick dropped."""
    if "`" not in text:
        return escape(_clean(prose(text)))
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an odd number of backticks: the last one opens nothing
        parts[-2:] = [parts[-2] + parts[-1]]
    out = []
    for i, part in enumerate(parts):
        if i % 2:
            out.append(f'<font face="{MONO}">{escape(_clean(part))}</font>')
        else:
            out.append(escape(_clean(prose(part))))
    return "".join(out)


def esc(text: str | None, *, limit: int | None = None, empty: str = "—") -> str:
    """Paragraph-safe markup for `text`: cleaned, XML-escaped, newlines kept, cut at `limit` characters.

    Truncation keeps one table row shorter than a page (a taller row cannot be laid out) and says so."""
    if text is None or text == "":
        return empty
    shown = text
    suffix = ""
    if limit is not None and len(text) > limit:
        shown = text[:limit].rstrip()
        suffix = TRUNCATED_NOTE.format(n=len(text))
    body = _markup(shown).replace("\t", "    ").replace("\n", "<br/>")
    return body + escape(suffix)


def plain(text: str) -> str:
    """Text for plain-string table cells (drawn verbatim, no markup): cleaned, lists worded, no backticks."""
    return _clean(prose(text)).replace("`", "")


def hex_lines(digest: str | None, per_line: int = 64) -> str:
    """A digest as markup broken into lines of `per_line` characters, so all of it stays visible."""
    if not digest:
        return "—"
    clean = escape(_clean(digest))
    return "<br/>".join(clean[i : i + per_line] for i in range(0, len(clean), per_line))
