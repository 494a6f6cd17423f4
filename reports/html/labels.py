"""Words and orders the HTML report shares: status and tier labels, the verdict, the finding order.

The labels both renderers use come from reports/labels.py (free of reportlab)."""

from __future__ import annotations

from auditor.enums import Severity
from reports.model import RequirementStatus

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


SEVERITIES = list(Severity)
