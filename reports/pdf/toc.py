"""Section headings that feed the outline, and the table of contents drawn from them.

The TOC is laid out in the single build pass: its entries are the story's headings (known up front), and
only their page numbers are unknown while the TOC page is drawn. The TOC records where each number goes
and the deferring canvas (canvas.StampedCanvas) draws it once every page exists, beside "page n of m".
reportlab's own TableOfContents needs multiBuild, i.e. a second full layout of a document whose findings
table can run to thousands of rows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import Flowable, Paragraph

from reports.pdf.styles import FONT, FONT_BOLD, INK, RULE
from reports.pdf.text import esc

NUMBER_WIDTH = 36.0  # right-hand column for the page numbers
INDENT = 16.0  # per outline level


class Heading(Paragraph):  # type: ignore[misc]  # reportlab is untyped
    """A section title that becomes a bookmark (outline entry) and, if `toc`, a line of the contents."""

    def __init__(
        self,
        text: str,
        style: ParagraphStyle,
        key: str,
        level: int = 0,
        *,
        toc: bool = True,
        outline: str | None = None,
    ) -> None:
        super().__init__(esc(text), style)
        self.outline_title = outline or text
        self.outline_key = key
        self.outline_level = level
        self.in_toc = toc


@dataclass(frozen=True)
class TocSlot:
    """Where the page number of `key` goes on the TOC page (absolute page coordinates)."""

    x_right: float
    y: float
    key: str
    font: str
    size: float


@dataclass(frozen=True)
class _Entry:
    title: str
    key: str
    level: int


class TableOfContents(Flowable):  # type: ignore[misc]  # reportlab is untyped
    """One line per heading: the title (a link to its section), a dotted leader and the page number."""

    def __init__(self, headings: Sequence[Heading], *, size: float = 10.0, leading: float = 17.0) -> None:
        super().__init__()
        self._entries = [
            _Entry(h.outline_title, h.outline_key, h.outline_level) for h in headings if h.in_toc
        ]
        self._size = size
        self._leading = leading
        self._width = 0.0

    @classmethod
    def of(cls, story: Sequence[Flowable], **kw: Any) -> TableOfContents:
        """A TOC of the headings in `story` (top-level flowables only: sections are flat)."""
        return cls([f for f in story if isinstance(f, Heading)], **kw)

    def wrap(self, avail_width: float, avail_height: float) -> tuple[float, float]:
        self._width = avail_width
        return avail_width, self._leading * len(self._entries)

    def split(self, avail_width: float, avail_height: float) -> list[Flowable]:
        fit = int(avail_height // self._leading)
        if fit <= 0 or fit >= len(self._entries):
            return []
        head, tail = (
            TableOfContents([], size=self._size, leading=self._leading),
            TableOfContents([], size=self._size, leading=self._leading),
        )
        head._entries, tail._entries = self._entries[:fit], self._entries[fit:]
        return [head, tail]

    def _font(self, entry: _Entry) -> tuple[str, float]:
        return (FONT_BOLD, self._size) if entry.level == 0 else (FONT, self._size - 1)

    def draw(self) -> None:
        canv = self.canv
        text_right = self._width - NUMBER_WIDTH
        for i, entry in enumerate(self._entries):
            font, size = self._font(entry)
            y = self._leading * (len(self._entries) - i - 1) + (self._leading - size) / 2
            x = INDENT * entry.level
            title = entry.title
            while stringWidth(title, font, size) > text_right - x - 8 and len(title) > 4:
                title = title[:-2].rstrip() + "…"  # a title longer than the line: cut, never overlap
            canv.setFont(font, size)
            canv.setFillColor(INK)
            canv.drawString(x, y, title)
            end = x + stringWidth(title, font, size)
            canv.linkRect("", entry.key, (x, y - 2, end, y + size), relative=1)
            canv.saveState()
            canv.setStrokeColor(RULE)
            canv.setDash(1, 3)
            canv.setLineWidth(0.8)
            if end + 6 < self._width - 24:
                canv.line(end + 6, y + 1, self._width - 24, y + 1)
            canv.restoreState()
            x_abs, y_abs = canv.absolutePosition(self._width, y)
            register = getattr(canv, "add_toc_slot", None)
            if register is not None:
                register(TocSlot(x_abs, y_abs, entry.key, font, size))
