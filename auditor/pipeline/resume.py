"""`auditor audit --resume N`: what may be resumed, and what an interrupted run already holds.

A run is resumed only when it was interrupted (sealed `interrupted`, or `running` with a dead writer, see
auditor/store/lease.py), with the same config it started with, and when its stored evidence verifies
(an interrupted seal against the store; a dead run's chain link by link): new captures must extend a
chain that is intact. Targets that finished are not collected again; a target the interruption caught
half-way is collected again, and what it already stored is not stored twice.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from sqlalchemy import Engine, func, select

from auditor.enums import RunStatus, TargetStatus
from auditor.errors import AuditorError
from auditor.evidence.verify import verify_run
from auditor.store.lease import liveness
from auditor.store.models import Capture, Finding, Problem, Run, Target

CaptureKey = tuple[str, str, str]  # (format, source, origin): one fetch of one thing from one target


class ResumeRefused(AuditorError):
    hint = "`auditor runs show N` says what the run is; start a new audit instead"


@dataclass
class StoredTarget:
    """A target of the run being resumed, as the store holds it."""

    id: int
    status: TargetStatus
    reason: str | None
    captures: Counter[CaptureKey] = field(default_factory=Counter)
    problems: set[tuple[str, str]] = field(default_factory=set)  # (location, message)
    first_problem: str | None = None

    @property
    def finished(self) -> bool:
        return self.status != TargetStatus.PENDING

    @property
    def capture_count(self) -> int:
        return sum(self.captures.values())


def check_resumable(engine: Engine, run_id: int, config_sha256: str, pin: bytes | None) -> None:
    """Refuse (ResumeRefused, exit 2) unless run `run_id` can be finished on its own chain by this config."""
    with engine.connect() as conn:
        row = conn.execute(select(Run.__table__).where(Run.id == run_id)).first()
    if row is None:
        raise ResumeRefused(f"run {run_id} does not exist in this store")
    live = liveness(row)
    if live.alive:
        raise ResumeRefused(
            f"run {run_id} is still running (process {row.pid} on {row.host}); "
            "only an interrupted run resumes",
            hint="wait for it, or stop it (SIGTERM seals it as interrupted) and resume it then",
        )
    if not live.resumable:
        raise ResumeRefused(
            f"run {run_id} is sealed as {row.status}; only an interrupted run resumes "
            "(a sealed run never changes)"
        )
    if row.config_sha256 != config_sha256:
        raise ResumeRefused(
            f"run {run_id} was started with another config (sha256 {row.config_sha256[:12]}…, this one "
            f"{config_sha256[:12]}…); a run is resumed with the config it started with",
            hint="resume with the same auditor.yaml and options (--store, --output, --format, --signing-key)",
        )
    result = verify_run(engine, run_id, pin)
    never_sealed = [m for m in result.mismatches if m.what == "chain head" and "never sealed" in m.detail]
    wrong = [m for m in result.mismatches if m not in never_sealed]
    if wrong or (row.sealed_at is not None and not result.ok):
        first = wrong[0].detail if wrong else "its seal does not verify"
        raise ResumeRefused(
            f"run {run_id} does not verify, so it is not extended: {first}",
            hint="`auditor verify --run N` names every change; start a new audit instead",
        )


def stored_targets(engine: Engine, run_id: int) -> dict[tuple[str, str], StoredTarget]:
    """The run's targets by (kind, name), with the captures and problems each already stored."""
    out: dict[tuple[str, str], StoredTarget] = {}
    by_id: dict[int, StoredTarget] = {}
    with engine.connect() as conn:
        for t in conn.execute(select(Target.__table__).where(Target.run_id == run_id).order_by(Target.id)):
            st = StoredTarget(int(t.id), TargetStatus(t.status), t.reason)
            out[(t.kind, t.name)] = by_id[st.id] = st
        captures = conn.execute(
            select(Capture.target_id, Capture.format, Capture.source, Capture.origin).where(
                Capture.run_id == run_id
            )
        )
        for target_id, fmt, source, origin in captures:
            by_id[int(target_id)].captures[(fmt, source, origin)] += 1
        problems = conn.execute(
            select(Problem.target_id, Problem.location, Problem.message)
            .where(Problem.run_id == run_id, Problem.target_id.is_not(None))
            .where(Problem.target_id.in_(list(by_id)))
            .order_by(Problem.id)
        )
        for problem_target, location, message in problems:
            st = by_id[int(problem_target or 0)]
            st.problems.add((location, message))
            if st.first_problem is None:
                st.first_problem = f"{location}: {message}"
    return out


def has_findings(engine: Engine, run_id: int) -> bool:
    """Findings are stored in one transaction after collection: present means the checks already ran."""
    with engine.connect() as conn:
        return bool(conn.execute(select(func.count()).where(Finding.run_id == run_id)).scalar_one())


def stored_status(engine: Engine, run_id: int) -> RunStatus:
    with engine.connect() as conn:
        return RunStatus(conn.execute(select(Run.status).where(Run.id == run_id)).scalar_one())
