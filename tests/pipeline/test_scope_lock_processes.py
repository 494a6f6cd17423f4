"""One audit per scope at a time, with real processes on SQLite and PostgreSQL: of two audits started
together exactly one runs and the other exits 75 naming the holder's run, host and pid; `--wait` runs
after the holder instead; a holder killed with SIGKILL leaves the scope free at once.

Before: two audits of one scope both ran and both collected from every target."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import pytest
from sqlalchemy import text

from auditor.config.loader import load_config
from auditor.pipeline.audit import run_audit
from auditor.store.engine import open_store
from auditor.store.scope_lock import ScopeBusy
from tests.pipeline.test_crash_resume import BACKENDS, small_lab, start_driver, store_for, wait_for


def finish(proc: subprocess.Popen[str], timeout: float = 120) -> str:
    try:
        return proc.communicate(timeout=timeout)[0]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def runs(store: str) -> list[tuple[int, str]]:
    engine = open_store(store, migrate=False)
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT id, status FROM runs ORDER BY id")).all()
    engine.dispose()
    return [(int(r[0]), str(r[1])) for r in rows]


@pytest.mark.parametrize("backend", BACKENDS)
def test_two_audits_of_one_scope_exactly_one_runs(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    store = store_for(backend, tmp_path, request)
    open_store(store).dispose()  # migrated once, so both start from the same point
    cfg = small_lab(tmp_path, store)
    # Both stall at the checks: whichever takes the scope holds it there until the other has exited.
    a, mark_a = start_driver(cfg, tmp_path, "checks")
    b, mark_b = start_driver(cfg, tmp_path, "checks")
    give_up = time.monotonic() + 120
    while a.poll() is None and b.poll() is None:
        assert time.monotonic() < give_up, "neither audit ended"
        time.sleep(0.2)
    (tmp_path / "release").touch()
    out_a, out_b = finish(a), finish(b)
    codes = sorted([a.returncode, b.returncode])
    assert codes.count(75) == 1 and codes[0] in (0, 1, 3), (out_a, out_b)
    busy, holder = (out_a, b) if a.returncode == 75 else (out_b, a)
    said = busy.replace("\n", " ")
    # Refused between the holder's lock and its run row, there is no run or pid to name yet, and it says so.
    if "another audit that is starting (no run recorded yet)" not in said:
        assert "same scope is already running: run 1" in said
        assert f"pid {holder.pid}" in said
    assert [r for r, _ in runs(store)] == [1]  # the second never started a run
    assert mark_a.exists() != mark_b.exists()  # and never reached its checks


@pytest.mark.parametrize("backend", BACKENDS)
def test_wait_runs_after_the_holder(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    store = store_for(backend, tmp_path, request)
    cfg = small_lab(tmp_path, store)
    holder, mark = start_driver(cfg, tmp_path, "checks")
    wait_for(mark, holder)
    log = tmp_path / "waiter.log"
    waiter, _ = start_driver(cfg, tmp_path, "none", "--wait", log=log)
    give_up = time.monotonic() + 120
    while "waiting:" not in log.read_text():
        assert waiter.poll() is None, log.read_text()
        assert time.monotonic() < give_up, "the second audit never waited"
        time.sleep(0.2)
    assert "an audit of the same scope is running: run 1" in log.read_text().replace("\n", " ")
    (tmp_path / "release").touch()
    out_holder = finish(holder)
    finish(waiter)
    assert holder.returncode in (0, 1, 3), out_holder
    assert waiter.returncode in (0, 1, 3), log.read_text()
    engine = open_store(store, migrate=False)
    with engine.connect() as conn:
        first_sealed, second_started = conn.execute(
            text(
                "SELECT (SELECT sealed_at FROM runs WHERE id = 1), (SELECT started_at FROM runs WHERE id = 2)"
            )
        ).one()
    engine.dispose()
    assert second_started >= first_sealed  # one after the other, never together


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_holder_killed_with_sigkill_frees_the_scope(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    store = store_for(backend, tmp_path, request)
    cfg = small_lab(tmp_path, store)
    killed, mark = start_driver(cfg, tmp_path, "checks")
    wait_for(mark, killed)
    with pytest.raises(ScopeBusy, match=f"pid {killed.pid}"):  # held while it lives
        run_audit(load_config(cfg), render=False)
    killed.send_signal(signal.SIGKILL)
    finish(killed)
    outcome = run_audit(load_config(cfg), render=False)  # its lock died with it: the next audit runs at once
    assert outcome.run_id == 2
    assert [s for _, s in runs(store)] == ["running", outcome.seal.status.value]
