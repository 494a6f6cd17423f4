"""The lateral-movement analysis: each failing path from the internet or the frontend into tier 1 or 3,
drawn hop by hop (zones as boxes, links as arrows with what they allow), with every hop's reasons."""

from __future__ import annotations

from itertools import pairwise

from reportlab.graphics.shapes import Drawing, Line, Polygon, Rect, String
from reportlab.platypus import CondPageBreak, Flowable, KeepTogether, Paragraph, Spacer

from reports.pdf.grid import chunked, status_cell
from reports.pdf.styles import FONT, FONT_BOLD, INK, MIN_SIZE, NAVY, PANEL, Styles
from reports.pdf.tables import SHORT_LIMIT, TEXT_LIMIT, Cell
from reports.pdf.text import esc, plain
from reports.pdf.tiers import CROSS, _wrap
from reports.sections.records import LateralAnalysis, LateralPath

NODE_W = 128.0
NODE_H = 40.0
ARROW_W = 112.0
ROW_H = 66.0
DRAWN = 40  # paths drawn in the body; the rest are listed


def path_drawing(path: LateralPath, width: float) -> Drawing:
    nodes = [path.hops[0].source] if path.hops else [path.source]
    nodes += [h.destination for h in path.hops]
    per_row = max(2, int((width + ARROW_W) // (NODE_W + ARROW_W)))
    rows = (len(nodes) + per_row - 1) // per_row
    d = Drawing(width, rows * ROW_H - 4)
    for i, node in enumerate(nodes):
        r, c = divmod(i, per_row)
        x = c * (NODE_W + ARROW_W)
        y = (rows - r - 1) * ROW_H + 14
        last = i == len(nodes) - 1
        d.add(
            Rect(
                x,
                y,
                NODE_W,
                NODE_H,
                rx=4,
                ry=4,
                fillColor=PANEL,
                strokeColor=CROSS if last else NAVY,
                strokeWidth=1.4 if last else 1,
            )
        )
        for k, line in enumerate(_wrap(plain(node) or "?", FONT_BOLD, MIN_SIZE, NODE_W - 8, 3)):
            d.add(
                String(
                    x + 4,
                    y + NODE_H - 11 - 10 * k,
                    line,
                    fontName=FONT_BOLD,
                    fontSize=MIN_SIZE,
                    fillColor=INK,
                )
            )
        if i == 0:
            continue
        hop = path.hops[i - 1]
        if c == 0:  # the row wrapped: the arrow comes down from the previous row's end
            px = (per_row - 1) * (NODE_W + ARROW_W) + NODE_W / 2
            py = y + ROW_H
            pts = [
                (px, py),
                (px, y + NODE_H + 12),
                (x + NODE_W / 2, y + NODE_H + 12),
                (x + NODE_W / 2, y + NODE_H),
            ]
        else:
            ax = x - ARROW_W
            pts = [(ax + 2, y + NODE_H / 2), (x - 2, y + NODE_H / 2)]
        for (x1, y1), (x2, y2) in pairwise(pts):
            d.add(Line(x1, y1, x2, y2, strokeColor=CROSS, strokeWidth=1.6))
        x2, y2 = pts[-1]
        x1, y1 = pts[-2]
        if y1 == y2:
            head = [x2, y2, x2 - 6, y2 + 3.5, x2 - 6, y2 - 3.5]
        else:
            head = [x2, y2, x2 - 3.5, y2 + 6, x2 + 3.5, y2 + 6]
        d.add(Polygon(head, fillColor=CROSS, strokeColor=CROSS))
        label = f"{hop.number}"
        lx = (pts[0][0] + pts[-1][0]) / 2 if c else pts[1][0] - 10
        ly = y + NODE_H / 2 + 5 if c else y + NODE_H + 15
        d.add(String(lx, ly, label, fontName=FONT_BOLD, fontSize=9, fillColor=CROSS, textAnchor="middle"))
        if c:
            for k, line in enumerate(_wrap(plain(hop.allows), FONT, MIN_SIZE, ARROW_W - 4, 2)):
                d.add(
                    String(
                        lx,
                        y + NODE_H / 2 - 10 - 9 * k,
                        line,
                        fontName=FONT,
                        fontSize=MIN_SIZE,
                        fillColor=INK,
                        textAnchor="middle",
                    )
                )
    return d


def _hops_table(path: LateralPath, styles: Styles, width: float) -> list[Flowable]:
    rows = [
        [
            Cell(f"<b>{h.number}</b>", styles.cell_bold),
            Cell(
                f"<b>{esc(h.source, limit=SHORT_LIMIT)}</b> to "
                f"<b>{esc(h.destination, limit=SHORT_LIMIT)}</b>",
                styles.cell,
            ),
            Cell(esc(h.allows, limit=SHORT_LIMIT), styles.cell),
            Cell("<br/>".join(esc(v, limit=TEXT_LIMIT) for v in h.via) or "-", styles.cell),
        ]
        for h in path.hops
    ]
    return chunked(
        ["Hop", "From, to", "Allows", "Why: the routes, filters and policies on the way"],
        rows,
        [30, 200, 130, 400],
        width,
        styles,
    )


def lateral_section(analysis: LateralAnalysis, styles: Styles, width: float) -> list[Flowable]:
    out: list[Flowable] = [
        Paragraph(
            f"The lateral-movement check looked for a path of any length from the internet and from every "
            f"frontend zone into tier 1 and tier 3: {analysis.checked:,} zone and tier pairs, "
            f"{analysis.passed:,} with no path, {len(analysis.paths):,} with a path, "
            f"{analysis.not_assessed:,} not assessed. Each path is drawn hop by hop; the numbers on the "
            "arrows are the hops of the table under it.",
            styles.body,
        )
    ]
    if not analysis.paths:
        return [*out, Paragraph("No lateral path into tier 1 or tier 3 was found in this run.", styles.body)]
    for n, path in enumerate(analysis.paths[:DRAWN], start=1):
        head = Paragraph(
            f"Path {n}: <b>{esc(path.source)}</b> into tier <b>{esc(path.target_tier)}</b> "
            f"({len(path.hops)} hop{'s' * (len(path.hops) != 1)}, {esc(path.severity.value)})",
            styles.h2,
        )
        out += [
            CondPageBreak(160),
            KeepTogether([head, path_drawing(path, width)]),
            *_hops_table(path, styles, width),
            Spacer(1, 8),
        ]
    rest = analysis.paths[DRAWN:]
    if rest:
        rows = [
            [
                Cell(esc(p.subject, limit=SHORT_LIMIT), styles.cell),
                Cell(f"{len(p.hops)}", styles.cell),
                status_cell(p.status, styles),
            ]
            for p in rest
        ]
        out += [Paragraph(f"{len(rest):,} further paths (each in the complete findings listing)", styles.h2)]
        out += chunked(["Path", "Hops", "Status"], rows, [500, 60, 80], width, styles)
    return out
