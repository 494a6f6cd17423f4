"""Targets for the body: counts per kind and collection status, and the targets that were not fully
collected; every target is listed in an appendix (at fleet size, thousands of rows)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from reportlab.platypus import Flowable, Paragraph

from auditor.enums import TargetStatus
from reports.labels import TIER_SHORT
from reports.model import TargetInfo
from reports.pdf.grid import CHAR_W, _lines, chunked, plain_tables
from reports.pdf.styles import Styles
from reports.pdf.tables import Cell, _reason_markup, _scaled
from reports.pdf.text import esc

BODY_TARGETS = 150  # targets not fully collected listed in the body


def targets_summary(targets: Sequence[TargetInfo], styles: Styles, width: float) -> list[Flowable]:
    if not targets:
        return [Paragraph("No targets were planned for this run.", styles.body)]
    counts = Counter((t.kind, TIER_SHORT[t.tier] if t.tier else "-", t.status) for t in targets)
    groups = sorted({(k, tier) for k, tier, _ in counts})
    rows = [
        [
            Cell(f"<b>{esc(kind)}</b>", styles.cell),
            Cell(esc(tier), styles.cell),
            *[Cell(f"{counts[(kind, tier, s)]:,}", styles.cell_right) for s in TargetStatus],
            Cell(f"{sum(counts[(kind, tier, s)] for s in TargetStatus):,}", styles.cell_right),
        ]
        for kind, tier in groups
    ]
    names = ["Kind", "Tier", *[s.value.upper() for s in TargetStatus], "Total"]
    out: list[Flowable] = [
        Paragraph(
            f"{len(targets):,} targets planned, by kind, tier and how their collection went; every "
            "target with its platform, role, captures and notes is in the "
            '<a href="#target-listing">targets appendix</a>.',
            styles.body,
        ),
        *chunked(names, rows, [120, 90, 60, 60, 60, 60, 60], width, styles),
    ]
    bad = [
        t
        for t in sorted(targets, key=lambda t: (t.status.value, t.name))
        if t.status is not TargetStatus.OK or t.notes
    ]
    if bad:
        listed = [
            [
                Cell(f"<b>{esc(t.name)}</b>", styles.cell),
                Cell(esc(t.kind), styles.cell),
                Cell(f"<b>{esc(t.status.value.upper())}</b>", styles.cell),
                Cell(_reason_markup(t), styles.cell),
            ]
            for t in bad[:BODY_TARGETS]
        ]
        out += [Paragraph("Targets not fully collected, or with notes", styles.h2)]
        out += chunked(
            ["Target", "Kind", "Collection", "Reason / notes"], listed, [180, 70, 70, 440], width, styles
        )
        if len(bad) > BODY_TARGETS:
            out.append(
                Paragraph(f"and {len(bad) - BODY_TARGETS:,} more in the targets appendix.", styles.note)
            )
    return out


def targets_listing(targets: Sequence[TargetInfo], styles: Styles, width: float) -> list[Flowable]:
    """Every planned target (plain-string cells: thousands of rows at fleet size), by name."""
    cols = _scaled([150, 62, 56, 66, 66, 62, 48, 240], width)
    chars = [max(4, int((w - 7) / CHAR_W)) for w in cols]
    rows = []
    for t in sorted(targets, key=lambda t: (t.name, t.kind)):
        notes = [t.reason or ""] + [f"note: {n}" for n in t.notes]
        rows.append(
            [
                _lines(t.name, chars[0]),
                t.kind,
                _lines(t.platform or "-", chars[2]),
                TIER_SHORT[t.tier] if t.tier is not None else "-",
                _lines(t.role or "-", chars[4]),
                t.status.value.upper(),
                f"{t.captures:,}",
                _lines(" ".join(n for n in notes if n) or "-", chars[7], 6),
            ]
        )
    names = ["Target", "Kind", "Platform", "Tier", "Role", "Collection", "Captures", "Reason / notes"]
    return plain_tables(names, rows, cols, styles, [("FONTNAME", (0, 1), (0, -1), "Helvetica-Bold")])
