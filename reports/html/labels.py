"""Words and orders the HTML report shares: status and tier labels, the verdict, the finding order.

Kept free of reportlab (the PDF's equivalents live beside its styles) so the HTML renders on its own."""

from __future__ import annotations

from auditor.enums import Severity, Status, Tier
from reports.json_report import summary_counts
from reports.model import ReportData, RequirementStatus

STATUS_LABEL: dict[Status, str] = {
    Status.PASS: "PASS",
    Status.FAIL: "FAIL",
    Status.ERROR: "ERROR",
    Status.NOT_ASSESSED: "NOT ASSESSED",
    Status.NOT_APPLICABLE: "NOT APPLICABLE",
}
# Failures first, then errors, gaps, passes and not applicable: the order an auditor reads them in.
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
    Tier.CROSS: "cross",
}
RESULT_ORDER = [
    RequirementStatus.FAIL,
    RequirementStatus.ERROR,
    RequirementStatus.NOT_ASSESSED,
    RequirementStatus.WAIVED,
    RequirementStatus.PASS,
    RequirementStatus.NOT_APPLICABLE,
]


def result_label(result: RequirementStatus) -> str:
    return result.value.replace("_", " ")


def status_totals(data: ReportData) -> dict[Status, int]:
    grid = summary_counts(data.findings)
    return {s: sum(r[s.value] for r in grid.values()) for s in Status}


def waived_count(data: ReportData) -> int:
    return sum(1 for f in data.findings if f.waived)


def verdict(totals: dict[Status, int], waived: int = 0) -> tuple[str, str]:
    """The headline and its tone (a status value, or WAIVED): failures outrank gaps, gaps outrank
    passes; never 'pass' on missing evidence."""
    if totals[Status.FAIL] > waived:
        return "FAILURES FOUND", Status.FAIL.value
    if totals[Status.ERROR]:
        return "INCOMPLETE: CHECKS IN ERROR", Status.ERROR.value
    if totals[Status.NOT_ASSESSED]:
        return "INCOMPLETE: EVIDENCE MISSING", Status.NOT_ASSESSED.value
    if waived:
        return f"PASS WITH {waived:,} WAIVED FAILURE{'S' if waived > 1 else ''}", "WAIVED"
    if totals[Status.PASS]:
        return "ALL ASSESSED CHECKS PASS", Status.PASS.value
    return "NO APPLICABLE FINDINGS", Status.NOT_APPLICABLE.value


SEVERITIES = list(Severity)
