"""`auditor scheduler` on the example lab: real `auditor audit` child processes on a real SQLite store.

A trigger is fired by `Scheduler.tick(now)` with the test's own clock (no waiting for cron). An audit is
held in progress by a device whose "SSH server" is a socket the test owns: the audit waits on its
banner until the test closes the connection, so "the audit is still running" is a fact, not a timing."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlalchemy import select

from auditor.config.loader import load_config
from auditor.errors import ConfigError
from auditor.ops.scheduler import Scheduler
from auditor.ops.scheduler_jobs import load_jobs
from auditor.store.engine import open_store
from auditor.store.models import Run
from auditor.store.scope_lock import ScopeLock

LAB = Path(__file__).resolve().parents[2] / "examples" / "lab"
T0 = datetime(2030, 1, 1, 2, 0, tzinfo=UTC)
WAIT = 180  # seconds: an upper bound for a 3-second audit on a loaded machine, never a measurement


def lab_config(tmp: Path, **extra: Any) -> Path:
    """The example lab's config, written into `tmp` with its own store and reports (JSON only: fast)."""
    data = yaml.safe_load((LAB / "auditor.yaml").read_text())

    def absolute(item: Any) -> Any:
        if isinstance(item, str):
            return str(LAB / item)
        return {**item, "path": str(LAB / item["path"])}

    for kind in ("files", "declared"):
        data["sources"][kind] = [absolute(i) for i in data["sources"][kind]]
    data.update(store="sqlite:///store.db", output="out", reports=["json"])
    data.update(extra)
    path = tmp / "auditor.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


@contextmanager
def held_device() -> Iterator[tuple[socket.socket, dict[str, Any]]]:
    """A listening socket posing as a device's SSH port, and the config lines that point the lab at it:
    the audit connects and waits for the SSH banner until the test closes the connection."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(WAIT)
    port = listener.getsockname()[1]
    device = {
        "host": "127.0.0.1",
        "name": "held-switch",
        "port": port,
        "platform": "ios",
        "accept_unknown_host_key": True,
        "credentials": {"username": "audit", "password_env": "H4_HELD_PASSWORD"},
    }
    try:
        yield listener, device
    finally:
        listener.close()


def held_lab(tmp: Path, device: dict[str, Any], **extra: Any) -> Path:
    path = lab_config(tmp, **extra)
    data = yaml.safe_load(path.read_text())
    data["sources"]["devices"] = [device]
    # wait on the banner as long as the test holds it; never retry (the test closes it on purpose)
    data["collection"] = {"connect_timeout": WAIT, "retries": 0}
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def runs(config: Path) -> list[Run]:
    engine = open_store(load_config(config).store_url())
    with engine.connect() as conn:
        return list(conn.execute(select(Run.__table__).order_by(Run.id)))  # type: ignore[arg-type]


def trigger_times(sched: Scheduler) -> Iterator[datetime]:
    """The scope's successive trigger times, from the test's clock."""
    job = sched.jobs[0]
    while True:
        assert job.next_at is not None
        yield job.next_at


def count(sched: Scheduler, result: str) -> float:
    value = sched.registry.get_sample_value(
        "auditor_scheduler_runs_total", {"scope": sched.jobs[0].label, "result": result}
    )
    return value or 0.0


@pytest.fixture
def password(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("H4_HELD_PASSWORD", "not-a-real-password")


def test_overlapping_triggers_run_once(tmp_path: Path, password: None) -> None:
    with held_device() as (listener, device):
        config = held_lab(tmp_path, device, schedules=[{"cron": "0 2 * * *"}])
        sched = Scheduler(load_jobs(config), clock=lambda: T0)
        times = trigger_times(sched)
        assert sched.tick(next(times)) == ["started"]
        conn, _ = listener.accept()  # the audit is collecting, held on this device
        with conn:
            # two more triggers while it runs: both skipped, no second run of the scope
            assert sched.tick(next(times)) == ["skipped_running"]
            assert sched.tick(next(times) + timedelta(seconds=30)) == ["skipped_running"]
            assert [r.status for r in runs(config)] == ["running"]
        listener.close()  # the held device fails now; the audit finishes without it
        sched.wait_idle(WAIT)
    assert [(label, e.result, e.code) for label, e in sched.ended] == [(sched.jobs[0].label, "completed", 1)]
    assert sched.tick(next(times)) == ["started"]  # the next trigger after it ended runs
    sched.wait_idle(WAIT)
    first, second = runs(config)
    assert (first.status, second.status) == ("partial", "partial")
    assert first.sealed_at is not None and second.started_at >= first.sealed_at  # never overlapped
    assert count(sched, "skipped_running") == 2 and count(sched, "completed") == 2


def test_scope_lock_held_elsewhere_skips_the_trigger(tmp_path: Path, store_url: str) -> None:
    """An audit of the scope running elsewhere (another scheduler or machine: on PostgreSQL, another
    session's advisory lock) holds the store's scope lock: the trigger's audit exits 75 without a run,
    logged as skipped; the next one runs."""
    config = lab_config(tmp_path, schedules=[{"cron": "*/5 * * * *"}], store=store_url)
    cfg = load_config(config)
    sched = Scheduler(load_jobs(config), clock=lambda: T0)
    times = trigger_times(sched)
    with ScopeLock(open_store(cfg.store_url()), cfg.scope) as lock:
        lock.acquire()
        sched.tick(next(times))
        sched.wait_idle(WAIT)
    assert runs(config) == []
    sched.tick(next(times))
    sched.wait_idle(WAIT)
    assert [(e.result, e.code) for _, e in sched.ended] == [("skipped_busy", 75), ("completed", 1)]
    assert [r.status for r in runs(config)] == ["complete"]


def test_failing_audit_does_not_stop_the_next(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The signing key is missing at the first trigger (the audit fails, exit 2, no run); it is there at
    the second, which runs and seals a signed run."""
    monkeypatch.delenv("H4_SIGNING_KEY", raising=False)
    config = lab_config(tmp_path, schedules=[{"cron": "0 * * * *"}], signing={"key_env": "H4_SIGNING_KEY"})
    sched = Scheduler(load_jobs(config), clock=lambda: T0)
    times = trigger_times(sched)
    sched.tick(next(times))
    sched.wait_idle(WAIT)
    pem = Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    monkeypatch.setenv("H4_SIGNING_KEY", pem.decode())
    sched.tick(next(times))
    sched.wait_idle(WAIT)
    assert [(e.result, e.code) for _, e in sched.ended] == [("failed", 2), ("completed", 1)]
    assert count(sched, "failed") == 1 and count(sched, "completed") == 1
    assert [r.status for r in runs(config)] == ["complete"]


def test_sigterm_stops_the_scheduler_cleanly(tmp_path: Path, password: None) -> None:
    """A real `auditor scheduler` process, triggering every second, gets SIGTERM while its audit is held:
    the audit is interrupted as `auditor audit` is on SIGTERM (its run sealed as interrupted) and the
    scheduler exits 0."""
    with held_device() as (listener, device):
        config = held_lab(tmp_path, device, schedules=[{"cron": "* * * * * *"}])  # seconds: test-only
        proc = subprocess.Popen(
            [sys.executable, "-m", "auditor", "scheduler", "-c", str(config)],
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "COLUMNS": "200"},
        )
        try:
            conn, _ = listener.accept()  # an audit is running, held on this device
            with conn:
                proc.send_signal(signal.SIGTERM)
                _, err = proc.communicate(timeout=WAIT)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 0, err
    assert "SIGTERM received: stopping" in err and "scheduler stopped" in err
    (run,) = runs(config)
    assert run.status == "interrupted" and run.sealed_at is not None
    assert "interrupted: a run still in progress is sealed as interrupted" in err


def test_sigterm_when_idle_exits_0(tmp_path: Path) -> None:
    config = lab_config(tmp_path, schedules=[{"cron": "0 2 1 1 *"}])  # once a year: never fires here
    proc = subprocess.Popen(
        [sys.executable, "-m", "auditor", "scheduler", "-c", str(config)], stderr=subprocess.PIPE, text=True
    )
    assert proc.stderr is not None
    while "next audit" not in (line := proc.stderr.readline()):
        assert line, "the scheduler ended before it started"
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(WAIT) == 0
    assert runs(config) == []


def test_config_errors_stop_the_scheduler_at_start(tmp_path: Path) -> None:
    config = lab_config(tmp_path)
    with pytest.raises(ConfigError, match="no schedules"):
        load_jobs(config)
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "auditor.yaml").write_text("intent: [\n")
    both = [{"cron": "0 2 * * *"}, {"cron": "0 3 * * *", "config": "broken/auditor.yaml"}]
    with pytest.raises(ConfigError, match=r"broken/auditor\.yaml"):  # at start, not at 03:00
        load_jobs(lab_config(tmp_path, schedules=both))
    (tmp_path / "twin").mkdir()
    lab_config(tmp_path / "twin", store=f"sqlite:///{tmp_path}/store.db")  # the same scope, same store
    both = [{"cron": "0 2 * * *"}, {"cron": "0 3 * * *", "config": "twin/auditor.yaml"}]
    with pytest.raises(ConfigError, match="audit the same scope into the same store"):
        load_jobs(lab_config(tmp_path, schedules=both))


def test_an_audit_that_cannot_start_is_logged_and_the_next_trigger_tries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    config = lab_config(tmp_path, schedules=[{"cron": "0 2 * * *"}])
    sched = Scheduler(load_jobs(config), clock=lambda: T0)
    times = trigger_times(sched)
    missing = str(tmp_path / "no-such-interpreter")
    monkeypatch.setattr("auditor.ops.scheduler.audit_command", lambda job, store: [missing])
    assert sched.tick(next(times)) == ["failed"]
    assert sched.tick(next(times)) == ["failed"]  # the loop goes on
    assert count(sched, "failed") == 2 and not sched.running()
    assert "audit not started" in caplog.text and missing in caplog.text
