"""`audit --resume` in one process: finished targets are not collected again, and a run is resumed only
when it is interrupted, with its own config, and verifies. The scope lock, held and refused, on both
stores."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, text

from auditor.config.loader import load_config
from auditor.enums import RunStatus
from auditor.evidence.verify import verify_run
from auditor.pipeline.audit import run_audit
from auditor.pipeline.resume import ResumeRefused
from auditor.store.engine import open_store
from auditor.store.scope_lock import ScopeBusy, ScopeLock
from collectors.offline.collector import OfflineFilesCollector
from tests.pipeline.test_crash_resume import small_lab
from tests.pipeline.test_run_status import InterruptAfter


@pytest.fixture
def collected(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the targets the files collector is asked to collect, in order."""
    names: list[str] = []
    collect = OfflineFilesCollector.collect

    def counting(self: Any, target: Any) -> Iterator[Any]:
        names.append(target.name)
        yield from collect(self, target)

    monkeypatch.setattr(OfflineFilesCollector, "collect", counting)
    return names


def interrupted_run(cfg: Path, engine: Engine) -> int:
    with pytest.raises(KeyboardInterrupt):  # Ctrl-C once the first target is stored
        run_audit(load_config(cfg), engine=engine, progress=InterruptAfter(), workers=1, render=False)
    return 1


def test_finished_targets_are_not_collected_again(
    tmp_path: Path, store_url: str, collected: list[str]
) -> None:
    cfg = small_lab(tmp_path, store_url)
    engine = open_store(store_url)
    run_id = interrupted_run(cfg, engine)
    with engine.connect() as conn:
        finished = set(
            conn.execute(text("SELECT name FROM targets WHERE status != 'pending'")).scalars().all()
        )
        every = set(conn.execute(text("SELECT name FROM targets")).scalars().all())
        stored_before = conn.execute(text("SELECT count(*) FROM captures")).scalar_one()
    assert finished and stored_before >= 1
    assert finished < every  # interrupted with targets still to collect
    collected.clear()
    outcome = run_audit(load_config(cfg), engine=engine, render=False, resume=run_id)
    assert outcome.run_id == run_id and outcome.seal.status != RunStatus.INTERRUPTED
    assert not finished & set(collected), "a finished target was collected again"
    assert set(collected) == every - finished  # every other target is collected
    with engine.connect() as conn:
        dupes = conn.execute(
            text(
                "SELECT target_id, source, origin, count(*) FROM captures WHERE run_id = :r "
                "GROUP BY target_id, source, origin HAVING count(*) > 1"
            ),
            {"r": run_id},
        ).all()
    assert dupes == []
    assert verify_run(engine, run_id).ok
    engine.dispose()


def test_only_an_interrupted_run_with_its_own_config_resumes(tmp_path: Path, store_url: str) -> None:
    cfg = small_lab(tmp_path, store_url)
    engine = open_store(store_url)
    outcome = run_audit(load_config(cfg), engine=engine, render=False)
    with pytest.raises(ResumeRefused, match=f"run {outcome.run_id} is sealed as"):
        run_audit(load_config(cfg), engine=engine, render=False, resume=outcome.run_id)
    with pytest.raises(ResumeRefused, match="does not exist"):
        run_audit(load_config(cfg), engine=engine, render=False, resume=99)
    interrupted = interrupted_run_after(cfg, engine)
    changed = load_config(cfg).model_copy(update={"output": tmp_path / "elsewhere"})
    with pytest.raises(ResumeRefused, match="another config"):
        run_audit(changed, engine=engine, render=False, resume=interrupted)
    engine.dispose()


def interrupted_run_after(cfg: Path, engine: Engine) -> int:
    with pytest.raises(KeyboardInterrupt):
        run_audit(load_config(cfg), engine=engine, progress=InterruptAfter(), workers=1, render=False)
    with engine.connect() as conn:
        return int(conn.execute(text("SELECT max(id) FROM runs")).scalar_one())


def test_a_tampered_interrupted_run_is_not_extended(tmp_path: Path, sqlite_url: str) -> None:
    cfg = small_lab(tmp_path, sqlite_url)
    engine = open_store(sqlite_url)
    run_id = interrupted_run(cfg, engine)
    with engine.begin() as conn:  # the database owner drops a guard and edits a stored capture
        conn.execute(text("DROP TRIGGER captures_no_update"))
        conn.execute(text("UPDATE captures SET content = X'00' WHERE seq = 1"))
    with pytest.raises(ResumeRefused, match="does not verify"):
        run_audit(load_config(cfg), engine=engine, render=False, resume=run_id)
    engine.dispose()


def test_the_scope_lock_refuses_a_second_holder_and_frees_on_release(store_url: str) -> None:
    engine = open_store(store_url)
    other = open_store(store_url)
    first = ScopeLock(engine, "pod-1")
    first.acquire()
    try:
        with pytest.raises(ScopeBusy, match="same scope is already running"):
            ScopeLock(other, "pod-1").acquire()
        with ScopeLock(other, "pod-2") as unrelated:  # another scope is not held up
            unrelated.acquire()
    finally:
        first.release()
    with ScopeLock(other, "pod-1") as second:
        second.acquire()
        assert second.held
    engine.dispose()
    other.dispose()


@pytest.mark.postgres
def test_the_postgres_lock_session_notices_a_dead_machine(pg_url: str) -> None:
    """The advisory lock lives as long as its session: short TCP keepalives end the session of a machine
    that died without closing it, so the scope does not stay held for the kernel's default two hours."""
    engine = open_store(pg_url)
    with ScopeLock(engine, "pod-1") as lock:
        lock.acquire()
        assert lock._conn is not None
        assert lock._conn.execute(text("SHOW tcp_keepalives_idle")).scalar() in ("15", "15s")
        lock.ping()
    engine.dispose()


def test_a_run_whose_writer_is_alive_is_not_taken_over(sqlite_url: str) -> None:
    from auditor.pipeline.resume import check_resumable
    from auditor.store.writer import RunWriter

    engine = open_store(sqlite_url)
    writer = RunWriter.start(engine, config={}, config_sha256="0" * 64, scope="s")  # this process writes it
    with pytest.raises(ResumeRefused, match=f"run {writer.run_id} is still running \\(process {os.getpid()}"):
        check_resumable(engine, writer.run_id, "0" * 64, None)
    engine.dispose()
