"""The executive summary's numbers: status per tier, per framework and per severity, and the trend."""

from __future__ import annotations

from collections import Counter

from auditor.enums import Severity, Status, Tier
from reports.model import ReportData, RequirementStatus
from reports.sections.common import TIER_NAME
from reports.sections.records import CountChart, CountRow, Overview, TrendPoint

STATUSES = [
    s.value for s in (Status.FAIL, Status.ERROR, Status.NOT_ASSESSED, Status.PASS, Status.NOT_APPLICABLE)
]
REQUIREMENT_RESULTS = [r.value for r in RequirementStatus]


def per_tier(data: ReportData) -> CountChart:
    rows = []
    for tier in Tier:
        counts = Counter(f.status.value for f in data.findings if f.tier is tier)
        rows.append(CountRow(TIER_NAME[tier], {s: counts.get(s, 0) for s in STATUSES}))
    return CountChart("Findings per tier and status", STATUSES, rows)


def per_severity(data: ReportData) -> CountChart:
    rows = []
    for sev in Severity:
        counts = Counter(f.status.value for f in data.findings if f.severity is sev)
        rows.append(CountRow(sev.value, {s: counts.get(s, 0) for s in STATUSES}))
    return CountChart("Findings per severity and status", STATUSES, rows)


def per_framework(data: ReportData) -> CountChart:
    """Requirements per framework by result (a requirement takes the worst result of its checks)."""
    rows = []
    for fw in data.controls:
        counts = Counter(r.result.value for r in fw.requirements)
        rows.append(CountRow(fw.framework, {k: counts.get(k, 0) for k in REQUIREMENT_RESULTS}))
    return CountChart("Framework requirements per result", REQUIREMENT_RESULTS, rows)


def trend(data: ReportData) -> list[TrendPoint]:
    """The previous runs of the same scope (from the store, oldest first) and this run last."""
    counts = Counter(f.status.value for f in data.findings)
    current = TrendPoint(
        run_id=data.run.id,
        started_at=data.run.started_at,
        run_status=data.run.status.value,
        counts={s: counts.get(s, 0) for s in STATUSES},
        current=True,
    )
    earlier = [p for p in data.history if p.run_id != data.run.id]
    return [*sorted(earlier, key=lambda p: (p.started_at, p.run_id)), current]


def overview(data: ReportData) -> Overview:
    return Overview(per_tier(data), per_framework(data), per_severity(data), trend(data))
