"""`auditor audit`: one whole run, from the config to a sealed run and its reports."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import Engine

from auditor.config.models import AuditConfig
from auditor.enums import RunStatus, Status, TargetKind, TargetStatus
from auditor.errors import ConfigError
from auditor.evidence.chain import canonical_json
from auditor.evidence.redact_config import redact_config
from auditor.evidence.signing import pinned_key, signer_for
from auditor.normalize import normalizer_registry
from auditor.ops.alerts import send_alerts
from auditor.pipeline.checking import evaluate_run, exit_code, to_rows
from auditor.pipeline.collect import DEFAULT_WORKERS, Collect, collect_targets
from auditor.pipeline.progress import NoProgress, Progress
from auditor.pipeline.resume import StoredTarget, check_resumable, has_findings, stored_targets
from auditor.pipeline.waivers import Waived, WaiverNote, apply_waivers, run_date
from auditor.store.engine import open_store
from auditor.store.lease import Heartbeat
from auditor.store.scope_lock import ScopeLock
from auditor.store.writer import RunWriter, Seal
from checks.base import check_registry
from checks.runner import Verdict
from collectors.base import Collector, Plan, TargetSpec, collector_registry
from reports.render import check_formats, render_reports

log = logging.getLogger(__name__)


@dataclass
class AuditOutcome:
    run_id: int
    seal: Seal
    statuses: list[Status]
    exit_code: int
    reports: list[Path] = field(default_factory=list)
    waivers: list[WaiverNote] = field(default_factory=list)  # what each configured waiver did


def config_snapshot(config: AuditConfig) -> tuple[dict[str, object], str]:
    """The validated config as stored with the run (it holds references, never secrets) and its hash.

    Redacted all the same: a password in the `store:` URL or a token pasted into a field stays out."""
    data = redact_config(config.model_dump(mode="json"))
    return data, hashlib.sha256(canonical_json(data)).hexdigest()


def plan_targets(config: AuditConfig, collectors: dict[str, Collector]) -> Plan:
    """Ask every collector for its targets. A live source with no installed collector is a failed target,
    so its checks come out NOT_ASSESSED instead of silently passing."""
    plan = Plan()
    for collector in collectors.values():
        part = collector.plan(config)
        plan.targets += part.targets
        plan.problems += part.problems
    seen: dict[tuple[TargetKind, str], TargetSpec] = {}
    for t in plan.targets:
        key = (t.kind, t.name)
        if key in seen:
            raise ConfigError(
                f"{t.kind.value} {t.name!r} is planned by both {seen[key].collector!r} and {t.collector!r}",
                hint="give it only as a live source or only as offline files",
            )
        seen[key] = t
    return plan


def run_audit(
    config: AuditConfig,
    *,
    engine: Engine | None = None,
    progress: Progress | None = None,
    workers: int = DEFAULT_WORKERS,
    render: bool = True,
    resume: int | None = None,
    wait: bool = False,
    on_wait: Callable[[str], None] | None = None,
    collect: Collect | None = None,
) -> AuditOutcome:
    """One audit under the scope lock (one audit per scope per store; `wait` waits for the holder instead
    of raising ScopeBusy), with a heartbeat on the run's lease until it is sealed. `resume` finishes an
    interrupted run instead of starting a new one (see resume.py). `collect` is the executor: threads
    here (collect_targets) by default, or Celery workers (auditor/distributed)."""
    progress = progress or NoProgress()
    engine = engine or open_store(config.store_url())
    collectors: dict[str, Collector] = {name: cls() for name, cls in collector_registry().items()}
    if render:
        check_formats(config.reports)
    signer = signer_for(config)  # before collection: a missing signing key stops the audit at once
    pin = pinned_key(None, config)  # the reports say "verified" only against this key, when one is set
    plan = plan_targets(config, collectors)
    snapshot, digest = config_snapshot(config)
    with ScopeLock(engine, config.scope) as lock:
        lock.acquire(wait=wait, on_wait=on_wait)
        resumed: dict[tuple[str, str], StoredTarget] | None = None
        if resume is None:
            writer = RunWriter.start(
                engine, config=snapshot, config_sha256=digest, scope=config.scope, signer=signer
            )
        else:  # checked under the lock: nobody else can be resuming it
            check_resumable(engine, resume, digest, pin)
            resumed = stored_targets(engine, resume)
            writer = RunWriter.resume(engine, resume, signer)
        heartbeat = Heartbeat(engine, writer.run_id, ping=lock.ping).start()
        writer.on_batch = heartbeat.beat
        try:
            seal, verdicts, waived = _run(
                config, engine, writer, plan, collectors, progress, workers, resumed, heartbeat, collect
            )
        finally:
            heartbeat.stop()
    statuses = [v.finding.status for v in verdicts]
    code = exit_code(waived.exit_statuses(), seal.status == RunStatus.COMPLETE)  # waived failures do not fail
    outcome = AuditOutcome(writer.run_id, seal, statuses, code, waivers=waived.notes)
    send_alerts(config, engine, writer.run_id)  # sealed: what changed since the last run; never raises
    if render:
        progress.phase("reporting")
        output = config.resolve(config.output)
        outcome.reports = render_reports(engine, writer.run_id, config.reports, output, pin)
    return outcome


def _run(
    config: AuditConfig,
    engine: Engine,
    writer: RunWriter,
    plan: Plan,
    collectors: dict[str, Collector],
    progress: Progress,
    workers: int,
    resumed: dict[tuple[str, str], StoredTarget] | None,
    heartbeat: Heartbeat,
    collect: Collect | None = None,
) -> tuple[Seal, list[Verdict], Waived]:
    """Collect, check and seal one run; an interruption or an error seals it as such (evidence kept)."""
    checks = [c for _, c in check_registry().items()]
    try:
        if resumed is None:
            writer.add_problems(None, plan.problems)  # a resumed run stored them when it started
        progress.planned(sum(1 for t in plan.targets if not _finished(resumed, t)))
        outcomes = (collect or collect_targets)(  # looked up now: benchmarks wrap collect_targets
            plan.targets, collectors, writer, normalizer_registry(), progress, workers, resumed
        )
        progress.phase("checking")
        heartbeat.beat()
        verdicts = evaluate_run(engine, writer.run_id, checks, intent=config.intent)
        waived = apply_waivers(to_rows(verdicts), config.waivers, run_date(engine, writer.run_id))
        if resumed is None or not has_findings(engine, writer.run_id):  # stored once, from the same facts
            writer.add_findings(waived.rows)
        heartbeat.beat()
        status = _run_status([o.status for o in outcomes.values()], bool(plan.problems))
        seal = writer.seal(status)
    except KeyboardInterrupt:
        if not writer.sealed:
            writer.seal(
                RunStatus.INTERRUPTED, "interrupted by the operator; evidence collected so far is kept"
            )
        raise
    except Exception as exc:
        if not writer.sealed:
            writer.seal(RunStatus.FAILED, f"{type(exc).__name__}: {exc}")
        raise
    return seal, verdicts, waived


def _finished(resumed: dict[tuple[str, str], StoredTarget] | None, t: TargetSpec) -> bool:
    before = (resumed or {}).get((t.kind.value, t.name))
    return before is not None and before.finished


def _run_status(statuses: list[TargetStatus], plan_problems: bool) -> RunStatus:
    if not statuses:
        return RunStatus.FAILED
    if all(s == TargetStatus.FAILED for s in statuses):
        return RunStatus.FAILED
    if plan_problems or any(s != TargetStatus.OK for s in statuses):
        return RunStatus.PARTIAL
    return RunStatus.COMPLETE
