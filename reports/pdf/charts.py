"""The executive summary's charts: stacked bars of findings per tier, framework requirements per result,
findings per severity, and the trend over earlier runs of the same scope (reportlab.graphics).

Every chart is followed by its numbers in words, so the page reads in greyscale and its text can be
searched; chart labels are set at 8 pt or more like the rest of the document."""

from __future__ import annotations

from reportlab.graphics.charts.barcharts import HorizontalBarChart, VerticalBarChart
from reportlab.graphics.charts.legends import Legend
from reportlab.graphics.shapes import Drawing, String
from reportlab.lib import colors
from reportlab.platypus import Flowable, KeepTogether, Paragraph, Spacer

from reports.pdf.styles import FONT, MIN_SIZE, MUTED, RULE, Styles
from reports.pdf.text import esc
from reports.sections.records import CountChart, Overview, TrendPoint

# Solid bar colours, darker than the table tints and told apart by lightness too; the legend names them.
BAR: dict[str, colors.Color] = {
    "FAIL": colors.HexColor("#B83232"),
    "ERROR": colors.HexColor("#D9822B"),
    "NOT_ASSESSED": colors.HexColor("#E3C34A"),
    "WAIVED": colors.HexColor("#8E6CB8"),
    "PASS": colors.HexColor("#4E9A5B"),
    "NOT_APPLICABLE": colors.HexColor("#B8BEC6"),
}
LABEL = {
    "FAIL": "FAIL",
    "ERROR": "ERROR",
    "NOT_ASSESSED": "NOT ASSESSED",
    "WAIVED": "WAIVED",
    "PASS": "PASS",
    "NOT_APPLICABLE": "NOT APPLICABLE",
}
BAR_HEIGHT = 16.0
LEFT = 110.0  # room for the category labels


def _legend(categories: list[str], x: float, y: float, width: float) -> Legend:
    """One row of swatches spread over `width` points (six labels fit a portrait page)."""
    legend = Legend()
    legend.x, legend.y = x, y
    legend.fontName, legend.fontSize = FONT, MIN_SIZE
    legend.alignment = "right"
    legend.columnMaximum = 1
    legend.dx, legend.dy = 8, 8
    legend.deltax = width / max(1, len(categories))
    legend.dxTextSpace = 4
    legend.colorNamePairs = [(BAR[c], LABEL[c]) for c in categories]
    return legend


def stacked_bars(chart: CountChart, width: float) -> Drawing:
    """One horizontal bar per row, its segments the categories, left to right in category order."""
    rows = list(reversed(chart.rows))  # reportlab draws the first category at the bottom
    height = BAR_HEIGHT * 1.6 * max(1, len(rows)) + 58
    d = Drawing(width, height)
    bars = HorizontalBarChart()
    bars.x, bars.y = LEFT, 34
    bars.width, bars.height = width - LEFT - 16, height - 58
    bars.data = [[r.counts.get(c, 0) for r in rows] for c in chart.categories]
    bars.categoryAxis.categoryNames = [r.label for r in rows]
    bars.categoryAxis.style = "stacked"
    bars.categoryAxis.labels.fontName = FONT
    bars.categoryAxis.labels.fontSize = MIN_SIZE + 1
    bars.categoryAxis.labels.boxAnchor = "e"
    bars.categoryAxis.labels.dx = -6
    bars.valueAxis.valueMin = 0
    top = max([r.total for r in rows] + [1])
    bars.valueAxis.valueMax = top * 1.04
    bars.valueAxis.valueStep = _step(top)
    bars.valueAxis.labels.fontName = FONT
    bars.valueAxis.labels.fontSize = MIN_SIZE
    bars.valueAxis.labelTextFormat = lambda v: f"{int(v):,}"
    bars.valueAxis.visibleGrid = True
    bars.valueAxis.gridStrokeColor = RULE
    bars.valueAxis.gridStrokeWidth = 0.3
    bars.barWidth = BAR_HEIGHT
    bars.groupSpacing = BAR_HEIGHT * 0.6
    bars.bars.strokeColor = colors.white
    bars.bars.strokeWidth = 0.4
    for i, c in enumerate(chart.categories):
        bars.bars[i].fillColor = BAR[c]
    d.add(bars)
    d.add(_legend(chart.categories, 0, 12, width))
    return d


def _step(top: int) -> float:
    """A round axis step giving four to eight gridlines."""
    step = 1
    while top / step > 8:
        for factor in (2, 2.5, 2):
            step = int(step * factor)
            if top / step <= 8:
                break
    return float(step)


def _counts_text(chart: CountChart) -> str:
    lines = []
    for r in chart.rows:
        parts = [f"{r.counts[c]:,} {LABEL[c]}" for c in chart.categories if r.counts.get(c)]
        lines.append(f"<b>{esc(r.label)}</b>: {esc(', '.join(parts) or 'none')}")
    return " · ".join(lines)


def chart_block(chart: CountChart, styles: Styles, width: float) -> list[Flowable]:
    if not chart.rows:
        return [
            Paragraph(esc(chart.title), styles.h2),
            Paragraph("Nothing to chart in this run.", styles.body),
        ]
    return [
        KeepTogether(
            [
                Paragraph(esc(chart.title), styles.h2),
                stacked_bars(chart, width),
                Paragraph(_counts_text(chart), styles.note),
            ]
        )
    ]


def trend_chart(points: list[TrendPoint], width: float) -> Drawing:
    """Findings per status of each run of this scope, stacked; this run is the last bar, marked."""
    categories = ["FAIL", "ERROR", "NOT_ASSESSED", "PASS"]
    height = 170.0
    d = Drawing(width, height)
    bars = VerticalBarChart()
    bars.x, bars.y = 48, 46
    bars.width, bars.height = width - 64, height - 70
    bars.data = [[p.counts.get(c, 0) for p in points] for c in categories]
    bars.categoryAxis.categoryNames = [f"run {p.run_id}" + (" *" if p.current else "") for p in points]
    bars.categoryAxis.style = "stacked"
    bars.categoryAxis.labels.fontName = FONT
    bars.categoryAxis.labels.fontSize = MIN_SIZE
    bars.categoryAxis.labels.angle = 30 if len(points) > 6 else 0
    bars.categoryAxis.labels.boxAnchor = "ne" if len(points) > 6 else "n"
    top = max([sum(p.counts.get(c, 0) for c in categories) for p in points] + [1])
    bars.valueAxis.valueMin = 0
    bars.valueAxis.valueMax = top * 1.05
    bars.valueAxis.valueStep = _step(top)
    bars.valueAxis.labels.fontName = FONT
    bars.valueAxis.labels.fontSize = MIN_SIZE
    bars.valueAxis.labelTextFormat = lambda v: f"{int(v):,}"
    bars.valueAxis.visibleGrid = True
    bars.valueAxis.gridStrokeColor = RULE
    bars.valueAxis.gridStrokeWidth = 0.3
    bars.barWidth = 14
    bars.groupSpacing = max(6.0, (width - 64) / max(1, len(points)) * 0.45)
    bars.bars.strokeColor = colors.white
    for i, c in enumerate(categories):
        bars.bars[i].fillColor = BAR[c]
    d.add(bars)
    d.add(_legend(categories, 48, 10, width - 48))
    d.add(
        String(
            width - 4,
            height - 10,
            "* this run",
            fontName=FONT,
            fontSize=MIN_SIZE,
            fillColor=MUTED,
            textAnchor="end",
        )
    )
    return d


def trend_block(overview: Overview, scope_note: str, styles: Styles, width: float) -> list[Flowable]:
    points = overview.trend
    out: list[Flowable] = [Paragraph("Trend over the runs of this scope", styles.h2)]
    if len(points) < 2:
        out.append(
            Paragraph(
                f"This is the first run of this scope in the store ({esc(scope_note)}): no earlier run to "
                "compare.",
                styles.body,
            )
        )
        return out
    rows = []
    for p in points:
        failing = p.counts.get("FAIL", 0)
        label = f"run {p.run_id}{' (this run)' if p.current else ''}, {p.started_at:%Y-%m-%d}"
        rows.append(f"{esc(label)}: {failing:,} FAIL, {p.counts.get('PASS', 0):,} PASS")
    return [KeepTogether([*out, trend_chart(points, width), Paragraph(" · ".join(rows), styles.note)])]


def overview_charts(overview: Overview, scope_note: str, styles: Styles, width: float) -> list[Flowable]:
    """The charts of the executive summary, in reading order."""
    return [
        *chart_block(overview.per_tier, styles, width),
        Spacer(1, 4),
        *chart_block(overview.per_severity, styles, width),
        Spacer(1, 4),
        *chart_block(overview.per_framework, styles, width),
        Spacer(1, 4),
        *trend_block(overview, scope_note, styles, width),
    ]
