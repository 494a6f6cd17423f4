"""Stored captures as portable files, and back: the `*.captures.jsonl` evidence format.

`auditor evidence export --run N DIR` writes every target's stored (already redacted) captures as
DIR/<target kind>/<target name>.captures.jsonl, one JSON object a line:

    {"target": ..., "target_kind": ..., "format": ..., "source": ..., "origin": ..., "collected_at": ISO,
     "meta": {...}, "content": TEXT}            (or "content": BASE64 with "encoding": "base64")

plus the target's "target_platform", "target_tier" and "target_role" when the run knew them.

The offline collector reads such files back as the same captures (same format, source, meta and
collection time; origin becomes "<file>:<line>"), so a live audit's evidence can be re-audited offline
and must land the same facts. The target name is percent-encoded in the file name ("/" and ":" occur in
AWS and flow-log target names); the line's own target fields are authoritative.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlalchemy import Engine

from auditor.enums import TargetKind
from auditor.normalize import Problem
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


@dataclass
class ExportSummary:
    files: dict[Path, int] = field(default_factory=dict)  # file -> captures written

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
    return summary


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


def read_lines(path: Path, rel: str) -> Iterator[ExportedCapture | Problem]:
    """Every capture in a captures file; a line that cannot be read is a Problem naming it."""
    with path.open("r", encoding="utf-8", errors="replace") as fh:
        for number, text in enumerate(fh, 1):
            if not text.strip():
                continue
            yield _parse(text, rel, number)


def _parse(text: str, rel: str, number: int) -> ExportedCapture | Problem:
    def bad(message: str) -> Problem:
        return Problem(rel, message, line=number, hint="re-export the run or fix this line")

    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        return bad(f"not a JSON object: {exc.msg} (column {exc.colno})")
    if not isinstance(record, dict):
        return bad("not a JSON object")
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
