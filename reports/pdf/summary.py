"""The summary section: counts per tier and status, failing findings by severity, and the status legend.

Cells needing attention get a tint *and* bold text, and each tier gets a worded result, so the table
still reads when printed in greyscale."""

from __future__ import annotations

from collections import Counter

from reportlab.platypus import Flowable, Paragraph, Spacer, Table, TableStyle

from auditor.enums import Severity, Status, Tier
from reports.json_report import summary_counts
from reports.labels import STATUS_LABEL, TIER_LABEL, verdict, waived_count
from reports.model import ReportData
from reports.pdf.controls import framework_summary
from reports.pdf.styles import (
    FONT_BOLD,
    INK,
    NAVY,
    PANEL,
    RULE,
    STATUS_BG,
    STATUS_FG,
    STATUS_MEANING,
    WHITE,
    ZEBRA,
    Styles,
)
from reports.pdf.text import esc

ATTENTION = (Status.FAIL, Status.ERROR, Status.NOT_ASSESSED)
GRID_STYLE = [
    ("GRID", (0, 0), (-1, -1), 0.4, RULE),
    ("BACKGROUND", (0, 0), (-1, 0), NAVY),
    ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
    ("TOPPADDING", (0, 0), (-1, -1), 4),
    ("BOTTOMPADDING", (0, 0), (-1, -1), 4),
    ("LEFTPADDING", (0, 0), (-1, -1), 4),  # "APPLICABLE" in bold 8 pt fits a 60 pt column
    ("RIGHTPADDING", (0, 0), (-1, -1), 4),
]


def tier_result(row: dict[str, int], declared: bool, waived: int = 0) -> tuple[str, Status | None]:
    """A worded result per tier, so the row has a label besides its colour."""
    if sum(row.values()) == 0:
        return ("NOT DECLARED" if not declared else "NO FINDINGS"), None
    counts = {s: row[s.value] for s in Status}
    text, status = verdict(counts, waived)
    if status is None:
        return "WAIVED", Status.NOT_ASSESSED  # only accepted risks stand between this tier and a pass
    short = {
        Status.FAIL: "FAIL",
        Status.ERROR: "ERROR",
        Status.NOT_ASSESSED: "INCOMPLETE",
        Status.PASS: "PASS",
        Status.NOT_APPLICABLE: "N/A",
    }
    return short.get(status, text), status


def tier_table(data: ReportData, styles: Styles, width: float) -> Table:
    """Tier x status counts with row and column totals."""
    grid = summary_counts(data.findings)
    declared = set(data.run.declared_tiers) | {Tier.CROSS}
    header = [Paragraph("Tier", styles.th)] + [
        Paragraph(esc(STATUS_LABEL[s]), styles.th_center) for s in Status
    ]
    header += [Paragraph("Total", styles.th_center), Paragraph("Tier result", styles.th_center)]
    rows: list[list[object]] = [header]
    commands: list[tuple[object, ...]] = [
        *GRID_STYLE,
        ("FONTSIZE", (1, 1), (-1, -1), 8.5),
        ("ALIGN", (1, 1), (-1, -1), "CENTER"),
        ("FONTNAME", (-1, 1), (-1, -1), FONT_BOLD),
    ]
    waived = Counter(f.tier for f in data.findings if f.waived)
    for r, tier in enumerate(Tier, start=1):
        row = grid[tier.value]
        label, result = tier_result(row, tier in declared, waived[tier])
        cells: list[object] = [Paragraph(esc(TIER_LABEL[tier]), styles.cell_left)]
        for c, status in enumerate(Status, start=1):
            n = row[status.value]
            cells.append(str(n))
            if n and status in ATTENTION:
                commands += [
                    ("BACKGROUND", (c, r), (c, r), STATUS_BG[status]),
                    ("FONTNAME", (c, r), (c, r), FONT_BOLD),
                    ("TEXTCOLOR", (c, r), (c, r), STATUS_FG[status]),
                ]
        cells += [str(sum(row.values())), label]
        if result is not None:
            commands += [
                ("BACKGROUND", (-1, r), (-1, r), STATUS_BG[result]),
                ("TEXTCOLOR", (-1, r), (-1, r), STATUS_FG[result]),
            ]
        rows.append(cells)
    totals = [sum(grid[t.value][s.value] for t in Tier) for s in Status]
    overall, overall_status = tier_result(
        {s.value: n for s, n in zip(Status, totals, strict=True)}, True, sum(waived.values())
    )
    rows.append(["Total", *[str(n) for n in totals], str(sum(totals)), overall])
    if overall_status is not None:
        commands.append(("TEXTCOLOR", (-1, -1), (-1, -1), STATUS_FG[overall_status]))
    commands += [
        ("FONTNAME", (0, -1), (-1, -1), FONT_BOLD),
        ("FONTSIZE", (0, -1), (0, -1), 8.5),
        ("BACKGROUND", (0, -1), (-1, -1), PANEL),
        ("LINEABOVE", (0, -1), (-1, -1), 1.0, INK),
    ]
    status_w = 60.0
    tier_w = width - 5 * status_w - 40 - 62
    table = Table(rows, colWidths=[tier_w, *[status_w] * 5, 40, 62], repeatRows=1, hAlign="LEFT")
    table.setStyle(TableStyle(commands))
    return table


def severity_table(data: ReportData, styles: Styles) -> Table:
    """Findings needing attention by severity: where to start remediation."""
    header = [Paragraph("Severity", styles.th)] + [
        Paragraph(esc(STATUS_LABEL[s]), styles.th_center) for s in ATTENTION
    ]
    rows: list[list[object]] = [header]
    commands: list[tuple[object, ...]] = [
        *GRID_STYLE,
        ("ALIGN", (1, 1), (-1, -1), "CENTER"),
        ("FONTSIZE", (0, 1), (-1, -1), 8.5),
    ]
    for r, sev in enumerate(Severity, start=1):
        cells: list[object] = [sev.value.capitalize()]
        for c, status in enumerate(ATTENTION, start=1):
            n = sum(1 for f in data.findings if f.severity is sev and f.status is status)
            cells.append(str(n))
            if n:
                commands += [
                    ("BACKGROUND", (c, r), (c, r), STATUS_BG[status]),
                    ("FONTNAME", (c, r), (c, r), FONT_BOLD),
                    ("TEXTCOLOR", (c, r), (c, r), STATUS_FG[status]),
                ]
        rows.append(cells)
    table = Table(rows, colWidths=[110, 80, 80, 80], hAlign="LEFT")
    table.setStyle(TableStyle(commands))
    return table


def legend_table(styles: Styles, width: float) -> Table:
    """What each status means, for readers who are not engineers."""
    rows: list[list[object]] = [[Paragraph("Status", styles.th), Paragraph("Meaning", styles.th)]]
    commands: list[tuple[object, ...]] = [*GRID_STYLE, ("VALIGN", (0, 0), (-1, -1), "TOP")]
    for r, status in enumerate(Status, start=1):
        rows.append(
            [
                Paragraph(f"<b>{esc(STATUS_LABEL[status])}</b>", styles.cell),
                Paragraph(STATUS_MEANING[status], styles.cell),
            ]
        )
        commands += [
            ("BACKGROUND", (0, r), (0, r), STATUS_BG[status]),
            ("ROWBACKGROUNDS", (1, 1), (1, -1), [WHITE, ZEBRA]),
        ]
    rows.append(
        [
            Paragraph("<b>FAIL · WAIVED</b>", styles.cell),
            Paragraph(
                "A failure covered by a waiver in force: an accepted risk with an owner, a reason and an "
                "end date. Still a FAIL in every count, but it does not fail the run; once expired it "
                "counts again.",
                styles.cell,
            ),
        ]
    )
    commands.append(("BACKGROUND", (0, len(rows) - 1), (0, len(rows) - 1), STATUS_BG[Status.NOT_ASSESSED]))
    table = Table(rows, colWidths=[100, width - 100], hAlign="LEFT")
    table.setStyle(TableStyle(commands))
    return table


def summary_section(data: ReportData, styles: Styles, width: float) -> list[Flowable]:
    """The flowables of the summary section (after its heading)."""
    return [
        Paragraph(
            "Findings per tier and status. A tier not declared in the audit config has its checks NOT "
            "APPLICABLE, never PASS; missing or unreadable evidence is NOT ASSESSED and never counts as a "
            "pass. Cells that need attention are shaded and set in bold.",
            styles.body,
        ),
        tier_table(data, styles, width),
        *_waived_note(data, styles),
        Spacer(1, 6),
        *framework_summary(data, styles, width),
        Paragraph("Findings needing attention, by severity", styles.h2),
        severity_table(data, styles),
        Spacer(1, 6),
        Paragraph("Status legend", styles.h2),
        legend_table(styles, width),
    ]


def _waived_note(data: ReportData, styles: Styles) -> list[Flowable]:
    waived = waived_count(data)
    if not waived:
        return []
    return [
        Spacer(1, 3),
        Paragraph(
            f"{waived:,} of the FAIL findings above are waived: accepted risks with an owner and an end date "
            "(section 10). They stay FAIL in every count, but do not fail the run.",
            styles.note,
        ),
    ]
