"""The report data model: everything a renderer needs about one finished run, read once from the store.

Renderers (JSON, PDF, and later OSCAL, CSV, JUnit) only format this; they never query the store."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from auditor.enums import RunStatus, Severity, Status, TargetStatus, Tier

REPORT_SCHEMA_VERSION = "1.0"


@dataclass(frozen=True)
class CheckInfo:
    id: str
    title: str
    tier: Tier
    severity: Severity
    rationale: str
    remediation: str


@dataclass(frozen=True)
class TargetInfo:
    name: str
    kind: str
    platform: str | None
    tier: Tier | None
    role: str | None
    status: TargetStatus
    reason: str | None
    captures: int


@dataclass(frozen=True)
class EvidenceRef:
    """A capture a finding rests on: its position in the chain and its content hash."""

    seq: int
    sha256: str
    source: str
    origin: str


@dataclass(frozen=True)
class FindingInfo:
    check_id: str
    title: str
    tier: Tier
    severity: Severity
    status: Status
    subject: str
    target: str | None
    message: str
    expected: str
    found: str
    fact_ids: list[int]
    evidence: list[EvidenceRef]


@dataclass(frozen=True)
class ProblemInfo:
    """An evidence gap: something that could not be collected or read."""

    target: str | None
    location: str
    message: str
    hint: str


@dataclass(frozen=True)
class RunInfo:
    id: int
    status: RunStatus
    started_at: datetime
    finished_at: datetime | None
    scope: str
    tool_version: str
    config_sha256: str
    chain_head: str | None
    facts_digest: str | None
    findings_digest: str | None
    capture_count: int
    fact_count: int
    declared_tiers: list[Tier]


@dataclass(frozen=True)
class ReportData:
    run: RunInfo
    targets: list[TargetInfo]
    checks: list[CheckInfo]
    findings: list[FindingInfo]
    problems: list[ProblemInfo]
    generated_at: datetime
    schema_version: str = REPORT_SCHEMA_VERSION
    summary: dict[str, dict[str, int]] = field(default_factory=dict)  # tier -> status -> count

    @staticmethod
    def summarize(findings: list[FindingInfo]) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {t.value: {s.value: 0 for s in Status} for t in Tier}
        for f in findings:
            out[f.tier.value][f.status.value] += 1
        return out
