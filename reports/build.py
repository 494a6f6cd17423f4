"""Read a finished run from the store into ReportData: the one query path every renderer shares."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Engine

from auditor.enums import RunStatus, Severity, Status, TargetStatus, Tier
from auditor.store.reader import RunReader
from checks.base import Check
from reports.model import CheckInfo, EvidenceRef, FindingInfo, ProblemInfo, ReportData, RunInfo, TargetInfo


def _utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def build_report_data(engine: Engine, run_id: int, checks: list[Check]) -> ReportData:
    reader = RunReader(engine, run_id)
    run = reader.run_row()
    by_id = {c.meta.id: c.meta for c in checks}
    captures = {c.seq: c for c in reader.captures(with_content=False)}
    counts = reader.capture_counts()
    declared = [
        Tier(t)
        for t in ("oob", "frontend", "backend")
        if (run.config.get("intent", {}).get("tiers") or {}).get(t)
    ]
    findings = []
    for f in reader.findings():
        meta = by_id.get(f.check_id)
        refs = [
            EvidenceRef(
                seq=e["seq"],
                sha256=e["sha256"],
                source=captures[e["seq"]].source,
                origin=captures[e["seq"]].origin,
            )
            for e in f.evidence
            if e["seq"] in captures
        ]
        findings.append(
            FindingInfo(
                check_id=f.check_id,
                title=meta.title if meta else f.check_id,
                tier=Tier(f.tier),
                severity=Severity(f.severity),
                status=Status(f.status),
                subject=f.subject,
                target=f.target,
                message=f.message,
                expected=f.expected,
                found=f.found,
                fact_ids=list(f.fact_ids),
                evidence=refs,
            )
        )
    used = sorted({f.check_id for f in findings} | set(by_id))
    info = RunInfo(
        id=run.id,
        status=RunStatus(run.status),
        started_at=_utc(run.started_at) or datetime.now(UTC),
        finished_at=_utc(run.finished_at),
        scope=run.scope,
        tool_version=run.tool_version,
        config_sha256=run.config_sha256,
        chain_head=run.chain_head,
        facts_digest=run.facts_digest,
        findings_digest=run.findings_digest,
        capture_count=run.capture_count,
        fact_count=run.fact_count,
        declared_tiers=declared,
    )
    return ReportData(
        run=info,
        targets=[
            TargetInfo(
                name=t.name,
                kind=t.kind,
                platform=t.platform,
                tier=Tier(t.tier) if t.tier else None,
                role=t.role,
                status=TargetStatus(t.status),
                reason=t.reason,
                captures=counts.get(t.id, 0),
            )
            for t in reader.targets()
        ],
        checks=[
            CheckInfo(m.id, m.title, m.tier, m.severity, m.rationale, m.remediation)
            for m in (by_id[i] for i in used if i in by_id)
        ],
        findings=findings,
        problems=[ProblemInfo(p.target, p.location, p.message, p.hint) for p in reader.problems()],
        generated_at=datetime.now(UTC),
        summary=ReportData.summarize(findings),
    )
