"""A hard per-device deadline, enforced from outside the driver.

Driver timeouts do not bound a device: a hung command costs its read timeout, then the disconnect waits on
the same blocked channel, then a retry starts over. So one device's collection runs in a worker thread of
its own and hands over what it collects through a queue; the collector waits for it at most until the
deadline. At the deadline it stops waiting: the target ends with a CollectionError naming the device and
the stage it was stuck in (what arrived before is kept), the stuck session is aborted (its socket closed
under it, best effort), and the worker is abandoned: it stops before its next step and nothing it
produces afterwards is handed over, so no evidence lands after the target was closed.

Once every step is done, the final disconnect is not waited for beyond a short grace: a device that
answered everything but hangs on `exit` does not hold the run.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from auditor.capture import RawCapture
from auditor.errors import CollectionError
from auditor.normalize import Problem
from collectors.network.session import DeviceJob, Watch, abort_session, collect_device

log = logging.getLogger(__name__)

_ITEM, _STAGE, _DONE, _ERROR = "item", "stage", "done", "error"
Collect = Callable[[DeviceJob, Watch], Iterator[RawCapture | Problem]]


class _Deadline(Watch):
    """The worker side: reports stages and items into the queue until it is abandoned."""

    def __init__(self) -> None:
        self.queue: queue.Queue[tuple[str, Any]] = queue.Queue()
        self.abandoned = threading.Event()
        self.sessions: list[Any] = []
        self._lock = threading.Lock()

    def stage(self, name: str) -> None:
        self.put(_STAGE, name)

    def opened(self, session: Any) -> None:
        with self._lock:
            self.sessions.append(session)
        if self.abandoned.is_set():  # connected after the deadline: hang up at once
            abort_session(session)

    def cancelled(self) -> bool:
        return self.abandoned.is_set()

    def put(self, kind: str, value: Any) -> None:
        if not self.abandoned.is_set():
            self.queue.put((kind, value))

    def abandon(self) -> None:
        self.abandoned.set()
        with self._lock:
            sessions = list(self.sessions)
        for session in sessions:
            abort_session(session)


def collect_within(
    job: DeviceJob, deadline: float, *, grace: float | None = None, collect: Collect = collect_device
) -> Iterator[RawCapture | Problem]:
    """What `collect(job)` yields, for at most `deadline` seconds from now (see the module docstring).
    `grace` bounds the wait for the final disconnect (default: the connect timeout)."""
    watch = _Deadline()
    grace = job.connect_timeout if grace is None else grace

    def work() -> None:
        try:
            for item in collect(job, watch):
                if watch.abandoned.is_set():
                    return
                watch.put(_ITEM, item)
            watch.put(_DONE, None)
        except BaseException as exc:  # handed to the waiting side, which raises it there
            watch.put(_ERROR, exc)

    worker = threading.Thread(target=work, name=f"device-{job.target}", daemon=True)
    end = time.monotonic() + deadline
    stage, last_step = "connect", ""
    closing_until: float | None = None
    worker.start()
    try:
        while True:
            until = end if closing_until is None else min(end, closing_until)
            try:
                kind, value = watch.queue.get(timeout=max(0.0, until - time.monotonic()))
            except queue.Empty:
                if stage == "closing":  # every step done: only the goodbye is stuck
                    log.debug("%s: disconnect did not finish; not waiting for it", job.target)
                    return
                raise CollectionError(
                    f"timed out: the device deadline of {deadline:g}s was reached during "
                    f"{_stage(stage, last_step)}",
                    target=job.target,
                    hint="the device stopped answering; what was collected before is kept. Raise "
                    "collection.device_deadline if it is only slow",
                    transient=True,
                ) from None
            if kind == _ITEM:
                held = time.monotonic()
                yield value
                # Time the pipeline kept us (a full queue behind a busy store writer) is not the device's:
                # the deadline counts only time spent waiting for the device.
                end += time.monotonic() - held
            elif kind == _STAGE:
                stage = value
                if stage not in _SESSION_STAGES:
                    last_step = stage
                if stage == "closing":
                    closing_until = time.monotonic() + grace
            elif kind == _ERROR:
                raise value
            else:
                return
    finally:
        watch.abandon()  # whatever ended the wait (done, deadline, error, the consumer closing us)


_SESSION_STAGES = ("connect", "disconnect", "closing")


def _stage(stage: str, last_step: str) -> str:
    """Where the device got stuck, in words: a step by its command, or the session stage after it."""
    if stage == "disconnect" and last_step:
        return f"the disconnect after {last_step!r} failed"
    if stage == "connect" and last_step:
        return f"the reconnect after {last_step!r} failed"
    if stage in _SESSION_STAGES:
        return "disconnect" if stage == "closing" else stage
    return repr(stage)
