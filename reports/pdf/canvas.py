"""Page decorations that need the page count: the running header and the footer on every page.

Pages are held back until the end (the classic "page X of Y" canvas), then each is stamped with the run
id, its number, the total and the chain-head prefix, so a loose page still names the run it belongs to."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from reportlab.pdfgen.canvas import Canvas

from reports.pdf.styles import FONT, FONT_BOLD, MONO, MUTED, NAVY, RULE

MARGIN_X = 42.0
FOOTER_Y = 22.0
HEADER_GAP = 26.0
CHAIN_PREFIX = 16


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
        created = pdf_date(stamp.generated_at)
        self.setDateFormatter(lambda *_: created)

    def showPage(self) -> None:
        self._pages.append(dict(self.__dict__))
        self._startPage()

    def save(self) -> None:
        total = len(self._pages)
        for state in self._pages:
            self.__dict__.update(state)
            self._decorate(total)
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
        self.setFont(FONT, 7)
        self.drawString(MARGIN_X, FOOTER_Y, f"Run {s.run_id} · {s.tool}")
        self.setFont(FONT_BOLD, 7)
        self.drawCentredString(width / 2, FOOTER_Y, f"Page {number} of {total}")
        self.setFont(MONO, 7)
        self.drawRightString(width - MARGIN_X, FOOTER_Y, f"chain head {s.chain_prefix}")
        if number > 1:
            top = height - HEADER_GAP
            self.setFillColor(NAVY)
            self.setFont(FONT_BOLD, 7.5)
            self.drawString(MARGIN_X, top, "NETWORK SEGMENTATION AUDIT · EVIDENCE PACK")
            self.setFillColor(MUTED)
            self.setFont(FONT, 7.5)
            self.drawRightString(width - MARGIN_X, top, s.header)
            self.setStrokeColor(NAVY)
            self.setLineWidth(0.8)
            self.line(MARGIN_X, top - 5, width - MARGIN_X, top - 5)
        self.restoreState()
