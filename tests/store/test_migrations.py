"""The migrations and the models agree, on SQLite and PostgreSQL, and the store migrates on first use."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Engine, inspect

from auditor.store.engine import current_revision, head_revision, open_store
from auditor.store.models import GUARDED_TABLES, Base


def test_new_store_is_migrated_on_first_use(store_url: str) -> None:
    engine = open_store(store_url)
    assert current_revision(engine) == head_revision()
    assert {"runs", "targets", "captures", "facts", "findings", "problems"} <= set(
        inspect(engine).get_table_names()
    )


def test_models_and_migrations_agree(engine: Engine) -> None:
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diff == [], f"models and migrations differ; write a migration: {diff}"


def test_open_twice_is_idempotent(store_url: str) -> None:
    first = open_store(store_url)
    first.dispose()
    second = open_store(store_url)
    assert current_revision(second) == head_revision()


def test_append_only_guards_survive_every_migration(engine: Engine) -> None:
    """Later migrations must not drop the guards (SQLite batch mode recreates tables and loses their
    triggers: such a migration calls migrations.guards.install() at its end)."""
    from sqlalchemy import text

    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            names = {
                r[0] for r in conn.execute(text("SELECT name FROM sqlite_master WHERE type = 'trigger'"))
            }
            expected = {
                f"{t}_no_{a}"
                for t in ("captures", "facts", "findings", "problems")
                for a in ("update", "delete")
            }
            expected |= {f"{t}_insert_guard" for t in GUARDED_TABLES}
            expected |= {"runs_update_guard", "runs_no_delete", "targets_update_guard", "targets_no_delete"}
        else:
            names = {r[0] for r in conn.execute(text("SELECT tgname FROM pg_trigger WHERE NOT tgisinternal"))}
            expected = {f"{t}_append_only" for t in ("captures", "facts", "findings", "problems", "seals")}
            expected |= {
                f"{t}_{g}" for t in GUARDED_TABLES for g in ("insert_guard", "no_truncate", "no_delete")
            }
            expected |= {"runs_update_guard", "targets_update_guard"}
    assert expected <= names
