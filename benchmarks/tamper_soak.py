"""Soak test of tamper-evidence: N random one-field mutations of rows of every table a report reads (and
bit flips of captures), by UPDATE, DELETE, INSERT OR REPLACE, REPLACE INTO and INSERT ... ON CONFLICT DO
UPDATE, against a store holding two sealed, signed runs.

With the guards in place every mutation must be refused by them; with the guards dropped every mutation
that the database accepts must make `verify --pubkey` fail for some run, naming the mutated table (a
mutation the database itself refuses, say by a foreign key, changes nothing and must still verify).

Usage: python benchmarks/tamper_soak.py [--count 1000] [--backend sqlite|postgresql|both] [--seed 1]
(PostgreSQL at $AUDITOR_TEST_PG, default postgresql+psycopg://postgres@127.0.0.1:5432/test.)
Exit code 0 only when 100% of the mutations were refused or detected."""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import Engine, create_engine, text
from sqlalchemy.exc import DBAPIError

from auditor.evidence.verify import verify_run
from auditor.store.engine import create_store_engine, open_store
from auditor.store.models import GUARDED_TABLES
from tests.store.tamper_kit import (
    METHODS,
    SIGNER,
    Mutation,
    apply,
    build_run,
    changed_value,
    drop_guards,
    guarded_tables,
    rows_of_run,
)

PG_ADMIN = os.environ.get("AUDITOR_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


class Factory:
    def __init__(self, backend: str, tmp: Path) -> None:
        self.backend, self.tmp = backend, tmp
        self.admin = (
            create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT") if backend == "postgresql" else None
        )
        self.made: list[str] = []
        self._shared: Engine | None = None
        if self.admin is None:
            self.template = tmp / "template.db"
            url = f"sqlite:///{self.template}"
        else:
            self.tpl = f"soak_tpl_{uuid.uuid4().hex[:8]}"
            with self.admin.connect() as conn:
                conn.execute(text(f'CREATE DATABASE "{self.tpl}"'))
            url = self.admin.url.set(database=self.tpl).render_as_string(hide_password=False)
        engine = open_store(url)
        build_run(engine)
        build_run(engine)
        if self.admin is None:
            with engine.connect() as conn:
                conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        engine.dispose()

    def fresh(self) -> Engine:
        name = f"soak_{uuid.uuid4().hex[:10]}"
        if self.admin is None:
            path = self.tmp / f"{name}.db"
            shutil.copyfile(self.template, path)
            return create_store_engine(f"sqlite:///{path}")
        with self.admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{self.tpl}"'))
        self.made.append(name)
        return create_store_engine(self.admin.url.set(database=name).render_as_string(hide_password=False))

    def shared(self) -> Engine:
        if self._shared is None:
            self._shared = self.fresh()
            if self.admin is not None:  # kept until close(), not dropped after one mutation
                self.made.remove(self._shared.url.database or "")
        return self._shared

    def drop(self, engine: Engine) -> None:
        engine.dispose()
        if self.admin is not None and self.made:
            with self.admin.connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{self.made.pop()}" WITH (FORCE)'))

    def close(self) -> None:
        if self._shared is not None:
            self._shared.dispose()
        if self.admin is not None:
            if self._shared is not None:
                self.made.append(self._shared.url.database or "")
            with self.admin.connect() as conn:
                for name in [*self.made, self.tpl]:
                    conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            self.admin.dispose()


def mutation(engine: Engine, rnd: random.Random) -> Mutation | tuple[int, int, int]:
    if rnd.random() < 0.1:  # a bit of a capture's bytes
        return (rnd.randint(1, 4), rnd.randrange(1 << 16), rnd.randrange(8))
    tables = guarded_tables()
    name = rnd.choice(sorted(GUARDED_TABLES))
    methods = [
        m
        for m in METHODS
        if engine.dialect.name == "sqlite" or m not in ("insert_or_replace", "replace_into")
    ]
    with engine.connect() as conn:
        row = rnd.choice(rows_of_run(conn, tables[name], 1))
        column = rnd.choice([c.name for c in tables[name].c])
        value = changed_value(conn, tables[name], column, row[column], rnd)
    return Mutation(name, row, column, value, rnd.choice(methods))


def flip(engine: Engine, seq: int, where: int, bit: int) -> None:
    with engine.begin() as conn:
        content = conn.execute(
            text("SELECT content FROM captures WHERE run_id = 1 AND seq = :s"), {"s": seq}
        ).scalar_one()
        data = bytearray(content)
        data[where % len(data)] ^= 1 << bit
        conn.execute(
            text("UPDATE captures SET content = :c WHERE run_id = 1 AND seq = :s"),
            {"c": bytes(data), "s": seq},
        )


def one(factory: Factory, rnd: random.Random, guards: bool) -> tuple[str, str]:
    """One mutation. With the guards in place the store must not change, so one copy serves them all
    (a mutation that got through is reported and taints the copy, which later ones would then show)."""
    engine = factory.shared() if guards else factory.fresh()
    try:
        if not guards:
            with engine.begin() as conn:
                drop_guards(conn)
        m = mutation(engine, rnd)
        label = f"capture bit {m}" if isinstance(m, tuple) else str(m)
        try:
            if isinstance(m, tuple):
                flip(engine, *m)
            else:
                with engine.begin() as conn:
                    apply(conn, m)
        except DBAPIError as exc:
            intact = verify_run(engine, 1, SIGNER.public_raw).ok
            if guards:  # on PostgreSQL a unique key can refuse an insert before the statement-level guard
                by = "the guards" if "auditor: " in str(exc) else "a key constraint"
                return (f"refused by {by}, store intact" if intact else "MISSED"), label
            return ("refused by a key constraint, store intact" if intact else "MISSED"), label
        if guards:
            return "MISSED", label + " (accepted with the guards in place)"
        with engine.connect() as conn:
            runs = conn.execute(text("SELECT id FROM runs")).scalars().all()
        results = {r: verify_run(engine, r, SIGNER.public_raw) for r in runs}
        failed = [r for r in results.values() if not r.ok]
        if not failed:
            return "MISSED", label
        table = "captures" if isinstance(m, tuple) else m.table
        if any(x.table == table for r in failed for x in r.mismatches):
            return "detected, table named", label
        return "detected, other table named", label
    finally:
        if not guards:
            factory.drop(engine)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000, help="mutations per backend and guard mode")
    parser.add_argument("--backend", choices=["sqlite", "postgresql", "both"], default="sqlite")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    backends = ["sqlite", "postgresql"] if args.backend == "both" else [args.backend]
    missed = 0
    for backend in backends:
        with tempfile.TemporaryDirectory() as tmp:
            factory = Factory(backend, Path(tmp))
            try:
                for guards in (True, False):
                    rnd = random.Random(args.seed)
                    outcomes: Counter[str] = Counter()
                    start = time.perf_counter()
                    for _ in range(args.count):
                        outcome, label = one(factory, rnd, guards)
                        outcomes[outcome] += 1
                        if outcome == "MISSED" or (os.environ.get("SOAK_VERBOSE") and "other" in outcome):
                            print(f"  MISSED: {label}")
                    took = time.perf_counter() - start
                    missed += outcomes["MISSED"]
                    mode = "guards in place" if guards else "guards dropped"
                    caught = args.count - outcomes["MISSED"]
                    print(f"{backend}, {mode}: {caught}/{args.count} refused or detected ({took:.1f} s)")
                    for k, v in sorted(outcomes.items()):
                        print(f"    {v:5d}  {k}")
            finally:
                factory.close()
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
