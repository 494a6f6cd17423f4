"""Shared console, logging set-up and the live progress bar."""

from __future__ import annotations

import logging
import sys
import time
from datetime import datetime
from types import TracebackType
from typing import TYPE_CHECKING

from rich.console import Console

if TYPE_CHECKING:
    from rich.progress import TaskID

PIPED_WIDTH = 1000  # tables piped or logged: as wide as their content, never folded at 80 columns


def _console(stderr: bool) -> Console:
    """On a terminal, rich at the terminal's width. Piped or logged (cron, CI, `| grep`), printed lines
    never wrap (soft wrap) and tables are laid out wide, so a check id or chain head is never split
    mid-word. COLUMNS is ignored there: CI runners and test harnesses export COLUMNS=80 to a pipe."""
    probe = Console(stderr=stderr)
    if probe.is_terminal:
        return probe
    return Console(stderr=stderr, soft_wrap=True, width=PIPED_WIDTH)


console = _console(stderr=True)
out = _console(stderr=False)


_state = {"quiet": False}  # per invocation: the root callback sets it (tests call main() in-process)


def set_quiet(quiet: bool = True) -> None:
    """--quiet (global, or a command's own): commands print only errors and their final status line."""
    _state["quiet"] = quiet
    if quiet:
        logging.getLogger().setLevel(logging.ERROR)


def is_quiet() -> bool:
    return _state["quiet"]


class _LazyRedactingFilter(logging.Filter):
    """The redaction filter, imported at the first log record: the redactor pulls in the secret scanner
    and the Parquet reader, which a command that logs nothing (`--help`, `checks list`) must not pay
    for at start."""

    def __init__(self) -> None:
        super().__init__()
        self._filter: logging.Filter | None = None

    def filter(self, record: logging.LogRecord) -> bool:
        if self._filter is None:
            from auditor.evidence.redact import RedactingFilter

            self._filter = RedactingFilter()
        return bool(self._filter.filter(record))


def setup_logging(verbose: bool) -> None:
    """Rich log lines on a terminal; plain, timestamped one-line records when stderr is piped or logged."""
    level = logging.DEBUG if verbose else logging.ERROR if is_quiet() else logging.WARNING
    handler: logging.Handler
    if console.is_terminal:
        from rich.logging import RichHandler

        handler = RichHandler(console=console, show_path=False, rich_tracebacks=verbose)
    else:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(_LazyRedactingFilter())  # secrets never reach log output, whatever a library logs
    logging.basicConfig(level=level, handlers=[handler], force=True)


class LiveProgress:
    """Targets done, failed and remaining. On a terminal, a live bar whose timer keeps running through
    checks and reports; piped or logged (`log_lines`), a plain progress line on stderr when the run starts,
    at most every LOG_EVERY seconds while collecting, and at each phase, so a cron log shows where a run
    is; silent with --quiet."""

    LOG_EVERY = 10.0

    def __init__(self, enabled: bool, *, log_lines: bool = False) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("[red]{task.fields[failed]} failed"),
            TextColumn("{task.fields[remaining]} remaining"),
            TimeElapsedColumn(),
            console=console,
            disable=not enabled,
            transient=False,
        )
        self._log = log_lines and not enabled
        self._task: TaskID | None = None
        self._planned = 0
        self._failed = 0
        self._remaining = 0
        self._started = time.monotonic()
        self._logged = self._started

    def __enter__(self) -> LiveProgress:
        self._started = self._logged = time.monotonic()
        self._progress.start()
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._progress.stop()

    def _line(self, text: str) -> None:
        if self._log:
            self._logged = time.monotonic()
            stamp = datetime.now().astimezone().strftime("%Y-%m-%d %H:%M:%S")
            print(
                f"{stamp} progress: {text} ({self._logged - self._started:.0f}s)", file=sys.stderr, flush=True
            )

    def _counts(self) -> str:
        done = self._planned - self._remaining
        return f"{done}/{self._planned} targets, {self._failed} failed, {self._remaining} remaining"

    def planned(self, targets: int) -> None:
        self._task = self._progress.add_task("collecting", total=targets, failed=0, remaining=targets)
        self._planned = self._remaining = targets
        self._line(f"collecting {targets} targets")

    def target_done(self, name: str, ok: bool) -> None:
        if self._task is None:
            return
        if not ok:
            self._failed += 1
        self._remaining -= 1
        self._progress.update(self._task, advance=1, failed=self._failed, remaining=self._remaining)
        if self._remaining == 0 or time.monotonic() - self._logged >= self.LOG_EVERY:
            self._line(f"collecting: {self._counts()}")

    def phase(self, text: str) -> None:
        """A new phase gets its own (open-ended) bar: the collection bar, finished, stops its timer."""
        if self._task is not None:
            if self._progress.tasks[-1].description == "collecting":
                self._progress.update(self._task, description="collected")
            self._progress.stop_task(self._task)
        self._task = self._progress.add_task(text, total=None, failed=self._failed, remaining=0)
        self._line(text)
