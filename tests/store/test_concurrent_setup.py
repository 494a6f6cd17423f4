"""Concurrent first use: several processes opening one NEW store at the same moment all succeed.

Without the migration lock, audits started together on a new SQLite file each saw no schema, each ran
the migrations, and all but the first failed with "table ... already exists"."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import text

from auditor.store.engine import current_revision, head_revision, open_store

REPO = Path(__file__).resolve().parents[2]
PROCESSES = 6

# Each child waits for the same instant, then opens the store and reads from it.
CHILD = """
import sys, time
from sqlalchemy import text
from auditor.store.engine import open_store
url, start = sys.argv[1], float(sys.argv[2])
time.sleep(max(0.0, start - time.time()))
engine = open_store(url)
with engine.connect() as conn:
    conn.execute(text("SELECT count(*) FROM runs")).scalar_one()
engine.dispose()
"""


def open_together(url: str) -> list[tuple[int, str]]:
    start = time.time() + 3.0  # every interpreter is up and waiting by then
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD, url, repr(start)],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(PROCESSES)
    ]
    results = []
    for p in procs:
        _, err = p.communicate(timeout=120)
        results.append((p.returncode, err.strip().splitlines()[-1] if err.strip() else ""))
    return results


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def test_new_store_opened_by_many_processes_at_once(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    url = (
        f"sqlite:///{tmp_path / 'new' / 'store.db'}"
        if backend == "sqlite"
        else request.getfixturevalue("pg_url")
    )
    results = open_together(url)
    failed = [err for code, err in results if code != 0]
    assert not failed, f"{len(failed)} of {PROCESSES} processes failed: {failed}"
    engine = open_store(url, migrate=False)  # raises unless the schema is at head
    assert current_revision(engine) == head_revision()
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM runs")).scalar_one() == 0
    engine.dispose()
