"""Prometheus metrics of a run, held against the store they are read from: the textfile `auditor audit`
writes, and /metrics scraped over HTTP from a running `auditor scheduler`."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections import Counter
from datetime import UTC
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample
from sqlalchemy import Engine, select

from auditor.config.loader import load_config
from auditor.ops.metrics import scope_metrics
from auditor.ops.metrics_export import write_textfile
from auditor.ops.scheduler import Scheduler
from auditor.ops.scheduler_jobs import load_jobs
from auditor.pipeline.audit import run_audit
from auditor.store.engine import open_store
from auditor.store.models import Finding, Run, Target
from reports.mappings import load_frameworks
from tests.ops.test_scheduler import WAIT, lab_config


def samples(text: str) -> dict[str, list[Sample]]:
    """Every sample of a scrape or textfile, by sample name (parsed by prometheus_client's parser)."""
    out: dict[str, list[Sample]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out.setdefault(sample.name, []).append(sample)
    return out


def value(found: dict[str, list[Sample]], name: str, **labels: str) -> float:
    (match,) = [s.value for s in found[name] if all(s.labels.get(k) == v for k, v in labels.items())]
    return match


@pytest.fixture(scope="module")
def lab_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("metrics-lab")


@pytest.fixture(scope="module")
def audited(lab_dir: Path) -> tuple[Engine, str, int]:
    """The example lab audited once into a store of its own."""
    config = load_config(lab_config(lab_dir))
    engine = open_store(config.store_url())
    outcome = run_audit(config, engine=engine, render=False)
    return engine, config.scope, outcome.run_id


def test_a_restarted_scheduler_serves_the_stored_figures_at_once(
    audited: tuple[Engine, str, int], lab_dir: Path, tmp_path: Path
) -> None:
    """The figures come from the store: a scheduler that starts on a store holding a run serves them
    before its first trigger."""
    _, _, run_id = audited
    config = lab_config(
        tmp_path, store=f"sqlite:///{lab_dir / 'store.db'}", schedules=[{"cron": "0 2 * * *"}]
    )
    sched = Scheduler(load_jobs(config))
    found = samples(generate_latest(sched.registry).decode())
    label = sched.jobs[0].label
    assert value(found, "auditor_last_run_id", scope=label) == run_id
    assert sched.ended == [] and not sched.running()


def test_textfile_agrees_with_the_store(audited: tuple[Engine, str, int], tmp_path: Path) -> None:
    engine, scope, run_id = audited
    metrics = scope_metrics(engine, scope, "lab")
    assert metrics is not None and metrics.run_id == run_id
    path = tmp_path / "textfile" / "lab.prom"
    write_textfile(path, metrics)
    found = samples(path.read_text())
    assert not list(path.parent.glob("*.tmp*"))  # written through a renamed temporary file

    with engine.connect() as conn:
        findings = list(conn.execute(select(Finding.__table__).where(Finding.run_id == run_id)))
        targets = list(conn.execute(select(Target.__table__).where(Target.run_id == run_id)))
        run = conn.execute(select(Run.__table__).where(Run.id == run_id)).one()
    by_pair = Counter((f.severity, f.status) for f in findings)
    for s in found["auditor_findings"]:
        assert s.value == by_pair[(s.labels["severity"], s.labels["status"])], s
    assert sum(s.value for s in found["auditor_findings"]) == len(findings)
    for tier in {f.tier for f in findings}:
        relevant = [f for f in findings if f.tier == tier and f.status != "NOT_APPLICABLE"]
        met = [f for f in relevant if f.status == "PASS" or f.waiver is not None]
        assert value(found, "auditor_compliance_ratio", scope="lab", tier=tier) == pytest.approx(
            len(met) / len(relevant)
        )
    for fw in load_frameworks():
        per_result = [s for s in found["auditor_framework_requirements"] if s.labels["framework"] == fw.key]
        assert sum(s.value for s in per_result) == len(fw.requirements)
        ratio = value(found, "auditor_framework_compliance_ratio", framework=fw.key)
        assert 0.0 <= ratio <= 1.0
    durations = {s.labels["target"]: s for s in found["auditor_collection_duration_seconds"]}
    assert set(durations) == {t.name for t in targets}
    for t in targets:
        assert durations[t.name].labels["source"] == t.kind
        assert durations[t.name].value == pytest.approx((t.finished_at - t.started_at).total_seconds())
    assert value(found, "auditor_targets_not_assessed", scope="lab") == sum(t.status != "ok" for t in targets)
    sealed = (
        run.sealed_at.timestamp() if run.sealed_at.tzinfo else run.sealed_at.replace(tzinfo=UTC).timestamp()
    )
    assert value(found, "auditor_last_success_timestamp_seconds", scope="lab") == pytest.approx(sealed)
    assert value(found, "auditor_last_run_status", scope="lab", status=run.status) == 1.0
    assert value(found, "auditor_last_run_id", scope="lab") == run_id


def test_a_scope_without_runs_has_no_figures(audited: tuple[Engine, str, int]) -> None:
    engine, _, _ = audited
    assert scope_metrics(engine, "a scope never audited", "none") is None


def _scrape(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as reply:
        body: bytes = reply.read()
    return body.decode()


def test_scheduler_serves_metrics(tmp_path: Path) -> None:
    """A running scheduler (every 2 seconds, test-only) serves /metrics; once an audit has ended, the
    scrape holds its findings as the store does, and the scheduler's own trigger counts."""
    config = lab_config(tmp_path, schedules=[{"cron": "* * * * * */2"}], metrics={"scope_label": "lab"})
    proc = subprocess.Popen(
        [sys.executable, "-m", "auditor", "scheduler", "-c", str(config), "--metrics-port", "0"],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    lines: list[str] = []
    port: list[int] = []
    bound = threading.Event()

    def drain() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            m = re.search(r"metrics on http://[\d.]+:(\d+)/metrics", line)
            if m:
                port.append(int(m.group(1)))
                bound.set()

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        assert bound.wait(WAIT), "".join(lines)
        found: dict[str, Any] = {}
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:  # until an audit has ended and been read (not a timing)
            found = samples(_scrape(port[0]))
            if found.get("auditor_last_run_id") and found.get("auditor_scheduler_runs_total"):
                break
            time.sleep(0.5)
        assert found.get("auditor_last_run_id"), "".join(lines)
        run_id = int(value(found, "auditor_last_run_id", scope="lab"))
        engine = open_store(load_config(config).store_url())
        with engine.connect() as conn:
            findings = list(conn.execute(select(Finding.__table__).where(Finding.run_id == run_id)))
        assert sum(s.value for s in found["auditor_findings"]) == len(findings)
        assert value(found, "auditor_findings", scope="lab", severity="critical", status="FAIL") == sum(
            1 for f in findings if (f.severity, f.status) == ("critical", "FAIL")
        )
        assert value(found, "auditor_scheduler_runs_total", scope="lab", result="completed") >= 1
        assert value(found, "auditor_scheduler_next_trigger_timestamp_seconds", scope="lab") > time.time() - 5
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(WAIT) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        reader.join(5)


def test_audit_writes_the_textfile_and_a_failure_never_changes_its_exit_code(tmp_path: Path) -> None:
    """`auditor audit` (as a CronJob or systemd timer runs it) writes the config's metrics textfile;
    a textfile that cannot be written is logged and the exit code stays the audit's (1: failing findings)."""
    config = lab_config(tmp_path, metrics={"textfile": "textfile/lab.prom", "scope_label": "lab"})
    done = subprocess.run(
        [sys.executable, "-m", "auditor", "audit", "-c", str(config), "--quiet"],
        capture_output=True,
        text=True,
        timeout=WAIT,
    )
    assert done.returncode == 1, done.stderr
    found = samples((tmp_path / "textfile" / "lab.prom").read_text())
    assert value(found, "auditor_last_run_id", scope="lab") == 1
    (tmp_path / "blocked").write_text("a file where the textfile's directory should be")
    config = lab_config(tmp_path, metrics={"textfile": "blocked/lab.prom"})
    done = subprocess.run(
        [sys.executable, "-m", "auditor", "audit", "-c", str(config), "--quiet"],
        capture_output=True,
        text=True,
        timeout=WAIT,
    )
    assert done.returncode == 1, done.stderr
    assert "metrics textfile" in done.stderr and "blocked/lab.prom" in done.stderr
