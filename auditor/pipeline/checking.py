"""Evaluate checks on a stored run: facts and intent are read back from the store, never from memory,
so `auditor check --run N` on an old run gives the same findings as the audit did."""

from __future__ import annotations

from sqlalchemy import Engine

from auditor.config.models import Intent
from auditor.enums import Status, TargetStatus, Tier
from auditor.store.reader import RunReader
from auditor.store.writer import FindingRow
from checks.base import Check, CheckContext, FactView, TargetView
from checks.runner import Verdict, run_checks


def load_context(engine: Engine, run_id: int, intent: Intent | None = None) -> CheckContext:
    reader = RunReader(engine, run_id)
    if intent is None:
        intent = Intent.model_validate(reader.run_row().config.get("intent", {}))
    targets = tuple(
        TargetView(
            name=t.name,
            kind=t.kind,
            platform=t.platform,
            tier=Tier(t.tier) if t.tier else None,
            role=t.role,
            status=TargetStatus(t.status),
            reason=t.reason,
        )
        for t in reader.targets()
    )
    # each kind is read when a check first asks for it, and let go once no check still to run needs it
    facts = FactView(load=lambda kind: reader.facts((kind,)), counts=reader.fact_counts)
    return CheckContext(intent=intent, facts=facts, targets=targets)


def evaluate_run(
    engine: Engine,
    run_id: int,
    checks: list[Check],
    only: set[str] | None = None,
    intent: Intent | None = None,
) -> list[Verdict]:
    return run_checks(load_context(engine, run_id, intent), checks, only)


def to_rows(verdicts: list[Verdict]) -> list[FindingRow]:
    rows = []
    for v in verdicts:
        f = v.finding
        merged_in = {e for x in f.facts for e in x.also_from}
        evidence = sorted({(x.capture_seq, x.capture_sha256) for x in f.facts} | merged_in)
        rows.append(
            FindingRow(
                check_id=v.meta.id,
                status=f.status.value,
                severity=v.meta.severity.value,
                tier=v.meta.tier.value,
                target=f.target,
                subject=f.subject,
                message=f.message,
                expected=f.expected,
                found=f.found,
                fact_ids=[x.id for x in f.facts],
                evidence=[{"seq": seq, "sha256": sha} for seq, sha in evidence],
            )
        )
    return rows


def exit_code(statuses: list[Status], run_complete: bool) -> int:
    """0 all assessed and passing; 1 failing findings; 3 evidence incomplete (2 is for config/usage)."""
    if Status.FAIL in statuses:
        return 1
    if not run_complete or Status.NOT_ASSESSED in statuses or Status.ERROR in statuses:
        return 3
    return 0
