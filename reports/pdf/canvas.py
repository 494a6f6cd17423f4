"""Page decorations that need the page count: the running header and the footer on every page.

Pages are held back until the end (the classic "page X of Y" canvas), then each is stamped with the run
id, its number, the total and the chain-head prefix, so a loose page still names the run it belongs to."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from reportlab.pdfgen.canvas import Canvas

from reports.pdf.styles import FONT, FONT_BOLD, INK, MIN_SIZE, MONO, MUTED, NAVY, RULE
from reports.pdf.toc import TocSlot

MARGIN_X = 42.0
FOOTER_Y = 22.0
HEADER_GAP = 26.0
CHAIN_PREFIX = 16
STAMP_SIZE = MIN_SIZE  # header and footer, like the smallest text of the body


@dataclass(frozen=True)
class PageStamp:
    """What every page repeats about the run."""

    run_id: int
    tool: str
    chain_head: str | None
    header: str
    generated_at: datetime

    @property
    def chain_prefix(self) -> str:
        return f"{self.chain_head[:CHAIN_PREFIX]}…" if self.chain_head else "none"


def pdf_date(value: datetime) -> str:
    """PDF date string for the document info, pinned to the report's generation time (reproducible)."""
    dt = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    return dt.strftime("D:%Y%m%d%H%M%S+00'00'")


class StampedCanvas(Canvas):  # type: ignore[misc]  # reportlab is untyped
    """A canvas that defers pages and draws header and footer once the page count is known."""

    def __init__(self, *args: Any, stamp: PageStamp, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._stamp = stamp
        self._pages: list[dict[str, Any]] = []
        self._anchors: dict[str, int] = {}  # bookmark key -> page number
        self._toc_slots: dict[int, list[TocSlot]] = {}  # page number -> page numbers to draw there
        created = pdf_date(stamp.generated_at)
        self.setDateFormatter(lambda *_: created)

    def bookmarkPage(self, key: str, **kwargs: Any) -> Any:
        """Bookmark the page being drawn. reportlab names the destination page after the document's
        page counter, which only advances on a real showPage: with pages held back, every bookmark
        would point to page 1. The page names ("Page<n>") are assigned in order, so use our number."""
        doc = self._doc
        counter = doc.pageCounter
        doc.pageCounter = self._pageNumber
        try:
            dest = super().bookmarkPage(key, **kwargs)
        finally:
            doc.pageCounter = counter
        self._anchors[key] = self._pageNumber
        return dest

    def add_toc_slot(self, slot: TocSlot) -> None:
        """Ask for the page number of `slot.key` to be drawn on this page once it is known."""
        self._toc_slots.setdefault(self._pageNumber, []).append(slot)

    def anchor_page(self, key: str) -> int | None:
        """The page a bookmark points to (after the build)."""
        return self._anchors.get(key)

    def showPage(self) -> None:
        self._pages.append(dict(self.__dict__))
        self._startPage()

    def save(self) -> None:
        total = len(self._pages)
        # Annotation names come from a counter on the canvas: restoring an earlier page's state must not
        # rewind it, or a link drawn now (the contents' page numbers) reuses the name of a later link.
        annotations: int = getattr(self, "_annotationCount", 0)
        for state in self._pages:
            self.__dict__.update(state)
            self._annotationCount = annotations
            self._decorate(total)
            annotations = getattr(self, "_annotationCount", annotations)
            super().showPage()
        super().save()

    def _decorate(self, total: int) -> None:
        width, height = self._pagesize
        number = self._pageNumber
        s = self._stamp
        self.saveState()
        self.setStrokeColor(RULE)
        self.setLineWidth(0.5)
        self.line(MARGIN_X, FOOTER_Y + 10, width - MARGIN_X, FOOTER_Y + 10)
        self.setFillColor(MUTED)
        self.setFont(FONT, STAMP_SIZE)
        self.drawString(MARGIN_X, FOOTER_Y, f"Run {s.run_id} · {s.tool}")
        self.setFont(FONT_BOLD, STAMP_SIZE)
        self.drawCentredString(width / 2, FOOTER_Y, f"Page {number} of {total}")
        self.setFont(MONO, STAMP_SIZE)
        self.drawRightString(width - MARGIN_X, FOOTER_Y, f"chain head {s.chain_prefix}")
        if number > 1:
            top = height - HEADER_GAP
            self.setFillColor(NAVY)
            self.setFont(FONT_BOLD, STAMP_SIZE)
            self.drawString(MARGIN_X, top, "NETWORK SEGMENTATION AUDIT · EVIDENCE PACK")
            self.setFillColor(MUTED)
            self.setFont(FONT, STAMP_SIZE)
            self.drawRightString(width - MARGIN_X, top, s.header)
            self.setStrokeColor(NAVY)
            self.setLineWidth(0.8)
            self.line(MARGIN_X, top - 5, width - MARGIN_X, top - 5)
        self._draw_toc_numbers(number)
        self.restoreState()

    def _draw_toc_numbers(self, number: int) -> None:
        for slot in self._toc_slots.get(number, []):
            page = self._anchors.get(slot.key)
            text = str(page) if page is not None else "?"
            self.setFillColor(INK)
            self.setFont(slot.font, slot.size)
            self.drawRightString(slot.x_right, slot.y, text)
            if page is not None:
                w = self.stringWidth(text, slot.font, slot.size)
                self.linkRect(
                    "", slot.key, (slot.x_right - w, slot.y - 2, slot.x_right, slot.y + slot.size), relative=0
                )
