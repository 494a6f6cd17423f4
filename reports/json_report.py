"""The JSON report: the machine-readable, schema-validated twin of the PDF evidence pack.

Its shape is a public contract (docs/report-schema.md, reports/schema/report.schema.json): additive
changes bump the minor of `schema_version`, breaking ones the major. Output is byte-for-byte
deterministic for the same ReportData, so its hash can itself be recorded as evidence."""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from auditor.enums import Severity, Status, Tier
from reports.model import (
    CheckInfo,
    CheckOutcome,
    EvidenceRef,
    FindingInfo,
    FrameworkResult,
    ProblemInfo,
    RedactionReport,
    ReportData,
    RequirementResult,
    RunInfo,
    TargetInfo,
    Verification,
    WaiverInfo,
    WaiverUse,
)

# Orders come from the enums' declaration order (tier 1..3 then cross; critical..info), not the alphabet.
TIER_ORDER: dict[Tier, int] = {t: i for i, t in enumerate(Tier)}
SEVERITY_ORDER: dict[Severity, int] = {s: i for i, s in enumerate(Severity)}
STATUS_ORDER: dict[Status, int] = {s: i for i, s in enumerate(Status)}


def iso_utc(value: datetime) -> str:
    """ISO-8601 in UTC with a `Z` suffix; naive datetimes from the store are taken as UTC already."""
    dt = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    spec = "microseconds" if dt.microsecond else "seconds"
    return dt.replace(tzinfo=None).isoformat(timespec=spec) + "Z"


def finding_sort_key(f: FindingInfo) -> tuple[int, int, str, str, int, str, str, str, str]:
    """Tier, severity, check id, subject, then every remaining text so ties still order the same way."""
    return (
        TIER_ORDER[f.tier],
        SEVERITY_ORDER[f.severity],
        f.check_id,
        f.subject,
        STATUS_ORDER[f.status],
        f.target or "",
        f.message,
        f.expected,
        f.found,
    )


def summary_counts(findings: Iterable[FindingInfo]) -> dict[str, dict[str, int]]:
    """Counts per tier and status over every tier and status (zeros included), derived from the rows.

    Derived rather than copied from ReportData.summary, so the totals can never disagree with the
    findings listed next to them."""
    out: dict[str, dict[str, int]] = {t.value: {s.value: 0 for s in Status} for t in Tier}
    for f in findings:
        out[f.tier.value][f.status.value] += 1
    return out


def _run(run: RunInfo) -> dict[str, Any]:
    return {
        "id": run.id,
        "status": run.status.value,
        "started_at": iso_utc(run.started_at),
        "finished_at": iso_utc(run.finished_at) if run.finished_at is not None else None,
        "scope": run.scope,
        "tool_version": run.tool_version,
        "config_sha256": run.config_sha256,
        "chain_head": run.chain_head,
        "facts_digest": run.facts_digest,
        "findings_digest": run.findings_digest,
        "capture_count": run.capture_count,
        "fact_count": run.fact_count,
        "declared_tiers": [t.value for t in sorted(set(run.declared_tiers), key=TIER_ORDER.__getitem__)],
    }


def _target(t: TargetInfo) -> dict[str, Any]:
    return {
        "name": t.name,
        "kind": t.kind,
        "platform": t.platform,
        "tier": t.tier.value if t.tier is not None else None,
        "role": t.role,
        "status": t.status.value,
        "reason": t.reason,
        "captures": t.captures,
        "notes": list(t.notes),
    }


def _check(c: CheckInfo) -> dict[str, Any]:
    return {
        "id": c.id,
        "title": c.title,
        "tier": c.tier.value,
        "severity": c.severity.value,
        "rationale": c.rationale,
        "remediation": c.remediation,
    }


def _evidence(e: EvidenceRef) -> dict[str, Any]:
    return {"seq": e.seq, "sha256": e.sha256, "source": e.source, "origin": e.origin}


def _finding(f: FindingInfo) -> dict[str, Any]:
    return {
        "check_id": f.check_id,
        "title": f.title,
        "tier": f.tier.value,
        "severity": f.severity.value,
        "status": f.status.value,
        "subject": f.subject,
        "target": f.target,
        "message": f.message,
        "expected": f.expected,
        "found": f.found,
        "fact_ids": sorted(set(f.fact_ids)),
        "evidence": [
            _evidence(e) for e in sorted(f.evidence, key=lambda e: (e.seq, e.sha256, e.source, e.origin))
        ],
        "waiver": _waiver(f.waiver) if f.waiver is not None else None,
    }


def _waiver(w: WaiverInfo) -> dict[str, Any]:
    return {
        "check": w.check,
        "target": w.target,
        "subject": w.subject,
        "owner": w.owner,
        "reason": w.reason,
        "expires": w.expires.isoformat(),
    }


def _waiver_use(u: WaiverUse) -> dict[str, Any]:
    return {"index": u.index, **_waiver(u.waiver), "state": u.state.value, "matched": u.matched}


def _counts(counts: dict[Status, int]) -> dict[str, int]:
    return {s.value: counts.get(s, 0) for s in Status}


def _check_outcome(c: CheckOutcome) -> dict[str, Any]:
    return {"check_id": c.check_id, "evaluated": c.evaluated, "counts": _counts(c.counts), "waived": c.waived}


def _requirement(r: RequirementResult) -> dict[str, Any]:
    total = {s: sum(c.counts.get(s, 0) for c in r.checks) for s in Status}
    return {
        "id": r.id,
        "title": r.title,
        "note": r.note,
        "result": r.result.value,
        "counts": _counts(total),
        "waived": sum(c.waived for c in r.checks),
        "checks": [_check_outcome(c) for c in r.checks],
    }


def _framework(fw: FrameworkResult) -> dict[str, Any]:
    return {
        "key": fw.key,
        "framework": fw.framework,
        "title": fw.title,
        "version": fw.version,
        "source": fw.source,
        "requirements": [_requirement(r) for r in fw.requirements],
    }


def _verification(v: Verification | None) -> dict[str, Any] | None:
    """null when the report was built without recomputing the chain (e.g. from data outside a store)."""
    if v is None:
        return None
    m = v.mismatch
    mismatch = (
        {"what": m.what, "detail": m.detail, "seq": m.seq, "target": m.target, "source": m.source}
        if m
        else None
    )
    return {
        "verified": v.verified,
        "captures_checked": v.captures_checked,
        "mismatch": mismatch,
        "signature": v.signature,
    }


def _redactions(r: RedactionReport | None) -> dict[str, Any] | None:
    """Counts only, per rule and per target: the report never holds a redacted value."""
    if r is None:
        return None
    return {
        "redactions": r.redactions,
        "refused": r.refused,
        "by_rule": dict(sorted(r.by_rule.items())),
        "targets": [
            {
                "target": t.target,
                "captures": t.captures,
                "redacted_captures": t.redacted_captures,
                "redactions": t.redactions,
                "refused": t.refused,
                "by_rule": dict(sorted(t.by_rule.items())),
            }
            for t in sorted(r.targets, key=lambda t: t.target)
        ],
    }


def _problem(p: ProblemInfo) -> dict[str, Any]:
    return {"target": p.target, "location": p.location, "message": p.message, "hint": p.hint}


def content_time(data: ReportData) -> datetime:
    """When the report's content was fixed: the run's seal (its finish), else its start. Never the time
    of rendering, so every render of a run gives the same bytes and its hash can be signed (the time of
    packing is in the evidence pack's manifest; the PDF cover shows the time of rendering)."""
    return data.run.finished_at or data.run.started_at


def build_document(data: ReportData) -> dict[str, Any]:
    """The report as plain JSON values, every list in a documented, stable order."""
    return {
        "schema_version": data.schema_version,
        "generated_at": iso_utc(content_time(data)),
        "run": _run(data.run),
        "summary": summary_counts(data.findings),
        "targets": [_target(t) for t in sorted(data.targets, key=lambda t: (t.name, t.kind))],
        "checks": [_check(c) for c in sorted(data.checks, key=lambda c: c.id)],
        "findings": [_finding(f) for f in sorted(data.findings, key=finding_sort_key)],
        "problems": [
            _problem(p)
            for p in sorted(data.problems, key=lambda p: (p.target or "", p.location, p.message, p.hint))
        ],
        "controls": [_framework(fw) for fw in sorted(data.controls, key=lambda fw: fw.key)],
        "waivers": [_waiver_use(u) for u in sorted(data.waivers, key=lambda u: u.index)],
        "verification": _verification(data.verification),
        "redactions": _redactions(data.redactions),
    }


def dumps(data: ReportData) -> bytes:
    """UTF-8, 2-space indent, newline at the end: stable bytes for diffing and hashing."""
    text = json.dumps(build_document(data), indent=2, ensure_ascii=False, allow_nan=False)
    return (text + "\n").encode("utf-8")


def output_path(path: Path, data: ReportData, extension: str) -> Path:
    """A directory gets a conventional file name (`auditor-run-<id><ext>`); a file path is used as is."""
    if path.is_dir():
        return path / f"auditor-run-{data.run.id}{extension}"
    return path


def write_atomic(path: Path, payload: bytes) -> Path:
    """Write to a temp file beside `path`, fsync, then rename: readers never see a half-written report."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


class JsonReport:
    """Renders ReportData as the documented JSON report (schema reports/schema/report.schema.json)."""

    format = "json"
    extension = ".json"

    def render(self, data: ReportData, path: Path) -> Path:
        """Write the report to `path` (or into it, if it is a directory) and return the file written."""
        target = output_path(Path(path), data, self.extension)
        return write_atomic(target, dumps(data))
