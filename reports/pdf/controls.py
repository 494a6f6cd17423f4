"""The control view of the pack: frameworks at a glance (summary), the control matrix per framework, and
the waivers with their state. The mappings are data (reports/mappings/); this module only lays them out."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from reportlab.platypus import CondPageBreak, Flowable, Paragraph, Spacer, Table, TableStyle

from auditor.enums import Status, WaiverState
from reports.controls import requirement_counts
from reports.labels import RESULT_LABEL, RESULT_ORDER
from reports.model import (
    CheckOutcome,
    FrameworkResult,
    ReportData,
    RequirementResult,
    RequirementStatus,
    WaiverUse,
)
from reports.pdf.styles import (
    FONT_BOLD,
    MIN_SIZE,
    NAVY,
    RULE,
    STATUS_BG,
    STATUS_FG,
    WHITE,
    ZEBRA,
    Styles,
)
from reports.pdf.tables import check_link
from reports.pdf.text import esc
from reports.pdf.toc import Heading

TEXT_LIMIT = 400

# Requirement results drawn with the colour of the status they resemble; WAIVED reads like a gap.
RESULT_COLOUR: dict[RequirementStatus, Status] = {
    RequirementStatus.FAIL: Status.FAIL,
    RequirementStatus.ERROR: Status.ERROR,
    RequirementStatus.NOT_ASSESSED: Status.NOT_ASSESSED,
    RequirementStatus.WAIVED: Status.NOT_ASSESSED,
    RequirementStatus.PASS: Status.PASS,
    RequirementStatus.NOT_APPLICABLE: Status.NOT_APPLICABLE,
}


def _grid(extra: Sequence[tuple[object, ...]] = ()) -> TableStyle:
    return TableStyle(
        [
            ("GRID", (0, 0), (-1, -1), 0.35, RULE),
            ("BACKGROUND", (0, 0), (-1, 0), NAVY),
            ("ROWBACKGROUNDS", (0, 1), (-1, -1), [WHITE, ZEBRA]),
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("TOPPADDING", (0, 0), (-1, -1), 2.5),
            ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
            ("LEFTPADDING", (0, 0), (-1, -1), 3.5),
            ("RIGHTPADDING", (0, 0), (-1, -1), 3.5),
            *extra,
        ]
    )


def _tint(col: int, row: int, result: RequirementStatus) -> list[tuple[object, ...]]:
    status = RESULT_COLOUR[result]
    return [
        ("BACKGROUND", (col, row), (col, row), STATUS_BG[status]),
        ("TEXTCOLOR", (col, row), (col, row), STATUS_FG[status]),
        ("FONTNAME", (col, row), (col, row), FONT_BOLD),
    ]


def framework_summary(data: ReportData, styles: Styles, width: float) -> list[Flowable]:
    """One row per framework: how many of its mapped requirements end in each result."""
    if not data.controls:
        return []
    header = [Paragraph("Framework", styles.th)] + [
        Paragraph(esc(RESULT_LABEL[r]), styles.th_center) for r in RESULT_ORDER
    ]
    rows: list[list[object]] = [header]
    commands: list[tuple[object, ...]] = [
        ("ALIGN", (1, 1), (-1, -1), "CENTER"),
        ("FONTSIZE", (1, 1), (-1, -1), 8.5),
    ]
    for r, fw in enumerate(data.controls, start=1):
        counts = requirement_counts(fw)
        rows.append(
            [Paragraph(f"<b>{esc(fw.framework)}</b> {esc(fw.version)}", styles.cell)]
            + [str(counts[res]) for res in RESULT_ORDER]
        )
        for c, res in enumerate(RESULT_ORDER, start=1):
            if counts[res] and res not in (RequirementStatus.PASS, RequirementStatus.NOT_APPLICABLE):
                commands += _tint(c, r, res)
    status_w = 60.0  # "APPLICABLE" in bold 8 pt fits on one line
    table = Table(rows, colWidths=[width - 6 * status_w, *[status_w] * 6], repeatRows=1, hAlign="LEFT")
    table.setStyle(_grid(commands))
    return [
        Paragraph("Control frameworks at a glance", styles.h2),
        Paragraph(
            "Mapped requirements per framework by result: the worst outcome of the checks that evidence each "
            "one. A requirement with missing evidence, or whose check did not run, is NOT ASSESSED, never "
            "PASS. The control matrix (section 13) lists every requirement.",
            styles.body,
        ),
        table,
    ]


def _check_line(c: CheckOutcome, linked: Collection[str]) -> str:
    ident = check_link(c.check_id, f"<b>{esc(c.check_id)}</b>", linked)
    if not c.evaluated:
        return f"{ident}: <i>not evaluated in this run</i>"
    parts = []
    for s in Status:
        n = c.counts.get(s, 0)
        if n:
            text = f"{n} {s.value.replace('_', ' ')}"
            if s is Status.FAIL and c.waived:
                text += f" ({c.waived} waived)"
            parts.append(text)
    return f"{ident}: {esc(', '.join(parts) or 'no findings')}"


def _count_cell(req: RequirementResult, status: Status) -> str:
    n = sum(c.counts.get(status, 0) for c in req.checks)
    if status is Status.NOT_ASSESSED:
        missing = sum(1 for c in req.checks if not c.evaluated)
        return f"{n}" + (f"\n+{missing} not run" if missing else "")
    if status is Status.FAIL:
        waived = sum(c.waived for c in req.checks)
        return f"{n}" + (f"\n({waived} waived)" if waived else "")
    return str(n)


def _framework_table(fw: FrameworkResult, styles: Styles, width: float, linked: Collection[str]) -> Table:
    names = [
        "Requirement",
        "Summary (ours)",
        "Checks and their findings",
        "PASS",
        "FAIL",
        "NOT ASSESSED",
        "Result",
    ]
    rows: list[list[object]] = [[Paragraph(esc(n), styles.th) for n in names]]
    commands: list[tuple[object, ...]] = [
        ("ALIGN", (3, 1), (5, -1), "CENTER"),
        ("FONTSIZE", (3, 1), (6, -1), MIN_SIZE),
    ]
    for r, req in enumerate(fw.requirements, start=1):
        title = esc(req.title, limit=TEXT_LIMIT)
        if req.note:
            title += f'<br/><font size="{MIN_SIZE:g}"><i>{esc(req.note, limit=TEXT_LIMIT)}</i></font>'
        rows.append(
            [
                Paragraph(f"<b>{esc(req.id)}</b>", styles.cell),
                Paragraph(title, styles.cell),
                Paragraph("<br/>".join(_check_line(c, linked) for c in req.checks), styles.cell),
                _count_cell(req, Status.PASS),
                _count_cell(req, Status.FAIL),
                _count_cell(req, Status.NOT_ASSESSED),
                RESULT_LABEL[req.result],
            ]
        )
        commands += _tint(6, r, req.result)
    widths = [58.0, 190.0, 0.0, 38.0, 46.0, 56.0, 62.0]
    widths[2] = width - sum(widths)
    table = Table(rows, colWidths=widths, repeatRows=1, hAlign="LEFT")
    table.setStyle(_grid(commands))
    return table


def control_matrix_section(data: ReportData, styles: Styles, width: float) -> list[Flowable]:
    """Per framework: each mapped requirement, its checks with their outcomes, counts and result."""
    if not data.controls:
        return [Paragraph("No control mappings were available for this report.", styles.body)]
    story: list[Flowable] = [
        Paragraph(
            "Each requirement is evidenced by the checks listed beside it (the mappings ship with the tool "
            "as data, one file per framework). Counts are this run's findings of those checks; FAIL counts "
            "include waived failures, marked as such. Requirement summaries are our own wording: read the "
            "framework for its text.",
            styles.body,
        )
    ]
    catalogue = {c.id for c in data.checks}  # check ids link to their row in appendix A
    for i, fw in enumerate(data.controls, start=1):
        story += [
            CondPageBreak(120),
            Heading(f"{fw.framework}: {fw.title}", styles.h2, f"controls-{i}", level=1),
            Paragraph(f"Version {esc(fw.version)} · {esc(fw.source)}", styles.note),
            Spacer(1, 3),
            _framework_table(fw, styles, width, catalogue),
        ]
    return story


def _waiver_row(u: WaiverUse, styles: Styles) -> list[object]:
    w = u.waiver
    state = "IN FORCE" if u.state is WaiverState.ACTIVE else "EXPIRED"
    return [
        str(u.index),
        Paragraph(f"<b>{esc(w.check)}</b>", styles.cell),
        Paragraph(f"target {esc(w.target)}<br/>subject {esc(w.subject, limit=TEXT_LIMIT)}", styles.cell_mono),
        Paragraph(esc(w.owner), styles.cell),
        Paragraph(esc(w.reason, limit=TEXT_LIMIT), styles.cell),
        w.expires.isoformat(),
        state,
        str(u.matched),
    ]


def waivers_section(data: ReportData, styles: Styles, width: float) -> list[Flowable]:
    """Every waiver in the run's config, in force or expired, with the failures it matched."""
    if not data.waivers:
        return [Paragraph("No waivers were configured for this run: every failure counts.", styles.body)]
    names = ["#", "Check", "Applies to (globs)", "Owner", "Reason", "Expires", "State", "Failures"]
    rows: list[list[object]] = [[Paragraph(esc(n), styles.th) for n in names]]
    commands: list[tuple[object, ...]] = [
        ("FONTSIZE", (0, 1), (-1, -1), MIN_SIZE),
    ]
    for r, u in enumerate(sorted(data.waivers, key=lambda u: u.index), start=1):
        rows.append(_waiver_row(u, styles))
        tint = Status.NOT_ASSESSED if u.state is WaiverState.ACTIVE else Status.FAIL
        commands += [
            ("BACKGROUND", (6, r), (6, r), STATUS_BG[tint]),
            ("TEXTCOLOR", (6, r), (6, r), STATUS_FG[tint]),
            ("FONTNAME", (6, r), (6, r), FONT_BOLD),
        ]
    widths = [18.0, 130.0, 170.0, 80.0, 0.0, 58.0, 52.0, 44.0]
    widths[4] = width - sum(widths)
    table = Table(rows, colWidths=widths, repeatRows=1, hAlign="LEFT")
    table.setStyle(_grid(commands))
    return [
        Paragraph(
            "A waiver is an accepted risk: a failing check on matching subjects stays FAIL but does not fail "
            "the run, until the waiver expires. On the run's date a waiver is IN FORCE or EXPIRED; an "
            "expired waiver no longer applies and the failures it matched count again.",
            styles.body,
        ),
        table,
    ]
