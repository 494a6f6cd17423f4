"""Colours, fonts and paragraph styles of the evidence pack, in one place so every page looks alike.

Only the PDF base-14 fonts (Helvetica, Courier) are used: nothing to download or embed. Status colours
are light tints behind dark text and always come with a text label, so the pack reads in greyscale."""

from __future__ import annotations

from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER, TA_LEFT, TA_RIGHT
from reportlab.lib.styles import ParagraphStyle

from auditor.enums import RunStatus, Severity, Status, TargetStatus

FONT = "Helvetica"
FONT_BOLD = "Helvetica-Bold"
FONT_ITALIC = "Helvetica-Oblique"
MONO = "Courier"
MONO_BOLD = "Courier-Bold"

NAVY = colors.HexColor("#1F2A44")
ACCENT = colors.HexColor("#2E5A88")
INK = colors.HexColor("#1B1F24")
MUTED = colors.HexColor("#5A6270")
RULE = colors.HexColor("#C3CAD5")
ZEBRA = colors.HexColor("#F3F5F8")
PANEL = colors.HexColor("#EEF1F6")
WHITE = colors.white

# Background tint and text colour per status; the tints differ in lightness too, not only in hue.
STATUS_BG: dict[Status, colors.Color] = {
    Status.FAIL: colors.HexColor("#F2C4C4"),
    Status.ERROR: colors.HexColor("#F8D9B5"),
    Status.NOT_ASSESSED: colors.HexColor("#FFF0B0"),
    Status.PASS: colors.HexColor("#D7EAD0"),
    Status.NOT_APPLICABLE: colors.HexColor("#E4E6EA"),
}
STATUS_FG: dict[Status, colors.Color] = {
    Status.FAIL: colors.HexColor("#8E1616"),
    Status.ERROR: colors.HexColor("#8A4300"),
    Status.NOT_ASSESSED: colors.HexColor("#6B5200"),
    Status.PASS: colors.HexColor("#1E5631"),
    Status.NOT_APPLICABLE: colors.HexColor("#4A4F57"),
}
STATUS_MEANING: dict[Status, str] = {
    Status.FAIL: "The evidence shows the declared segmentation does not hold.",
    Status.ERROR: "The check could not be evaluated (a fault in the check or its input): unresolved.",
    Status.NOT_ASSESSED: "Evidence was missing or unreadable; nothing is claimed. Never counted as a pass.",
    Status.PASS: "The evidence shows the declared segmentation holds for this subject.",
    Status.NOT_APPLICABLE: "The tier or subject is not declared in scope of the audit config.",
}


RUN_STATUS_BG: dict[RunStatus, colors.Color] = {
    RunStatus.COMPLETE: STATUS_BG[Status.PASS],
    RunStatus.PARTIAL: STATUS_BG[Status.NOT_ASSESSED],
    RunStatus.RUNNING: STATUS_BG[Status.NOT_APPLICABLE],
    RunStatus.FAILED: STATUS_BG[Status.FAIL],
    RunStatus.INTERRUPTED: STATUS_BG[Status.ERROR],
}
TARGET_STATUS_BG: dict[TargetStatus, colors.Color] = {
    TargetStatus.OK: STATUS_BG[Status.PASS],
    TargetStatus.PARTIAL: STATUS_BG[Status.NOT_ASSESSED],
    TargetStatus.FAILED: STATUS_BG[Status.FAIL],
    TargetStatus.PENDING: STATUS_BG[Status.NOT_APPLICABLE],
}
# Nothing in the pack is set smaller than this (table cells, notes, badges, header and footer): the
# document must read when printed, not only when zoomed on screen.
MIN_SIZE = 8.0
SMALL_LEADING = 9.8

SEVERITY_EMPHASIS: frozenset[Severity] = frozenset({Severity.CRITICAL, Severity.HIGH})


def _style(name: str, **kw: object) -> ParagraphStyle:
    base: dict[str, object] = {"fontName": FONT, "fontSize": 9, "leading": 11.5, "textColor": INK}
    base.update(kw)
    return ParagraphStyle(name, **base)


class Styles:
    """The paragraph styles, built per render (ParagraphStyle objects are mutable)."""

    def __init__(self) -> None:
        self.eyebrow = _style("eyebrow", fontName=FONT_BOLD, fontSize=8.5, leading=11, textColor=ACCENT)
        self.title = _style("title", fontName=FONT_BOLD, fontSize=24, leading=29, textColor=NAVY)
        self.subtitle = _style("subtitle", fontSize=12, leading=16, textColor=MUTED)
        self.h1 = _style("h1", fontName=FONT_BOLD, fontSize=15, leading=19, textColor=NAVY, spaceAfter=6)
        self.h2 = _style(
            "h2", fontName=FONT_BOLD, fontSize=10.5, leading=14, textColor=NAVY, spaceBefore=10, spaceAfter=4
        )
        self.body = _style("body", fontSize=9, leading=12.5, spaceAfter=6)
        self.note = _style("note", fontSize=MIN_SIZE, leading=10.4, textColor=MUTED)
        self.label = _style("label", fontName=FONT_BOLD, fontSize=8, leading=10.5, textColor=MUTED)
        self.value = _style("value", fontSize=9, leading=11.5)
        self.value_bold = _style("value_bold", fontName=FONT_BOLD, fontSize=9, leading=11.5)
        self.mono = _style("mono", fontName=MONO, fontSize=8.5, leading=10.5)
        self.th = _style("th", fontName=FONT_BOLD, fontSize=MIN_SIZE, leading=SMALL_LEADING, textColor=WHITE)
        self.th_center = _style(
            "th_center",
            fontName=FONT_BOLD,
            fontSize=MIN_SIZE,
            leading=SMALL_LEADING,
            textColor=WHITE,
            alignment=TA_CENTER,
        )
        self.cell = _style("cell", fontSize=MIN_SIZE, leading=SMALL_LEADING)
        self.cell_bold = _style("cell_bold", fontName=FONT_BOLD, fontSize=MIN_SIZE, leading=SMALL_LEADING)
        self.cell_muted = _style("cell_muted", fontSize=MIN_SIZE, leading=SMALL_LEADING, textColor=MUTED)
        self.cell_mono = _style("cell_mono", fontName=MONO, fontSize=MIN_SIZE, leading=SMALL_LEADING)
        self.cell_center = _style("cell_center", fontSize=8.5, leading=10.5, alignment=TA_CENTER)
        self.cell_right = _style("cell_right", fontSize=8.5, leading=10.5, alignment=TA_RIGHT)
        self.cell_left = _style("cell_left", fontSize=8.5, leading=10.5, alignment=TA_LEFT)
        self.badge: dict[Status, ParagraphStyle] = {
            s: _style(
                f"badge_{s.value}",
                fontName=FONT_BOLD,
                fontSize=MIN_SIZE,
                leading=SMALL_LEADING,
                textColor=STATUS_FG[s],
                backColor=STATUS_BG[s],
                borderPadding=(1.5, 2, 2, 2),
            )
            for s in Status
        }
        self.badge_waived = _style(  # a waived FAIL: an accepted risk, tinted like a gap, not a failure
            "badge_waived",
            fontName=FONT_BOLD,
            fontSize=MIN_SIZE,
            leading=SMALL_LEADING,
            textColor=STATUS_FG[Status.NOT_ASSESSED],
            backColor=STATUS_BG[Status.NOT_ASSESSED],
            borderPadding=(1.5, 2, 2, 2),
        )
        self.banner = _style("banner", fontName=FONT_BOLD, fontSize=11, leading=14, textColor=INK)
