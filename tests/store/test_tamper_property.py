"""Property: one change to one field of one row of any table a report reads (or one bit of a capture),
by any SQL means, is refused by the store's guards; and with the guards dropped, `verify` fails and names
the table (and the row or field where the seal holds it). On SQLite and PostgreSQL.

The default number of examples keeps the suite quick; `benchmarks/tamper_soak.py` runs 1,000 and more
(AUDITOR_TAMPER_EXAMPLES sets the count here too)."""

from __future__ import annotations

import os
import random
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, text
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

EXAMPLES = int(os.environ.get("AUDITOR_TAMPER_EXAMPLES", "40"))
PG_EXAMPLES = int(os.environ.get("AUDITOR_TAMPER_PG_EXAMPLES", "12"))  # a fresh database costs ~0.6 s
RUN = 1


class Stores:
    """Fresh copies of one store holding two sealed, signed runs (copying beats building each time)."""

    def __init__(self, backend: str, tmp: Path, pg_admin: Engine | None) -> None:
        self.backend, self.tmp, self.pg_admin = backend, tmp, pg_admin
        if backend == "sqlite":
            self.template = tmp / "template.db"
            url = f"sqlite:///{self.template}"
        else:
            assert pg_admin is not None
            self.template_name = f"auditor_tpl_{uuid.uuid4().hex[:10]}"
            with pg_admin.connect() as conn:
                conn.execute(text(f'CREATE DATABASE "{self.template_name}"'))
            url = pg_admin.url.set(database=self.template_name).render_as_string(hide_password=False)
        engine = open_store(url)
        build_run(engine)
        build_run(engine)
        if backend == "sqlite":
            with engine.connect() as conn:
                conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        engine.dispose()
        self.made: list[str] = []
        self.examples = EXAMPLES if backend == "sqlite" else PG_EXAMPLES
        self._shared: Engine | None = None

    def shared(self) -> Engine:
        if self._shared is None:
            self._shared = self.fresh()
        return self._shared

    def fresh(self) -> Engine:
        name = f"s_{uuid.uuid4().hex[:10]}"
        if self.backend == "sqlite":
            path = self.tmp / f"{name}.db"
            shutil.copyfile(self.template, path)
            return create_store_engine(f"sqlite:///{path}")
        assert self.pg_admin is not None
        with self.pg_admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{self.template_name}"'))
        self.made.append(name)
        return create_store_engine(self.pg_admin.url.set(database=name).render_as_string(hide_password=False))

    def close(self) -> None:
        if self._shared is not None:
            self._shared.dispose()
        if self.pg_admin is None:
            return
        with self.pg_admin.connect() as conn:
            for name in [*self.made, self.template_name]:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def stores(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stores]:
    admin = request.getfixturevalue("pg_admin") if request.param == "postgresql" else None
    made = Stores(request.param, tmp_path_factory.mktemp("tamper"), admin)
    yield made
    made.close()


def draw_mutation(engine: Engine, data: st.DataObject) -> Mutation:
    tables = guarded_tables()
    methods = [
        m
        for m in METHODS
        if engine.dialect.name == "sqlite" or m not in ("insert_or_replace", "replace_into")
    ]
    name = data.draw(st.sampled_from(sorted(GUARDED_TABLES)), label="table")
    table = tables[name]
    method = data.draw(st.sampled_from(methods), label="method")
    with engine.connect() as conn:
        rows = rows_of_run(conn, table, RUN)
        row = data.draw(st.sampled_from(rows), label="row")
        column = data.draw(st.sampled_from([c.name for c in table.c]), label="column")
        rnd = random.Random(data.draw(st.integers(0, 2**32), label="seed"))
        value = changed_value(conn, table, column, row[column], rnd)
    return Mutation(name, row, column, value, method)


def named(mutation: Mutation, result: object) -> bool:
    """verify's mismatches name the mutated table, and for runs and targets the field or row."""
    mismatches = result.mismatches  # type: ignore[attr-defined]
    tables = {m.table for m in mismatches}
    if mutation.table not in tables:
        return False
    if mutation.method == "update" and mutation.table == "runs" and mutation.column != "id":
        return any((m.field or "").split(".")[0] == mutation.column for m in mismatches)
    if mutation.table in ("targets", "problems"):
        return any(m.table == mutation.table and m.row == str(mutation.row["id"]) for m in mismatches) or any(
            m.table == mutation.table and m.row is None for m in mismatches
        )
    return True


def _key(table: str) -> str:
    return "run_id" if table == "seals" else "id"


def _settings(stores: Stores) -> settings:
    return settings(
        max_examples=stores.examples,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
        derandomize=os.environ.get("AUDITOR_TAMPER_RANDOM") != "1",
        database=None,
    )


def test_the_guards_refuse_every_change(stores: Stores) -> None:
    engine = stores.shared()  # nothing may change it, so one copy serves every example

    @_settings(stores)
    @given(data=st.data())
    def attempt(data: st.DataObject) -> None:
        mutation = draw_mutation(engine, data)
        # refused by the guards (or, on PostgreSQL, by a unique key checked before the statement-level
        # guard on inserted rows: an upsert under a new id that collides with another key)
        with pytest.raises(DBAPIError, match=r"auditor: |duplicate key"), engine.begin() as conn:
            apply(conn, mutation)
        result = verify_run(engine, RUN, SIGNER.public_raw)
        assert result.ok, (str(mutation), result.mismatches)

    attempt()


def test_with_the_guards_dropped_verify_names_every_change(stores: Stores) -> None:
    @_settings(stores)
    @given(data=st.data())
    def attempt(data: st.DataObject) -> None:
        engine = stores.fresh()
        try:
            with engine.begin() as conn:
                drop_guards(conn)
            mutation = draw_mutation(engine, data)
            try:
                with engine.begin() as conn:
                    apply(conn, mutation)
            except DBAPIError:  # a key or NOT NULL constraint refused it: nothing changed, it still verifies
                assert verify_run(engine, RUN, SIGNER.public_raw).ok
                return
            with engine.connect() as conn:
                run_ids = conn.execute(text("SELECT id FROM runs ORDER BY id")).scalars().all()
            results = {rid: verify_run(engine, rid, SIGNER.public_raw) for rid in run_ids}
            assert {rid for rid, r in results.items() if not r.ok}, f"{mutation} went unnoticed"
            if mutation.column == _key(mutation.table):  # written under another key (REPLACE, upsert):
                return  # another run's row was overwritten or an unsealed run appeared; both fail above
            assert named(mutation, results[RUN]), (str(mutation), results[RUN].mismatches)
        finally:
            engine.dispose()

    attempt()


def test_one_flipped_bit_of_any_capture_is_named(stores: Stores) -> None:
    @_settings(stores)
    @given(seq=st.integers(1, 4), where=st.floats(0, 1, exclude_max=True), bit=st.integers(0, 7))
    def attempt(seq: int, where: float, bit: int) -> None:
        engine = stores.fresh()
        try:
            with engine.begin() as conn:
                drop_guards(conn)
                content = conn.execute(
                    text("SELECT content FROM captures WHERE run_id = :r AND seq = :s"), {"r": RUN, "s": seq}
                ).scalar_one()
                data = bytearray(content)
                data[int(where * len(data))] ^= 1 << bit
                conn.execute(
                    text("UPDATE captures SET content = :c WHERE run_id = :r AND seq = :s"),
                    {"c": bytes(data), "r": RUN, "s": seq},
                )
            first = verify_run(engine, RUN, SIGNER.public_raw).mismatches[0]
            assert (first.what, first.seq, first.field) == ("capture", seq, "content")
        finally:
            engine.dispose()

    attempt()
