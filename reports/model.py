"""The report data model: everything a renderer needs about one finished run, read once from the store.

Renderers (JSON, PDF, and later OSCAL, CSV, JUnit) only format this; they never query the store."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from enum import StrEnum
from typing import Any

from auditor.enums import RunStatus, Severity, Status, TargetStatus, Tier, WaiverState
from reports.sections.records import Sections, TrendPoint

REPORT_SCHEMA_VERSION = "1.2"


class RequirementStatus(StrEnum):
    """A requirement's result: the worst outcome of its checks. WAIVED: its only failures are waived."""

    FAIL = "FAIL"
    ERROR = "ERROR"
    NOT_ASSESSED = "NOT_ASSESSED"
    WAIVED = "WAIVED"
    PASS = "PASS"  # noqa: S105 (a status, not a password)
    NOT_APPLICABLE = "NOT_APPLICABLE"


@dataclass(frozen=True)
class CheckInfo:
    id: str
    title: str
    tier: Tier
    severity: Severity
    rationale: str
    remediation: str
    needs: tuple[str, ...] = ()  # the fact kinds it reads (the shared-responsibility matrix maps by them)


@dataclass(frozen=True)
class CaptureInfo:
    """One capture of the run, for the chain of custody: what was asked, of whom, when, and its hash."""

    seq: int
    target: str
    target_kind: str
    source: str  # the command or API call
    origin: str
    format: str
    collected_at: datetime | None
    sha256: str
    size: int


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
    notes: list[str] = field(default_factory=list)  # e.g. an explicit SSH host-key opt-out


@dataclass(frozen=True)
class EvidenceRef:
    """A capture a finding rests on: its position in the chain and its content hash."""

    seq: int
    sha256: str
    source: str
    origin: str


@dataclass(frozen=True)
class WaiverInfo:
    """The waiver that applied to a failing finding: an accepted risk, with an owner and an end date."""

    check: str
    target: str
    subject: str
    owner: str
    reason: str
    expires: date


@dataclass(frozen=True)
class WaiverUse:
    """A configured waiver as the run saw it: in force or expired on the run's date, and its matches."""

    index: int
    waiver: WaiverInfo
    state: WaiverState
    matched: int


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
    waiver: WaiverInfo | None = None  # set on a FAIL that a waiver in force covers

    @property
    def waived(self) -> bool:
        return self.waiver is not None


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
    organisation: str = ""  # from the run's config, for the cover; empty when not configured
    audit_period: tuple[date, date] | None = None  # first and last day the audit covers


@dataclass(frozen=True)
class CheckOutcome:
    """One mapped check's findings in this run; `evaluated` is False when the check did not run."""

    check_id: str
    evaluated: bool
    counts: dict[Status, int]
    waived: int


@dataclass(frozen=True)
class RequirementResult:
    """A framework requirement, the checks that evidence it, and the worst of their outcomes."""

    id: str
    title: str
    note: str
    checks: list[CheckOutcome]
    result: RequirementStatus


@dataclass(frozen=True)
class FrameworkResult:
    key: str
    framework: str
    title: str
    version: str
    source: str
    requirements: list[RequirementResult]


@dataclass(frozen=True)
class Mismatch:
    what: str
    detail: str
    seq: int | None
    target: str | None
    source: str | None


@dataclass(frozen=True)
class Verification:
    """The evidence chain recomputed when the report was built: every hash, the chain, seal and digests."""

    verified: bool
    captures_checked: int
    mismatch: Mismatch | None  # the first thing that did not match
    signature: str = "unsigned"  # "unsigned", or who signed the seal and whether that key was pinned


@dataclass(frozen=True)
class TargetRedactions:
    """What redaction took out of one target's captures: counts per rule, never the values."""

    target: str
    captures: int  # stored captures
    redacted_captures: int  # of which at least one secret was replaced
    redactions: int
    by_rule: dict[str, int]
    refused: int  # captures not stored because they could not be redacted safely


@dataclass(frozen=True)
class RedactionReport:
    """The run's redaction report (since schema 1.2): totals, per rule and per target."""

    redactions: int
    by_rule: dict[str, int]
    refused: int
    targets: list[TargetRedactions]


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
    controls: list[FrameworkResult] = field(default_factory=list)
    waivers: list[WaiverUse] = field(default_factory=list)
    verification: Verification | None = None  # None: not verified (e.g. rendered outside a store)
    redactions: RedactionReport | None = None  # None: built without a store
    intent: dict[str, Any] = field(default_factory=dict)  # the run's declared intent, as stored
    captures: list[CaptureInfo] = field(default_factory=list)  # the chain of custody, in chain order
    history: list[TrendPoint] = field(default_factory=list)  # earlier runs of the same scope, oldest first
    sections: Sections | None = None  # derived from the run's facts (reports.sections); None: not derived

    @staticmethod
    def summarize(findings: list[FindingInfo]) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {t.value: {s.value: 0 for s in Status} for t in Tier}
        for f in findings:
            out[f.tier.value][f.status.value] += 1
        return out
