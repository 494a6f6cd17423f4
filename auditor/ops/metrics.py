"""What a scope's latest finished run says, as numbers for Prometheus: read from the store (never from a
process's memory), so the textfile written by `auditor audit` and the scheduler's /metrics agree, and a
restarted scheduler serves the same figures at once."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from auditor.enums import RunStatus, Severity, Status, TargetStatus
from auditor.store.models import Run, Target
from checks.base import check_registry
from reports.build import build_report_data
from reports.model import RequirementStatus

# A run that collected and checked (PARTIAL: some targets not assessed, which targets_not_assessed shows)
SUCCESS = (RunStatus.COMPLETE.value, RunStatus.PARTIAL.value)
# Requirements that count as met for the framework compliance ratio; NOT_APPLICABLE ones count neither way
MET = (RequirementStatus.PASS, RequirementStatus.WAIVED)


@dataclass(frozen=True)
class TargetTiming:
    source: str  # the target's kind: device, aws, kubernetes, flow-logs, ib-fabric, declared
    target: str
    status: str
    seconds: float | None  # None: the target never finished (an interrupted run)


@dataclass(frozen=True)
class ScopeMetrics:
    """One scope's figures: its latest sealed run, and when a run of it last succeeded."""

    scope: str  # the `scope` label (short), not the config's free-text scope
    run_id: int
    run_status: str
    started_at: datetime
    sealed_at: datetime | None
    last_success: datetime | None
    findings: Counter[tuple[str, str]] = field(default_factory=Counter)  # (severity, status) -> count
    waived: Counter[str] = field(default_factory=Counter)  # severity -> waived FAIL findings
    tier_compliance: dict[str, float] = field(default_factory=dict)  # tier -> ratio (tiers with findings)
    frameworks: dict[str, Counter[str]] = field(default_factory=dict)  # framework key -> result -> count
    targets: list[TargetTiming] = field(default_factory=list)

    @property
    def not_assessed(self) -> int:
        """Targets whose evidence is missing or incomplete (collection failed, partly or wholly)."""
        return sum(1 for t in self.targets if t.status != TargetStatus.OK.value)

    def framework_ratio(self, key: str) -> float | None:
        counts = self.frameworks[key]
        relevant = sum(n for r, n in counts.items() if r != RequirementStatus.NOT_APPLICABLE.value)
        return sum(counts[r.value] for r in MET) / relevant if relevant else None


def _utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _latest(engine: Engine, scope_text: str, statuses: tuple[str, ...] | None) -> Run | None:
    query = select(Run).where(Run.scope == scope_text, Run.sealed_at.is_not(None))
    if statuses is not None:
        query = query.where(Run.status.in_(statuses))
    with Session(engine) as session:
        return session.scalars(query.order_by(Run.id.desc()).limit(1)).first()


def scope_metrics(engine: Engine, scope_text: str, label: str) -> ScopeMetrics | None:
    """The figures of the latest sealed run of `scope_text` (the config's `scope:`), None if it has none."""
    run = _latest(engine, scope_text, None)
    if run is None:
        return None
    success = run if run.status in SUCCESS else _latest(engine, scope_text, SUCCESS)
    data = build_report_data(engine, run.id, [c for _, c in check_registry().items()], verify=False)
    findings: Counter[tuple[str, str]] = Counter()
    waived: Counter[str] = Counter()
    per_tier: dict[str, list[int]] = {}  # tier -> [met, relevant]
    for f in data.findings:
        findings[(f.severity.value, f.status.value)] += 1
        if f.waived:
            waived[f.severity.value] += 1
        if f.status is not Status.NOT_APPLICABLE:  # an undeclared tier's checks count neither way
            tally = per_tier.setdefault(f.tier.value, [0, 0])
            tally[0] += f.status is Status.PASS or f.waived
            tally[1] += 1
    tier_compliance = {tier: met / relevant for tier, (met, relevant) in per_tier.items()}
    frameworks = {fw.key: Counter(r.result.value for r in fw.requirements) for fw in data.controls}
    targets = []
    with engine.connect() as conn:
        for t in conn.execute(select(Target.__table__).where(Target.run_id == run.id).order_by(Target.id)):
            start, end = _utc(t.started_at), _utc(t.finished_at)
            seconds = (end - start).total_seconds() if start and end else None
            targets.append(TargetTiming(t.kind, t.name, t.status, seconds))
    return ScopeMetrics(
        scope=label,
        run_id=run.id,
        run_status=run.status,
        started_at=_utc(run.started_at) or datetime.now(UTC),
        sealed_at=_utc(run.sealed_at),
        last_success=_utc(success.sealed_at) if success is not None else None,
        findings=findings,
        waived=waived,
        tier_compliance=tier_compliance,
        frameworks=frameworks,
        targets=targets,
    )


def scope_label(config_path: Path, configured: str | None) -> str:
    """The `scope` label: `metrics.scope_label`, else the config file's directory name (short and stable
    where the config's `scope:` text is a paragraph)."""
    return configured or config_path.resolve().parent.name or "default"


SEVERITIES = [s.value for s in Severity]
STATUSES = [s.value for s in Status]
RUN_STATUSES = [s.value for s in RunStatus]
