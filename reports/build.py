"""Read a finished run from the store into ReportData: the one query path every renderer shares."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from datetime import UTC, date, datetime
from functools import lru_cache
from typing import Any, TypeVar

from sqlalchemy import Engine, func, select

from auditor.config.models import Waiver
from auditor.enums import FactKind, RunStatus, Severity, Status, TargetStatus, Tier, WaiverState
from auditor.evidence.verify import VerifyResult, verify_run
from auditor.facts import FactRecord, fact_model
from auditor.pipeline.waivers import matches, stored_waivers, waiver_json
from auditor.store.lease import liveness, shown_counts
from auditor.store.models import Capture, Fact, Finding, Run, Target
from auditor.store.reader import RunReader, StoredFact
from checks.base import Check
from checks.reconcile import reconcile
from reports.controls import control_matrix
from reports.mappings import Framework, load_frameworks
from reports.model import (
    CaptureInfo,
    CheckInfo,
    EvidenceRef,
    FindingInfo,
    Mismatch,
    ProblemInfo,
    ReportData,
    RunInfo,
    TargetInfo,
    Verification,
    WaiverInfo,
    WaiverUse,
)
from reports.redactions import redaction_report
from reports.sections import derive_sections
from reports.sections.derive import FACT_KINDS
from reports.sections.records import TrendPoint

R = TypeVar("R", bound=FactRecord)
HISTORY_RUNS = 12  # earlier runs of the same scope shown in the trend


def _utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def waiver_info(data: dict[str, Any] | Waiver) -> WaiverInfo:
    raw = waiver_json(data) if isinstance(data, Waiver) else data
    return WaiverInfo(
        check=str(raw["check"]),
        target=str(raw["target"]),
        subject=str(raw["subject"]),
        owner=str(raw["owner"]),
        reason=str(raw["reason"]),
        expires=date.fromisoformat(str(raw["expires"])),
    )


def _period(value: object) -> tuple[date, date] | None:
    """The stored config's audit_period ({start, end} as ISO dates), or None when absent."""
    if not isinstance(value, dict) or not value.get("start") or not value.get("end"):
        return None
    return date.fromisoformat(str(value["start"])), date.fromisoformat(str(value["end"]))


def waiver_uses(config: dict[str, Any], started: datetime, findings: list[FindingInfo]) -> list[WaiverUse]:
    """Each waiver of the run's config: in force or expired on the run's date, and what it matched.

    Waivers in force count the findings that carry them; expired ones the failures they would cover."""
    as_of = (_utc(started) or started).date()
    uses = []
    for i, w in enumerate(stored_waivers(config)):
        info = waiver_info(w)
        if w.expires >= as_of:
            matched = sum(1 for f in findings if f.waiver == info)
            state = WaiverState.ACTIVE
        else:
            matched = sum(
                1
                for f in findings
                if f.status is Status.FAIL
                and f.waiver is None
                and matches(w, f.check_id, f.target, f.subject)
            )
            state = WaiverState.EXPIRED
        uses.append(WaiverUse(i, info, state, matched))
    return uses


def verification(
    engine: Engine, run_id: int, pubkey: bytes | None = None, result: VerifyResult | None = None
) -> Verification:
    """Recompute the chain now (unless the caller just did), so the pack says whether its evidence
    still matches the seal."""
    result = result if result is not None else verify_run(engine, run_id, pubkey)
    first = result.mismatches[0] if result.mismatches else None
    return Verification(
        verified=result.ok,
        captures_checked=result.captures_checked,
        mismatch=Mismatch(first.what, first.detail, first.seq, first.target, first.source) if first else None,
        signature=result.signature_text(),
    )


# Flat records (no nested models) the sections read by the hundred thousand at fleet size: built without
# validation (they were validated when stored, and the seal covers them), ten times faster than typed.
FLAT_KINDS = frozenset(
    {FactKind.INTERFACE, FactKind.QOS_INTERFACE, FactKind.VRF, FactKind.VLAN, FactKind.FLOW_CONVERSATION}
)


@lru_cache(maxsize=64)
def _defaults(model: type[FactRecord]) -> dict[str, Any]:
    return {
        n: f.get_default(call_default_factory=True)
        for n, f in model.model_fields.items()
        if not f.is_required()
    }


def unchecked(model: type[R], values: dict[str, Any]) -> R:
    """A record from stored values without validation or copying (pydantic's model_construct, minus its
    per-field work: 17 times faster). Defaults are shared between records: fine, records are frozen."""
    record = model.__new__(model)
    fields = dict(_defaults(model))
    fields.update(values)
    object.__setattr__(record, "__dict__", fields)
    object.__setattr__(record, "__pydantic_fields_set__", set(values))
    object.__setattr__(record, "__pydantic_extra__", None)
    object.__setattr__(record, "__pydantic_private__", None)
    return record


def flat_facts(engine: Engine, run_id: int, kinds: Iterable[FactKind]) -> list[StoredFact[FactRecord]]:
    """The run's facts of these flat kinds, as records built without validation."""
    query = (
        select(
            Fact.id, Fact.kind, Fact.data, Target.name, Capture.seq, Capture.content_sha256, Capture.format
        )
        .join(Target, Target.id == Fact.target_id)
        .join(Capture, Capture.id == Fact.capture_id)
        .where(Fact.run_id == run_id, Fact.kind.in_([k.value for k in kinds]))
        .order_by(Fact.id)
    )
    out: list[StoredFact[FactRecord]] = []
    with engine.connect() as conn:
        for fid, kind, values, target, seq, sha, fmt in conn.execute(query):
            fk = FactKind(kind)
            record = unchecked(fact_model(fk), values)
            out.append(StoredFact(int(fid), fk, target, int(seq), sha, record, fmt))
    return out


def run_history(engine: Engine, run_id: int, scope: str, limit: int = HISTORY_RUNS) -> list[TrendPoint]:
    """The earlier runs of the same scope in the store (oldest first), with their findings per status."""
    with engine.connect() as conn:
        runs = list(
            conn.execute(
                select(Run.id, Run.started_at, Run.status)
                .where(Run.scope == scope, Run.id < run_id)
                .order_by(Run.id.desc())
                .limit(limit)
            )
        )
        ids = [r.id for r in runs]
        counts: dict[int, dict[str, int]] = {i: {s.value: 0 for s in Status} for i in ids}
        if ids:
            rows = conn.execute(
                select(Finding.run_id, Finding.status, func.count())
                .where(Finding.run_id.in_(ids))
                .group_by(Finding.run_id, Finding.status)
            )
            for rid, status, n in rows:
                counts[int(rid)][str(status)] = int(n)
    return [
        TrendPoint(r.id, _utc(r.started_at) or r.started_at, str(r.status), counts[r.id])
        for r in sorted(runs, key=lambda r: r.id)
    ]


def build_report_data(
    engine: Engine,
    run_id: int,
    checks: list[Check],
    frameworks: Iterable[Framework] | None = None,
    *,
    verify: bool = True,
    pubkey: bytes | None = None,
    verified: VerifyResult | None = None,
    sections: bool = True,
) -> ReportData:
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
                waiver=waiver_info(f.waiver) if f.waiver else None,
            )
        )
    used = sorted({f.check_id for f in findings} | set(by_id))
    # A run that is not sealed: `interrupted` when its writer died, and what it stored so far (the row's
    # counts are written only at the seal).
    shown_captures, shown_facts, _ = shown_counts(engine, [run])[run.id]
    info = RunInfo(
        id=run.id,
        status=RunStatus(liveness(run).status),
        started_at=_utc(run.started_at) or datetime.now(UTC),
        finished_at=_utc(run.finished_at),
        scope=run.scope,
        tool_version=run.tool_version,
        config_sha256=run.config_sha256,
        chain_head=run.chain_head,
        facts_digest=run.facts_digest,
        findings_digest=run.findings_digest,
        capture_count=shown_captures,
        fact_count=shown_facts,
        declared_tiers=declared,
        organisation=str(run.config.get("organisation") or ""),
        audit_period=_period(run.config.get("audit_period")),
    )
    targets = {t.id: t for t in reader.targets()}
    capture_rows = [
        CaptureInfo(
            seq=c.seq,
            target=c.target_name,
            target_kind=targets[c.target_id].kind if c.target_id in targets else "",
            source=c.source,
            origin=c.origin,
            format=c.format,
            collected_at=_utc(c.collected_at),
            sha256=c.content_sha256,
            size=int(c.size or 0),
        )
        for c in captures.values()
    ]
    data = ReportData(
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
                notes=[str(n) for n in t.notes or []],
            )
            for t in reader.targets()
        ],
        checks=[
            CheckInfo(
                m.id,
                m.title,
                m.tier,
                m.severity,
                m.rationale,
                m.remediation,
                tuple(sorted(k.value for k in m.needs)),
            )
            for m in (by_id[i] for i in used if i in by_id)
        ],
        findings=findings,
        problems=[ProblemInfo(p.target, p.location, p.message, p.hint) for p in reader.problems()],
        generated_at=datetime.now(UTC),
        summary=ReportData.summarize(findings),
        controls=control_matrix(load_frameworks() if frameworks is None else frameworks, findings),
        waivers=waiver_uses(run.config, run.started_at, findings),
        verification=verification(engine, run_id, pubkey, verified) if verify else None,
        redactions=redaction_report(captures.values(), reader.problems()),
        intent=dict(run.config.get("intent") or {}),
        captures=capture_rows,
        history=run_history(engine, run_id, run.scope),
    )
    if not sections:
        return data
    facts = reconcile([*reader.facts(set(FACT_KINDS - FLAT_KINDS)), *flat_facts(engine, run_id, FLAT_KINDS)])
    return dataclasses.replace(data, sections=derive_sections(data, facts))
