"""Run leases and the resume transition in the store: when a running run is shown as interrupted, and that
the guards let an interrupted run back to running only as a counted resume (SQLite and PostgreSQL)."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine, select, text

from auditor.enums import RunStatus, TargetStatus
from auditor.evidence.verify import verify_run
from auditor.store.lease import LEASE_SECONDS, Heartbeat, liveness, process_alive, this_host
from auditor.store.models import Run
from auditor.store.writer import RunWriter
from tests.store.test_guards import refused


def start(engine: Engine) -> RunWriter:
    return RunWriter.start(engine, config={"intent": {}}, config_sha256="0" * 64, scope="s")


def row(engine: Engine, run_id: int) -> object:
    with engine.connect() as conn:
        return conn.execute(select(Run.__table__).where(Run.id == run_id)).one()


def set_lease(engine: Engine, run_id: int, **values: object) -> None:
    sets = ", ".join(f"{k} = :{k}" for k in values)
    with engine.begin() as conn:  # a running run's lease may be written (that is what a heartbeat does)
        conn.execute(text(f"UPDATE runs SET {sets} WHERE id = :r"), {**values, "r": run_id})


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_live_writer_is_running_a_gone_one_interrupted(engine: Engine) -> None:
    writer = start(engine)
    r = row(engine, writer.run_id)
    assert (r.host, r.pid) == (this_host(), os.getpid())  # type: ignore[attr-defined]
    live = liveness(r)
    assert (live.status, live.alive, live.dead) == ("running", True, False)

    set_lease(engine, writer.run_id, pid=dead_pid())  # same host, the process is gone: at once
    live = liveness(row(engine, writer.run_id))
    assert (live.status, live.dead) == ("interrupted", True)
    assert "is gone" in live.why

    # Another machine: only the lease tells. Fresh: running; older than the lease: interrupted.
    now = datetime.now(UTC)
    set_lease(engine, writer.run_id, host="elsewhere.example", pid=1, heartbeat_at=now)
    assert liveness(row(engine, writer.run_id)).status == "running"
    old = now - timedelta(seconds=LEASE_SECONDS + 5)
    set_lease(engine, writer.run_id, heartbeat_at=old)
    live = liveness(row(engine, writer.run_id))
    assert live.status == "interrupted" and "no heartbeat from process 1 on elsewhere.example" in live.why
    assert liveness(row(engine, writer.run_id), now=old + timedelta(seconds=1)).status == "running"


def test_a_reused_pid_is_not_the_writer() -> None:
    """Our own pid, but the run's last heartbeat is older than this process: another process wrote it."""
    long_ago = datetime(2000, 1, 1, tzinfo=UTC)
    assert process_alive(os.getpid())
    assert not process_alive(os.getpid(), long_ago)


def test_sealed_runs_are_what_they_say(engine: Engine) -> None:
    writer = start(engine)
    writer.seal(RunStatus.COMPLETE)
    set_lease_refused = "UPDATE runs SET heartbeat_at = :t WHERE id = :r"
    refused(engine, set_lease_refused, {"t": datetime.now(UTC), "r": writer.run_id})  # frozen once sealed
    live = liveness(row(engine, writer.run_id))
    assert (live.status, live.dead, live.resumable) == ("complete", False, False)


def test_heartbeat_renews_the_lease_and_stops_at_the_seal(engine: Engine) -> None:
    writer = start(engine)
    old = datetime.now(UTC) - timedelta(hours=1)
    set_lease(engine, writer.run_id, heartbeat_at=old)
    beat = Heartbeat(engine, writer.run_id, interval=0.1).start()
    try:
        deadline = datetime.now(UTC) + timedelta(seconds=20)
        while liveness(row(engine, writer.run_id)).heartbeat_at <= old + timedelta(minutes=30):  # type: ignore[operator]
            assert datetime.now(UTC) < deadline, "no heartbeat"
        writer.seal(RunStatus.COMPLETE)
        beat.beat(force=True)  # after the seal a beat changes nothing (and the guards are not tripped)
    finally:
        beat.stop()
    assert row(engine, writer.run_id).status == "complete"  # type: ignore[attr-defined]


def test_interrupted_back_to_running_only_as_a_counted_resume(engine: Engine) -> None:
    writer = start(engine)
    run = {"r": writer.run_id}
    writer.seal(RunStatus.INTERRUPTED, "stopped")
    back = "UPDATE runs SET status = 'running', sealed_at = NULL, chain_head = NULL"
    refused(engine, f"{back} WHERE id = :r", run)  # not counted: refused
    refused(engine, f"{back}, resumes = resumes + 2 WHERE id = :r", run)  # counted wrong: refused
    refused(engine, "UPDATE runs SET status = 'complete' WHERE id = :r", run)  # re-sealed in place: refused
    refused(engine, "UPDATE runs SET resumes = 1 WHERE id = :r", run)  # the count alone: refused
    resumed = RunWriter.resume(engine, writer.run_id)  # the one way: back to running, one more resume
    assert row(engine, writer.run_id).resumes == 1  # type: ignore[attr-defined]
    refused(engine, "UPDATE runs SET resumes = 5 WHERE id = :r", run)
    resumed.seal(RunStatus.COMPLETE)
    assert verify_run(engine, writer.run_id).ok  # the latest seal proves it; the earlier one is checked too
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM seals WHERE run_id = :r"), run).scalar_one() == 2
    refused(engine, f"{back}, resumes = resumes + 1 WHERE id = :r", run)  # a complete run never reopens


def test_a_failed_or_complete_run_never_resumes_and_seals_are_keyed_by_resume(engine: Engine) -> None:
    for status in (RunStatus.COMPLETE, RunStatus.FAILED, RunStatus.PARTIAL):
        writer = start(engine)
        writer.seal(status)
        refused(
            engine,
            "UPDATE runs SET status = 'running', sealed_at = NULL, chain_head = NULL, resumes = resumes + 1 "
            "WHERE id = :r",
            {"r": writer.run_id},
        )
        refused(
            engine,
            "INSERT INTO seals (run_id, resume, version, document, digest, created_at) "
            "VALUES (:r, 1, 'v', '{}', 'd', :t)",  # a second seal for a resume that never happened
            {"r": writer.run_id, "t": datetime.now(UTC)},
        )


def test_a_dead_runs_lease_is_taken_over_by_resume(engine: Engine) -> None:
    writer = start(engine)
    set_lease(engine, writer.run_id, pid=dead_pid())
    assert liveness(row(engine, writer.run_id)).resumable
    RunWriter.resume(engine, writer.run_id).seal(RunStatus.COMPLETE)
    r = row(engine, writer.run_id)
    assert (r.status, r.pid, r.resumes) == ("complete", os.getpid(), 1)  # type: ignore[attr-defined]
    assert verify_run(engine, writer.run_id).ok


@pytest.mark.parametrize("bad", [{"host": "x", "heartbeat_at": None}])
def test_a_run_without_any_heartbeat_falls_back_to_its_start(engine: Engine, bad: dict[str, object]) -> None:
    writer = start(engine)
    set_lease(engine, writer.run_id, **bad)
    assert liveness(row(engine, writer.run_id)).status == "running"  # started just now
    later = datetime.now(UTC) + timedelta(seconds=LEASE_SECONDS + 5)
    assert liveness(row(engine, writer.run_id), now=later).status == "interrupted"


def test_0004_keeps_sealed_runs_verifiable_down_and_up(engine: Engine) -> None:
    """Runs sealed before 0004 (no lease, resume 0) verify after it, and 0004 goes down and up with data."""
    from alembic import command

    from auditor.store.engine import alembic_config, current_revision, head_revision
    from tests.store.tamper_kit import SIGNER, build_run

    run_id = build_run(engine)
    cfg = alembic_config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0003_tamper_evidence")
    assert current_revision(engine) == "0003_tamper_evidence"
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
    assert current_revision(engine) == head_revision()
    assert verify_run(engine, run_id, SIGNER.public_raw).ok
    refused(engine, "UPDATE runs SET resumes = 1 WHERE id = :r", {"r": run_id})  # guards back in place
    assert liveness(row(engine, run_id)).status == "partial"


def test_a_signed_run_resumed_verifies_against_the_pinned_key_with_both_seals(engine: Engine) -> None:
    from tests.store.tamper_kit import SIGNER

    writer = RunWriter.start(engine, config={"intent": {}}, config_sha256="0" * 64, scope="s", signer=SIGNER)
    target = writer.add_target(kind="device", name="leaf1")
    writer.seal(RunStatus.INTERRUPTED, "stopped")
    resumed = RunWriter.resume(engine, writer.run_id, SIGNER)
    resumed.finish_target(target, TargetStatus.FAILED, "unreachable")
    resumed.seal(RunStatus.FAILED)
    result = verify_run(engine, writer.run_id, SIGNER.public_raw)
    assert result.ok and result.signed and result.pinned, result.mismatches
    with engine.begin() as conn:  # the database owner swaps the interruption's seal for the final one
        if engine.dialect.name == "sqlite":
            conn.execute(text("DROP TRIGGER seals_no_update"))
        else:
            conn.execute(text("ALTER TABLE seals DISABLE TRIGGER USER"))
        conn.execute(
            text(
                "UPDATE seals SET document = (SELECT document FROM seals WHERE run_id = :r AND resume = 1), "
                "digest = (SELECT digest FROM seals WHERE run_id = :r AND resume = 1), "
                "signature = (SELECT signature FROM seals WHERE run_id = :r AND resume = 1) "
                "WHERE run_id = :r AND resume = 0"
            ),
            {"r": writer.run_id},
        )
    failed = verify_run(engine, writer.run_id, SIGNER.public_raw)
    assert any("earlier seal (resume 0)" in m.detail for m in failed.mismatches), failed.mismatches
