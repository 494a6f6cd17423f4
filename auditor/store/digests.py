"""Digests of a run's evidence tables, computed the same way at seal time and at verify time.

Each section holds a count and a full SHA-256 over the rows (what the seal's security rests on) and
short per-row or per-group digests (what lets `verify` name the row, and for targets the field, that
changed). Rows are read as stored, so the bytes hashed at the seal are the bytes hashed by `verify`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any

import orjson
from sqlalchemy import Connection, Text, cast, select

from auditor.evidence.chain import canonical_json, digest_rows, utc_stamp
from auditor.store.models import Capture, Finding, Problem, Target
from auditor.store.running_digest import GROUP_HEX, FactObserver, RunningFactsDigest, parse_data

_FETCH = 5_000

FIELD_HEX = 8  # per-field digests of a target row: enough to name the field, not to protect it


def _short(value: Any, n: int = GROUP_HEX) -> str:
    return hashlib.sha256(canonical_json(value)).hexdigest()[:n]


def _plain(value: Any) -> Any:
    """Timestamps as one textual form (naive on SQLite, aware on PostgreSQL)."""
    if hasattr(value, "isoformat"):
        return utc_stamp(value)
    return value


def _rows(rows: Iterable[Any], fields: Sequence[str]) -> list[list[Any]]:
    return [[_plain(v) for v in row] for row in rows]


def facts_section(conn: Connection, run_id: int, observe: FactObserver | None = None) -> dict[str, Any]:
    """`observe` sees each fact row as it is hashed (parsed once for both), and the end of the pass."""
    digest = RunningFactsDigest(run_id)
    digest.advance(conn, observe)
    if observe is not None:
        observe.end()
    return facts_from(digest)


def facts_from(digest: RunningFactsDigest) -> dict[str, Any]:
    return {"count": digest.count, "digest": digest.hexdigest(), "by_capture": digest.by_capture()}


def facts_digest(conn: Connection, run_id: int) -> tuple[str, int]:
    section = facts_section(conn, run_id)
    return section["digest"], section["count"]


FINDING_FIELDS = (
    "id",
    "check_id",
    "status",
    "severity",
    "tier",
    "target",
    "subject",
    "message",
    "expected",
    "found",
    "fact_ids",
    "evidence",
    "waiver",
)


_FINDING_JSON = frozenset({"fact_ids", "evidence", "waiver"})


def findings_section(conn: Connection, run_id: int) -> dict[str, Any]:
    """The same digests as digest_rows over the rows (each row's canonical JSON, then a newline), with each
    row's canonical JSON assembled from its columns' (a list's JSON is its items' joined): the JSON columns
    are read as text and parsed once (parse_data), the others written as canonical_json writes them."""
    table = Finding.__table__.c
    cols = [cast(table[f], Text) if f in _FINDING_JSON else table[f] for f in FINDING_FIELDS]
    json_at = [f in _FINDING_JSON for f in FINDING_FIELDS]
    total, count = hashlib.sha256(), 0
    groups: dict[str, tuple[int, Any]] = {}
    query = select(*cols).where(Finding.run_id == run_id).order_by(Finding.id)
    for row in conn.execute(query.execution_options(yield_per=_FETCH)):
        parts = [parse_data(v)[1] if j else _scalar(v) for v, j in zip(row, json_at, strict=True)]
        line = b"[" + b",".join(parts) + b"]\n"
        total.update(line)
        count += 1
        key = str(row[1])
        n, group = groups.get(key) or (0, hashlib.sha256())
        group.update(line)
        groups[key] = (n + 1, group)
    return {
        "count": count,
        "digest": total.hexdigest(),
        "by_check": {k: [n, h.hexdigest()[:GROUP_HEX]] for k, (n, h) in groups.items()},
    }


def _scalar(value: Any) -> bytes:
    """canonical_json(_plain(value)): through orjson for the exact types it writes the same way."""
    if value is None or type(value) is str or type(value) is int:
        try:
            return orjson.dumps(value)
        except TypeError:  # a lone surrogate or an int beyond 64 bits
            pass
    return canonical_json(_plain(value))


def findings_digest(conn: Connection, run_id: int) -> tuple[str, int]:
    section = findings_section(conn, run_id)
    return section["digest"], section["count"]


TARGET_FIELDS = (
    "run_id",
    "kind",
    "name",
    "platform",
    "tier",
    "role",
    "status",
    "reason",
    "notes",
    "started_at",
    "finished_at",
)


def targets_section(conn: Connection, run_id: int) -> dict[str, Any]:
    cols = [Target.__table__.c[f] for f in ("id", *TARGET_FIELDS)]
    rows = _rows(
        conn.execute(select(*cols).where(Target.run_id == run_id).order_by(Target.id)), TARGET_FIELDS
    )
    return {
        "count": len(rows),
        "digest": digest_rows(rows),
        "rows": {
            str(row[0]): {f: _short(v, FIELD_HEX) for f, v in zip(TARGET_FIELDS, row[1:], strict=True)}
            for row in rows
        },
    }


CAPTURE_FIELDS = (
    "id",
    "run_id",
    "target_id",
    "target",
    "content_uri",
    "size",
    "content_sha256",
    "prev_hash",
    "link_hash",
    "redactions",
    "redaction_kinds",
)


def captures_section(conn: Connection, run_id: int) -> dict[str, Any]:
    """What the chain does not cover (row ids, the target row, redaction counts per rule, external URI)."""
    c = Capture.__table__.c
    query = (
        select(
            c.seq,
            c.id,
            c.run_id,
            c.target_id,
            Target.name,
            c.content_uri,
            c.size,
            c.content_sha256,
            c.prev_hash,
            c.link_hash,
            c.redactions,
            c.redaction_kinds,
        )
        .outerjoin(Target, Target.id == c.target_id)
        .where(c.run_id == run_id)
        .order_by(c.seq, c.id)
    )
    rows = _rows(conn.execute(query), ("seq", *CAPTURE_FIELDS))
    return {
        "count": len(rows),
        "digest": digest_rows(rows),
        "rows": {str(row[0]): _short(row[1:]) for row in rows},
    }


PROBLEM_FIELDS = (
    "run_id",
    "target_id",
    "target",
    "capture_id",
    "capture_seq",
    "location",
    "message",
    "hint",
    "created_at",
)


def problems_section(conn: Connection, run_id: int) -> dict[str, Any]:
    p = Problem.__table__.c
    query = (
        select(
            p.id,
            p.run_id,
            p.target_id,
            Target.name,
            p.capture_id,
            Capture.seq,
            p.location,
            p.message,
            p.hint,
            p.created_at,
        )
        .outerjoin(Target, Target.id == p.target_id)
        .outerjoin(Capture, Capture.id == p.capture_id)
        .where(p.run_id == run_id)
        .order_by(p.id)
    )
    rows = _rows(conn.execute(query), ("id", *PROBLEM_FIELDS))
    return {
        "count": len(rows),
        "digest": digest_rows(rows),
        "rows": {str(row[0]): _short(row[1:]) for row in rows},
    }


def config_section(config: Any) -> dict[str, Any]:
    """The stored config: its hash, and one digest per top-level key and per waiver (to name the edit)."""
    config = config if isinstance(config, dict) else {"<not a mapping>": config}
    waivers = config.get("waivers")
    return {
        "sha256": hashlib.sha256(canonical_json(config)).hexdigest(),
        "keys": {str(k): _short(v) for k, v in config.items()},
        "waivers": [_short(w) for w in waivers] if isinstance(waivers, list) else None,
    }
