"""`auditor audit`: one whole run, from the config to a sealed run and its reports."""

from __future__ import annotations

import hashlib
import logging
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
from auditor.pipeline.checking import evaluate_run, exit_code, to_rows
from auditor.pipeline.collect import DEFAULT_WORKERS, collect_targets
from auditor.pipeline.progress import NoProgress, Progress
from auditor.pipeline.waivers import WaiverNote, apply_waivers, run_date
from auditor.store.engine import open_store
from auditor.store.writer import RunWriter, Seal
from checks.base import check_registry
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
) -> AuditOutcome:
    progress = progress or NoProgress()
    engine = engine or open_store(config.store_url())
    collectors: dict[str, Collector] = {name: cls() for name, cls in collector_registry().items()}
    checks = [c for _, c in check_registry().items()]
    normalizers = normalizer_registry()
    if render:
        check_formats(config.reports)
    signer = signer_for(config)  # before collection: a missing signing key stops the audit at once
    pin = pinned_key(None, config)  # the reports say "verified" only against this key, when one is set
    plan = plan_targets(config, collectors)
    snapshot, digest = config_snapshot(config)
    writer = RunWriter.start(engine, config=snapshot, config_sha256=digest, scope=config.scope, signer=signer)
    try:
        writer.add_problems(None, plan.problems)
        progress.planned(len(plan.targets))
        outcomes = collect_targets(plan.targets, collectors, writer, normalizers, progress, workers)
        progress.phase("checking")
        verdicts = evaluate_run(engine, writer.run_id, checks, intent=config.intent)
        waived = apply_waivers(to_rows(verdicts), config.waivers, run_date(engine, writer.run_id))
        writer.add_findings(waived.rows)
        status = _run_status([o.status for o in outcomes.values()], bool(plan.problems))
        seal = writer.seal(status)
    except KeyboardInterrupt:
        writer.seal(RunStatus.INTERRUPTED, "interrupted by the operator; evidence collected so far is kept")
        raise
    except Exception as exc:
        writer.seal(RunStatus.FAILED, f"{type(exc).__name__}: {exc}")
        raise
    statuses = [v.finding.status for v in verdicts]
    code = exit_code(waived.exit_statuses(), status == RunStatus.COMPLETE)  # waived failures do not fail
    outcome = AuditOutcome(writer.run_id, seal, statuses, code, waivers=waived.notes)
    if render:
        progress.phase("reporting")
        output = config.resolve(config.output)
        outcome.reports = render_reports(engine, writer.run_id, config.reports, output, pin)
    return outcome


def _run_status(statuses: list[TargetStatus], plan_problems: bool) -> RunStatus:
    if not statuses:
        return RunStatus.FAILED
    if all(s == TargetStatus.FAILED for s in statuses):
        return RunStatus.FAILED
    if plan_problems or any(s != TargetStatus.OK for s in statuses):
        return RunStatus.PARTIAL
    return RunStatus.COMPLETE
