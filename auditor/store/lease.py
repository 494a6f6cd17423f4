"""The lease of a running run: which process writes it (host, pid) and when it last said so (heartbeat).

A run killed with SIGKILL, or on a machine that died, never seals itself: its row stays `running`. Every
command that shows runs asks `liveness()` instead of trusting the status: a running run whose process is
gone from this host, or whose heartbeat is older than the lease, is shown as interrupted, with the counts
of what it stored (the row's counts are only written at the seal). Nothing is written to decide this, so
reading a store never changes it; `auditor audit --resume N` is what takes such a run over.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Engine, func, select, update

from auditor.enums import RunStatus
from auditor.store.models import Capture, Fact, Finding, Run

log = logging.getLogger(__name__)


def _seconds(name: str, default: float) -> float:
    try:
        return max(0.05, float(os.environ.get(name, default)))
    except ValueError:
        return default


HEARTBEAT_SECONDS = _seconds("AUDITOR_HEARTBEAT_SECONDS", 10.0)
# A lease outlives several missed beats: a busy machine is not taken for a dead one.
LEASE_SECONDS = _seconds("AUDITOR_LEASE_SECONDS", max(60.0, 6 * HEARTBEAT_SECONDS))


def utcnow() -> datetime:
    return datetime.now(UTC)


def this_host() -> str:
    """The host name, with the pid namespace where Linux has one: containers that share a host name but
    not their pids are different hosts here (a pid is only looked up where it means the same process)."""
    name = socket.gethostname()
    try:
        return f"{name}/pidns:{os.stat('/proc/self/ns/pid').st_ino}"
    except OSError:
        return name


@dataclass(frozen=True)
class Liveness:
    """What a run is, as shown: its stored status, or `interrupted` for a running run whose writer died."""

    status: str
    alive: bool  # a running run whose writer holds its lease
    dead: bool  # running in the store, but its writer is gone (shown as interrupted)
    why: str  # for a dead run: how we know
    host: str | None
    pid: int | None
    heartbeat_at: datetime | None

    @property
    def resumable(self) -> bool:
        return self.dead or self.status == RunStatus.INTERRUPTED.value


def _aware(stamp: datetime | None) -> datetime | None:
    if stamp is None:
        return None
    return stamp if stamp.tzinfo is not None else stamp.replace(tzinfo=UTC)


def liveness(row: Any, now: datetime | None = None) -> Liveness:
    """Derive a run's shown status from its row (runs columns: status, sealed_at, host, pid, heartbeat_at)."""
    host, pid = row.host, row.pid
    beat = _aware(row.heartbeat_at) or _aware(row.started_at)
    if row.status != RunStatus.RUNNING.value or row.sealed_at is not None:
        return Liveness(row.status, False, False, "", host, pid, beat)
    now = now or utcnow()
    why = ""
    if host is not None and host == this_host() and pid is not None and not process_alive(pid, beat):
        why = f"its process {pid} on {host} is gone"
    elif beat is None or now - beat > timedelta(seconds=LEASE_SECONDS):
        since = beat.strftime("%Y-%m-%d %H:%M:%S UTC") if beat else "ever"
        who = f"process {pid} on {host}" if host else "its writer (no lease recorded)"
        why = f"no heartbeat from {who} since {since} (lease {LEASE_SECONDS:.0f} s)"
    if why:
        return Liveness(RunStatus.INTERRUPTED.value, False, True, why, host, pid, beat)
    return Liveness(row.status, True, False, "", host, pid, beat)


def process_alive(pid: int, beat: datetime | None = None) -> bool:
    """Is `pid` a live process on this host, and the one that wrote the run (not a later one reusing its
    number: a process started after the run's last heartbeat cannot have written it)?"""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists, under another user
    except OSError:
        return False
    stat = _proc_stat(pid)
    if stat is None:
        return True  # no /proc: existence is all we can know
    state, started = stat
    if state in ("Z", "X"):  # a zombie has ended; only its exit status is left
        return False
    return beat is None or started is None or started <= beat + timedelta(seconds=2)


def _proc_stat(pid: int) -> tuple[str, datetime | None] | None:
    """(state, start time) of a process from Linux /proc, or None where there is no /proc."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    try:
        ticks = int(fields[19]) / os.sysconf("SC_CLK_TCK")
        with open("/proc/stat", encoding="ascii") as fh:
            boot = next(int(line.split()[1]) for line in fh if line.startswith("btime "))
        return fields[0], datetime.fromtimestamp(boot + ticks, UTC)
    except (OSError, ValueError, IndexError, StopIteration):
        return fields[0] if fields else "?", None


def stored_counts(engine: Engine, run_ids: list[int]) -> dict[int, tuple[int, int, int]]:
    """Captures, facts and findings stored for each run, counted from the rows (for unsealed runs, whose
    row counts are written only at the seal)."""
    if not run_ids:
        return {}
    out = {r: [0, 0, 0] for r in run_ids}
    with engine.connect() as conn:
        for i, column in enumerate((Capture.run_id, Fact.run_id, Finding.run_id)):
            rows = conn.execute(select(column, func.count()).where(column.in_(run_ids)).group_by(column))
            for run_id, n in rows:
                out[int(run_id)][i] = int(n)
    return {r: (c[0], c[1], c[2]) for r, c in out.items()}


def shown_counts(engine: Engine, rows: list[Any]) -> dict[int, tuple[int, int, int]]:
    """The counts to show for each run: the sealed counts, or what an unsealed run has stored so far."""
    unsealed = [r.id for r in rows if r.sealed_at is None]
    counted = stored_counts(engine, unsealed)
    return {r.id: counted.get(r.id, (r.capture_count, r.fact_count, r.finding_count)) for r in rows}


class Heartbeat:
    """Renews a running run's lease from a background thread, and on demand (`beat`) from the pipeline.

    Runs beside the writer on its own connections; a beat that fails (the store is briefly busy) is logged
    and tried again at the next interval. Optional `ping` keeps another connection alive (the PostgreSQL
    scope lock's session) on the same timer."""

    def __init__(self, engine: Engine, run_id: int, interval: float = HEARTBEAT_SECONDS, ping: Any = None):
        self.engine = engine
        self.run_id = run_id
        self.interval = interval
        self.ping = ping
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._last = 0.0
        self._thread: threading.Thread | None = None

    def start(self) -> Heartbeat:
        self._thread = threading.Thread(target=self._loop, name=f"heartbeat-run-{self.run_id}", daemon=True)
        self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self.beat(force=True)

    def beat(self, *, force: bool = False) -> None:
        """Renew the lease (at most every half interval unless forced: cheap to call per batch/stage)."""
        with self._lock:
            if not force and time.monotonic() - self._last < self.interval / 2:
                return
            self._last = time.monotonic()
            try:
                with self.engine.begin() as conn:
                    conn.execute(
                        update(Run)
                        .where(
                            Run.id == self.run_id,
                            Run.status == RunStatus.RUNNING.value,
                            Run.sealed_at.is_(None),
                        )
                        .values(heartbeat_at=utcnow())
                    )
                if self.ping is not None:
                    self.ping()
            except Exception as exc:  # a missed beat is not fatal: the lease outlives several
                log.warning("heartbeat of run %s failed: %s", self.run_id, exc)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=self.interval + 5)
