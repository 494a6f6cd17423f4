"""The words and reading orders every renderer shares (PDF, HTML): status and tier labels, the order an
auditor reads statuses in, the verdict, dates and durations. Free of reportlab, so the HTML report renders
without it."""

from __future__ import annotations

from datetime import UTC, datetime

from auditor.enums import Severity, Status, Tier
from reports.json_report import TIER_ORDER, summary_counts
from reports.model import ReportData, RequirementStatus

STATUS_LABEL: dict[Status, str] = {
    Status.PASS: "PASS",
    Status.FAIL: "FAIL",
    Status.ERROR: "ERROR",
    Status.NOT_ASSESSED: "NOT ASSESSED",
    Status.NOT_APPLICABLE: "NOT APPLICABLE",
}
# Failures first, then errors, gaps, passes and not applicable: what needs attention first.
STATUS_PRIORITY: dict[Status, int] = {
    Status.FAIL: 0,
    Status.ERROR: 1,
    Status.NOT_ASSESSED: 2,
    Status.PASS: 3,
    Status.NOT_APPLICABLE: 4,
}
STATUS_ORDER = sorted(Status, key=STATUS_PRIORITY.__getitem__)
TIER_LABEL: dict[Tier, str] = {
    Tier.OOB: "Tier 1 · Out-of-band",
    Tier.FRONTEND: "Tier 2 · Frontend",
    Tier.BACKEND: "Tier 3 · Backend RDMA",
    Tier.CROSS: "Cross-tier",
}
TIER_SHORT: dict[Tier, str] = {
    Tier.OOB: "T1 oob",
    Tier.FRONTEND: "T2 frontend",
    Tier.BACKEND: "T3 backend",
    Tier.CROSS: "cross-tier",
}


SEVERITIES = list(Severity)
# A framework requirement's results, in the same reading order: what needs attention first.
RESULT_ORDER = [
    RequirementStatus.FAIL,
    RequirementStatus.ERROR,
    RequirementStatus.NOT_ASSESSED,
    RequirementStatus.WAIVED,
    RequirementStatus.PASS,
    RequirementStatus.NOT_APPLICABLE,
]
RESULT_LABEL: dict[RequirementStatus, str] = {r: r.value.replace("_", " ") for r in RequirementStatus}


def status_totals(data: ReportData) -> dict[Status, int]:
    """Findings per status over all tiers."""
    grid = summary_counts(data.findings)
    return {s: sum(row[s.value] for row in grid.values()) for s in Status}


def waived_count(data: ReportData) -> int:
    return sum(1 for f in data.findings if f.waived)


def verdict(totals: dict[Status, int], waived: int = 0) -> tuple[str, Status | None]:
    """The headline and its status: failures outrank gaps, gaps outrank passes; never 'pass' on missing
    evidence. Waived failures (accepted risks) do not make it FAILURES FOUND but are named; when only
    they stand between the subject and a pass, the status is None (each renderer shows it as waived)."""
    if totals[Status.FAIL] > waived:
        return "FAILURES FOUND", Status.FAIL
    if totals[Status.ERROR]:
        return "INCOMPLETE: CHECKS IN ERROR", Status.ERROR
    if totals[Status.NOT_ASSESSED]:
        return "INCOMPLETE: EVIDENCE MISSING", Status.NOT_ASSESSED
    if waived:
        return f"PASS WITH {waived:,} WAIVED FAILURE{'S' if waived > 1 else ''}", None
    if totals[Status.PASS]:
        return "ALL ASSESSED CHECKS PASS", Status.PASS
    return "NO APPLICABLE FINDINGS", Status.NOT_APPLICABLE


def declared_tiers_text(data: ReportData) -> str:
    """The tiers the config declares, and those it does not (their checks are NOT APPLICABLE)."""
    declared = sorted(set(data.run.declared_tiers), key=TIER_ORDER.__getitem__)
    missing = [t for t in Tier if t is not Tier.CROSS and t not in declared]
    text = ", ".join(TIER_LABEL[t] for t in declared) or "none"
    if missing:
        text += f" (not declared, checks NOT APPLICABLE: {', '.join(TIER_LABEL[t] for t in missing)})"
    return text


def utc_text(value: datetime | None) -> str:
    """A timestamp for people: `2025-03-14 09:26:53 UTC`; naive values are taken as UTC already."""
    if value is None:
        return "—"
    dt = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    return dt.strftime("%Y-%m-%d %H:%M:%S UTC")


def duration_text(start: datetime, end: datetime | None) -> str:
    """Elapsed run time as `13 min 41 s`, or a dash while the run has not finished."""
    if end is None:
        return "—"
    a = start.replace(tzinfo=UTC) if start.tzinfo is None else start
    b = end.replace(tzinfo=UTC) if end.tzinfo is None else end
    hours, rest = divmod(max(0, int((b - a).total_seconds())), 3600)
    mins, sec = divmod(rest, 60)
    return f"{hours} h {mins} min {sec} s" if hours else f"{mins} min {sec} s" if mins else f"{sec} s"
