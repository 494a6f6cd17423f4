"""What was not assessed, and why: targets whose collection failed or was partial, and checks whose
evidence was missing (NOT_ASSESSED findings, grouped by check and reason)."""

from __future__ import annotations

from collections import Counter

from auditor.enums import Status, TargetStatus
from reports.model import ReportData
from reports.sections.records import NotAssessedRow
from reports.sections.text import plain


def not_assessed(data: ReportData) -> list[NotAssessedRow]:
    rows = [
        NotAssessedRow(t.name, t.kind, plain(t.reason or f"collection {t.status.value}"), 1)
        for t in data.targets
        if t.status is not TargetStatus.OK
    ]
    reasons = Counter(
        (f.check_id, plain(f.message or f.found)) for f in data.findings if f.status is Status.NOT_ASSESSED
    )
    rows += [NotAssessedRow(check, "check", reason, n) for (check, reason), n in sorted(reasons.items())]
    return rows
