"""One audit per scope at a time, per store: two audits of one scope would both collect from every target.

PostgreSQL: a session advisory lock keyed by the scope's hash, held on a connection of its own for the
whole run. It holds across machines; the server drops it when the holder's session ends (a killed
process closes it; for a machine that dies, the session sets short TCP keepalives so the server notices
in about 30 s). SQLite: an exclusive flock on `<db>.scope-<hash>.lock` beside the database file,
which the kernel drops when the holder dies, so a dead holder is taken over at once.

Either way, the holder is named from the store: the running run of that scope whose lease is live.
"""

from __future__ import annotations

import hashlib
import logging
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from sqlalchemy import Connection, Engine, select, text

from auditor.enums import RunStatus
from auditor.errors import AuditorError
from auditor.store.lease import liveness
from auditor.store.models import Run

if sys.platform != "win32":
    import fcntl

log = logging.getLogger(__name__)
POLL_SECONDS = 0.5


class ScopeBusy(AuditorError):
    hint = "wait for it with `auditor audit --wait`, or let it finish; a dead holder's lock is taken over"


def scope_digest(scope: str) -> str:
    return hashlib.sha256(("auditor-scope\0" + scope).encode("utf-8")).hexdigest()


def advisory_key(scope: str) -> int:
    """A signed 64-bit key for pg_advisory_lock, from the scope's hash."""
    return int.from_bytes(bytes.fromhex(scope_digest(scope))[:8], "big", signed=True)


def holder_text(engine: Engine, scope: str, *, exclude: int | None = None) -> str:
    """Who holds the scope, for the message: the live running run(s) of that scope."""
    with engine.connect() as conn:
        rows = list(
            conn.execute(
                select(Run.__table__)
                .where(Run.scope == scope, Run.status == RunStatus.RUNNING.value, Run.sealed_at.is_(None))
                .order_by(Run.id.desc())
            )
        )
    for row in rows:
        if row.id == exclude:
            continue
        live = liveness(row)
        if live.alive:
            beat = live.heartbeat_at.strftime("%H:%M:%S UTC") if live.heartbeat_at else "-"
            return f"run {row.id} (host {row.host}, pid {row.pid}, last heartbeat {beat})"
    return "another audit that is starting (no run recorded yet)"


class ScopeLock:
    """Held from before a run starts (or is resumed) until it is sealed."""

    def __init__(self, engine: Engine, scope: str) -> None:
        self.engine = engine
        self.scope = scope
        self._conn: Connection | None = None
        self._file: IO[str] | None = None
        self.held = False

    def acquire(self, *, wait: bool = False, on_wait: Callable[[str], None] | None = None) -> None:
        """Take the lock, or raise ScopeBusy naming the holder; with `wait`, poll until it is free."""
        told = False
        while not self._try():
            holder = holder_text(self.engine, self.scope)
            if not wait:
                scope = self.scope.strip().splitlines()[0][:80] if self.scope.strip() else "(empty scope)"
                raise ScopeBusy(f"an audit of the same scope is already running: {holder}; scope: {scope!r}")
            if not told and on_wait is not None:
                on_wait(holder)
                told = True
            time.sleep(POLL_SECONDS)
        self.held = True

    def _try(self) -> bool:
        if self.engine.dialect.name == "postgresql":
            return self._try_pg()
        return self._try_file()

    def _try_pg(self) -> bool:
        if self._conn is None:
            conn = self.engine.connect()
            try:  # a machine that dies without closing the session: the server notices in about 30 s
                for setting in ("idle = 15", "interval = 5", "count = 3"):
                    conn.execute(text(f"SET tcp_keepalives_{setting}"))
            except Exception:  # not settable (a unix socket, a pooler): the lock still holds
                conn.rollback()
            conn.commit()
            self._conn = conn
        key = {"k": advisory_key(self.scope)}
        got = bool(self._conn.execute(text("SELECT pg_try_advisory_lock(:k)"), key).scalar())
        self._conn.commit()  # session lock: outlives the transaction; the connection stays idle, not in one
        return got

    def _try_file(self) -> bool:
        database = self.engine.url.database
        if not database or database == ":memory:" or sys.platform == "win32":
            return True  # an in-memory store has one process; no flock on this platform
        if self._file is None:
            path = Path(database)
            lock = path.with_name(f"{path.name}.scope-{scope_digest(self.scope)[:16]}.lock")
            self._file = lock.open("a")
        try:
            fcntl.flock(self._file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def ping(self) -> None:
        """Keep the lock's session busy enough (called by the heartbeat)."""
        if self._conn is not None:
            self._conn.execute(text("SELECT 1"))
            self._conn.commit()

    def release(self) -> None:
        if self._conn is not None:
            try:
                if self.held:
                    self._conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": advisory_key(self.scope)})
                    self._conn.commit()
            except Exception as exc:  # ending the session below releases it anyway
                log.debug("advisory unlock failed: %s", exc)
            self._conn.invalidate()  # never back to the pool: the session (and any lock in it) ends here
            self._conn.close()
            self._conn = None
        if self._file is not None:
            try:
                if self.held:
                    fcntl.flock(self._file.fileno(), fcntl.LOCK_UN)
            finally:
                self._file.close()
                self._file = None
        self.held = False

    def __enter__(self) -> ScopeLock:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release()
