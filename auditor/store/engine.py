"""Engine creation and migrations: a new store is migrated on first use."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, OperationalError, ProgrammingError

import migrations
from auditor.errors import StoreError

if sys.platform != "win32":  # flock: the SQLite migration lock (see _sqlite_migration_lock)
    import fcntl

_PG_MIGRATION_LOCK = 7_355_608  # advisory lock id: one migrator at a time


def normalize_url(url: str) -> str:
    """Use psycopg 3 for plain postgresql:// URLs (psycopg2 is not a dependency)."""
    if url.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


def safe_url(url: str) -> str:
    """The URL with any password hidden, for messages and logs."""
    try:
        return make_url(normalize_url(url)).render_as_string(hide_password=True)
    except ArgumentError:
        return "<unparsable store URL>"


def create_store_engine(url: str) -> Engine:
    url = normalize_url(url)
    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        raise StoreError(f"store URL is not valid: {exc}", hint="use e.g. sqlite:///auditor.db") from None
    kwargs: dict[str, Any] = {}
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        kwargs["connect_args"] = {"timeout": 30}
    engine = create_engine(url, **kwargs)
    if parsed.get_backend_name() == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA foreign_keys=ON")
    # REPLACE deletes the row it replaces without firing delete triggers unless this is on. The guards
    # do not rely on it (every guarded table refuses an insert over an existing key, whatever the
    # connection's pragmas), but our own connections get both.
    cur.execute("PRAGMA recursive_triggers=ON")
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.close()


def alembic_config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(migrations.LOCATION))
    return cfg


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade(engine: Engine, revision: str = "head") -> str:
    """Bring the store's schema to `revision`; returns the revision now in place."""
    cfg = alembic_config()
    try:
        with _sqlite_migration_lock(engine), engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_MIGRATION_LOCK})
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, revision)
    except (OperationalError, ProgrammingError) as exc:
        raise StoreError(f"{safe_url(str(engine.url))}: migration failed: {exc.orig}") from None
    return current_revision(engine) or ""


@contextlib.contextmanager
def _sqlite_migration_lock(engine: Engine) -> Iterator[None]:
    """One migrator at a time on a SQLite file: an exclusive flock on `<db>.lock` beside it.

    Alembic's check-then-create is not atomic on SQLite (its DDL does not wait for a writer the way
    PostgreSQL's advisory lock makes it), so processes opening a new store together each saw no
    schema and all but one failed with "table ... already exists". The lock file is left in place
    (removing it would let a late opener lock a different inode). In-memory databases and platforms
    without flock need no lock or cannot have one."""
    database = engine.url.database
    if engine.dialect.name != "sqlite" or not database or database == ":memory:" or sys.platform == "win32":
        yield
        return
    lock_path = Path(database).with_name(Path(database).name + ".lock")
    try:
        handle = lock_path.open("a")
    except OSError:  # a read-only directory: the migration itself will fail with a clear message
        yield
        return
    with handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def open_store(url: str, *, migrate: bool = True) -> Engine:
    """Connect, and migrate a new or older store to the current schema.

    Safe when several processes open a new store at once: the revision is checked again under the
    migration lock (flock on SQLite, an advisory lock on PostgreSQL), so only the first one migrates."""
    engine = create_store_engine(url)
    try:
        current = current_revision(engine)
    except OperationalError as exc:
        raise StoreError(f"{safe_url(url)}: cannot connect: {exc.orig}") from None
    if current != head_revision():
        if not migrate:
            raise StoreError(
                f"{safe_url(url)}: schema is at {current or 'nothing'}, expected {head_revision()}",
                hint="run `auditor db upgrade`",
            )
        upgrade(engine)
    return engine
