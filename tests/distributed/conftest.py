"""Real brokers (RabbitMQ and Redis on loopback), worker processes, emulated devices, a PostgreSQL store.

Each test has its own queue name, so parallel test runs on one broker never take each other's tasks, and
its own database (the pg_url fixture)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.devsim import profiles
from tests.devsim.sim import DevSim

REPO = Path(__file__).resolve().parents[2]
BROKERS = {
    "rabbitmq": os.environ.get("AUDITOR_TEST_AMQP", "amqp://guest:guest@127.0.0.1:5672//"),
    "redis": os.environ.get("AUDITOR_TEST_REDIS", "redis://127.0.0.1:6379/7"),
}
REQUIRE_BROKERS = os.environ.get("AUDITOR_REQUIRE_BROKERS") == "1"
PASSWORD_ENV = "DEVSIM_PASSWORD"
DEVICES = 8
COMMAND_DELAY = 0.05  # seconds per emulated command: a device takes about a second, so a kill lands mid-task


def _reachable(url: str) -> str | None:
    from kombu.connection import Connection

    try:
        with Connection(url, connect_timeout=3) as conn:  # type: ignore[no-untyped-call]
            conn.ensure_connection(max_retries=1)
        return None
    except Exception as exc:
        return str(exc)


@pytest.fixture(params=list(BROKERS))
def broker(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    """(url, queue): a real broker and a queue of this test's own, deleted afterwards."""
    url = BROKERS[request.param]
    why = _reachable(url)
    if why is not None:
        if REQUIRE_BROKERS:
            pytest.fail(f"{request.param} is required (AUDITOR_REQUIRE_BROKERS=1) but unreachable: {why}")
        pytest.skip(f"{request.param} not reachable at {url}: {why}")
    queue = f"auditor-test-{uuid.uuid4().hex[:10]}"
    yield url, queue
    from kombu.connection import Connection

    with Connection(url) as conn, contextlib.suppress(Exception):  # type: ignore[no-untyped-call]
        conn.default_channel.queue_delete(queue)


@pytest.fixture(scope="module")
def devices(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevSim]:
    """Emulated EOS switches (eAPI), shared by the module's tests (each counts commands from its start)."""
    before = os.environ.get(PASSWORD_ENV)
    os.environ[PASSWORD_ENV] = "audit-pass"
    try:
        with DevSim(tmp_path_factory.mktemp("devsim")) as sim:
            for i in range(DEVICES):
                sim.add(profiles.eos(f"leaf{i:02d}", delay=COMMAND_DELAY))
            yield sim
    finally:
        if before is None:
            del os.environ[PASSWORD_ENV]
        else:
            os.environ[PASSWORD_ENV] = before


def fleet_data(sim: DevSim, store: str, tmp_path: Path) -> dict[str, Any]:
    """An audit config (as YAML data) of the emulated fleet."""
    return {
        "sources": {
            "devices": [
                {
                    "host": "127.0.0.1",
                    "name": d.name,
                    "port": d.port,
                    "platform": "eos",
                    "ca_file": str(sim.ca_file),
                    "credentials": {"username": d.username, "password_env": PASSWORD_ENV},
                }
                for d in sim.devices.values()
            ]
        },
        "collection": {"connect_timeout": 10, "command_timeout": 30, "retries": 0},
        "store": store,
        "reports": ["json"],
        "output": str(tmp_path / "out"),
    }


def fleet_config(sim: DevSim, store: str, tmp_path: Path) -> Any:
    from auditor.config.models import AuditConfig

    data = fleet_data(sim, store, tmp_path)
    return AuditConfig.model_validate(data).model_copy(update={"base_dir": tmp_path})


@dataclass
class Worker:
    proc: subprocess.Popen[bytes]
    log: Path

    def text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def started(self) -> set[str]:
        return {
            ln.rsplit("collecting ", 1)[1].strip() for ln in self.text().splitlines() if ": collecting " in ln
        }

    def finished(self) -> set[str]:
        return {
            ln.split("collected ", 1)[1].split(":")[0]
            for ln in self.text().splitlines()
            if " collected " in ln
        }


@dataclass
class Workers:
    started: list[Worker] = field(default_factory=list)

    def start(self, broker: str, queue: str, store: str, tmp_path: Path, concurrency: int = 4) -> Worker:
        log = tmp_path / f"worker-{len(self.started)}.log"
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p),
            "AUDITOR_VISIBILITY_TIMEOUT": "4",  # Redis: a dead worker's task comes back after 4 s
            PASSWORD_ENV: "audit-pass",
        }
        args = [
            "worker",
            "--broker",
            broker,
            "--store",
            store,
            "--queue",
            queue,
            "--concurrency",
            str(concurrency),
        ]
        proc = subprocess.Popen(
            [sys.executable, "-m", "auditor", *args],
            cwd=tmp_path,
            env=env,
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
        )
        worker = Worker(proc, log)
        self.started.append(worker)
        return worker

    def stop(self) -> None:
        for w in self.started:
            if w.proc.poll() is None:
                w.proc.terminate()
        for w in self.started:
            try:
                w.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                w.proc.kill()
                w.proc.wait()


@pytest.fixture
def workers() -> Iterator[Workers]:
    pool = Workers()
    yield pool
    pool.stop()


def wait_until(what: str, check: Any, seconds: float = 60, *, procs: list[Worker] = ()) -> None:  # type: ignore[assignment]
    give_up = time.monotonic() + seconds
    while not check():
        for w in procs:
            assert w.proc.poll() is None, f"worker ended early:\n{w.text()[-3000:]}"
        assert time.monotonic() < give_up, f"timed out waiting for {what}"
        time.sleep(0.05)
