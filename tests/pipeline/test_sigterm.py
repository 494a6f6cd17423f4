"""SIGTERM is Ctrl-C: `auditor audit` stopped by a supervisor, `kill` or a container stop seals the run as
interrupted, keeps what was collected, exits 130, and the run still verifies. Before, the process died
on the default SIGTERM action and the run stayed `running` for ever."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from sqlalchemy import create_engine, text

from auditor.enums import RunStatus
from auditor.evidence.verify import verify_run
from auditor.store.engine import open_store
from auditor.store.reader import RunReader
from tests.devsim import profiles
from tests.devsim.sim import DevSim

REPO = Path(__file__).resolve().parents[2]
LAB = REPO / "examples" / "lab"
HANG = "show runningconfiguration all"
PASSWORD_ENV = "DEVSIM_PASSWORD"


@pytest.fixture
def sim(tmp_path: Path) -> Iterator[DevSim]:
    with DevSim(tmp_path / "devsim") as s:
        yield s


def lab_with_stuck_device(tmp_path: Path, sim: DevSim) -> Path:
    """The example lab plus one live device that never answers its config command: the audit is held
    in collection, with the lab's offline captures already stored, until its deadline."""
    lab = tmp_path / "lab"
    shutil.copytree(LAB, lab, ignore=shutil.ignore_patterns(".auditor", "out"))
    dev = sim.add(profiles.sonic("stuck-sonic", hang_on=HANG))
    data = yaml.safe_load((lab / "auditor.yaml").read_text())
    data["sources"]["devices"] = [
        {
            "host": "127.0.0.1",
            "name": dev.name,
            "port": dev.port,
            "platform": dev.platform,
            "known_hosts": str(sim.known_hosts()),
            "credentials": {"username": dev.username, "password_env": PASSWORD_ENV},
        }
    ]
    data["collection"] = {"connect_timeout": 5, "command_timeout": 30, "retries": 0, "device_deadline": 8}
    data["store"] = f"sqlite:///{tmp_path / 'audit.db'}"
    data["reports"] = ["json"]
    path = lab / "auditor.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def stored_captures(db: Path) -> int:
    if not db.exists():
        return 0
    engine = create_engine(f"sqlite:///{db}")
    try:
        with engine.connect() as conn:
            return int(conn.execute(text("SELECT count(*) FROM captures")).scalar_one())
    except Exception:  # the schema is still being created
        return 0
    finally:
        engine.dispose()


def test_sigterm_seals_the_run_as_interrupted(tmp_path: Path, sim: DevSim) -> None:
    cfg = lab_with_stuck_device(tmp_path, sim)
    # This tree's code, whatever the installed package points at (the audit runs in the lab's folder).
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, PASSWORD_ENV: "audit-pass", "PYTHONPATH": path}
    proc = subprocess.Popen(
        [sys.executable, "-m", "auditor", "audit", "-c", str(cfg), "-q"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        give_up = time.monotonic() + 90
        # Mid-collection: the device is hanging on its command and the offline captures are stored.
        while HANG not in sim.log.for_device("stuck-sonic") or stored_captures(tmp_path / "audit.db") == 0:
            assert proc.poll() is None, f"the audit ended before it was signalled: {proc.communicate()[0]}"
            assert time.monotonic() < give_up, "the audit never reached collection"
            time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, out
    assert "interrupted" in out

    engine = open_store(f"sqlite:///{tmp_path / 'audit.db'}", migrate=False)
    run = RunReader(engine, 1).run_row()
    assert run.status == RunStatus.INTERRUPTED.value
    assert "interrupted" in run.reason
    assert run.capture_count >= 1
    assert run.capture_count == stored_captures(tmp_path / "audit.db")  # the true count, all kept
    assert verify_run(engine, 1).ok
    engine.dispose()
    verified = subprocess.run(
        [sys.executable, "-m", "auditor", "verify", "-c", str(cfg), "--run", "1"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr
