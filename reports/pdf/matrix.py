"""The segmentation matrix: per tier and aspect, declared beside observed, and the checks' verdict."""

from __future__ import annotations

from collections.abc import Sequence

from reportlab.platypus import Flowable, Paragraph

from reports.labels import TIER_LABEL
from reports.pdf.grid import chunked, status_cell
from reports.pdf.styles import Styles
from reports.pdf.tables import TEXT_LIMIT, Cell
from reports.pdf.text import esc
from reports.sections.records import MatrixRow


def matrix_section(
    rows: Sequence[MatrixRow], notes: Sequence[str], styles: Styles, width: float
) -> list[Flowable]:
    body = []
    previous = None
    for r in rows:
        tier = esc(TIER_LABEL[r.tier]) if r.tier != previous else ""
        previous = r.tier
        body.append(
            [
                Cell(f"<b>{tier}</b>", styles.cell),
                Cell(f"<b>{esc(r.aspect)}</b>", styles.cell),
                Cell(esc(r.declared, limit=TEXT_LIMIT), styles.cell),
                Cell(esc(r.observed, limit=TEXT_LIMIT), styles.cell),
                status_cell(r.status, styles, r.result),
                Cell(esc(", ".join(r.checks), empty="none"), styles.cell_muted),
            ]
        )
    intro = Paragraph(
        "For each tier, what the audit config declares beside what the evidence shows: observed values are "
        "read from the run's facts (the VRFs, VLANs, MTU and QoS of the tier's devices) and from the checks' "
        "findings; the result is the worst outcome of the checks named in the last column.",
        styles.body,
    )
    extra = [Paragraph(esc(n), styles.note) for n in notes]
    names = ["Tier", "Aspect", "Declared", "Observed", "Result", "Checks"]
    return [intro, *extra, *chunked(names, body, [80, 90, 170, 220, 90, 130], width, styles)]
