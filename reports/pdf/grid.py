"""Long tables as many small ones: reportlab re-splits one huge Table at every page (quadratic in its
rows), so listings are built in chunks of CHUNK rows, each repeating the header row on every page."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from reportlab.platypus import Flowable, Table

from auditor.enums import Status
from reports.labels import STATUS_LABEL
from reports.pdf.styles import FONT, MIN_SIZE, SMALL_LEADING, Styles
from reports.pdf.tables import Cell, _base_style, _header, _scaled
from reports.pdf.text import esc, plain

CHUNK = 200
CHAR_W = 4.45  # average width of a character of 8 pt Helvetica (hex digits in 8 pt Courier: 4.8)
PLAIN_STYLE = [
    ("FONTNAME", (0, 1), (-1, -1), FONT),
    ("FONTSIZE", (0, 1), (-1, -1), MIN_SIZE),
    ("LEADING", (0, 1), (-1, -1), SMALL_LEADING),
]
Row = list[object]


def chunked(
    names: Sequence[str],
    rows: Iterable[Sequence[object]],
    widths: Sequence[float],
    width: float,
    styles: Styles,
    *,
    chunk: int = CHUNK,
) -> list[Flowable]:
    """Tables of at most `chunk` rows under the same header; column widths scaled to `width`."""
    cols = _scaled(list(widths), width)
    out: list[Flowable] = []
    batch: list[Row] = []

    def flush() -> None:
        table = Table([_header(names, styles), *batch], colWidths=cols, repeatRows=1, hAlign="LEFT")
        table.setStyle(_base_style())
        out.append(table)
        batch.clear()

    for row in rows:
        batch.append(list(row))
        if len(batch) >= chunk:
            flush()
    if batch or not out:
        flush()
    return out


def status_cell(status: Status | None, styles: Styles, text: str = "") -> Cell:
    """A tinted status badge (with its label, so it reads in greyscale); a dash when nothing judged it."""
    if status is None:
        return Cell(esc(text or "not evaluated"), styles.cell_muted)
    label = f"<b>{esc(STATUS_LABEL[status])}</b>"
    badge = Cell(label, styles.badge[status])
    if not text:
        return badge
    return Cell(f'{label}<br/><font color="#5A6270">{esc(text)}</font>', styles.badge[status])


def _lines(text: str, chars: int, lines: int = 2) -> str:
    """Plain text hard-wrapped at `chars` characters per line, at most `lines` lines (cut with an
    ellipsis): for plain-string cells, which lay out far faster than Paragraphs in long listings."""
    text = plain(text)
    parts = [text[i : i + chars] for i in range(0, len(text), chars)] or [""]
    if len(parts) > lines:
        parts = parts[:lines]
        parts[-1] = parts[-1][:-1] + "…"
    return "\n".join(parts)


def plain_tables(
    names: Sequence[str],
    rows: Sequence[Sequence[object]],
    cols: Sequence[float],
    styles: Styles,
    extra: Sequence[tuple[object, ...]] = (),
) -> list[Flowable]:
    """Listings of plain-string rows (8 pt, control characters already cleaned; a Paragraph where a row
    is a link destination) in chunks of CHUNK."""
    out: list[Flowable] = []
    for start in range(0, max(1, len(rows)), CHUNK):
        body = [list(r) for r in rows[start : start + CHUNK]]
        table = Table([_header(names, styles), *body], colWidths=list(cols), repeatRows=1, hAlign="LEFT")
        table.setStyle(_base_style([*PLAIN_STYLE, *extra]))
        out.append(table)
    return out
