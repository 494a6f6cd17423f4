"""The store's write guards as a state machine: what may change while a run is written, and that nothing
may change once it is sealed, whatever the SQL (REPLACE, upsert, TRUNCATE); and that migrations keep them."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

import pytest
from alembic import command
from sqlalchemy import Engine, text
from sqlalchemy.exc import DBAPIError

from auditor.enums import RunStatus, TargetStatus
from auditor.evidence.verify import verify_run
from auditor.store.engine import alembic_config, current_revision, head_revision
from auditor.store.models import GUARDED_TABLES
from auditor.store.writer import RunWriter
from tests.store.tamper_kit import SIGNER, build_run


def refused(engine: Engine, sql: str, params: Mapping[str, object] | None = None) -> None:
    with pytest.raises(DBAPIError, match="auditor: "), engine.begin() as conn:
        conn.execute(text(sql), params or {})


def test_a_running_run_progresses_then_seals_once(engine: Engine) -> None:
    writer = RunWriter.start(engine, config={"intent": {}}, config_sha256="0" * 64, scope="s")
    run = {"r": writer.run_id}
    with engine.begin() as conn:  # progress fields of a running run may change (counts, say)
        conn.execute(text("UPDATE runs SET capture_count = 5 WHERE id = :r"), run)
    refused(engine, "UPDATE runs SET operator = 'mallory' WHERE id = :r", run)  # identity is fixed at insert
    refused(engine, "UPDATE runs SET config_sha256 = :h WHERE id = :r", {**run, "h": "f" * 64})
    refused(engine, "UPDATE runs SET genesis = :h WHERE id = :r", {**run, "h": "f" * 64})  # set once
    refused(engine, "UPDATE runs SET status = 'complete' WHERE id = :r", run)  # final only with its seal
    refused(engine, "DELETE FROM runs WHERE id = :r", run)
    tid = writer.add_target(kind="device", name="leaf1")
    writer.finish_target(tid, TargetStatus.OK, notes=["ok"])  # a target's outcome may be written ...
    refused(engine, "UPDATE targets SET name = 'leaf9' WHERE id = :t", {"t": tid})  # ... not its identity
    writer.seal(RunStatus.COMPLETE)
    assert verify_run(engine, writer.run_id).ok
    refused(
        engine, "UPDATE runs SET status = 'running', sealed_at = NULL, chain_head = NULL WHERE id = :r", run
    )
    refused(engine, "UPDATE targets SET status = 'failed' WHERE id = :t", {"t": tid})
    for sql in (
        "INSERT INTO targets (run_id, kind, name, status) VALUES (:r, 'device', 'late', 'ok')",
        "INSERT INTO problems (run_id, location, message, hint, created_at) VALUES (:r, 'x', 'y', '', :now)",
    ):
        refused(engine, sql, {**run, "now": datetime.now(UTC)})  # nothing is added to a sealed run
    refused(engine, "DELETE FROM seals WHERE run_id = :r", run)
    refused(engine, "UPDATE seals SET signature = NULL WHERE run_id = :r", run)


def test_no_run_is_inserted_already_sealed(engine: Engine) -> None:
    refused(
        engine,
        "INSERT INTO runs (status, started_at, scope, tool_version, operator, config_sha256, config, genesis,"
        " chain_head, capture_count, fact_count, finding_count, sealed_at) VALUES ('complete', :t, '', '0',"
        " '', :h, '{}', :h, :h, 0, 0, 0, :t)",
        {"t": datetime.now(UTC), "h": "0" * 64},
    )


def test_sqlite_replace_and_upsert_are_refused_on_every_table(sqlite_url: str) -> None:
    from auditor.store.engine import open_store

    engine = open_store(sqlite_url)
    run_id = build_run(engine)
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA recursive_triggers").scalar() == 1
    for table in GUARDED_TABLES:
        key = "run_id" if table == "seals" else "id"
        where = f"{key} = (SELECT min({key}) FROM {table} WHERE {'id' if table == 'runs' else 'run_id'} = :r)"
        for form in ("INSERT OR REPLACE INTO", "REPLACE INTO"):
            refused(engine, f"{form} {table} SELECT * FROM {table} WHERE {where}", {"r": run_id})
        conflict = "run_id, resume" if table == "seals" else key
        refused(
            engine,
            f"INSERT INTO {table} SELECT * FROM {table} WHERE {where} "
            f"ON CONFLICT ({conflict}) DO UPDATE SET {key} = excluded.{key}",
            {"r": run_id},
        )
    assert verify_run(engine, run_id, SIGNER.public_raw).ok


@pytest.mark.postgres
def test_postgres_truncate_and_upsert_are_refused(pg_url: str) -> None:
    from auditor.store.engine import open_store

    engine = open_store(pg_url)
    run_id = build_run(engine)
    for table in GUARDED_TABLES:
        refused(engine, f"TRUNCATE {table} CASCADE")
        key = "run_id" if table == "seals" else "id"
        conflict = "run_id, resume" if table == "seals" else key
        refused(
            engine,
            f"INSERT INTO {table} SELECT * FROM {table} WHERE {key} = (SELECT min({key}) FROM {table}) "
            f"ON CONFLICT ({conflict}) DO UPDATE SET {key} = excluded.{key}",
        )
    refused(
        engine, "MERGE INTO facts f USING facts s ON f.id = s.id WHEN MATCHED THEN UPDATE SET subject = 'x'"
    )
    assert verify_run(engine, run_id, SIGNER.public_raw).ok


def test_0003_downgrades_and_upgrades(engine: Engine) -> None:
    cfg = alembic_config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0002")
    assert current_revision(engine) == "0002"
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
    assert current_revision(engine) == head_revision()
    run_id = build_run(engine)
    refused(engine, "DELETE FROM facts WHERE run_id = :r", {"r": run_id})
