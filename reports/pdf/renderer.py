"""The PDF evidence pack: a cover that pins the run, a summary, the findings, gaps, targets and checks.

Built with reportlab platypus and the base-14 fonts only. The bytes are reproducible for the same
ReportData (invariant mode, creation date = report generation time), so the pack itself can be hashed."""

from __future__ import annotations

import io
from functools import partial
from pathlib import Path
from typing import Any

from reportlab.lib.pagesizes import A4, landscape
from reportlab.platypus import (
    BaseDocTemplate,
    CondPageBreak,
    Flowable,
    Frame,
    NextPageTemplate,
    PageBreak,
    PageTemplate,
    Paragraph,
    Spacer,
)

from reports.json_report import output_path, write_atomic
from reports.model import ReportData
from reports.pdf.canvas import MARGIN_X, PageStamp, StampedCanvas
from reports.pdf.controls import control_matrix_section, waivers_section
from reports.pdf.cover import cover_page
from reports.pdf.styles import Styles
from reports.pdf.summary import summary_section
from reports.pdf.tables import checks_table, findings_table, problems_table, targets_table
from reports.pdf.toc import Heading, TableOfContents

TOP_MARGIN = 46.0
BOTTOM_MARGIN = 44.0
PORTRAIT = A4
LANDSCAPE = landscape(A4)


class EvidencePackTemplate(BaseDocTemplate):  # type: ignore[misc]  # reportlab is untyped
    """Portrait cover and summary, landscape for the wide tables; headings feed the outline."""

    def __init__(self, target: Any, **kwargs: Any) -> None:
        super().__init__(target, pagesize=PORTRAIT, **kwargs)
        self.addPageTemplates(
            [
                self._template("cover", PORTRAIT, top=TOP_MARGIN),
                self._template("portrait", PORTRAIT, top=TOP_MARGIN + 8),
                self._template("landscape", LANDSCAPE, top=TOP_MARGIN + 8),
            ]
        )

    @staticmethod
    def _template(name: str, size: tuple[float, float], *, top: float) -> PageTemplate:
        width, height = size
        frame = Frame(
            MARGIN_X,
            BOTTOM_MARGIN,
            width - 2 * MARGIN_X,
            height - top - BOTTOM_MARGIN,
            leftPadding=0,
            rightPadding=0,
            topPadding=0,
            bottomPadding=0,
            id=f"{name}-body",
        )
        return PageTemplate(id=name, frames=[frame], pagesize=size)

    def afterFlowable(self, flowable: Flowable) -> None:
        if isinstance(flowable, Heading):
            self.canv.bookmarkPage(flowable.outline_key)
            self.canv.addOutlineEntry(flowable.outline_title, flowable.outline_key, flowable.outline_level)


def content_width(size: tuple[float, float]) -> float:
    """Usable width of a page of that size."""
    return float(size[0]) - 2 * MARGIN_X


def build_story(data: ReportData, styles: Styles) -> list[Flowable]:
    """All flowables of the pack, in reading order."""
    portrait_w = content_width(PORTRAIT)
    wide_w = content_width(LANDSCAPE)
    story: list[Flowable] = [NextPageTemplate("portrait"), PageBreak()]
    story += [Heading("1. Summary", styles.h1, "summary"), *summary_section(data, styles, portrait_w)]
    story += [NextPageTemplate("landscape"), PageBreak()]
    story += [
        Heading("2. Findings", styles.h1, "findings"),
        Paragraph(
            "Failures first, then errors, not assessed, passes and not applicable; within each by severity, "
            "tier, check and subject. Evidence cites the capture's sequence number in the evidence chain and "
            "the first 12 hex digits of its SHA-256; the JSON report carries the full hashes and texts.",
            styles.body,
        ),
    ]
    if data.findings:
        catalogue = {c.id for c in data.checks}  # check ids link to their row in appendix A
        story.append(findings_table(data.findings, styles, wide_w, catalogue))
    else:
        story.append(Paragraph("This run produced no findings.", styles.body))
    story += [PageBreak(), Heading("3. Evidence gaps", styles.h1, "gaps")]
    if data.problems:
        story += [
            Paragraph(
                "Evidence that could not be collected or read. Checks that needed it are NOT ASSESSED.",
                styles.body,
            ),
            problems_table(data.problems, styles, wide_w),
        ]
    else:
        story.append(Paragraph("No evidence gaps were recorded for this run.", styles.body))
    story += [
        Spacer(1, 14),
        CondPageBreak(140),
        Heading("4. Targets and collection status", styles.h1, "targets"),
    ]
    if data.targets:
        story.append(targets_table(data.targets, styles, wide_w))
    else:
        story.append(Paragraph("No targets were planned for this run.", styles.body))
    story += [PageBreak(), Heading("5. Control matrix", styles.h1, "controls")]
    story += control_matrix_section(data, styles, wide_w)
    story += [Spacer(1, 14), CondPageBreak(140), Heading("6. Waivers", styles.h1, "waivers")]
    story += waivers_section(data, styles, wide_w)
    story += [PageBreak(), Heading("Appendix A. Checks evaluated", styles.h1, "checks")]
    if data.checks:
        story.append(checks_table(data.checks, data.findings, styles, wide_w))
    else:
        story.append(Paragraph("No checks were recorded for this run.", styles.body))
    front: list[Flowable] = [*cover_page(data, styles, portrait_w), NextPageTemplate("portrait"), PageBreak()]
    front += [Heading("Contents", styles.h1, "contents", toc=False), Spacer(1, 6), TableOfContents.of(story)]
    return front + story


def render_pdf(data: ReportData) -> bytes:
    """The evidence pack as PDF bytes."""
    run = data.run
    stamp = PageStamp(
        run_id=run.id,
        tool=f"segmentation-auditor {run.tool_version}",
        chain_head=run.chain_head,
        header=f"Run {run.id} · {run.status.value}",
        generated_at=data.generated_at,
    )
    buffer = io.BytesIO()
    doc = EvidencePackTemplate(
        buffer,
        title=f"Network segmentation audit, run {run.id}",
        author=f"segmentation-auditor {run.tool_version}",
        subject=run.scope or "Network segmentation audit",
        creator=f"segmentation-auditor {run.tool_version}",
        keywords=["network segmentation", "evidence", "SOC 2", "NIST SP 800-207", "PCI DSS"],
        invariant=1,
        lang="en",
    )
    doc.build(build_story(data, Styles()), canvasmaker=partial(StampedCanvas, stamp=stamp))
    return buffer.getvalue()


class PdfReport:
    """Renders ReportData as the PDF evidence pack for auditors."""

    format = "pdf"
    extension = ".pdf"

    def render(self, data: ReportData, path: Path) -> Path:
        """Write the pack to `path` (or into it, if it is a directory) and return the file written."""
        target = output_path(Path(path), data, self.extension)
        return write_atomic(target, render_pdf(data))
