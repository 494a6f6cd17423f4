"""A small but complete sealed run (two of them, so rows can be pointed at the other run), and the SQL an
attacker would use on it: every table's rows, a changed value for any column, and each way of writing
it (UPDATE, DELETE, INSERT OR REPLACE, REPLACE INTO, INSERT ... ON CONFLICT DO UPDATE)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlalchemy import Connection, Engine, Table, and_, delete, insert, select, text, update
from sqlalchemy import types as sa_types
from sqlalchemy.dialects import postgresql, sqlite

from auditor.capture import RawCapture
from auditor.enums import RunStatus, TargetStatus
from auditor.evidence.signing import Signer
from auditor.facts import Route, Vrf
from auditor.normalize import Problem
from auditor.store.models import GUARDED_TABLES, Base
from auditor.store.writer import FindingRow, RunWriter

KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
SIGNER = Signer(KEY, "test key")
CONFIG: dict[str, Any] = {
    "intent": {"tiers": {"backend": {"vrfs": ["BE"]}}, "allowed": [1, 2]},
    "waivers": [
        {
            "check": "T3-X",
            "target": "leaf1",
            "subject": "*",
            "owner": "o",
            "reason": "r",
            "expires": "2027-01-01",
        }
    ],
    "scope": "lab",
    "store": "sqlite:///x.db",
}
METHODS = ("update", "delete", "insert_or_replace", "replace_into", "on_conflict_update")


def _capture(target: str, n: int) -> RawCapture:
    return RawCapture(
        target=target,
        format="eos.running-config",
        source="show running-config",
        origin=f"{target}-{n}.cfg",
        collected_at=datetime(2026, 12, 1, 10, 0, n, 123456, tzinfo=UTC),
        content=f"hostname {target}\n! capture {n}\nvrf instance V{n}\nend\n".encode(),
        meta={"device": target, "platform": "eos"},
    )


def build_run(engine: Engine, *, signer: Signer | None = SIGNER, config: dict[str, Any] | None = None) -> int:
    """A sealed run: two collected targets and a failed one, captures with facts, findings (one waived),
    problems (one on a capture, one on a target, one for the run)."""
    writer = RunWriter.start(
        engine, config=config or CONFIG, config_sha256="0" * 64, scope="lab", signer=signer
    )
    stored = []
    for name in ("leaf1", "leaf2"):
        tid = writer.add_target(kind="device", name=name, platform="eos", tier="backend", notes=["n"])
        for n in range(2):
            cap = writer.ingest(
                tid,
                _capture(name, n),
                redactions=1,
                redaction_kinds={"enable": 1},
                facts=[Vrf(device=name, name=f"V{n}"), Route(device=name, vrf=f"V{n}", prefix="10.0.0.0/8")],
                problems=[Problem(f"{name}-{n}.cfg", "odd line", line=3)] if n == 1 else [],
            )
            stored.append(cap)
        writer.finish_target(tid, TargetStatus.OK)
    bad = writer.add_target(kind="device", name="spine1", platform="eos", tier="backend")
    writer.add_problems(bad, [Problem("spine1", "connection refused")])
    writer.finish_target(bad, TargetStatus.FAILED, "connection refused")
    writer.add_problems(None, [Problem("auditor.yaml", "inventory row skipped", line=9)])
    with engine.connect() as conn:
        fact_ids = [
            int(i)
            for i in conn.execute(
                text("SELECT id FROM facts WHERE run_id = :r"), {"r": writer.run_id}
            ).scalars()
        ]
    ev = [{"seq": stored[0].seq, "sha256": stored[0].content_sha256}]
    writer.add_findings(
        [
            FindingRow(
                "T3-X",
                "FAIL",
                "high",
                "backend",
                "leaf1",
                "vrf V0",
                "m",
                "e",
                "f",
                fact_ids[:2],
                ev,
                dict(CONFIG["waivers"][0]),
            ),
            FindingRow(
                "T3-X", "PASS", "high", "backend", "leaf2", "vrf V0", "m", "e", "f", fact_ids[4:6], []
            ),
            FindingRow("T1-Y", "NOT_ASSESSED", "medium", "oob", "spine1", "s", "m", "e", "f", [], []),
        ]
    )
    writer.seal(RunStatus.PARTIAL)
    return writer.run_id


def guarded_tables() -> dict[str, Table]:
    return {name: Base.metadata.tables[name] for name in GUARDED_TABLES}


def drop_guards(conn: Connection) -> None:
    """What a database owner can do: take every trigger away."""
    if conn.dialect.name == "postgresql":
        for table in GUARDED_TABLES:
            conn.execute(text(f"ALTER TABLE {table} DISABLE TRIGGER USER"))
        return
    names = conn.execute(text("SELECT name FROM sqlite_master WHERE type = 'trigger'")).scalars().all()
    for name in names:
        conn.execute(text(f'DROP TRIGGER "{name}"'))


def rows_of_run(conn: Connection, table: Table, run_id: int) -> list[dict[str, Any]]:
    key = table.c.run_id if "run_id" in table.c else table.c.id
    return [dict(r._mapping) for r in conn.execute(select(table).where(key == run_id))]


@dataclass(frozen=True)
class Mutation:
    table: str
    row: dict[str, Any]
    column: str
    value: Any
    method: str

    def __str__(self) -> str:
        return f"{self.method} {self.table}.{self.column} of row {_pk(self.table, self.row)}"


def _pk(table: str, row: dict[str, Any]) -> Any:
    return (row["run_id"], row["resume"]) if table == "seals" else row["id"]


def changed_value(conn: Connection, table: Table, column: str, old: Any, rnd: random.Random) -> Any:
    """A value different from `old` that the column's type accepts (an existing row id for a foreign key)."""
    col = table.c[column]
    fks = list(col.foreign_keys)
    if fks:
        target = fks[0].column
        ids = [v for v in conn.execute(select(target)).scalars() if v != old]
        return rnd.choice(ids) if ids else (old or 0) + 1000
    kind = col.type
    if isinstance(kind, sa_types.JSON) or isinstance(getattr(kind, "impl", None), sa_types.JSON):
        return _changed_json(old, rnd)
    if isinstance(kind, sa_types.LargeBinary):
        if not old:
            return b"forged"
        data = bytearray(old)
        data[rnd.randrange(len(data))] ^= 1 << rnd.randrange(8)
        return bytes(data)
    if isinstance(kind, sa_types.DateTime):
        base = old or datetime(2026, 12, 1, tzinfo=UTC)
        return base + rnd.choice([timedelta(microseconds=1), timedelta(seconds=1), -timedelta(days=1)])
    if isinstance(kind, sa_types.Integer):
        return (old or 0) + rnd.choice([1, -1, 7, 1000])
    choices = ["PASS", "FAIL", "ok", "failed", "complete", "x", ""] + ([old + "!"] if old else [])
    if isinstance(kind, sa_types.String) and kind.length:
        choices = [c for c in choices if len(c) <= kind.length] or ["y"]
        if old and len(old) >= kind.length:
            choices.append(("0" if old[0] != "0" else "1") + old[1:])
    return rnd.choice([c for c in choices if c != old] or ["forged"])


def _changed_json(old: Any, rnd: random.Random) -> Any:
    if isinstance(old, dict) and old:
        key = rnd.choice(sorted(old))
        new = dict(old)
        if rnd.random() < 0.3:
            del new[key]
        else:
            new[key] = _changed_json(old[key], rnd)
        return new
    if isinstance(old, list) and old:
        i = rnd.randrange(len(old))
        new_list = list(old)
        if rnd.random() < 0.3:
            del new_list[i]
        else:
            new_list[i] = _changed_json(old[i], rnd)
        return new_list
    if isinstance(old, bool):
        return not old
    if isinstance(old, int):
        return old + 1
    if isinstance(old, str):
        return old + "!"
    return {"forged": True} if old != {"forged": True} else {"forged": False}


def apply(conn: Connection, m: Mutation) -> None:
    table = Base.metadata.tables[m.table]
    pks = list(table.primary_key.columns)
    where = and_(*(c == m.row[c.name] for c in pks))
    if m.method == "update":
        conn.execute(update(table).where(where).values({m.column: m.value}))
    elif m.method == "delete":
        conn.execute(delete(table).where(where))
    elif m.method in ("insert_or_replace", "replace_into"):
        row = {**m.row, m.column: m.value}
        if conn.dialect.name != "sqlite":
            raise NotImplementedError("REPLACE is SQLite only")
        if m.method == "replace_into":  # raw SQL, as typed at a sqlite3 prompt
            cols = [c.name for c in table.c]
            sql = f"REPLACE INTO {m.table} ({', '.join(cols)}) VALUES ({', '.join(':' + c for c in cols)})"
            conn.execute(text(sql), _bind(conn, table, row))
            return
        conn.execute(insert(table).prefix_with("OR REPLACE"), row)
    elif m.method == "on_conflict_update":
        row = {**m.row, m.column: m.value}
        dialect_insert = postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert
        stmt = dialect_insert(table).values(row)
        stmt = stmt.on_conflict_do_update(
            index_elements=pks,
            set_={c.name: stmt.excluded[c.name] for c in table.c if c.name not in {p.name for p in pks}},
        )
        conn.execute(stmt)
    else:
        raise ValueError(m.method)


def _bind(conn: Connection, table: Table, row: dict[str, Any]) -> dict[str, Any]:
    """Values as the driver wants them for a raw statement (JSON as text, datetimes as SQLite strings)."""
    out = {}
    for c in table.c:
        proc = c.type.bind_processor(conn.dialect)
        out[c.name] = proc(row[c.name]) if proc and row[c.name] is not None else row[c.name]
    return out
