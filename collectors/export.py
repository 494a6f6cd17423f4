"""Stored captures as portable files, and back: the `*.captures.jsonl` evidence format.

`auditor evidence export --run N DIR` writes every target's stored (already redacted) captures as
DIR/<target kind>/<target name>.captures.jsonl, one JSON object a line:

    {"target": ..., "target_kind": ..., "format": ..., "source": ..., "origin": ..., "collected_at": ISO,
     "meta": {...}, "content": TEXT}            (or "content": BASE64 with "encoding": "base64")

plus the target's "target_platform", "target_tier" and "target_role" when the run knew them.

The run's gaps travel with its captures, so a re-audit of an export is exactly as complete as the run:
after a target's captures, its file holds one `"record": "problem"` line per collection problem of that
target (a list that was forbidden or timed out, a device that stopped answering; problems found while
reading a capture are not exported, the re-audit finds them again) and one `"record": "target"` line with
the status and reason the run gave the target. A target with gaps and no captures gets a file too.
Problems of the run itself (no target) go to run/problems.captures.jsonl as `"record": "problem"` lines
without target fields.

The offline collector reads such files back as the same captures (same format, source, meta and
collection time; origin becomes "<file>:<line>"), the same problems, and the same target status: a
target the run did not collect completely ends the same way (`replay`), with the run's reason. So its
checks come out NOT_ASSESSED again and the exit code is 3 again. The target name is percent-encoded in the
file name ("/" and ":" occur in AWS and flow-log target names); the line's own target fields are
authoritative.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlalchemy import Engine, select

from auditor.capture import RawCapture
from auditor.enums import TargetKind, TargetStatus
from auditor.errors import AuditorError
from auditor.normalize import Problem
from auditor.store.models import Problem as ProblemRow
from auditor.store.reader import RunReader

SUFFIX = ".captures.jsonl"
REQUIRED = ("target", "target_kind", "format", "source", "collected_at", "content")


def encode_content(content: bytes) -> dict[str, str]:
    """Text when the bytes are UTF-8, else base64 with "encoding": "base64"."""
    try:
        return {"content": content.decode("utf-8")}
    except UnicodeDecodeError:
        return {"content": base64.b64encode(content).decode("ascii"), "encoding": "base64"}


def capture_line(
    *,
    target: str,
    target_kind: str,
    fmt: str,
    source: str,
    origin: str,
    collected_at: datetime,
    meta: dict[str, str],
    content: bytes,
    target_info: dict[str, str | None] | None = None,
) -> str:
    extra = {f"target_{k}": v for k, v in (target_info or {}).items() if v}
    record: dict[str, Any] = {
        **extra,
        "target": target,
        "target_kind": target_kind,
        "format": fmt,
        "source": source,
        "origin": origin,
        "collected_at": collected_at.isoformat(),
        "meta": dict(meta),
        **encode_content(content),
    }
    return json.dumps(record, sort_keys=True, ensure_ascii=False)


def file_for(root: Path, target_kind: str, target: str) -> Path:
    return root / quote(target_kind, safe="") / f"{quote(target, safe='')}{SUFFIX}"


RUN_PROBLEMS = Path("run") / f"problems{SUFFIX}"
PROBLEM, TARGET = "problem", "target"


@dataclass
class ExportSummary:
    files: dict[Path, int] = field(default_factory=dict)  # file -> captures written
    gaps: int = 0  # problem lines written (target and run problems)
    incomplete: list[str] = field(default_factory=list)  # targets the run did not collect completely

    @property
    def captures(self) -> int:
        return sum(self.files.values())


def export_run(engine: Engine, run_id: int, out_dir: Path) -> ExportSummary:
    """Write run `run_id`'s captures under `out_dir`, in chain order within each file."""
    reader = RunReader(engine, run_id)
    targets = {int(t.id): t for t in reader.targets()}
    summary = ExportSummary()
    handles: dict[Path, Any] = {}
    try:
        for row in reader.captures(with_content=True):
            t = targets[int(row.target_id)]
            kind, name = str(t.kind), str(t.name)
            path = file_for(out_dir, kind, name)
            if path not in handles:
                path.parent.mkdir(parents=True, exist_ok=True)
                handles[path] = path.open("w", encoding="utf-8")
                summary.files[path] = 0
            handles[path].write(
                capture_line(
                    target=name,
                    target_kind=kind,
                    fmt=str(row.format),
                    source=str(row.source),
                    origin=str(row.origin),
                    collected_at=row.collected_at,
                    meta=dict(row.meta or {}),
                    content=bytes(row.content or b""),
                    target_info={"platform": t.platform, "tier": t.tier, "role": t.role},
                )
                + "\n"
            )
            summary.files[path] += 1
    finally:
        for handle in handles.values():
            handle.close()
    _export_gaps(engine, reader, targets, out_dir, summary)
    return summary


def _export_gaps(
    engine: Engine, reader: RunReader, targets: dict[int, Any], out_dir: Path, summary: ExportSummary
) -> None:
    """Append each target's collection problems and status to its file; run problems to their own."""
    query = (
        select(ProblemRow.target_id, ProblemRow.location, ProblemRow.message, ProblemRow.hint)
        .where(ProblemRow.run_id == reader.run_id, ProblemRow.capture_id.is_(None))
        .order_by(ProblemRow.id)
    )
    with engine.connect() as conn:
        rows = list(conn.execute(query))
    per_target: dict[int | None, list[Any]] = {}
    for row in rows:
        per_target.setdefault(None if row.target_id is None else int(row.target_id), []).append(row)
    for target_id, t in targets.items():
        status, reason = str(t.status), t.reason
        problems = [
            r
            for r in per_target.get(target_id, [])
            # the problem the pipeline adds when a target ends with an error: the replayed target ends
            # with the same error, which adds it again
            if not (reason and r.message == reason and r.location == reason.split(":")[0])
        ]
        if (
            status == TargetStatus.OK.value
            and not problems
            and file_for(out_dir, str(t.kind), str(t.name)) in summary.files
        ):
            continue  # complete: its captures say everything
        info = {"target": str(t.name), "target_kind": str(t.kind)}
        info.update({f"target_{k}": v for k in ("platform", "tier", "role") if (v := getattr(t, k))})
        lines = [_gap_line({**info, "record": PROBLEM, **_problem(r)}) for r in problems]
        lines.append(_gap_line({**info, "record": TARGET, "status": status, "reason": reason}))
        _append(file_for(out_dir, str(t.kind), str(t.name)), lines)
        summary.gaps += len(problems)
        if status != TargetStatus.OK.value:
            summary.incomplete.append(str(t.name))
    run_level = per_target.get(None, [])
    if run_level:
        _append(out_dir / RUN_PROBLEMS, [_gap_line({"record": PROBLEM, **_problem(r)}) for r in run_level])
        summary.gaps += len(run_level)


def _problem(row: Any) -> dict[str, str]:
    return {"location": str(row.location), "message": str(row.message), "hint": str(row.hint or "")}


def _gap_line(record: dict[str, Any]) -> str:
    return json.dumps(record, sort_keys=True, ensure_ascii=False)


def _append(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        fh.writelines(line + "\n" for line in lines)


@dataclass(frozen=True)
class ExportedCapture:
    """One line of a captures file, checked and decoded."""

    target: str
    target_kind: TargetKind
    format: str
    source: str
    collected_at: datetime
    meta: dict[str, str]
    content: bytes
    line: int
    target_info: dict[str, str] = field(default_factory=dict)  # platform, tier, role when exported


@dataclass(frozen=True)
class ExportedGap:
    """A `"record": "problem"` or `"record": "target"` line of a target: what the run could not collect."""

    target: str
    target_kind: TargetKind
    line: int
    problem: Problem | None = None  # a collection problem of the target
    status: str | None = None  # the target's status in the exported run (with `reason`)
    reason: str | None = None
    target_info: dict[str, str] = field(default_factory=dict)
    meta: dict[str, str] = field(default_factory=dict)  # always empty: the shape planners read


class ExportedFailure(AuditorError):
    """Ends a replayed target the way the exported run ended it; str() is the run's reason, verbatim."""

    hint = ""


def replay(path: Path, rel: str, kind: TargetKind, name: str) -> Iterator[RawCapture | Problem]:
    """One target's lines of a captures file, as the run had them: its captures (origin: file and line),
    then its collection problems; if the run did not collect it completely, ends with ExportedFailure
    carrying the run's reason, so the target gets the same status and its checks the same verdicts."""
    failure: str | None = None
    try:
        for item in read_lines(path, rel):
            if isinstance(item, Problem) or (item.target_kind, item.target) != (kind, name):
                continue  # unreadable lines were reported when the run was planned
            if isinstance(item, ExportedGap):
                if item.problem is not None:
                    yield item.problem
                elif item.status not in (None, TargetStatus.OK.value):
                    failure = item.reason or f"{item.status} in the exported run ({rel}:{item.line})"
                continue
            yield RawCapture(
                target=name,
                format=item.format,
                source=item.source,
                origin=f"{rel}:{item.line}",
                collected_at=item.collected_at,
                content=item.content,
                meta=item.meta,
            )
    except OSError as exc:
        yield Problem(rel, f"cannot read: {exc.strerror}", hint="check the file and its permissions")
    if failure is not None:
        raise ExportedFailure(failure)


def read_lines(path: Path, rel: str) -> Iterator[ExportedCapture | ExportedGap | Problem]:
    """Every capture and gap in a captures file; a run problem, or a line that cannot be read, is a
    Problem (a line that cannot be read names its file and line)."""
    with path.open("r", encoding="utf-8", errors="replace") as fh:
        for number, text in enumerate(fh, 1):
            if not text.strip():
                continue
            yield _parse(text, rel, number)


def _parse(text: str, rel: str, number: int) -> ExportedCapture | ExportedGap | Problem:
    def bad(message: str) -> Problem:
        return Problem(rel, message, line=number, hint="re-export the run or fix this line")

    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        return bad(f"not a JSON object: {exc.msg} (column {exc.colno})")
    if not isinstance(record, dict):
        return bad("not a JSON object")
    if "record" in record:
        return _parse_gap(record, number, bad)
    missing = [k for k in REQUIRED if k not in record]
    if missing:
        return bad(f"missing {', '.join(missing)}")
    try:
        kind = TargetKind(record["target_kind"])
    except ValueError:
        return bad(f"unknown target_kind {record['target_kind']!r}")
    try:
        collected_at = datetime.fromisoformat(str(record["collected_at"]))
    except ValueError:
        return bad(f"collected_at {record['collected_at']!r} is not an ISO 8601 time")
    meta = record.get("meta") or {}
    if not isinstance(meta, dict) or not all(isinstance(v, str) for v in meta.values()):
        return bad("meta must be an object of strings")
    content = record["content"]
    if not isinstance(content, str):
        return bad("content must be a string")
    encoding = record.get("encoding")
    if encoding == "base64":
        try:
            raw = base64.b64decode(content, validate=True)
        except (binascii.Error, ValueError):
            return bad("content is not valid base64")
    elif encoding in (None, "", "utf-8"):
        raw = content.encode("utf-8")
    else:
        return bad(f"unknown encoding {encoding!r}")
    return ExportedCapture(
        target=str(record["target"]),
        target_kind=kind,
        format=str(record["format"]),
        source=str(record["source"]),
        collected_at=collected_at,
        meta={str(k): v for k, v in meta.items()},
        content=raw,
        line=number,
        target_info={
            k: str(record[f"target_{k}"]) for k in ("platform", "tier", "role") if record.get(f"target_{k}")
        },
    )


def _parse_gap(record: dict[str, Any], number: int, bad: Callable[[str], Problem]) -> ExportedGap | Problem:
    kind = record["record"]
    if kind not in (PROBLEM, TARGET):
        return bad(f"unknown record {kind!r}")
    problem = None
    if kind == PROBLEM:
        fields = [record.get(k) for k in ("location", "message", "hint")]
        if not all(isinstance(v, str) for v in fields[:2]) or not isinstance(fields[2], str | None):
            return bad("a problem record needs location and message strings")
        problem = Problem(str(fields[0]), str(fields[1]), hint=fields[2] or "")
        if "target" not in record:
            return problem  # a problem of the run itself
    if not isinstance(record.get("target"), str):
        return bad("missing target")
    try:
        target_kind = TargetKind(str(record.get("target_kind")))
    except ValueError:
        return bad(f"unknown target_kind {record.get('target_kind')!r}")
    status = record.get("status")
    if kind == TARGET and status not in {s.value for s in TargetStatus}:
        return bad(f"unknown target status {status!r}")
    reason = record.get("reason")
    return ExportedGap(
        target=record["target"],
        target_kind=target_kind,
        line=number,
        problem=problem,
        status=status if kind == TARGET else None,
        reason=reason if isinstance(reason, str) else None,
        target_info={
            k: str(record[f"target_{k}"]) for k in ("platform", "tier", "role") if record.get(f"target_{k}")
        },
    )
