"""`auditor scheduler`: audit each scope on its cron schedule, for as long as the process lives.

Never two audits of one scope at once: a trigger while the scope's audit still runs here is skipped and
logged, and an audit of the scope running elsewhere (another scheduler, a CronJob, another machine on a
PostgreSQL store) holds the store's scope lock, so the child exits 75 and the trigger is logged as
skipped. A failed audit is logged and the next trigger runs. `stop` (SIGTERM, SIGINT) ends the running
audits as SIGTERM ends `auditor audit` (sealed as interrupted) and returns."""

from __future__ import annotations

import logging
import signal
import subprocess
import threading
from collections.abc import Callable
from datetime import UTC, datetime

from prometheus_client import CollectorRegistry, Counter, Gauge

from auditor.ops.metrics_export import ScopesCollector
from auditor.ops.scheduler_jobs import Ended, Job, audit_command, finish, start

log = logging.getLogger("auditor.ops.scheduler")
POLL_SECONDS = 1.0  # how soon an ended audit is noticed (and its metrics read) while one runs
IDLE_SECONDS = 60.0  # longest sleep when idle, so a stepped clock is noticed within a minute


def utcnow() -> datetime:
    return datetime.now(UTC)


class Scheduler:
    """The trigger loop. `tick(now)` does one step, so tests drive it with their own clock."""

    def __init__(
        self,
        jobs: list[Job],
        *,
        store: str | None = None,
        clock: Callable[[], datetime] = utcnow,
        registry: CollectorRegistry | None = None,
        stop_timeout: float = 60.0,
    ) -> None:
        self.jobs = jobs
        self.store = store
        self.clock = clock
        self.stop_timeout = stop_timeout
        self.registry = registry or CollectorRegistry(auto_describe=False)
        self.scopes = ScopesCollector()
        self.registry.register(self.scopes)
        self.runs = Counter(
            "auditor_scheduler_runs",
            "Scheduled triggers by result: completed, failed, interrupted, skipped_running (the scope's "
            "audit still ran here), skipped_busy (its lock was held elsewhere)",
            ["scope", "result"],
            registry=self.registry,
        )
        self.next_trigger = Gauge(
            "auditor_scheduler_next_trigger_timestamp_seconds",
            "When the scope's next audit is due (Unix time)",
            ["scope"],
            registry=self.registry,
        )
        self.ended: list[tuple[str, Ended]] = []  # (label, how it ended), oldest first
        now = self.clock()
        for job in jobs:
            self._plan(job, now)
            self._refresh(job)

    def _plan(self, job: Job, now: datetime) -> None:
        job.next_at = job.schedule.next_after(now)
        self.next_trigger.labels(job.label).set(job.next_at.timestamp())

    def _refresh(self, job: Job) -> None:
        try:
            engine = job.engine()
        except Exception as exc:
            log.warning("[%s] store not readable for metrics: %s", job.label, exc)
            return
        if engine is not None:
            self.scopes.refresh(engine, job.scope_text, job.label)

    def tick(self, now: datetime | None = None) -> list[str]:
        """Reap ended audits, then fire the due triggers; returns what each due trigger did (started,
        skipped_running), for tests and logs."""
        now = now or self.clock()
        self.reap()
        fired = []
        for job in self.jobs:
            assert job.next_at is not None
            if now < job.next_at:
                continue
            due = job.next_at
            self._plan(job, now)
            if job.running:
                log.warning(
                    "[%s] trigger of %s skipped: the previous audit of this scope is still running",
                    job.label,
                    due.isoformat(timespec="seconds"),
                )
                self.runs.labels(job.label, "skipped_running").inc()
                fired.append("skipped_running")
                continue
            log.info("[%s] audit started (trigger %s)", job.label, due.isoformat(timespec="seconds"))
            try:
                start(job, audit_command(job, self.store))
            except OSError as exc:  # no process to run (fork refused, out of memory): the next trigger tries
                log.error("[%s] audit not started: %s", job.label, exc)
                self.runs.labels(job.label, "failed").inc()
                fired.append("failed")
                continue
            fired.append("started")
        return fired

    def reap(self) -> None:
        for job in self.jobs:
            if job.process is not None and job.process.poll() is not None:
                self._ended(job, finish(job))

    def _ended(self, job: Job, ended: Ended) -> None:
        level = logging.INFO if ended.result in ("completed", "interrupted") else logging.WARNING
        log.log(level, "[%s] %s", job.label, ended.text)
        self.runs.labels(job.label, ended.result).inc()
        self.ended.append((job.label, ended))
        self._refresh(job)

    def running(self) -> bool:
        return any(j.running for j in self.jobs)

    def wait_idle(self, timeout: float | None = None) -> None:
        """Wait for every running audit to end, and reap it."""
        for job in self.jobs:
            if job.process is not None:
                job.process.wait(timeout)
        self.reap()

    def run(self, stop: threading.Event) -> None:
        """Loop until `stop` is set, then stop the running audits."""
        while not stop.is_set():
            self.tick()
            due = min(j.next_at for j in self.jobs if j.next_at is not None)
            wait = max(0.0, (due - self.clock()).total_seconds())
            stop.wait(min(wait, POLL_SECONDS if self.running() else IDLE_SECONDS))
        self.shutdown()

    def shutdown(self) -> None:
        """SIGTERM to each running audit (it seals its run as interrupted and exits 130), then wait for
        it; one that does not end within stop_timeout is killed."""
        for job in self.jobs:
            if job.running and job.process is not None:
                log.info("[%s] stopping: the running audit is interrupted", job.label)
                job.process.send_signal(signal.SIGTERM)
        for job in self.jobs:
            if job.process is None:
                continue
            try:
                job.process.wait(self.stop_timeout)
            except subprocess.TimeoutExpired:
                log.error("[%s] audit did not stop within %.0f s: killed", job.label, self.stop_timeout)
                job.process.kill()
            self._ended(job, finish(job))
