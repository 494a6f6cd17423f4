"""`python tests/pipeline/crash_driver.py <auditor args>`: the real `auditor` command line, in a process
that stops once at one stage so a test can kill it there (SIGKILL) or stop it (SIGTERM).

CRASH_STAGE: collection (the files collector, before a capture of CRASH_TARGET), normalisation (before
that capture is processed), store (that capture written, its transaction not committed), checks (before
the checks run), seal (inside the seal's transaction).
CRASH_MARK: a file written when the stage is reached. The stall ends on SIGTERM (the CLI's handler then
interrupts the run as it would a hung device), when the file CRASH_RELEASE appears, or after
CRASH_STALL_SECONDS.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

STAGE = os.environ.get("CRASH_STAGE", "")
MARK = Path(os.environ.get("CRASH_MARK", os.devnull))
TARGET = os.environ.get("CRASH_TARGET", "lab-cluster")
NTH = int(os.environ.get("CRASH_NTH", "3"))  # stall before this capture of TARGET (1-based)
LIMIT = float(os.environ.get("CRASH_STALL_SECONDS", "60"))
RELEASE = Path(os.environ.get("CRASH_RELEASE", "/nonexistent/release"))  # the stall ends when this exists

released = threading.Event()
fired = threading.Event()


def stall() -> None:
    """Once per process: say where we are, then wait for SIGTERM (or the limit)."""
    if fired.is_set():
        return
    fired.set()
    MARK.write_text(f"{os.getpid()} {STAGE}\n")
    end = time.monotonic() + LIMIT
    while not released.is_set() and time.monotonic() < end and not RELEASE.exists():
        time.sleep(0.05)


def install() -> None:
    if STAGE == "collection":
        from collectors.offline.collector import OfflineFilesCollector

        collect = OfflineFilesCollector.collect

        def collect_stalling(self: Any, target: Any) -> Iterator[Any]:
            n = 0
            for got in collect(self, target):
                if target.name == TARGET and not isinstance(got, Exception):
                    n += 1
                    if n == NTH:
                        stall()
                yield got

        OfflineFilesCollector.collect = collect_stalling  # type: ignore[method-assign]
    elif STAGE == "normalisation":
        import auditor.pipeline.collect as collect_module

        process = collect_module.process_capture  # type: ignore[attr-defined]
        seen = {"n": 0}

        def process_stalling(capture: Any, normalizers: Any) -> Any:
            if capture.target == TARGET:
                seen["n"] += 1
                if seen["n"] == NTH:
                    stall()
            return process(capture, normalizers)

        collect_module.process_capture = process_stalling  # type: ignore[attr-defined]
    elif STAGE == "store":
        from auditor.store.writer import RunWriter

        ingest = RunWriter.ingest
        stored = {"n": 0}

        def ingest_stalling(self: Any, target_id: int, capture: Any, **kwargs: Any) -> Any:
            done = ingest(self, target_id, capture, **kwargs)
            if capture.target == TARGET:
                stored["n"] += 1
                if stored["n"] == NTH:
                    stall()  # the capture and its facts are written, their transaction not committed
            return done

        RunWriter.ingest = ingest_stalling  # type: ignore[method-assign]
    elif STAGE == "checks":
        import auditor.pipeline.audit as audit_module

        audit_module.evaluate_run = _before(audit_module.evaluate_run)  # type: ignore[attr-defined]
    elif STAGE == "seal":
        import auditor.store.writer as writer_module

        writer_module.build_document = _before(writer_module.build_document)  # type: ignore[attr-defined]


def _before(fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        stall()
        return fn(*args, **kwargs)

    return wrapped


def main() -> None:
    from auditor.cli import app as cli

    install()
    terminate = cli._terminate_as_interrupt

    def on_term(signum: int, frame: Any) -> None:
        released.set()  # a stalled worker thread lets go; the main thread gets the interrupt below
        terminate(signum, frame)

    cli._terminate_as_interrupt = on_term  # type: ignore[assignment]
    sys.argv = ["auditor", *sys.argv[1:]]
    signal.signal(signal.SIGTERM, on_term)
    cli.main()


if __name__ == "__main__":
    main()
