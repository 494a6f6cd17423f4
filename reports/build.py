"""Read a finished run from the store into ReportData: the one query path every renderer shares."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from datetime import UTC, date, datetime
from functools import lru_cache
from typing import Any, TypeVar

from sqlalchemy import Boolean, Engine, Integer, String, func, select, type_coerce

from auditor.config.models import Waiver
from auditor.enums import FactKind, RunStatus, Severity, Status, TargetStatus, Tier, WaiverState
from auditor.evidence.verify import VerifyResult, verify_run
from auditor.facts import FactRecord, fact_model, record_from_json
from auditor.gcpause import paused_gc
from auditor.pipeline.waivers import matches, stored_waivers, waiver_json
from auditor.store.digests import facts_section
from auditor.store.lease import liveness, shown_counts
from auditor.store.models import Fact, Finding, Run
from auditor.store.reader import RunReader, StoredFact, compact
from auditor.store.running_digest import FactObserver, FactRow
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
    engine: Engine,
    run_id: int,
    pubkey: bytes | None = None,
    result: VerifyResult | None = None,
    observe: FactObserver | None = None,
) -> Verification:
    """Recompute the chain now (unless the caller just did), so the pack says whether its evidence
    still matches the seal. `observe` sees the fact rows verify reads (see _FactSink)."""
    result = result if result is not None else verify_run(engine, run_id, pubkey, observe)
    first = result.mismatches[0] if result.mismatches else None
    return Verification(
        verified=result.ok,
        captures_checked=result.captures_checked,
        mismatch=Mismatch(first.what, first.detail, first.seq, first.target, first.source) if first else None,
        signature=result.signature_text(),
    )


# The flat kinds the sections read by the hundred thousand at fleet size, and the fields they read: taken
# out of the stored JSON by the database (no JSON parsing in Python) into records built without
# validation (they were validated when stored, and the seal covers them). The records hold only these
# fields (the rest are defaults): they serve the report's sections, nothing else.
FLAT_FIELDS: dict[FactKind, dict[str, str]] = {
    FactKind.INTERFACE: {
        "device": "str",
        "name": "str",
        "type": "str",
        "vrf": "str",
        "switchport": "bool",
        "mode": "str",
        "access_vlan": "int",
        "trunk_allowed_vlans": "json",
        "mtu": "int",
        "speed_mbps": "int",
    },
    FactKind.QOS_INTERFACE: {
        "device": "str",
        "interface": "str",
        "pfc_no_drop_priorities": "json",
        "ecn_queues": "json",
        "trust": "str",
    },
    FactKind.VRF: {"device": "str", "name": "str"},
    FactKind.VLAN: {"device": "str", "vlan_id": "int"},
    FactKind.FLOW_CONVERSATION: {
        "source": "str",
        "src_addr": "str",
        "dst_addr": "str",
        "action": "str",
        "records": "int",
        "packets": "int",
    },
}
FLAT_KINDS = frozenset(FLAT_FIELDS)


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


_CASTS: dict[str, tuple[str, Any]] = {
    "str": ("as_string", String()),
    "int": ("as_integer", Integer()),
    "bool": ("as_boolean", Boolean()),
    "json": ("as_json", String()),  # the JSON text, parsed once per distinct value (_parsed)
}


def _field(name: str, cast: str) -> Any:
    """One field of the stored JSON, extracted by the database; typed so that no JSON decoding runs on
    the way back (SQLAlchemy would json.loads every extracted scalar)."""
    method, sql_type = _CASTS[cast]
    return type_coerce(getattr(Fact.data[name], method)(), sql_type)


@lru_cache(maxsize=4096)
def _parsed_text(text: str) -> Any:
    return json.loads(text)


def _parsed(value: Any) -> Any:
    """A JSON field's value: text from SQLite (parsed once per distinct text: PFC lists, VLAN lists and
    the like repeat across thousands of ports), already a value from PostgreSQL's driver."""
    if not isinstance(value, str):
        return value
    parsed = _parsed_text(value)
    return list(parsed) if isinstance(parsed, list) else parsed


def flat_facts(
    engine: Engine,
    run_id: int,
    kind: FactKind,
    origins: tuple[dict[int, str], dict[int, tuple[int, str, str]]] | None = None,
) -> list[StoredFact[FactRecord]]:
    """The run's facts of one flat kind, holding the fields FLAT_FIELDS names (absent ones: defaults).

    Targets and captures are looked up in RunReader.origins's maps (pass them if you hold them) rather
    than joined into every row."""
    names = list(FLAT_FIELDS[kind])
    parse = [cast == "json" for cast in FLAT_FIELDS[kind].values()]
    fields = [_field(n, c) for n, c in FLAT_FIELDS[kind].items()]
    query = (
        select(Fact.id, Fact.target_id, Fact.capture_id, *fields)
        .where(Fact.run_id == run_id, Fact.kind == kind.value)
        .order_by(Fact.id)
    )
    model = fact_model(kind)
    targets, captures = origins if origins is not None else RunReader(engine, run_id).origins()
    out: list[StoredFact[FactRecord]] = []
    with engine.connect() as conn:
        for fid, target_id, capture_id, *values in conn.execute(query):
            given = {
                n: _parsed(v) if p else v
                for n, v, p in zip(names, values, parse, strict=True)
                if v is not None
            }
            seq, sha, fmt = captures[capture_id]
            out.append(StoredFact(int(fid), kind, targets[target_id], seq, sha, unchecked(model, given), fmt))
    return out


class _FactSink:
    """The report's facts, built from the fact rows a digest pass reads (verify's, or one of the report's
    own): the flat kinds as flat_facts builds them, the others as RunReader.facts does, in the same order.

    It never raises into the pass it observes (verify must not see a report's error as unreadable rows):
    a row that the store's own readers would treat otherwise (a capture or target of another run or none,
    a record that does not validate, data that is not an object) makes it `irregular`, and the report
    reads its facts the previous way instead, with whatever that does on such a row."""

    def __init__(self, targets: dict[int, str], captures: dict[int, tuple[int, str, str]]) -> None:
        self.targets = targets
        self.captures = captures  # this run's: capture row id -> (seq, sha256, format)
        self.wanted = {k.value: k for k in FACT_KINDS}
        self.other: list[StoredFact[FactRecord]] = []
        self.flat: dict[FactKind, list[StoredFact[FactRecord]]] = {k: [] for k in FLAT_KINDS & FACT_KINDS}
        self.fields = {k: (list(FLAT_FIELDS[k]), fact_model(k)) for k in self.flat}
        self.complete = False
        self.irregular = False

    def __call__(self, row: FactRow) -> None:
        if self.irregular:
            return
        kind = self.wanted.get(row.kind) if isinstance(row.kind, str) else None
        if kind is None:
            return
        try:
            name = self.targets.get(row.target_id)
            seq, sha, fmt = self.captures[row.capture_id]
            if name is None or name != row.target or not isinstance(row.data, dict):
                raise LookupError(row.id)
            fid = int(row.id)
            flat = self.flat.get(kind)
            if flat is not None:
                data, (names, model) = row.data, self.fields[kind]
                given = {n: data[n] for n in names if data.get(n) is not None}
                flat.append(StoredFact(fid, kind, name, seq, sha, unchecked(model, given), fmt))
            else:
                record = compact(record_from_json(kind, row.data))
                self.other.append(StoredFact(fid, kind, name, seq, sha, record, fmt))
        except Exception:  # anything: the previous readers decide (see the docstring)
            self.irregular = True
            self.other.clear()
            self.flat.clear()

    def end(self) -> None:
        self.complete = True

    def facts(self) -> list[StoredFact[FactRecord]] | None:
        """The facts in RunReader.facts's order then flat_facts's, kind by kind; None: read them otherwise."""
        if not self.complete or self.irregular:
            return None
        out = self.other
        for kind in sorted(self.flat):
            out += self.flat[kind]
        return out


def _report_facts(engine: Engine, run_id: int, reader: RunReader, sink: _FactSink | None) -> list[Any]:
    """The facts the sections read: from verify's pass when it read them all, else from one pass of the
    report's own (the same rows, digest and all), else the previous way (RunReader.facts + flat_facts)."""
    facts = sink.facts() if sink is not None else None
    if facts is None and sink is not None and not sink.irregular:
        sink.other.clear()  # what a pass that broke off had gathered
        sink.flat.clear()
        own = _FactSink(sink.targets, sink.captures)
        try:
            with engine.connect() as conn:
                facts_section(conn, run_id, own)
        except Exception:  # rows the digest pass cannot read: the previous readers decide, as above
            own.irregular = True
        facts = own.facts()
    if facts is None:
        facts = reader.facts(set(FACT_KINDS - FLAT_KINDS))
        for kind in sorted(FLAT_KINDS & FACT_KINDS):
            facts += flat_facts(engine, run_id, kind, reader.origins())
    return facts


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
    """The report data of a stored run. The garbage collector waits until it is built: the facts the
    sections read are hundreds of thousands of records, all alive until the sections are derived, and
    each collection meanwhile walked them all again; they are freed (by reference counting) before it
    runs again."""
    with paused_gc():
        return _build(engine, run_id, checks, frameworks, verify, pubkey, verified, sections)


def _build(
    engine: Engine,
    run_id: int,
    checks: list[Check],
    frameworks: Iterable[Framework] | None,
    verify: bool,
    pubkey: bytes | None,
    verified: VerifyResult | None,
    sections: bool,
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
    sink = None
    if sections:  # the facts are read in verify's pass over them (or one of the report's own, below)
        sink = _FactSink(*reader.origins())
    checked = verification(engine, run_id, pubkey, verified, sink) if verify else None
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
        verification=checked,
        redactions=redaction_report(captures.values(), reader.problems()),
        intent=dict(run.config.get("intent") or {}),
        captures=capture_rows,
        history=run_history(engine, run_id, run.scope),
    )
    if not sections:
        return data
    facts = reconcile(_report_facts(engine, run_id, reader, sink))
    return dataclasses.replace(data, sections=derive_sections(data, facts))
