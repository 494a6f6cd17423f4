"""The flow-log analysis: what the logs held, flows between zones, the failing flow findings (unauthorised
attempts, DNS to unapproved resolvers, cross-tier flows) and where the logs are kept, for how long."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime

from auditor.enums import FactKind, Status
from auditor.facts import AwsFlowLogDestination, FlowConversation, FlowLogStats
from reports.model import ReportData
from reports.sections.common import STATUS_RANK, Facts, TierMap, by_check, outcome, words
from reports.sections.records import FlowAnalysis, FlowClassRow, FlowFindingRow, FlowSourceRow, LogStoreRow

FLOW_CHECKS = {
    "T1-OOB-FLOWS-AUTHORIZED": "unauthorised flow into OOB",
    "X-FLOWS-NO-CROSS-TIER": "cross-tier flow",
    "T2-DNS-APPROVED-RESOLVERS": "DNS to an unapproved resolver",
}
FLOW_ROWS = 400  # failing flow findings listed


def _time(value: int | None) -> datetime | None:
    return datetime.fromtimestamp(value, UTC) if value is not None else None


def _sources(facts: Facts) -> list[FlowSourceRow]:
    merged: dict[str, list[FlowLogStats]] = defaultdict(list)
    for f in facts.get(FactKind.FLOW_LOG_STATS, ()):
        if isinstance(f.record, FlowLogStats):
            merged[f.record.source].append(f.record)
    rows = []
    for source, stats in sorted(merged.items()):
        firsts = [s.first_seen for s in stats if s.first_seen is not None]
        lasts = [s.last_seen for s in stats if s.last_seen is not None]
        rows.append(
            FlowSourceRow(
                source,
                sum(s.files for s in stats),
                sum(s.records for s in stats),
                sum(s.accepted for s in stats),
                sum(s.rejected for s in stats),
                sum(s.nodata + s.skipdata + s.malformed for s in stats),
                _time(min(firsts)) if firsts else None,
                _time(max(lasts)) if lasts else None,
            )
        )
    return rows


def _classes(data: ReportData, facts: Facts) -> list[FlowClassRow]:
    """Conversations per (from zone, into zone, action): the cross-tier ones are what an auditor reads."""
    tiers = TierMap(data)
    acc: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for f in facts.get(FactKind.FLOW_CONVERSATION, ()):
        c = f.record
        if not isinstance(c, FlowConversation):
            continue
        key = (tiers.of(c.src_addr), tiers.of(c.dst_addr), c.action)
        n = acc[key]
        n[0] += 1
        n[1] += c.records
        n[2] += c.packets
    rows = [FlowClassRow(s, d, a, *n) for (s, d, a), n in acc.items()]
    # cross-zone first, then by size
    return sorted(
        rows,
        key=lambda r: (r.source == r.destination, r.action != "ACCEPT", -r.records, r.source, r.destination),
    )


def _stores(data: ReportData, facts: Facts) -> list[LogStoreRow]:
    groups = by_check(data.findings)
    status_of = {f.subject: f.status for f in groups.get("X-FLOWLOGS-IMMUTABLE", [])}
    rows = []
    for f in facts.get(FactKind.AWS_FLOW_LOG_DESTINATION, ()):
        d = f.record
        if not isinstance(d, AwsFlowLogDestination):
            continue
        if d.destination_type == "s3":
            lock = (
                f"Object Lock {d.object_lock_mode or 'on'}" if d.object_lock_enabled else "no Object Lock"
            ) + (f", versioning {d.versioning}" if d.versioning else "")
            keep = f"{d.object_lock_days} days" if d.object_lock_days else "no retention period"
        else:
            lock = "log group (deletable by its owner)"
            keep = f"{d.retention_days} days" if d.retention_days else "never expires"
        rows.append(LogStoreRow(d.destination, d.destination_type, lock, keep, status_of.get(d.subject())))
    return sorted(rows, key=lambda r: (STATUS_RANK.get(r.status, 9) if r.status else 9, r.destination))


def flow_analysis(data: ReportData, facts: Facts) -> FlowAnalysis:
    groups = by_check(data.findings)
    findings = [
        FlowFindingRow(label, check, f.subject, f.found, f.status)
        for check, label in FLOW_CHECKS.items()
        for f in groups.get(check, [])
        if f.status is not Status.PASS and f.status is not Status.NOT_APPLICABLE and " -> " in f.subject
    ]
    findings.sort(key=lambda r: (STATUS_RANK[r.status], r.check_id, r.subject))
    enabled = groups.get("X-FLOWLOGS-ENABLED", [])
    _, result = outcome(groups, ["X-FLOWLOGS-ENABLED"])
    missing = [f.subject for f in enabled if f.status is Status.FAIL]
    coverage = f"flow logs on every VPC: {result}"
    if missing:
        coverage += f"; without: {words(missing, 4)}"
    retention = (
        (data.intent.get("flow_logs") or {}) if isinstance(data.intent.get("flow_logs"), dict) else {}
    ).get("retention_days", 365 if data.intent else None)
    return FlowAnalysis(
        sources=_sources(facts),
        classes=_classes(data, facts),
        findings=findings[:FLOW_ROWS],
        stores=_stores(data, facts),
        coverage=coverage,
        retention_days=int(retention) if retention is not None else None,
        findings_total=len(findings),
    )
