"""What changed since the previous run of the same scope, as alert events: new failing findings, accepted
flows into tier 1 or tier 3 that are not authorised, targets that answered before and failed now, and
waivers that were in force at the previous run and have expired since. Read from the store only, so the
same run gives the same events whoever asks."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from sqlalchemy import Engine, select

from auditor.config.alerts import AlertSettings, EventKind
from auditor.config.models import Waiver
from auditor.enums import RunStatus, Severity, Status, TargetStatus
from auditor.pipeline.diff import RunDiff, diff_findings
from auditor.pipeline.waivers import matches, run_date, stored_waivers
from auditor.store.models import Finding, Run, Target

# The flow-log checks: an accepted flow into OOB space (tier 1) or the backend fabric (tier 3) from where
# it is not authorised. A new failure of one of these is its own kind of alert.
FLOW_CHECKS = frozenset({"T1-OOB-FLOWS-AUTHORIZED", "X-FLOWS-NO-CROSS-TIER"})
COMPARABLE = (RunStatus.COMPLETE.value, RunStatus.PARTIAL.value)  # a failed run is no baseline
RANK = {
    s: i
    for i, s in enumerate((Severity.INFO, Severity.LOW, Severity.MEDIUM, Severity.HIGH, Severity.CRITICAL))
}
TITLES: dict[EventKind, str] = {
    "new_failure": "new failure",
    "unauthorised_flow": "unauthorised flow",
    "target_unreachable": "target stopped answering",
    "waiver_expired": "waiver expired",
}


@dataclass(frozen=True)
class AlertEvent:
    kind: EventKind
    severity: Severity
    check_id: str | None = None
    target: str | None = None
    subject: str | None = None
    detail: str = ""  # what was found, why the target failed, which waiver expired

    def headline(self) -> str:
        where = " ".join(p for p in (self.check_id, self.target and f"on {self.target}") if p)
        subject = f" ({self.subject})" if self.subject and self.subject != self.target else ""
        return f"{TITLES[self.kind]}: {where}{subject}"

    def json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "severity": self.severity.value,
            "check_id": self.check_id,
            "target": self.target,
            "subject": self.subject,
            "detail": self.detail,
        }


@dataclass
class RunAlert:
    run_id: int
    scope: str
    status: str
    chain_head: str | None
    previous_run_id: int | None
    events: list[AlertEvent] = field(default_factory=list)

    def count(self, kind: EventKind) -> int:
        return sum(1 for e in self.events if e.kind == kind)

    def json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "scope": self.scope,
            "status": self.status,
            "chain_head": self.chain_head,
            "previous_run_id": self.previous_run_id,
            "counts": {k: self.count(k) for k in TITLES},
            "events": [e.json() for e in self.events],
        }


def previous_run(engine: Engine, run_id: int, scope: str) -> int | None:
    """The latest earlier run of the scope that was sealed complete or partial (None: the first run)."""
    with engine.connect() as conn:
        value = conn.execute(
            select(Run.id)
            .where(
                Run.scope == scope, Run.id < run_id, Run.sealed_at.is_not(None), Run.status.in_(COMPARABLE)
            )
            .order_by(Run.id.desc())
            .limit(1)
        ).scalar()
    return int(value) if value is not None else None


def _severity(value: str) -> Severity:
    try:
        return Severity(value)
    except ValueError:
        return Severity.HIGH


def changes_since_previous(engine: Engine, run_id: int, settings: AlertSettings) -> RunAlert:
    with engine.connect() as conn:
        run = conn.execute(select(Run.__table__).where(Run.id == run_id)).one()
    prev = previous_run(engine, run_id, run.scope)
    alert = RunAlert(run_id, run.scope, run.status, run.chain_head, prev)
    if prev is None and not settings.first_run:
        return alert
    wanted = set(settings.events)
    floor = RANK[settings.min_severity]
    events: list[AlertEvent] = []
    if wanted & {"new_failure", "unauthorised_flow"}:
        events += _new_failures(engine, prev, run_id, wanted, floor)
    if "target_unreachable" in wanted and prev is not None:
        events += _stopped_answering(engine, prev, run_id)
    if "waiver_expired" in wanted:
        events += _expired_waivers(engine, prev, run, run_id)
    order = list(TITLES)
    events.sort(key=lambda e: (order.index(e.kind), -RANK[e.severity], e.check_id or "", e.target or ""))
    alert.events = events
    return alert


def _new_failures(
    engine: Engine, prev: int | None, run_id: int, wanted: set[EventKind], floor: int
) -> list[AlertEvent]:
    diff = RunDiff(prev or 0, run_id, 0)
    diff_findings(engine, prev or 0, run_id, diff)  # no previous run (id 0 holds nothing): every FAIL is new
    out = []
    for change in diff.new_failures:
        severity = _severity(change.severity)
        if change.waived or RANK[severity] < floor:
            continue  # a waived failure is an accepted risk, not news
        kind: EventKind = "unauthorised_flow" if change.check_id in FLOW_CHECKS else "new_failure"
        if kind in wanted:
            out.append(
                AlertEvent(kind, severity, change.check_id, change.target, change.subject, change.found)
            )
    return out


def _stopped_answering(engine: Engine, prev: int, run_id: int) -> list[AlertEvent]:
    query = select(Target.run_id, Target.kind, Target.name, Target.status, Target.reason).where(
        Target.run_id.in_([prev, run_id])
    )
    with engine.connect() as conn:
        rows = list(conn.execute(query))
    before = {(r.kind, r.name): r.status for r in rows if r.run_id == prev}
    answered = (TargetStatus.OK.value, TargetStatus.PARTIAL.value)
    return [
        AlertEvent("target_unreachable", Severity.HIGH, None, r.name, r.kind, r.reason or "")
        for r in rows
        if r.run_id == run_id
        and r.status == TargetStatus.FAILED.value
        and before.get((r.kind, r.name)) in answered
    ]


def _expired_waivers(engine: Engine, prev: int | None, run: Any, run_id: int) -> list[AlertEvent]:
    today = run_date(engine, run_id)
    since: date | None = run_date(engine, prev) if prev is not None else None
    expired = [
        w for w in stored_waivers(run.config) if w.expires < today and (since is None or w.expires >= since)
    ]
    if not expired:
        return []
    query = select(Finding.check_id, Finding.target, Finding.subject, Finding.waiver).where(
        Finding.run_id == run_id, Finding.status == Status.FAIL.value
    )
    with engine.connect() as conn:  # waiver is JSON: a stored null is not SQL NULL everywhere, so test here
        fails = [f for f in conn.execute(query) if f.waiver is None]
    return [_waiver_event(w, fails) for w in expired]


def _waiver_event(w: Waiver, fails: list[Any]) -> AlertEvent:
    hits = sum(1 for f in fails if matches(w, f.check_id, f.target, f.subject))
    detail = (
        f"waiver by {w.owner} ({w.reason}) expired on {w.expires.isoformat()}; "
        f"{hits} failure(s) it covered count again"
    )
    target = None if w.target == "*" else w.target
    subject = None if w.subject == "*" else w.subject
    return AlertEvent("waiver_expired", Severity.MEDIUM, w.check, target, subject, detail)
