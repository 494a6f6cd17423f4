"""Who operates what: the shared-responsibility matrix of the config beside the controls it affects, and
the targets and checks that were not assessed, with why."""

from __future__ import annotations

from collections.abc import Collection

from reportlab.platypus import Flowable, Paragraph

from reports.pdf.grid import chunked, status_cell
from reports.pdf.styles import Styles
from reports.pdf.tables import SHORT_LIMIT, TEXT_LIMIT, Cell
from reports.pdf.text import esc
from reports.sections.records import NotAssessedRow, ResponsibilityRow

OWNER = {"provider": "Provider", "tenant": "Tenant (the audited team)", "shared": "Shared"}


def responsibility_section(
    rows: list[ResponsibilityRow], failing: Collection[str], styles: Styles, width: float
) -> list[Flowable]:
    """The matrix; checks with a failing finding in this run are set in bold."""
    out: list[Flowable] = [
        Paragraph(
            "The control areas of the audit config's shared-responsibility matrix, who operates each, and "
            "the checks that evidence it (tied by the words of the area's name: a tier, or the kind of "
            "evidence). "
            "Checks with a failing finding in this run are set in bold. A failure in a provider's area is "
            "the provider's to remedy; the auditor may ask for the provider's own attestation.",
            styles.body,
        )
    ]
    if not rows:
        return [
            *out,
            Paragraph(
                "The audit config declares no shared responsibility (intent, shared_responsibility).",
                styles.body,
            ),
        ]
    body = [
        [
            Cell(f"<b>{esc(r.area)}</b>", styles.cell),
            Cell(esc(OWNER.get(r.owner, r.owner)), styles.cell_bold),
            Cell(
                ", ".join(f"<b>{esc(c)}</b>" if c in failing else esc(c) for c in r.checks) or "none",
                styles.cell,
            ),
            status_cell(r.status, styles, r.result),
        ]
        for r in rows
    ]
    return out + chunked(
        ["Control area", "Operated by", "Controls (checks) it affects", "Result"],
        body,
        [120, 120, 400, 120],
        width,
        styles,
    )


def not_assessed_section(rows: list[NotAssessedRow], styles: Styles, width: float) -> list[Flowable]:
    if not rows:
        return [
            Paragraph(
                "Every target was collected and every check had its evidence: nothing was left unassessed.",
                styles.body,
            )
        ]
    body = [
        [
            Cell(f"<b>{esc(r.what, limit=SHORT_LIMIT)}</b>", styles.cell),
            Cell(esc(r.kind), styles.cell),
            Cell(f"{r.count:,}", styles.cell_right),
            Cell(esc(r.reason, limit=TEXT_LIMIT), styles.cell),
        ]
        for r in rows
    ]
    return [
        Paragraph(
            "Targets whose collection failed or was partial, and checks that lacked evidence (their findings "
            "are NOT ASSESSED, never PASS), with the reason.",
            styles.body,
        ),
        *chunked(
            ["Target or check", "Kind", "Count", "Why not assessed"], body, [200, 80, 50, 430], width, styles
        ),
    ]
