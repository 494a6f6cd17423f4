"""Re-derive a packed run in a temporary in-memory store, with the code that made it.

The pack's rows (run, config, targets, captures with their bytes, problems, seal) go into a fresh SQLite
store; every capture is re-processed (`process_capture`: redaction, then the normalizer) and the facts
re-derived, the checks re-run on them with the stored intent and waivers (`evaluate_run`,
`apply_waivers`), and the findings written back. Then `verify_run` recomputes the chain and the seal
document over the re-derived facts and findings and checks the signature, so a finding that does not
follow from the captures fails the sealed digests; and the JSON and OSCAL reports are rendered again
and compared with the packed ones.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, insert
from sqlalchemy.pool import StaticPool

from auditor import __version__
from auditor.capture import RawCapture
from auditor.evidence.verify import VerifyResult, verify_run
from auditor.normalize import normalizer_registry
from auditor.pipeline.checking import evaluate_run, to_rows
from auditor.pipeline.process import process_capture
from auditor.pipeline.waivers import apply_waivers, run_date, stored_waivers
from auditor.store.digests import FINDING_FIELDS
from auditor.store.models import Base, Capture, Fact, Finding, Problem, Run, SealRecord, Target
from checks.base import check_registry
from reports.base import report_registry
from reports.build import build_report_data
from reports.pack import (
    CAPTURE_INDEX,
    CONFIG_FILE,
    FACTS_FILE,
    FINDINGS_FILE,
    PROBLEMS_FILE,
    REPORTS,
    RUN_FILE,
    SEAL_FILE,
    TARGETS_FILE,
)
from reports.pack_rows import parse_stamp, row_values

MAX_NAMED = 20  # differences named per report; the rest are counted


@dataclass(frozen=True)
class Difference:
    """Something re-derived that is not what the pack says: the pack file it concerns, and what."""

    file: str
    detail: str


@dataclass
class Rederived:
    run_id: int
    captures: int = 0
    rederived_captures: int = 0
    facts: int = 0
    findings: int = 0
    seal: VerifyResult | None = None
    differences: list[Difference] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def differ(self, file: str, detail: str) -> None:
        self.differences.append(Difference(file, detail))


def _json(files: dict[str, bytes], name: str) -> Any:
    return json.loads(files[name].decode("utf-8"))


def memory_store() -> Engine:
    """A private SQLite store in memory, with the models' schema (no guards: it is written once)."""
    engine = create_engine("sqlite://", poolclass=StaticPool, connect_args={"check_same_thread": False})
    Base.metadata.create_all(engine)
    return engine


def _insert(conn: Connection, model: type[Base], rows: list[dict[str, Any]]) -> None:
    if rows:
        conn.execute(insert(model), [row_values(model.__table__, r) for r in rows])


def load_rows(engine: Engine, files: dict[str, bytes]) -> tuple[int, list[dict[str, Any]]]:
    """Insert the packed rows as stored (their own ids); the run id and the capture index."""
    run = _json(files, RUN_FILE)
    run["config"] = _json(files, CONFIG_FILE)
    index: list[dict[str, Any]] = _json(files, CAPTURE_INDEX)
    with engine.begin() as conn:
        conn.execute(insert(Run), row_values(Run.__table__, run))
        _insert(conn, Target, _json(files, TARGETS_FILE))
        for entry in index:
            values = row_values(Capture.__table__, entry)
            values["content"] = files[entry["file"]] if entry.get("file") else None
            conn.execute(insert(Capture), values)
        _insert(conn, Problem, _json(files, PROBLEMS_FILE))
        _insert(conn, SealRecord, _json(files, SEAL_FILE))
    return int(run["id"]), index


def _facts_by_capture(files: dict[str, bytes]) -> dict[int, list[dict[str, Any]]]:
    out: dict[int, list[dict[str, Any]]] = {}
    for line in files[FACTS_FILE].decode("utf-8").splitlines():
        if line.strip():
            fact = json.loads(line)
            out.setdefault(int(fact["capture_id"]), []).append(fact)
    return out


def _problems_by_capture(files: dict[str, bytes]) -> dict[int, list[tuple[str, str, str]]]:
    out: dict[int, list[tuple[str, str, str]]] = {}
    for p in _json(files, PROBLEMS_FILE):
        if p.get("capture_id") is not None:
            out.setdefault(int(p["capture_id"]), []).append((p["location"], p["message"], p["hint"]))
    return out


def _where(entry: dict[str, Any]) -> str:
    return entry.get("file") or f"{CAPTURE_INDEX} (capture #{entry['seq']})"


def rederive_facts(
    engine: Engine, run_id: int, index: list[dict[str, Any]], files: dict[str, bytes], out: Rederived
) -> None:
    """Re-process every capture with the collection's own function; compare with the packed facts and
    problems, and store the re-derived facts under the packed ids (so the seal's digests apply)."""
    packed = _facts_by_capture(files)
    packed_problems = _problems_by_capture(files)
    normalizers = normalizer_registry()
    next_id = max((f["id"] for fs in packed.values() for f in fs), default=0) + 1
    rows: list[dict[str, Any]] = []
    for entry in index:
        out.captures += 1
        cap_id = int(entry["id"])
        mine = packed.get(cap_id, [])
        if not entry.get("file"):  # kept outside the store (content_uri): its sealed facts stand
            rows += [row_values(Fact.__table__, f) for f in mine]
            continue
        raw = RawCapture(
            target=entry["target"],
            format=entry["format"],
            source=entry["source"],
            origin=entry["origin"],
            collected_at=parse_stamp(entry["collected_at"]),
            content=files[entry["file"]],
            meta=dict(entry["meta"] or {}),
        )
        processed = process_capture(raw, normalizers)
        out.rederived_captures += 1
        where = _where(entry)
        if processed.capture.content != raw.content:
            out.differ(
                where, "re-redaction changes the stored bytes: the pack holds text the redactor removes"
            )
        result = processed.result
        derived = [*result.facts, *result.coverage_facts(raw.target, raw.format)]  # as collect.consume
        got = [(f.kind.value, f.subject(), f.to_json()) for f in derived]
        want = [(f["kind"], f["subject"], f["data"]) for f in mine]
        if got != want:
            out.differ(where, _fact_difference(got, want))
        ids = [f["id"] for f in mine] if len(mine) == len(got) else list(range(next_id, next_id + len(got)))
        next_id = max(next_id, *(i + 1 for i in ids)) if ids else next_id
        rows += [
            {
                "id": i,
                "run_id": run_id,
                "target_id": entry["target_id"],
                "capture_id": cap_id,
                "kind": kind,
                "subject": subject,
                "data": data,
            }
            for i, (kind, subject, data) in zip(ids, got, strict=True)
        ]
        problems = [(p.location(), p.message, p.hint) for p in result.problems]
        if problems != packed_problems.get(cap_id, []):
            out.differ(
                where,
                f"re-normalising gives {len(problems)} evidence problems, {PROBLEMS_FILE} "
                f"holds {len(packed_problems.get(cap_id, []))} for this capture",
            )
    outside = out.captures - out.rederived_captures
    if outside:
        out.notes.append(
            f"{outside} captures are kept outside the store (content_uri, e.g. S3 Object Lock): their bytes "
            "are not in the pack, so their sealed facts are used as packed (the seal still covers them)"
        )
    out.facts = len(rows)
    if rows:
        with engine.begin() as conn:
            conn.execute(insert(Fact), sorted(rows, key=lambda r: r["id"]))


def _fact_difference(got: list[Any], want: list[Any]) -> str:
    if len(got) != len(want):
        return f"re-normalises to {len(got)} facts, {FACTS_FILE} holds {len(want)} from it"
    for (kind, subject, data), (k2, s2, d2) in zip(got, want, strict=True):
        if (kind, subject) != (k2, s2):
            return f"re-normalised fact {kind} {subject!r} is {k2} {s2!r} in {FACTS_FILE}"
        if data != d2:
            paths = _paths(d2, data)
            where, what = paths[0] if paths else ("", "differs")
            return f"re-normalised fact {kind} {subject!r}: data{where}: {what}"
    return "re-normalised facts differ"


def rederive_findings(engine: Engine, run_id: int, files: dict[str, bytes], out: Rederived) -> None:
    """Re-run every check on the re-derived facts, apply the stored waivers, and compare with the
    packed findings row by row; store them under the packed ids."""
    checks = [c for _, c in check_registry().items()]
    config = _json(files, CONFIG_FILE)
    verdicts = evaluate_run(engine, run_id, checks)
    rows = apply_waivers(to_rows(verdicts), stored_waivers(config), run_date(engine, run_id)).rows
    packed = sorted(_json(files, FINDINGS_FILE), key=lambda f: f["id"])
    ids = [f["id"] for f in packed] if len(packed) == len(rows) else list(range(1, len(rows) + 1))
    if len(packed) != len(rows):
        out.differ(FINDINGS_FILE, f"the checks give {len(rows)} findings, the pack holds {len(packed)}")
    named = 0
    for row, stored in zip(rows, packed, strict=False):
        mine = row.__dict__
        changed = [f for f in FINDING_FIELDS if f != "id" and mine[f] != stored.get(f)]
        if changed and named < MAX_NAMED:
            named += 1
            f = changed[0]
            out.differ(
                FINDINGS_FILE,
                f"finding {stored['id']} ({stored.get('check_id')} {stored.get('subject')!r}): {f} is "
                f"{stored.get(f)!r} in the pack, {mine[f]!r} re-derived from the captures",
            )
    out.findings = len(rows)
    with engine.begin() as conn:
        conn.execute(
            insert(Finding),
            [{"id": i, "run_id": run_id, **r.__dict__} for i, r in zip(ids, rows, strict=True)],
        )


def _paths(a: Any, b: Any, path: str = "") -> list[tuple[str, str]]:
    """(JSON path, what differs) where two documents differ (lists by position), first ones first."""
    if isinstance(a, dict) and isinstance(b, dict):
        keys = sorted(set(a) | set(b), key=str)
        return [p for k in keys for p in _paths(a.get(k, _ABSENT), b.get(k, _ABSENT), f"{path}.{k}")]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [(path, f"{len(a)} items in the pack, {len(b)} re-derived")]
        return [p for i, (x, y) in enumerate(zip(a, b, strict=True)) for p in _paths(x, y, f"{path}[{i}]")]
    return [] if a == b else [(path, f"{a!r} in the pack, {b!r} re-derived")]


class _Absent:
    def __repr__(self) -> str:
        return "absent"


_ABSENT: Any = _Absent()


def _label(doc: Any, path: str) -> str:
    """`.findings[3]...` named by its check and subject too, so the auditor finds it in the PDF."""
    if path.startswith(".findings[") and isinstance(doc, dict):
        i = int(path[len(".findings[") : path.index("]")])
        if i < len(doc.get("findings", [])):
            f = doc["findings"][i]
            return f"{path} (finding {f.get('check_id')} {f.get('subject')!r})"
    return path


def compare_reports(
    engine: Engine, run_id: int, files: dict[str, bytes], verified: VerifyResult, out: Rederived
) -> None:
    """Render the JSON and OSCAL reports from the re-derived store and compare them with the packed ones.

    The JSON's `verification` says how the run verified when it was packed (against the packer's key);
    it is compared for `verified` only, the rest is the packer's account."""
    checks = [c for _, c in check_registry().items()]
    data = build_report_data(engine, run_id, checks, verified=verified)
    registry = report_registry()
    with tempfile.TemporaryDirectory(prefix="auditor-verify-") as tmp:
        for fmt, loader in (("json", _json_doc), ("oscal", _oscal_doc)):
            name = REPORTS[fmt]
            again = registry.get(fmt).render(data, Path(tmp) / Path(name).name).read_bytes()
            if again == files[name]:
                continue
            try:
                packed = json.loads(files[name].decode("utf-8"))
            except ValueError as exc:
                out.differ(name, f"not readable JSON ({exc})")
                continue
            diffs = loader(packed, json.loads(again.decode("utf-8")))
            for p, what in diffs[:MAX_NAMED]:
                out.differ(name, f"{_label(packed, p)}: {what}")
            if len(diffs) > MAX_NAMED:
                out.differ(name, f"and {len(diffs) - MAX_NAMED} more differences")


def _json_doc(packed: Any, again: Any) -> list[tuple[str, str]]:
    diffs = []
    verification = packed.get("verification") if isinstance(packed, dict) else None
    if not isinstance(verification, dict) or verification.get("verified") is not True:
        diffs.append((".verification.verified", "the report does not say the run verified"))
    if isinstance(packed, dict) and isinstance(again, dict):
        again = {**again, "verification": packed.get("verification")}
    return diffs + _paths(packed, again)


def _oscal_doc(packed: Any, again: Any) -> list[tuple[str, str]]:
    return _paths(packed, again)


def rederive(files: dict[str, bytes], pin: bytes | None) -> Rederived:
    """Rebuild the run in memory, re-derive facts and findings, verify the seal, compare the reports.

    `pin` is the key the run's seal must be signed with (None: any key, or unsigned)."""
    engine = memory_store()
    try:
        run_id, index = load_rows(engine, files)
        out = Rederived(run_id)
        made_by = _json(files, RUN_FILE).get("tool_version")
        if made_by != __version__:
            out.notes.append(
                f"the run was made by version {made_by} and is re-derived by {__version__}: a difference "
                "may come from a changed normalizer or check"
            )
        rederive_facts(engine, run_id, index, files, out)
        rederive_findings(engine, run_id, files, out)
        out.seal = verify_run(engine, run_id, pin)
        # The reports are compared as packed, i.e. as verified then; whose key signed is told once above.
        unpinned = out.seal if pin is None else verify_run(engine, run_id, None)
        compare_reports(engine, run_id, files, unpinned, out)
        return out
    finally:
        engine.dispose()
