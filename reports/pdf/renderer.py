"""The PDF evidence pack: a cover that pins the run, a summary, the findings, gaps, targets and checks.

Built with reportlab platypus and the base-14 fonts only. The bytes are reproducible for the same
ReportData (invariant mode, creation date = report generation time), so the pack itself can be hashed."""

from __future__ import annotations

import io
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from reportlab.lib.pagesizes import A4, landscape
from reportlab.platypus import (
    BaseDocTemplate,
    Flowable,
    Frame,
    NextPageTemplate,
    PageBreak,
    PageTemplate,
    Paragraph,
    Spacer,
)

from auditor.enums import Status
from reports.json_report import output_path, write_atomic
from reports.model import ReportData
from reports.pdf.artifacts import default_deny_section, flows_section, ports_listing, ports_section
from reports.pdf.canvas import MARGIN_X, PageStamp, StampedCanvas
from reports.pdf.charts import overview_charts
from reports.pdf.controls import control_matrix_section, waivers_section
from reports.pdf.cover import cover_page
from reports.pdf.custody import custody_listing, custody_summary
from reports.pdf.findings import groups_section, listing_section
from reports.pdf.grid import CHUNK
from reports.pdf.lateral import lateral_section
from reports.pdf.matrix import matrix_section
from reports.pdf.responsibility import not_assessed_section, responsibility_section
from reports.pdf.styles import Styles
from reports.pdf.summary import summary_section
from reports.pdf.tables import checks_table, problems_table
from reports.pdf.targets import targets_listing, targets_summary
from reports.pdf.tiers import tiers_section
from reports.pdf.toc import Heading, TableOfContents
from reports.sections import Sections, sections_of
from reports.sections.grouping import ordered_findings

T = TypeVar("T")

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


def _chunks(items: Sequence[T], size: int = CHUNK) -> list[Sequence[T]]:
    return [items[i : i + size] for i in range(0, len(items), size)] or [items]


def _section(
    story: list[Flowable], title: str, key: str, styles: Styles, template: str | None = None
) -> None:
    """A new page (in `template`'s orientation, if given) opening with a heading that is a bookmark."""
    if template is not None:
        story.append(NextPageTemplate(template))
    story += [PageBreak(), Heading(title, styles.h1, key)]


def build_story(data: ReportData, styles: Styles) -> list[Flowable]:
    """All flowables of the pack, in reading order."""
    portrait_w = content_width(PORTRAIT)
    wide_w = content_width(LANDSCAPE)
    sections = sections_of(data)
    catalogue = {c.id for c in data.checks}  # check ids link to their row in appendix A
    story: list[Flowable] = [NextPageTemplate("portrait"), PageBreak()]
    story += [
        Heading("1. Executive summary", styles.h1, "summary"),
        *summary_section(data, styles, portrait_w),
    ]
    story += overview_charts(sections.overview, data.run.scope, styles, portrait_w)
    _section(story, "2. The tiers and what crosses them", "tiers", styles)
    story += tiers_section(sections.tiers, styles, portrait_w)
    _section(story, "3. Segmentation matrix", "matrix", styles, "landscape")
    story += matrix_section(sections.matrix, sections.notes, styles, wide_w)
    _section(story, "4. Findings by check and subject", "findings", styles)
    story += groups_section(sections.groups, styles, wide_w, catalogue)
    _section(story, "5. Switch-port segregation manifest", "ports", styles)
    story += ports_section(sections.ports, styles, wide_w, listing=bool(sections.ports.rows))
    _section(story, "6. Default-deny declarations", "default-deny", styles)
    story += default_deny_section(sections.default_deny, styles, wide_w)
    _section(story, "7. Flow-log analysis", "flows", styles)
    story += flows_section(sections.flows, styles, wide_w)
    _section(story, "8. Lateral-movement analysis", "lateral", styles)
    story += lateral_section(sections.lateral, styles, wide_w)
    _section(story, "9. Shared responsibility", "responsibility", styles)
    failing = {f.check_id for f in data.findings if f.status is Status.FAIL}
    story += responsibility_section(sections.responsibility, failing, styles, wide_w)
    _section(story, "10. Waivers", "waivers", styles)
    story += waivers_section(data, styles, wide_w)
    _section(story, "11. Not assessed and evidence gaps", "gaps", styles)
    story += not_assessed_section(sections.not_assessed, styles, wide_w)
    story.append(Paragraph("Evidence gaps", styles.h2))
    if data.problems:
        story.append(
            Paragraph(
                "Evidence that could not be collected or read. Checks that needed it are NOT ASSESSED.",
                styles.body,
            )
        )
        story += [problems_table(chunk, styles, wide_w) for chunk in _chunks(data.problems)]
    else:
        story.append(Paragraph("No evidence gaps were recorded for this run.", styles.body))
    _section(story, "12. Targets and collection status", "targets", styles)
    story += targets_summary(data.targets, styles, wide_w)
    _section(story, "13. Control matrix", "controls", styles)
    story += control_matrix_section(data, styles, wide_w)
    _section(story, "14. Chain of custody", "custody", styles)
    story += custody_summary(sections.custody, styles, wide_w)
    story += appendices(data, sections, styles, wide_w, catalogue)
    front: list[Flowable] = [*cover_page(data, styles, portrait_w), NextPageTemplate("portrait"), PageBreak()]
    front += [Heading("Contents", styles.h1, "contents", toc=False), Spacer(1, 6), TableOfContents.of(story)]
    return front + story


def appendices(
    data: ReportData, sections: Sections, styles: Styles, wide_w: float, catalogue: set[str]
) -> list[Flowable]:
    """The complete listings: checks, every finding, switch ports, captures and targets."""
    story: list[Flowable] = []
    _section(story, "Appendix A. Checks evaluated", "checks", styles)
    if data.checks:
        story.append(checks_table(data.checks, data.findings, styles, wide_w))
    else:
        story.append(Paragraph("No checks were recorded for this run.", styles.body))
    _section(story, "Appendix B. Every finding", "listing", styles)
    story += listing_section(ordered_findings(data), styles, wide_w, catalogue)
    if sections.ports.rows:
        _section(story, "Appendix C. Switch ports", "port-listing", styles)
        story += ports_listing(sections.ports, styles, wide_w)
    _section(story, "Appendix D. Every capture", "custody-listing", styles)
    story += custody_listing(sections.custody, styles, wide_w)
    _section(story, "Appendix E. Targets", "target-listing", styles)
    if data.targets:
        story += targets_listing(data.targets, styles, wide_w)
    else:
        story.append(Paragraph("No targets were planned for this run.", styles.body))
    return story


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
