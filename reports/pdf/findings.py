"""Findings for a body that stays readable at any fleet size: grouped by check, status and subject
pattern (worst first, each row linking to its first finding in the complete listing), and the complete
listing as an appendix of chunked tables, each finding a link destination."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from reportlab.platypus import Flowable, Paragraph

from auditor.enums import Status
from reports.labels import TIER_SHORT
from reports.model import FindingInfo
from reports.pdf.grid import chunked, status_cell
from reports.pdf.styles import Styles
from reports.pdf.tables import (
    FINDING_COLUMNS,
    SHORT_LIMIT,
    TEXT_LIMIT,
    Cell,
    _check_markup,
    _evidence_text,
    _found_markup,
    _SharedCells,
    _status_cell,
    _subject_markup,
)
from reports.pdf.text import esc
from reports.sections.grouping import finding_anchor
from reports.sections.records import FindingGroup

ATTENTION = (Status.FAIL, Status.ERROR, Status.NOT_ASSESSED)
BODY_GROUPS = 250  # groups needing attention shown in the body; the rest are counted per check
LIST_ALL = 2500  # up to this many findings the appendix lists every one; beyond, those needing attention


def groups_section(
    groups: Sequence[FindingGroup], styles: Styles, width: float, linked: Collection[str]
) -> list[Flowable]:
    """The worst findings grouped; passes and not-applicable counted per check in one line each."""
    attention = [g for g in groups if g.status in ATTENTION]
    shown = attention[:BODY_GROUPS]
    rest = attention[BODY_GROUPS:]
    rows = []
    for g in shown:
        waived = f" ({g.waived:,} waived)" if g.waived else ""
        examples = (
            "" if g.count == 1 else "<br/>" + "<br/>".join(esc(e, limit=SHORT_LIMIT) for e in g.examples)
        )
        more = (
            f'<br/><font color="#5A6270">and {g.count - len(g.examples):,} more</font>'
            if g.count > len(g.examples)
            else ""
        )
        rows.append(
            [
                Cell(_check_markup(g.check_id, g.title, linked), styles.cell),
                Cell(f"{esc(TIER_SHORT[g.tier])}<br/>{esc(g.severity.value.upper())}", styles.cell),
                status_cell(g.status, styles),
                Cell(f'<a href="#{g.anchor}"><b>{g.count:,}</b>{waived}<br/>listing</a>', styles.cell),
                Cell(f"<b>{esc(g.pattern, limit=SHORT_LIMIT)}</b>{examples}{more}", styles.cell),
                Cell(esc(g.found, limit=SHORT_LIMIT), styles.cell),
            ]
        )
    out: list[Flowable] = [
        Paragraph(
            "Findings that need attention, grouped by check, status and subject pattern (numbers in a "
            "subject generalised to *), worst first. Each count links to the first of its findings in the "
            "complete listing (appendix), which holds every finding with expected, found and evidence.",
            styles.body,
        )
    ]
    if rows:
        out += chunked(
            [
                "Check",
                "Tier / severity",
                "Status",
                "Findings",
                "Subject pattern and examples",
                "Found (first)",
            ],
            rows,
            [150, 54, 62, 50, 190, 200],
            width,
            styles,
        )
    else:
        out.append(Paragraph("No finding of this run needs attention.", styles.body))
    if rest:
        out.append(
            Paragraph(
                f"{len(rest):,} further groups ({sum(g.count for g in rest):,} findings) are in the "
                "complete listing.",
                styles.note,
            )
        )
    passing: dict[str, list[int]] = {}
    for g in groups:
        if g.status not in ATTENTION:
            counts = passing.setdefault(g.check_id, [0, 0])
            counts[0 if g.status is Status.PASS else 1] += g.count
    if passing:
        text = "; ".join(
            f"{esc(c)} {p:,} PASS" + (f", {n:,} NOT APPLICABLE" if n else "")
            for c, (p, n) in sorted(passing.items())
        )
        out += [Paragraph("Passing and not applicable, per check", styles.h2), Paragraph(text, styles.note)]
    return out


def listing_rows(
    findings: Sequence[FindingInfo], styles: Styles, linked: Collection[str]
) -> list[list[object]]:
    """Rows of the complete listing, in grouping.ordered_findings order; row i is `finding_anchor(i)`."""
    shared = _SharedCells()
    rows: list[list[object]] = []
    for i, f in enumerate(findings):
        rows.append(
            [
                Cell(f'<a name="{finding_anchor(i)}"/>{i + 1}', styles.cell_muted),
                shared.get(_check_markup(f.check_id, f.title, linked), styles.cell),
                shared.get(f"{esc(TIER_SHORT[f.tier])}<br/>{esc(f.severity.value.upper())}", styles.cell),
                _status_cell(f, styles, shared),
                Cell(_subject_markup(f), styles.cell),
                shared.get(esc(f.expected, limit=TEXT_LIMIT), styles.cell),
                Cell(_found_markup(f), styles.cell),
                Cell(esc(_evidence_text(f.evidence)), styles.cell_mono),
            ]
        )
    return rows


def listing_section(
    findings: Sequence[FindingInfo],
    styles: Styles,
    width: float,
    linked: Collection[str],
    list_all: int = LIST_ALL,
) -> list[Flowable]:
    """Every finding when there are at most LIST_ALL; beyond, every finding that needs attention, and the
    passes counted per check (the JSON report in the evidence pack lists each of them)."""
    attention = [f for f in findings if f.status in ATTENTION]
    listed = findings if len(findings) <= list_all else attention
    out: list[Flowable] = [
        Paragraph(
            "Failures first, then errors, not assessed, passes and not applicable; within each by severity, "
            "check and subject. Evidence cites the capture's sequence number in the evidence chain and the "
            "first 12 hex digits of its SHA-256; the JSON report carries the full hashes and texts.",
            styles.body,
        )
    ]
    if not findings:
        return [*out, Paragraph("This run produced no findings.", styles.body)]
    if len(listed) < len(findings):
        out.append(
            Paragraph(
                f"This run has {len(findings):,} findings: the {len(listed):,} that need attention are "
                "listed here in full, the others are counted per check after them.",
                styles.body,
            )
        )
    names = FINDING_COLUMNS
    widths = [24, 150, 54, 58, 106, 116, 128, 96]
    out += chunked(names, listing_rows(listed, styles, linked), widths, width, styles)
    if len(listed) < len(findings):
        rest: dict[tuple[str, Status], int] = {}
        for f in findings:
            if f.status not in ATTENTION:
                rest[(f.check_id, f.status)] = rest.get((f.check_id, f.status), 0) + 1
        rows = [
            [
                Cell(esc(check), styles.cell_bold),
                status_cell(status, styles),
                Cell(f"{n:,}", styles.cell_right),
            ]
            for (check, status), n in sorted(rest.items(), key=lambda kv: (kv[0][1].value, kv[0][0]))
        ]
        out += [
            Paragraph(
                f"The other {len(findings) - len(listed):,} findings (passes and not applicable), per check. "
                "Each of them, with its expected and found text and its evidence, is in the JSON report of "
                "the evidence pack (report/report.json).",
                styles.body,
            ),
            *chunked(["Check", "Status", "Findings"], rows, [300, 100, 80], width * 0.7, styles),
        ]
    return out
