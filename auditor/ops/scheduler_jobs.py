"""The scheduler's jobs: one per scheduled scope, each audit run as a child `auditor audit` process.

A child process, not a thread: an audit that crashes or leaks cannot take the scheduler with it, and
SIGTERM ends it exactly as it ends `auditor audit` run by hand (the run is sealed as interrupted)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO

from sqlalchemy import Engine
from sqlalchemy.engine import make_url

from auditor.config.loader import load_config
from auditor.config.schedule import Schedule
from auditor.errors import ConfigError
from auditor.ops.metrics import scope_label
from auditor.store.engine import open_store

log = logging.getLogger("auditor.ops.scheduler")

SCOPE_BUSY = 75  # `auditor audit`: another audit holds the scope's lock (here or on another machine)
INTERRUPTED = 130
COMPLETED = {0: "passed", 1: "failing findings", 3: "evidence incomplete"}


@dataclass
class Job:
    """One scope's schedule and its audit in progress, if any."""

    label: str
    schedule: Schedule
    config: Path
    scope_text: str
    store_url: str
    next_at: datetime | None = None
    process: subprocess.Popen[bytes] | None = None
    _stdout: IO[bytes] | None = None
    _relay: threading.Thread | None = None
    _engine: Engine | None = field(default=None, repr=False)

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def engine(self) -> Engine | None:
        """The scope's store for reading metrics; None while a SQLite store does not exist yet (reading
        must not create one)."""
        if self._engine is None:
            url = make_url(self.store_url)
            database = url.database or ""
            local = url.get_backend_name() == "sqlite" and database not in ("", ":memory:")
            if local and not Path(database).exists():
                return None
            self._engine = open_store(self.store_url)
        return self._engine


def load_jobs(config: Path, store: str | None = None) -> list[Job]:
    """The jobs of `config`'s `schedules:`; each scheduled config is loaded now, so a broken one stops
    the scheduler at start (exit 2) instead of failing at 02:00. Two schedules of one scope are refused."""
    root = load_config(config)
    if not root.schedules:
        raise ConfigError(
            "no schedules: the scheduler has nothing to run",
            file=str(config),
            hint="add e.g. `schedules: [{cron: '0 2 * * *'}]` (an audit at 02:00 UTC every day)",
        )
    jobs: list[Job] = []
    for schedule in root.schedules:
        path = root.resolve(schedule.config).resolve() if schedule.config else config.resolve()
        cfg = root if schedule.config is None else load_config(path)
        label = scope_label(path, cfg.metrics.scope_label if cfg.metrics else None)
        job = Job(label, schedule, path, cfg.scope, store or cfg.store_url())
        for other in jobs:
            if other.scope_text == job.scope_text and other.store_url == job.store_url:
                raise ConfigError(
                    f"{other.config} and {path} audit the same scope into the same store",
                    file=str(config),
                    hint="one schedule per scope: give each config its own `scope:` or drop one schedule",
                )
            if other.label == job.label:
                raise ConfigError(
                    f"{other.config} and {path} would both be labelled {label!r} in logs and metrics",
                    file=str(config),
                    hint="set `metrics: {scope_label: NAME}` in one of them",
                )
        jobs.append(job)
    return jobs


def audit_command(job: Job, store: str | None) -> list[str]:
    """The child: `auditor audit -c CONFIG --json` (the summary on stdout), with the scheduler's --store."""
    argv = [sys.executable, "-m", "auditor", "audit", "-c", str(job.config), "--json"]
    return argv + (["--store", store] if store else [])


def start(job: Job, argv: list[str]) -> None:
    """Start the audit in its own session (a Ctrl-C in the scheduler's terminal reaches the scheduler
    only, which then stops the child with one SIGTERM); its stderr is relayed to the log, prefixed."""
    job._stdout = tempfile.TemporaryFile()  # noqa: SIM115 (closed in finish())
    try:
        job.process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=job._stdout,
            stderr=subprocess.PIPE,
            start_new_session=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    except OSError:
        job._stdout.close()
        job._stdout = None
        raise
    job._relay = threading.Thread(target=_relay, args=(job.label, job.process), daemon=True)
    job._relay.start()


def _relay(label: str, process: subprocess.Popen[bytes]) -> None:
    assert process.stderr is not None
    for raw in process.stderr:
        line = raw.decode("utf-8", "replace").rstrip()
        if line:
            log.info("[%s] %s", label, line)


@dataclass(frozen=True)
class Ended:
    """How a child audit ended: `result` is completed, skipped_busy, interrupted or failed."""

    result: str
    code: int
    run: int | None
    text: str


def finish(job: Job) -> Ended:
    """Collect the ended child's exit code and JSON summary, and say what happened."""
    assert job.process is not None
    code = job.process.wait()
    if job._relay is not None:
        job._relay.join(timeout=5)
    summary: dict[str, object] = {}
    if job._stdout is not None:
        job._stdout.seek(0)
        try:
            loaded = json.loads(job._stdout.read().decode("utf-8", "replace") or "{}")
            summary = loaded if isinstance(loaded, dict) else {}
        except ValueError:
            summary = {}
        job._stdout.close()
    job.process, job._stdout, job._relay = None, None, None
    run = summary.get("run")
    run_id = run if isinstance(run, int) else None
    if code in COMPLETED:
        return Ended("completed", code, run_id, f"run {run_id} {summary.get('status')}: {COMPLETED[code]}")
    if code == SCOPE_BUSY:
        return Ended("skipped_busy", code, None, "skipped: another audit of the scope holds its lock")
    if code in (INTERRUPTED, -15):
        text = "interrupted: a run still in progress is sealed as interrupted (`auditor audit --resume RUN`)"
        return Ended("interrupted", code, run_id, text)
    why = f"killed by signal {-code}" if code < 0 else f"exit code {code}"
    return Ended("failed", code, run_id, f"audit failed ({why}); the next trigger runs as scheduled")
