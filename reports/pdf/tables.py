"""The long tables of the pack: findings, evidence gaps, targets and the check catalogue.

Every cell is a Paragraph (text wraps inside its column), header rows repeat on each page, and long
texts are cut at a bound so no single row can outgrow a page (which reportlab cannot lay out)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Sequence

from reportlab.lib.styles import ParagraphStyle
from reportlab.platypus import Paragraph, Table, TableStyle

from auditor.enums import Status
from reports.json_report import SEVERITY_ORDER, TIER_ORDER
from reports.labels import STATUS_LABEL, STATUS_PRIORITY, TIER_SHORT
from reports.model import CheckInfo, EvidenceRef, FindingInfo, ProblemInfo, TargetInfo
from reports.pdf.styles import (
    FONT,
    MIN_SIZE,
    MONO,
    MUTED,
    NAVY,
    RULE,
    SMALL_LEADING,
    TARGET_STATUS_BG,
    WHITE,
    ZEBRA,
    Styles,
)
from reports.pdf.text import esc, plain

TEXT_LIMIT = 480  # characters per long cell: at most ~16 lines, so a row never outgrows a page
SHORT_LIMIT = 240
EVIDENCE_SHOWN = 6
HASH_PREFIX = 12

MUTED_SIZE = MIN_SIZE
MUTED_HEX = MUTED.hexval().replace("0x", "#")
# Plain-string columns of the findings table: row number, tier/severity, evidence.
PLAIN_COLUMNS = [
    ("FONTNAME", (0, 1), (0, -1), FONT),
    ("FONTSIZE", (0, 1), (0, -1), MUTED_SIZE),
    ("TEXTCOLOR", (0, 1), (0, -1), MUTED),
    ("FONTNAME", (2, 1), (2, -1), FONT),
    ("FONTSIZE", (2, 1), (2, -1), MIN_SIZE),
    ("LEADING", (2, 1), (2, -1), SMALL_LEADING),
    ("FONTNAME", (7, 1), (7, -1), MONO),
    ("FONTSIZE", (7, 1), (7, -1), MIN_SIZE),
    ("LEADING", (7, 1), (7, -1), SMALL_LEADING),
]

Row = list[object]


class Cell(Paragraph):  # type: ignore[misc]  # reportlab is untyped
    """A Paragraph that remembers its line breaks for a given width.

    A long table re-wraps every cell several times (height pass, page split, draw); the column width
    never changes, so breaking the lines once makes 2,000-row tables several times faster."""

    _wrapped: tuple[float, tuple[float, float]] | None = None

    def wrap(self, avail_width: float, avail_height: float) -> tuple[float, float]:
        if self._wrapped is not None and self._wrapped[0] == avail_width:
            return self._wrapped[1]
        size: tuple[float, float] = super().wrap(avail_width, avail_height)
        self._wrapped = (avail_width, size)
        return size


class _SharedCells:
    """One Cell per distinct (markup, style): the same check, status or expectation repeats across
    many findings, and a wrapped, unsplit Paragraph can be drawn in any number of rows."""

    def __init__(self) -> None:
        self._cells: dict[tuple[str, str], Cell] = {}

    def get(self, markup: str, style: ParagraphStyle) -> Cell:
        key = (markup, style.name)
        cell = self._cells.get(key)
        if cell is None:
            cell = self._cells[key] = Cell(markup, style)
        return cell


# The findings listing's columns (the grouped body listing and the complete appendix alike).
FINDING_COLUMNS = [
    "#",
    "Check",
    "Tier / severity",
    "Status",
    "Subject",
    "Expected",
    "Found",
    "Evidence (seq, sha256)",
]


def finding_order(f: FindingInfo) -> tuple[int, int, int, str, str, str, str]:
    """Failures first, then errors, gaps, passes, not-applicable; then severity, tier, check, subject."""
    return (
        STATUS_PRIORITY[f.status],
        SEVERITY_ORDER[f.severity],
        TIER_ORDER[f.tier],
        f.check_id,
        f.subject,
        f.target or "",
        f.found,
    )


def _base_style(extra: Sequence[tuple[object, ...]] = ()) -> TableStyle:
    return TableStyle(
        [
            ("BACKGROUND", (0, 0), (-1, 0), NAVY),
            ("ROWBACKGROUNDS", (0, 1), (-1, -1), [WHITE, ZEBRA]),
            ("GRID", (0, 0), (-1, -1), 0.35, RULE),
            ("LINEBELOW", (0, 0), (-1, 0), 0.8, NAVY),
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("LEFTPADDING", (0, 0), (-1, -1), 3.5),
            ("RIGHTPADDING", (0, 0), (-1, -1), 3.5),
            ("TOPPADDING", (0, 0), (-1, -1), 2.5),
            ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
            *extra,
        ]
    )


def _scaled(widths: Sequence[float], total: float) -> list[float]:
    """Column widths stretched proportionally to fill `total` points."""
    factor = total / sum(widths)
    return [w * factor for w in widths]


def _header(names: Sequence[str], styles: Styles) -> Row:
    return [Cell(esc(n), styles.th) for n in names]


def _evidence_text(refs: Sequence[EvidenceRef]) -> str:
    """Plain text (no markup, so nothing to escape and cheap to lay out): `#seq sha256-prefix` lines."""
    if not refs:
        return "none"
    ordered = sorted(refs, key=lambda e: (e.seq, e.sha256))
    lines = [f"#{e.seq} {plain(e.sha256[:HASH_PREFIX])}" for e in ordered[:EVIDENCE_SHOWN]]
    if len(ordered) > EVIDENCE_SHOWN:
        lines.append(f"+{len(ordered) - EVIDENCE_SHOWN} more")
    return "\n".join(lines)


def _muted(markup: str) -> str:
    """A secondary line inside the same Paragraph (one flowable per cell keeps 2,000 rows fast)."""
    return f'<br/><font size="{MUTED_SIZE}" color="{MUTED_HEX}">{markup}</font>'


def check_anchor(check_id: str) -> str:
    """The destination name of a check's row in the check catalogue (appendix A)."""
    return "check-" + re.sub(r"[^A-Za-z0-9_.-]", "_", check_id)


def check_link(check_id: str, markup: str, linked: Collection[str]) -> str:
    """`markup` as a link to the check's catalogue row, when the catalogue has it (a link to a missing
    destination would make the PDF unwritable)."""
    if check_id not in linked:
        return markup
    return f'<a href="#{check_anchor(check_id)}">{markup}</a>'


def _check_markup(check_id: str, title: str, linked: Collection[str]) -> str:
    ident = check_link(check_id, f"<b>{esc(check_id, limit=SHORT_LIMIT)}</b>", linked)
    return f"{ident}{_muted(esc(title, limit=SHORT_LIMIT))}"


def _subject_markup(f: FindingInfo) -> str:
    markup = f"<b>{esc(f.subject, limit=SHORT_LIMIT)}</b>"
    if f.target and f.target not in f.subject:
        markup += _muted(f"target: {esc(f.target, limit=SHORT_LIMIT)}")
    return markup


def _found_markup(f: FindingInfo) -> str:
    markup = esc(f.found, limit=TEXT_LIMIT)
    if f.message and f.message != f.found:
        markup += _muted(f"<i>{esc(f.message, limit=SHORT_LIMIT)}</i>")
    if f.waiver is not None:
        w = f.waiver
        markup += _muted(
            f"<b>waived</b> by {esc(w.owner, limit=SHORT_LIMIT)} until {w.expires.isoformat()}: "
            f"{esc(w.reason, limit=SHORT_LIMIT)}"
        )
    return markup


def _status_cell(f: FindingInfo, styles: Styles, shared: _SharedCells) -> Cell:
    if f.waiver is not None:
        return shared.get("FAIL<br/>WAIVED", styles.badge_waived)
    return shared.get(esc(STATUS_LABEL[f.status]), styles.badge[f.status])


def findings_table(
    findings: Sequence[FindingInfo], styles: Styles, width: float, linked: Collection[str] = ()
) -> Table:
    """One row per finding, failures first, with expected vs found and the evidence it rests on.

    Status is a tinted badge inside its cell rather than a per-row table style command: thousands of
    cell commands make every page split re-process them all."""
    names = FINDING_COLUMNS
    rows: list[Row] = [_header(names, styles)]
    shared = _SharedCells()
    for i, f in enumerate(sorted(findings, key=finding_order), start=1):
        rows.append(
            [
                str(i),
                shared.get(_check_markup(f.check_id, f.title, linked), styles.cell),
                f"{TIER_SHORT[f.tier]}\n{f.severity.value.upper()}",
                _status_cell(f, styles, shared),
                Cell(_subject_markup(f), styles.cell),
                shared.get(esc(f.expected, limit=TEXT_LIMIT), styles.cell),
                Cell(_found_markup(f), styles.cell),
                _evidence_text(f.evidence),
            ]
        )
    # the check column fits the longest check id (about 30 characters of bold 8 pt) on one line
    widths = _scaled([20, 152, 54, 58, 106, 116, 128, 96], width)
    table = Table(rows, colWidths=widths, repeatRows=1, hAlign="LEFT")
    table.setStyle(_base_style(PLAIN_COLUMNS))
    return table


def problems_table(problems: Sequence[ProblemInfo], styles: Styles, width: float) -> Table:
    """Evidence gaps: what could not be collected or read, where, and what to do about it."""
    rows: list[Row] = [_header(["#", "Target", "Location", "Problem", "What to do"], styles)]
    ordered = sorted(problems, key=lambda p: (p.target or "", p.location, p.message, p.hint))
    for i, p in enumerate(ordered, start=1):
        rows.append(
            [
                Cell(str(i), styles.cell_muted),
                Cell(esc(p.target, limit=SHORT_LIMIT, empty="(run-wide)"), styles.cell_bold),
                Cell(esc(p.location, limit=SHORT_LIMIT), styles.cell_mono),
                Cell(esc(p.message, limit=TEXT_LIMIT), styles.cell),
                Cell(esc(p.hint, limit=TEXT_LIMIT), styles.cell),
            ]
        )
    table = Table(rows, colWidths=_scaled([20, 130, 170, 230, 200], width), repeatRows=1, hAlign="LEFT")
    table.setStyle(_base_style())
    return table


def _reason_markup(t: TargetInfo) -> str:
    """The collection failure reason, then the collector's notes (e.g. a host-key check opt-out)."""
    if not t.notes:
        return esc(t.reason, limit=TEXT_LIMIT)
    notes = "<br/>".join(f"<b>note:</b> {esc(n, limit=SHORT_LIMIT)}" for n in t.notes)
    return (esc(t.reason, limit=TEXT_LIMIT) + "<br/>" if t.reason else "") + notes


def targets_table(targets: Sequence[TargetInfo], styles: Styles, width: float) -> Table:
    """Every planned target and how its collection went (anything but ok limits what was assessed)."""
    names = ["Target", "Kind", "Platform", "Tier", "Role", "Collection", "Captures", "Reason / notes"]
    rows: list[Row] = [_header(names, styles)]
    extra: list[tuple[object, ...]] = []
    for i, t in enumerate(sorted(targets, key=lambda t: (t.name, t.kind)), start=1):
        rows.append(
            [
                Cell(esc(t.name, limit=SHORT_LIMIT), styles.cell_bold),
                Cell(esc(t.kind), styles.cell),
                Cell(esc(t.platform), styles.cell),
                Cell(esc(TIER_SHORT[t.tier] if t.tier is not None else None), styles.cell),
                Cell(esc(t.role), styles.cell),
                Cell(f"<b>{esc(t.status.value.upper())}</b>", styles.cell),
                Cell(f"{t.captures:,}", styles.cell),
                Cell(_reason_markup(t), styles.cell),
            ]
        )
        extra.append(("BACKGROUND", (5, i), (5, i), TARGET_STATUS_BG[t.status]))
    widths = _scaled([150, 62, 56, 66, 66, 62, 48, 240], width)
    table = Table(rows, colWidths=widths, repeatRows=1, hAlign="LEFT")
    table.setStyle(_base_style(extra))
    return table


def checks_table(
    checks: Sequence[CheckInfo], findings: Sequence[FindingInfo], styles: Styles, width: float
) -> Table:
    """The check catalogue: what each check asserts, why, how to fix, and its outcomes in this run."""
    outcomes: dict[str, Counter[Status]] = {}
    for f in findings:
        outcomes.setdefault(f.check_id, Counter())[f.status] += 1
    names = ["Check", "Tier / severity", "Outcomes", "Rationale", "Remediation"]
    rows: list[Row] = [_header(names, styles)]
    for c in sorted(checks, key=lambda c: (TIER_ORDER[c.tier], c.id)):
        counts = outcomes.get(c.id, Counter())
        summary = "<br/>".join(f"{counts[s]} {esc(STATUS_LABEL[s])}" for s in Status if counts[s]) or "none"
        rows.append(
            [
                [
                    Cell(f'<a name="{check_anchor(c.id)}"/>{esc(c.id, limit=SHORT_LIMIT)}', styles.cell_bold),
                    Cell(esc(c.title, limit=SHORT_LIMIT), styles.cell_muted),
                ],
                Cell(f"{esc(TIER_SHORT[c.tier])}<br/>{esc(c.severity.value.upper())}", styles.cell),
                Cell(summary, styles.cell),
                Cell(esc(c.rationale, limit=TEXT_LIMIT), styles.cell),
                Cell(esc(c.remediation, limit=TEXT_LIMIT), styles.cell),
            ]
        )
    table = Table(rows, colWidths=_scaled([170, 66, 78, 210, 210], width), repeatRows=1, hAlign="LEFT")
    table.setStyle(_base_style())
    return table
