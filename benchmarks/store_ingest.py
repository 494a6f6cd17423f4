"""The store's whole ingest path (captures, facts, findings, the facts digest, the seal) against the driver.

The synthetic 2,000-switch fleet (synthetic_fleet.py) goes through RunWriter as the pipeline writes it:
one transaction per target (or per --targets-per-batch targets, as the pipeline's writer drains its
queue) with its capture and facts, one finding per ten facts, then the seal. The same fact rows, already
encoded, then go straight to the driver: `executemany` on SQLite, `COPY` on PostgreSQL. Wall and CPU
seconds (this process) are printed for each, and the writer's rate as a fraction of the driver's (the
ingest alone, then with findings and seal). Target (issue 14): the writer at >= 0.5x the driver. On
PostgreSQL the driver's CPU is mostly the server's, so compare wall seconds there.

Usage: python benchmarks/store_ingest.py [--scale 1] [--stores sqlite,postgresql] [--targets-per-batch 1]"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, text
from synthetic_fleet import build_fleet, iter_by_target

from auditor.capture import RawCapture
from auditor.enums import RunStatus, TargetStatus
from auditor.store.engine import open_store
from auditor.store.writer import FindingRow, RunWriter

PG_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


@contextmanager
def timed(out: dict[str, float], name: str) -> Iterator[None]:
    t, c = time.perf_counter(), time.process_time()
    yield
    out[f"{name}_s"] = time.perf_counter() - t
    out[f"{name}_cpu"] = time.process_time() - c


@contextmanager
def store(kind: str) -> Iterator[Engine]:
    if kind == "sqlite":
        with tempfile.TemporaryDirectory() as tmp:
            engine = open_store(f"sqlite:///{Path(tmp) / 'ingest.db'}")
            yield engine
            engine.dispose()
        return
    name = f"h8_store_ingest_{uuid.uuid4().hex[:10]}"
    admin = create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        engine = open_store(PG_ADMIN.rsplit("/", 1)[0] + f"/{name}")
        yield engine
        engine.dispose()
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def writer_path(engine: Engine, by_target: list[tuple[str, list[Any]]], per_batch: int) -> dict[str, float]:
    out: dict[str, float] = {}
    writer = RunWriter.start(engine, config={"intent": {}}, config_sha256="0" * 64, scope="ingest")
    with timed(out, "ingest"):
        for at in range(0, len(by_target), per_batch):
            with writer.batch():
                for name, records in by_target[at : at + per_batch]:
                    tid = writer.add_target(kind="device", name=name)
                    capture = RawCapture(
                        name, "synthetic", "synthetic", name, datetime.now(UTC), name.encode(), {}
                    )
                    writer.ingest(tid, capture, redactions=0, redaction_kinds={}, facts=records)
                    writer.finish_target(tid, TargetStatus.OK)
    n = sum(len(r) for _, r in by_target)
    rows = [
        FindingRow("X-BENCH", "PASS", "low", "cross", f"t{i % 97}", f"subject {i}", "m", "e", "f", [i], [])
        for i in range(n // 10)
    ]
    with timed(out, "findings"):
        writer.add_findings(rows)
    with timed(out, "seal"):
        writer.seal(RunStatus.COMPLETE)
    return out


def driver_path(engine: Engine, by_target: list[tuple[str, list[Any]]], _per_batch: int) -> dict[str, float]:
    """The same fact rows, encoded beforehand (not timed), straight to the driver in one transaction."""
    writer = RunWriter.start(engine, config={"intent": {}}, config_sha256="0" * 64, scope="driver")
    tid = writer.add_target(kind="device", name="all")
    capture = RawCapture("all", "synthetic", "synthetic", "all", datetime.now(UTC), b"x", {})
    cid = writer.ingest(tid, capture, redactions=0, redaction_kinds={}, facts=[]).id
    rows = [
        (writer.run_id, tid, cid, r.kind.value, r.subject(), json.dumps(r.to_json()))
        for _, records in by_target
        for r in records
    ]
    out: dict[str, float] = {}
    cols = "run_id, target_id, capture_id, kind, subject, data"
    with timed(out, "driver"), engine.begin() as conn:
        raw: Any = conn.connection.driver_connection
        if engine.dialect.name == "sqlite":
            raw.executemany(f"INSERT INTO facts ({cols}) VALUES (?, ?, ?, ?, ?, ?)", rows)
        else:
            with raw.cursor() as cur, cur.copy(f"COPY facts ({cols}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", type=int, default=1)
    ap.add_argument("--stores", default="sqlite,postgresql")
    ap.add_argument(
        "--targets-per-batch",
        type=int,
        default=1,
        help="targets per writer transaction (1: the writer keeps up and commits each target alone; the "
        "pipeline drains up to collect.BATCH_ITEMS queued items, a capture and a done item per target here)",
    )
    args = ap.parse_args()
    by_target = list(iter_by_target(build_fleet(args.scale)))
    n = sum(len(r) for _, r in by_target)
    print(f"{n:,} facts in {len(by_target):,} targets")
    for kind in args.stores.split(","):
        run: Callable[[Engine, list[tuple[str, list[Any]]], int], dict[str, float]]
        results: dict[str, float] = {}
        for run in (writer_path, driver_path):
            with store(kind) as engine:
                results |= run(engine, by_target, args.targets_per_batch)
        w, d = results["ingest_s"], results["driver_s"]
        wc, dc = results["ingest_cpu"], results["driver_cpu"]
        whole = w + results["findings_s"] + results["seal_s"]
        print(
            f"{kind} ({args.targets_per_batch} targets per transaction): writer ingest {w:.1f} s "
            f"({n / w:,.0f} facts/s, {wc:.1f} CPU s), findings {results['findings_s']:.1f} s "
            f"({results['findings_cpu']:.1f} CPU s), seal {results['seal_s']:.1f} s "
            f"({results['seal_cpu']:.1f} CPU s); driver {d:.1f} s ({n / d:,.0f} facts/s, {dc:.1f} CPU s); "
            f"writer at {d / w:.2f}x the driver ({d / whole:.2f}x with findings and seal; "
            f"CPU of this process {dc / wc:.2f}x)"
        )


if __name__ == "__main__":
    main()
