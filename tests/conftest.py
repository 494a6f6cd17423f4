"""Shared fixtures: stores on SQLite and on PostgreSQL (a fresh database per test)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.exc import OperationalError

from auditor.store.engine import open_store

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
PG_ADMIN_URL = os.environ.get("AUDITOR_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
REQUIRE_PG = os.environ.get("AUDITOR_REQUIRE_PG") == "1"


def _pg_available() -> str | None:
    try:
        engine = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        engine.dispose()
        return None
    except OperationalError as exc:
        return str(exc.orig)


@pytest.fixture(scope="session")
def pg_admin() -> Iterator[Engine]:
    reason = _pg_available()
    if reason is not None:
        if REQUIRE_PG:
            pytest.fail(f"PostgreSQL is required (AUDITOR_REQUIRE_PG=1) but unreachable: {reason}")
        pytest.skip(f"PostgreSQL not reachable: {reason}")
    engine = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    yield engine
    engine.dispose()


@pytest.fixture
def pg_url(pg_admin: Engine) -> Iterator[str]:
    """A brand-new PostgreSQL database for one test, dropped afterwards."""
    name = f"auditor_t_{uuid.uuid4().hex[:12]}"
    with pg_admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = pg_admin.url.set(database=name).render_as_string(hide_password=False)
    yield url
    with pg_admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'store.db'}"


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Run the test once on SQLite and once on PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
def engine(store_url: str) -> Iterator[Engine]:
    eng = open_store(store_url)
    yield eng
    eng.dispose()
