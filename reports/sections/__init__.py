"""The report's derived sections, as typed records any renderer draws (PDF in reports/pdf, HTML in
reports/html). Pure: no reportlab, no store access, no markup; prose is already plain text.

API (stable):

    from reports.sections import Sections, derive_sections, sections_of

    sections_of(data)            -> Sections   # data.sections if build_report_data derived it, else derived
                                               # now from the findings alone (facts-based parts empty)
    derive_sections(data, facts) -> Sections   # facts: StoredFact rows of the kinds in FACT_KINDS

    Sections fields (records in reports.sections.records):
      overview        Overview: per_tier / per_framework / per_severity CountChart (categories, rows of
                      CountRow(label, counts)), trend: list[TrendPoint] (earlier runs of the scope, then
                      this run with current=True)
      tiers           TierPicture: boxes (TierBox per declared tier: cidrs, vrfs, vlans, notes) and
                      crossings (Crossing: source zone, target tier, check_id, count, examples)
      matrix          list[MatrixRow]: tier, aspect, declared, observed, status, result, checks
      ports           PortManifest: groups (PortGroup), rows (PortRow, at most PORT_LIMIT), total, devices
      default_deny    list[DefaultDenyRow]: family, scope, total, deny_by_default, opening, detail, status
      flows           FlowAnalysis: sources, classes (zone to zone by action), findings, stores, coverage
      lateral         LateralAnalysis: paths (LateralPath with hops: LateralHop n, source, destination,
                      allows, via), checked, passed, not_assessed
      responsibility  list[ResponsibilityRow]: area, owner, checks, status, result
      not_assessed    list[NotAssessedRow]: what, kind, reason, count
      custody         Custody: summary (CustodySummary per target kind and format), rows (CustodyRow per
                      capture: seq, target, source, origin, format, collected_at, sha256, size)
      groups          list[FindingGroup]: findings by check, status and subject pattern, worst first;
                      `anchor` names the group's first finding in the complete listing
                      (grouping.finding_anchor(i) for the i-th finding of grouping.ordered_findings)
      notes           what could not be derived, worded

    reports.sections.text.prose / plain: the one place code syntax (Python lists, JSON objects, Markdown
    backticks) is worded as prose."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from reports.sections.records import Sections

if TYPE_CHECKING:
    from auditor.facts import FactRecord
    from auditor.store.reader import StoredFact
    from reports.model import ReportData

__all__ = ["Sections", "derive_sections", "sections_of"]


def derive_sections(data: ReportData, facts: Iterable[StoredFact[FactRecord]] = ()) -> Sections:
    """Every section of `data` (imported lazily: reports.model imports this package's records)."""
    from reports.sections.derive import derive_sections as derive  # noqa: PLC0415

    return derive(data, facts)


def sections_of(data: ReportData) -> Sections:
    """The sections build_report_data derived from the run's facts, or derived now from findings alone."""
    return data.sections if data.sections is not None else derive_sections(data)
