"""Crash safety with real processes: an audit killed (SIGKILL) or stopped (SIGTERM) at collection,
normalisation, the store (inside a batch's transaction), checks or the seal, on SQLite and PostgreSQL. Afterwards `runs list` shows the run
interrupted with the true counts of what it stored, `audit --resume` finishes it on the same chain with
every capture stored once, and `verify` passes.

Before: a killed run stayed `running` for ever showing 0 captures, and could not be finished."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from sqlalchemy import Engine, text
from typer.testing import CliRunner

from auditor.cli.app import app, load_commands
from auditor.config.loader import load_config
from auditor.pipeline.audit import run_audit
from auditor.store.engine import open_store

REPO = Path(__file__).resolve().parents[2]
LAB = REPO / "examples" / "lab"
DRIVER = Path(__file__).with_name("crash_driver.py")
STAGES = ["collection", "normalisation", "store", "checks", "seal"]
BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]

load_commands()
runner = CliRunner()


def small_lab(tmp_path: Path, store: str, name: str = "lab") -> Path:
    """The example lab's devices and Kubernetes manifests (8 targets, the cluster's 6 files one target),
    JSON report only: small enough that an audit takes a few seconds."""
    data = yaml.safe_load((LAB / "auditor.yaml").read_text())
    data["sources"] = {
        "files": [
            str(LAB / "evidence" / "devices"),
            {"path": str(LAB / "evidence" / "k8s"), "cluster": "lab-cluster"},
        ]
    }
    data["store"] = store
    data["reports"] = ["json"]
    data["output"] = str(tmp_path / f"out-{name}")
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def store_for(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'audit.db'}"
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What an uninterrupted audit of the small lab stores: the yardstick for a resumed one."""
    tmp = tmp_path_factory.mktemp("reference")
    cfg = small_lab(tmp, f"sqlite:///{tmp / 'ref.db'}")
    engine = open_store(f"sqlite:///{tmp / 'ref.db'}")
    outcome = run_audit(load_config(cfg), engine=engine, render=False)
    ref = snapshot(engine, outcome.run_id)
    ref["status"] = outcome.seal.status.value
    engine.dispose()
    return ref


def snapshot(engine: Engine, run_id: int) -> dict[str, Any]:
    with engine.connect() as conn:
        captures = conn.execute(
            text(
                "SELECT t.name, c.source, c.origin FROM captures c JOIN targets t ON t.id = c.target_id "
                "WHERE c.run_id = :r"
            ),
            {"r": run_id},
        ).all()
        findings = conn.execute(
            text("SELECT check_id, status FROM findings WHERE run_id = :r"), {"r": run_id}
        ).all()
        facts = conn.execute(text("SELECT count(*) FROM facts WHERE run_id = :r"), {"r": run_id}).scalar_one()
    return {
        "captures": Counter(tuple(c) for c in captures),
        "findings": Counter(tuple(f) for f in findings),
        "facts": int(facts),
    }


def stored_counts(engine: Engine, run_id: int) -> tuple[int, int, int]:
    with engine.connect() as conn:
        return tuple(  # type: ignore[return-value]
            int(conn.execute(text(f"SELECT count(*) FROM {t} WHERE run_id = :r"), {"r": run_id}).scalar_one())
            for t in ("captures", "facts", "findings")
        )


def start_driver(
    cfg: Path, tmp_path: Path, stage: str, *extra: str, stall: float = 60, log: Path | None = None
) -> tuple[subprocess.Popen[str], Path]:
    """The audit in a process of its own, stalling at `stage` until signalled, until the file
    `tmp_path/release` appears, or for `stall` seconds; its output to a pipe, or to `log`."""
    mark = tmp_path / f"mark-{stage}-{time.monotonic_ns()}"
    env = {
        "CRASH_RELEASE": str(tmp_path / "release"),
        **os.environ,
        "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p),
        "CRASH_STAGE": stage,
        "CRASH_MARK": str(mark),
        "CRASH_STALL_SECONDS": str(stall),
    }
    proc = subprocess.Popen(
        [sys.executable, str(DRIVER), "audit", "-c", str(cfg), "-q", "--workers", "1", *extra],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE if log is None else log.open("w"),
        stderr=subprocess.STDOUT,
        text=True,
    )
    return proc, mark


def wait_for(mark: Path, proc: subprocess.Popen[str], seconds: float = 120) -> None:
    give_up = time.monotonic() + seconds
    while not mark.exists():
        if proc.poll() is not None:
            raise AssertionError(f"the audit ended before its stall: {proc.communicate()[0]}")
        assert time.monotonic() < give_up, "the audit never reached its stall"
        time.sleep(0.1)
    time.sleep(0.5)  # the writer thread commits what was queued before the stall


def cli(*args: str) -> Any:
    return runner.invoke(app, list(args), catch_exceptions=False)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("how", ["SIGKILL", "SIGTERM"])
@pytest.mark.parametrize("stage", STAGES)
def test_killed_or_stopped_audit_is_interrupted_then_resumed(
    stage: str,
    how: str,
    backend: str,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    reference: dict[str, Any],
) -> None:
    store = store_for(backend, tmp_path, request)
    cfg = small_lab(tmp_path, store)
    proc, mark = start_driver(cfg, tmp_path, stage)
    try:
        wait_for(mark, proc)
        proc.send_signal(signal.SIGKILL if how == "SIGKILL" else signal.SIGTERM)
        output, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == (-signal.SIGKILL if how == "SIGKILL" else 130), output

    engine = open_store(store, migrate=False)
    captures, facts, findings = stored_counts(engine, 1)
    assert captures >= 1 or stage == "collection"  # something was stored before the stall
    listed = json.loads(cli("runs", "list", "--store", store, "--json").stdout)
    assert [r["id"] for r in listed] == [1]
    run = listed[0]
    assert run["status"] == "interrupted", run
    assert (run["captures"], run["facts"], run["findings"]) == (captures, facts, findings)  # the true counts
    assert run["sealed"] is (how == "SIGTERM")  # SIGTERM seals what it has; SIGKILL cannot
    if how == "SIGKILL":
        assert "is gone" in run["interrupted_because"]
        verified = cli("verify", "--store", store, "--run", "1")
        assert verified.exit_code == 1
        assert "interrupted" in verified.stdout and f"{captures} captures" in verified.stdout
        rechecked = runner.invoke(app, ["check", "--store", store, "--run", "1"])  # refused, and says why
        assert "is interrupted" in str(rechecked.exception) and "re-checking refused" in str(
            rechecked.exception
        )
        reported = cli("report", "--store", store, "--run", "1", "-f", "json", "-o", str(tmp_path / "rep"))
        assert reported.exit_code == 1 and "is interrupted" in reported.stdout.replace("\n", " ")
        shown = json.loads((tmp_path / "rep" / "run-1.json").read_text())["run"]
        assert (shown["status"], shown["capture_count"]) == ("interrupted", captures)  # not "running", 0
    else:
        assert cli("verify", "--store", store, "--run", "1").exit_code == 0  # the interruption's own seal

    resumed = cli("audit", "-c", str(cfg), "--resume", "1", "-q")
    assert resumed.exit_code in (0, 1, 3), resumed.stdout
    verified = cli("verify", "--store", store, "--run", "1")
    assert verified.exit_code == 0, verified.stdout
    after = snapshot(engine, 1)
    assert after["captures"] == reference["captures"]  # every capture once: none lost, none stored twice
    assert after["facts"] == reference["facts"]
    assert after["findings"] == reference["findings"]
    shown = json.loads(cli("runs", "show", "--store", store, "--run", "1", "--json").stdout)
    assert shown["status"] == reference["status"]
    assert shown["resumes"] == 1
    with engine.connect() as conn:
        seals = (
            conn.execute(text("SELECT resume FROM seals WHERE run_id = 1 ORDER BY resume")).scalars().all()
        )
    assert seals == ([0, 1] if how == "SIGTERM" else [1])  # the interruption's seal is kept
    engine.dispose()


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_running_audit_beats_its_lease(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """While an audit works (here: held in its checks) its lease is renewed by the background timer and it
    shows as running under its own host and pid; killed, it shows as interrupted at once."""
    store = store_for(backend, tmp_path, request)
    cfg = small_lab(tmp_path, store)
    os.environ["AUDITOR_HEARTBEAT_SECONDS"] = "0.3"  # inherited by the audit's process only
    try:
        proc, mark = start_driver(cfg, tmp_path, "checks")
    finally:
        del os.environ["AUDITOR_HEARTBEAT_SECONDS"]
    try:
        wait_for(mark, proc)
        first = json.loads(cli("runs", "show", "--store", store, "--json").stdout)
        time.sleep(1.5)
        second = json.loads(cli("runs", "show", "--store", store, "--json").stdout)
        assert (first["status"], first["pid"]) == ("running", proc.pid)
        assert second["heartbeat_at"] > first["heartbeat_at"]  # renewed while the main thread is busy
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    after = json.loads(cli("runs", "show", "--store", store, "--json").stdout)
    assert after["status"] == "interrupted" and after["stored_status"] == "running"
