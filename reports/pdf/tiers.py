"""The three tiers as declared, drawn as boxes with their CIDRs, VRFs and VLANs, and what was observed
crossing between them drawn as red arrows (one per pair of zones, with its count of failing findings);
the table under the drawing names each crossing's check and subjects."""

from __future__ import annotations

import math
from collections import defaultdict
from itertools import pairwise

from reportlab.graphics.shapes import Drawing, Line, Polygon, Rect, String
from reportlab.lib import colors
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import Flowable, Paragraph, Spacer, Table

from auditor.enums import Tier
from reports.pdf.styles import FONT, FONT_BOLD, INK, MIN_SIZE, MUTED, NAVY, PANEL, WHITE, Styles
from reports.pdf.tables import Cell, _base_style, _header, _scaled
from reports.pdf.text import esc, plain
from reports.sections.records import Crossing, TierBox, TierPicture

CROSS = colors.HexColor("#B83232")
ZONE_TITLE = {
    "oob": "Tier 1 · Out-of-band",
    "frontend": "Tier 2 · Frontend",
    "backend": "Tier 3 · Backend RDMA",
}
ORDER = ("oob", "frontend", "backend")
GAP = 56.0
BOX_H = 150.0
TOP = 250.0  # drawing height
NET_H = 30.0


def _wrap(text: str, font: str, size: float, width: float, lines: int) -> list[str]:
    """`text` broken into at most `lines` lines of `width` points (the last cut with an ellipsis)."""
    out: list[str] = []
    line = ""
    for word in text.split():
        trial = f"{line} {word}".strip()
        if stringWidth(trial, font, size) <= width:
            line = trial
            continue
        if line:
            out.append(line)
        line = word
        while stringWidth(line, font, size) > width and len(line) > 4:
            line = line[:-2]
    if line:
        out.append(line)
    if len(out) > lines:
        out = out[:lines]
        last = out[-1]
        while stringWidth(last + " …", font, size) > width and len(last) > 1:
            last = last[:-1]
        out[-1] = last + " …"
    return out


def _box_lines(box: TierBox) -> list[tuple[str, str]]:
    if not box.declared:
        return [("", "not declared: its checks are NOT APPLICABLE")]
    lines = [("CIDRs", ", ".join(box.cidrs) or "none"), ("VRFs", ", ".join(box.vrfs) or "none")]
    if box.vlans:
        lines.append(("VLANs", ", ".join(box.vlans)))
    lines += [("", n) for n in box.notes]
    return [(k, plain(v)) for k, v in lines]


def _draw_box(d: Drawing, box: TierBox, x: float, y: float, w: float) -> None:
    d.add(
        Rect(
            x,
            y,
            w,
            BOX_H,
            fillColor=PANEL if box.declared else WHITE,
            strokeColor=NAVY,
            strokeWidth=1.2,
            strokeDashArray=None if box.declared else [3, 2],
        )
    )
    d.add(Rect(x, y + BOX_H - 20, w, 20, fillColor=NAVY, strokeColor=NAVY, strokeWidth=1.2))
    d.add(
        String(
            x + 6, y + BOX_H - 14, ZONE_TITLE[box.tier.value], fontName=FONT_BOLD, fontSize=9, fillColor=WHITE
        )
    )
    ty = y + BOX_H - 34
    for key, value in _box_lines(box):
        text = f"{key}: {value}" if key else value
        for line in _wrap(text, FONT, MIN_SIZE, w - 12, 3):
            if ty < y + 6:
                return
            d.add(String(x + 6, ty, line, fontName=FONT, fontSize=MIN_SIZE, fillColor=INK))
            ty -= 10


def _arrow(d: Drawing, points: list[tuple[float, float]], label: str, label_at: tuple[float, float]) -> None:
    for (x1, y1), (x2, y2) in pairwise(points):
        d.add(Line(x1, y1, x2, y2, strokeColor=CROSS, strokeWidth=1.8))
    (x1, y1), (x2, y2) = points[-2], points[-1]
    angle = math.atan2(y2 - y1, x2 - x1)
    size = 7.0
    left = (x2 - size * math.cos(angle - 0.45), y2 - size * math.sin(angle - 0.45))
    right = (x2 - size * math.cos(angle + 0.45), y2 - size * math.sin(angle + 0.45))
    d.add(Polygon([x2, y2, *left, *right], fillColor=CROSS, strokeColor=CROSS, strokeWidth=0.5))
    lx, ly = label_at
    w = stringWidth(label, FONT_BOLD, MIN_SIZE) + 6
    d.add(Rect(lx - w / 2, ly - 3, w, 12, fillColor=WHITE, strokeColor=CROSS, strokeWidth=0.6))
    d.add(String(lx, ly, label, fontName=FONT_BOLD, fontSize=MIN_SIZE, fillColor=CROSS, textAnchor="middle"))


def _pairs(crossings: list[Crossing]) -> dict[tuple[str, str], int]:
    out: dict[tuple[str, str], int] = defaultdict(int)
    for c in crossings:
        out[(c.source if c.source in ORDER else "internet", c.target)] += c.count
    return out


def tier_drawing(picture: TierPicture, width: float) -> Drawing:
    """Internet on top, the three tiers in a row; an arrow per (from, into) pair that was crossed."""
    d = Drawing(width, TOP)
    w = (width - 2 * GAP) / 3
    y = 34.0
    xs = {z: i * (w + GAP) for i, z in enumerate(ORDER)}
    boxes = {b.tier.value: b for b in picture.boxes}
    for zone in ORDER:
        _draw_box(d, boxes.get(zone) or TierBox(Tier(zone), False, [], [], [], []), xs[zone], y, w)
    net_w = 150.0
    net_x = (width - net_w) / 2
    net_y = TOP - NET_H - 2
    d.add(Rect(net_x, net_y, net_w, NET_H, rx=12, ry=12, fillColor=WHITE, strokeColor=MUTED, strokeWidth=1))
    d.add(
        String(
            width / 2,
            net_y + 11,
            "Internet / outside every tier",
            fontName=FONT_BOLD,
            fontSize=8.5,
            fillColor=MUTED,
            textAnchor="middle",
        )
    )
    top_y = y + BOX_H
    for (src, dst), n in sorted(_pairs(picture.crossings).items()):
        label = f"{n:,} finding{'s' * (n != 1)}"
        if src not in xs:  # the internet (zones no tier declares are merged into it by _pairs)
            share = {"oob": 0.15, "frontend": 0.5, "backend": 0.85}[dst]
            start = (net_x + net_w * share, net_y)
            end = (xs[dst] + w / 2, top_y)
            _arrow(d, [start, end], label, ((start[0] + end[0]) / 2, (start[1] + end[1]) / 2 - 4))
            continue
        i, j = ORDER.index(src), ORDER.index(dst)
        if abs(i - j) == 1:  # neighbours: a horizontal arrow in the gap, one lane per direction
            lane = y + BOX_H * (0.62 if i < j else 0.38)
            x_from = xs[src] + (w if i < j else 0)
            x_to = xs[dst] + (0 if i < j else w)
            _arrow(d, [(x_from, lane), (x_to, lane)], label, ((x_from + x_to) / 2, lane + 6))
        else:  # oob <-> backend: around underneath the frontend
            depth = 14.0 if i < j else 24.0
            a = xs[src] + w * (0.65 if i < j else 0.35)
            b = xs[dst] + w * (0.35 if i < j else 0.65)
            _arrow(d, [(a, y), (a, y - depth), (b, y - depth), (b, y)], label, (width / 2, y - depth - 4))
    return d


def crossings_table(picture: TierPicture, styles: Styles, width: float) -> Table:
    rows: list[list[object]] = [
        _header(["From", "Into", "Check", "Findings", "Subjects (first of them)"], styles)
    ]
    for c in picture.crossings:
        rows.append(
            [
                Cell(esc(c.source), styles.cell_bold),
                Cell(esc(c.target), styles.cell_bold),
                Cell(esc(c.check_id), styles.cell),
                Cell(f"{c.count:,}", styles.cell),
                Cell("<br/>".join(esc(s, limit=160) for s in c.examples), styles.cell),
            ]
        )
    table = Table(rows, colWidths=_scaled([56, 56, 170, 50, 240], width), repeatRows=1, hAlign="LEFT")
    table.setStyle(_base_style())
    return table


def tiers_section(picture: TierPicture, styles: Styles, width: float) -> list[Flowable]:
    out: list[Flowable] = [
        Paragraph(
            "The boxes are the tiers as the audit config declares them. A red arrow is something observed "
            "crossing from one zone into a tier: failing findings of the lateral-movement, flow, route and "
            "route-leak checks, counted per pair of zones. The table names the checks and their subjects.",
            styles.body,
        ),
        tier_drawing(picture, width),
        Spacer(1, 6),
    ]
    if picture.crossings:
        out.append(crossings_table(picture, styles, width))
    else:
        out.append(Paragraph("No crossing between the tiers was observed in this run.", styles.body))
    return out
