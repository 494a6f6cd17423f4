"""Distributed collection on real brokers: two `auditor worker` processes, one killed with SIGKILL in the
middle of a target; the run still completes, every capture is stored once, and the chain verifies."""

from __future__ import annotations

import json
import signal
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from sqlalchemy import Engine, text
from typer.testing import CliRunner

from auditor.cli.app import app, load_commands
from auditor.pipeline.audit import run_audit
from auditor.store.engine import open_store
from tests.devsim.sim import DevSim
from tests.distributed.conftest import Workers, fleet_config, fleet_data, wait_until

pytestmark = pytest.mark.postgres
load_commands()
runner = CliRunner()


def stored_captures(engine: Engine, run_id: int) -> Counter[tuple[str, str, str]]:
    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT t.name, c.source, c.origin FROM captures c JOIN targets t ON t.id = c.target_id "
                "WHERE c.run_id = :r"
            ),
            {"r": run_id},
        ).all()
    return Counter((str(a), str(b), str(c)) for a, b, c in rows)


@pytest.fixture(scope="module")
def local_run(devices: DevSim, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The yardstick: the same fleet collected by the local executor, and what each device received."""
    tmp = tmp_path_factory.mktemp("local")
    store = f"sqlite:///{tmp / 'local.db'}"
    counted = {name: len(devices.log.for_device(name)) for name in devices.devices}
    engine = open_store(store)
    outcome = run_audit(fleet_config(devices, store, tmp), engine=engine, render=False)
    captures = stored_captures(engine, outcome.run_id)
    engine.dispose()
    per_device = {name: len(devices.log.for_device(name)) - counted[name] for name in devices.devices}
    assert all(per_device.values())
    return {"status": outcome.seal.status, "captures": captures, "per_device": per_device}


def test_worker_killed_mid_target_run_completes_once_and_verifies(
    broker: tuple[str, str],
    pg_url: str,
    devices: DevSim,
    workers: Workers,
    tmp_path: Path,
    local_run: dict[str, Any],
) -> None:
    url, queue = broker
    a = workers.start(url, queue, pg_url, tmp_path)  # first: they boot while the store is created
    b = workers.start(url, queue, pg_url, tmp_path)
    reference, per_device = local_run["captures"], local_run["per_device"]
    counted = {name: len(devices.log.for_device(name)) for name in devices.devices}
    config = tmp_path / "auditor.yaml"
    config.write_text(yaml.safe_dump(fleet_data(devices, pg_url, tmp_path)))
    engine = open_store(pg_url)
    result: dict[str, Any] = {}

    def audit() -> None:  # the real command line, in a thread: this one watches and kills
        args = ["audit", "-c", str(config), "--executor", "celery", "--broker", url, "--queue", queue]
        result["cli"] = runner.invoke(app, [*args, "-q", "--json"])

    coordinator = threading.Thread(target=audit, daemon=True)
    coordinator.start()

    def asked_again(name: str) -> int:  # commands a device received in this test
        return len(devices.log.for_device(name)) - counted[name]

    def a_is_mid_target() -> bool:  # A holds a target whose device has answered part of its commands
        return any(0 < asked_again(n) < per_device[n] for n in a.started() - a.finished())

    wait_until("worker A to be part-way through a target", a_is_mid_target, 90, procs=[a, b])
    a.proc.send_signal(signal.SIGKILL)
    a.proc.wait(timeout=10)
    caught = {n for n in a.started() - a.finished() if asked_again(n) > 0}
    assert caught, "the kill did not land in the middle of a target"
    coordinator.join(timeout=120)
    assert not coordinator.is_alive(), "the run did not finish after the worker was killed"
    got = result["cli"]
    assert got.exit_code in (0, 1, 3), (got.stdout, got.exception)  # findings failed or not assessed: sealed
    outcome = json.loads(got.stdout.strip().splitlines()[-1])
    run_id = int(outcome["run"])

    assert outcome["status"] == local_run["status"].value
    captures = stored_captures(engine, run_id)
    assert captures == reference  # every target's every capture, each stored once
    assert outcome["captures"] == sum(reference.values())
    for name in caught:  # the killed worker's target was fetched again (redelivered), stored once
        assert asked_again(name) > per_device[name], devices.log.for_device(name)
    assert b.finished() >= caught
    with engine.connect() as conn:
        statuses = conn.execute(
            text("SELECT status, count(*) FROM targets WHERE run_id = :r GROUP BY status"), {"r": run_id}
        ).all()
        seqs = conn.execute(text("SELECT seq FROM captures WHERE run_id = :r ORDER BY seq"), {"r": run_id})
        assert list(seqs.scalars()) == list(range(1, outcome["captures"] + 1))  # one line, no gap
    assert dict(statuses) == {"ok": len(devices.devices)}
    verified = runner.invoke(app, ["verify", "--store", pg_url, "--run", str(run_id)])
    assert verified.exit_code == 0, verified.stdout
    engine.dispose()


def test_worker_refuses_a_sqlite_store(tmp_path: Path) -> None:
    got = runner.invoke(app, ["worker", "--store", f"sqlite:///{tmp_path / 'a.db'}"])
    assert got.exit_code != 0
    assert "needs a PostgreSQL store" in str(got.exception) and "SQLite file" in str(got.exception)
    assert not (tmp_path / "a.db").exists()  # refused before anything was opened


def test_audit_refuses_the_celery_executor_on_a_sqlite_store(tmp_path: Path) -> None:
    config = tmp_path / "a.yaml"
    config.write_text(yaml.safe_dump({"store": f"sqlite:///{tmp_path / 'a.db'}"}))
    got = runner.invoke(app, ["audit", "-c", str(config), "--executor", "celery"])
    assert got.exit_code != 0 and "the celery executor needs a PostgreSQL store" in str(got.exception)
    assert not (tmp_path / "a.db").exists()
