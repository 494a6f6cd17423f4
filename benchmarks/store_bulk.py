"""How fast facts reach the store: the path the auditor uses (auditor.store.bulk: canonical JSON encoded
once, raw executemany on SQLite, COPY on PostgreSQL) against SQLAlchemy Core's executemany and the ORM.

Usage: python benchmarks/store_bulk.py [--rows 50000] [--pg postgresql+psycopg://postgres@127.0.0.1/test]
Prints rows/s for each path on SQLite (and PostgreSQL when --pg is given or reachable).
"""

from __future__ import annotations

import argparse
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import create_engine, insert, text
from sqlalchemy.orm import Session

from auditor.capture import RawCapture
from auditor.facts import Interface
from auditor.store import bulk
from auditor.store.engine import open_store
from auditor.store.models import Fact
from auditor.store.writer import RunWriter


def _facts(n: int) -> list[Interface]:
    return [
        Interface(
            device=f"leaf{i // 64}",
            name=f"Ethernet{i % 64}",
            type="ethernet",
            mtu=9214,
            ipv4=[f"10.{i % 250}.0.1/31"],
        )
        for i in range(n)
    ]


def _setup(url: str) -> tuple[RunWriter, int]:
    engine = open_store(url)
    writer = RunWriter.start(engine, config={}, config_sha256="0" * 64, scope="bench")
    tid = writer.add_target(kind="device", name="bench")
    cap = RawCapture("bench", "eos.running-config", "bench", "bench", datetime.now(UTC), b"x", {})
    writer.ingest(tid, cap, redactions=0, redaction_kinds={}, facts=[])
    return writer, tid


def bench(url: str, rows: int) -> dict[str, float]:
    facts = _facts(rows)
    results: dict[str, float] = {}
    writer, tid = _setup(url)
    payload = [
        {
            "run_id": writer.run_id,
            "target_id": tid,
            "capture_id": 1,
            "kind": f.kind.value,
            "subject": f.subject(),
            "data": f.to_json(),
        }
        for f in facts
    ]
    t = time.perf_counter()
    with writer.engine.begin() as conn:
        parts = [bulk.CaptureFacts(tid, 1, 1, facts, bulk.encode_all(facts))]
        bulk.write_facts(conn, writer.run_id, parts)
    results["bulk.write_facts (the auditor's path, encoding included)"] = rows / (time.perf_counter() - t)

    t = time.perf_counter()
    with writer.engine.begin() as conn:
        conn.execute(insert(Fact), payload)
    results["core executemany"] = rows / (time.perf_counter() - t)

    n_orm = max(1000, rows // 20)
    t = time.perf_counter()
    with Session(writer.engine) as session:
        for p in payload[:n_orm]:
            session.add(Fact(**p))
            session.flush()  # row by row, as naive ORM code does
        session.commit()
    results[f"orm add+flush per row ({n_orm} rows)"] = n_orm / (time.perf_counter() - t)

    t = time.perf_counter()
    with Session(writer.engine) as session:
        session.add_all([Fact(**p) for p in payload])
        session.commit()
    results["orm add_all + one commit"] = rows / (time.perf_counter() - t)
    writer.engine.dispose()
    return results


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=50_000)
    ap.add_argument("--pg", default="postgresql+psycopg://postgres@127.0.0.1:5432/test")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for name, rate in bench(f"sqlite:///{Path(tmp) / 'b.db'}", args.rows).items():
            print(f"sqlite      {name:58s} {rate:12,.0f} rows/s")
    admin = create_engine(args.pg, isolation_level="AUTOCOMMIT")
    db = f"auditor_bench_{uuid.uuid4().hex[:8]}"
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{db}"'))
    except Exception as exc:
        print(f"postgresql  skipped: {exc}")
        return
    try:
        url = admin.url.set(database=db).render_as_string(hide_password=False)
        for name, rate in bench(url, args.rows).items():
            print(f"postgresql  {name:58s} {rate:12,.0f} rows/s")
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)'))


if __name__ == "__main__":
    main()
