"""Fact rows written at the speed of the database driver: raw `executemany` on SQLite, `COPY` on PostgreSQL.

Going through SQLAlchemy's insert cost more than the database itself (parameter processing and one JSON
encoding per row by the column type). Here each fact's data is encoded once, as canonical JSON: that text
is what the store keeps and what the running facts digest hashes, so the digest needs no read-back. Row
ids come back in one indexed range query, in the order the rows were written."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, func, insert, select

from auditor.facts import FactRecord
from auditor.store.models import Fact

COLUMNS = "run_id, target_id, capture_id, kind, subject, data"
SQLITE_INSERT = f"INSERT INTO facts ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)"
PG_COPY = f"COPY facts ({COLUMNS}) FROM STDIN"
# canonical_json's encoder (auditor.evidence.chain), built once instead of once per fact
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True)
class WrittenFact:
    kind: str
    subject: str
    data: bytes  # canonical JSON, exactly as stored
    exact: bool  # the store hands these bytes back unchanged (see _exact)


def encode(f: FactRecord) -> WrittenFact:
    data = f.to_json()
    try:
        text = _CANONICAL.encode(data).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: stored ASCII-escaped, hashed as read back
        return WrittenFact(f.kind.value, f.subject(), b"", False)
    return WrittenFact(f.kind.value, f.subject(), text, _exact(text))


def _exact(text: bytes) -> bool:
    """JSONB re-spells a float in exponent form (1e+16 comes back as the integer 10000000000000000) and
    rejects NaN; such a row is hashed as read back, not as written. Rare enough to test the bytes."""
    return b"e+" not in text and b"E+" not in text and b"NaN" not in text and b"Infinity" not in text


def write_facts(
    conn: Connection, run_id: int, target_id: int, capture_id: int, facts: Sequence[FactRecord]
) -> list[WrittenFact]:
    """Insert one capture's facts in order; return them as written."""
    written = [encode(f) for f in facts]
    if not all(w.data for w in written):  # an unencodable value: the column type's own encoding
        conn.execute(
            insert(Fact),
            [
                {
                    "run_id": run_id,
                    "target_id": target_id,
                    "capture_id": capture_id,
                    "kind": f.kind.value,
                    "subject": w.subject,
                    "data": f.to_json(),
                }
                for f, w in zip(facts, written, strict=True)
            ],
        )
        return written
    rows = [(run_id, target_id, capture_id, w.kind, w.subject, w.data.decode("utf-8")) for w in written]
    dialect = conn.dialect.name
    if dialect == "sqlite":
        conn.exec_driver_sql(SQLITE_INSERT, rows)
    elif dialect == "postgresql":
        raw = conn.connection.driver_connection
        with raw.cursor() as cur, cur.copy(PG_COPY) as copy:  # type: ignore[union-attr]
            for row in rows:
                copy.write_row(row)
    else:
        conn.execute(
            insert(Fact),
            [
                dict(zip(("run_id", "target_id", "capture_id", "kind", "subject"), r[:5], strict=True))
                | {"data": f.to_json()}
                for r, f in zip(rows, facts, strict=True)
            ],
        )
    return written


def max_fact_id(conn: Connection) -> int:
    return int(conn.execute(select(func.coalesce(func.max(Fact.id), 0))).scalar_one())


def ids_after(conn: Connection, run_id: int, after: int) -> list[int]:
    """The run's fact ids above `after`, ascending. Filtered here, not in SQL: with `run_id` in the WHERE
    clause SQLite walks the (run_id, kind) index, every fact of the run for every capture (quadratic);
    the primary-key range holds only the rows just written (and any another run wrote meanwhile)."""
    rows = conn.execute(select(Fact.id, Fact.run_id).where(Fact.id > after).order_by(Fact.id))
    return [int(i) for i, run in rows if run == run_id]
