"""The chain of custody: a summary per target kind and capture format in the body, and every capture
(sequence number, target, command or API call, origin, time, size, SHA-256) in an appendix."""

from __future__ import annotations

from reportlab.platypus import Flowable, Paragraph

from reports.labels import utc_text
from reports.pdf.grid import CHAR_W, _lines, chunked, plain_tables
from reports.pdf.styles import FONT_BOLD, MONO, Styles
from reports.pdf.tables import Cell, _scaled
from reports.pdf.text import esc
from reports.sections.records import Custody

CUSTODY_STYLE = [
    ("FONTNAME", (1, 1), (1, -1), FONT_BOLD),
    ("FONTNAME", (6, 1), (6, -1), MONO),
    ("ALIGN", (5, 1), (5, -1), "RIGHT"),
]


def capture_anchor(seq: int) -> str:
    return f"capture-{seq}"


def custody_summary(custody: Custody, styles: Styles, width: float) -> list[Flowable]:
    total = sum(s.captures for s in custody.summary)
    out: list[Flowable] = [
        Paragraph(
            f"{total:,} captures, each stored redacted with its SHA-256 and chained to the one before it "
            "(the chain head on the cover commits to all of them, in order). Per target kind and capture "
            "format below, each linking to its first capture; every capture, with its command or API "
            'call, time and hash, is in the <a href="#custody-listing">custody appendix</a>.',
            styles.body,
        )
    ]
    if not custody.summary:
        return [*out, Paragraph("No capture was stored for this run.", styles.body)]
    rows = [
        [
            Cell(f'<a href="#{capture_anchor(s.first_seq)}"><b>{esc(s.group)}</b></a>', styles.cell),
            Cell(f"{s.targets:,}", styles.cell_right),
            Cell(f"{s.captures:,}", styles.cell_right),
            Cell(f"{s.bytes:,}", styles.cell_right),
            Cell(f"#{s.first_seq} to #{s.last_seq}", styles.cell),
            Cell(f"{esc(utc_text(s.first))}<br/>{esc(utc_text(s.last))}", styles.cell),
        ]
        for s in custody.summary
    ]
    names = [
        "Target kind: capture format",
        "Targets",
        "Captures",
        "Bytes",
        "Sequence numbers",
        "Collected (first, last)",
    ]
    return out + chunked(names, rows, [220, 50, 60, 70, 120, 160], width, styles)


def custody_listing(custody: Custody, styles: Styles, width: float) -> list[Flowable]:
    """Every capture in chain order, as plain-string cells in chunked tables."""
    cols = _scaled([30, 110, 180, 140, 84, 50, 178], width)
    chars = [max(4, int((w - 7) / CHAR_W)) for w in cols]
    firsts = {s.first_seq for s in custody.summary}  # the summary's rows link here
    rows = [
        [
            Cell(f'<a name="{capture_anchor(c.seq)}"/>{c.seq}', styles.cell)
            if c.seq in firsts
            else str(c.seq),
            _lines(c.target, chars[1]),
            _lines(c.source, chars[2], 2) + "\n" + _lines(c.format, chars[2], 1),
            _lines(c.origin, chars[3], 3),
            utc_text(c.collected_at).replace(" ", "\n", 1),
            f"{c.size:,}",
            f"{c.sha256[:32]}\n{c.sha256[32:]}",
        ]
        for c in custody.rows
    ]
    intro = Paragraph(
        "Every capture of the run in chain order: the target it came from, the command or API call (and the "
        "capture format under it), where it was read, when, its stored size in bytes and its full SHA-256.",
        styles.body,
    )
    names = ["Seq", "Target", "Command or API call", "Origin", "Collected", "Bytes", "SHA-256"]
    return [intro, *plain_tables(names, rows, cols, styles, CUSTODY_STYLE)]
