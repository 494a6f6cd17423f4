"""Shared console, logging set-up and the live progress bar."""

from __future__ import annotations

import logging
import sys
from types import TracebackType

from rich.console import Console
from rich.logging import RichHandler
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from auditor.evidence.redact import RedactingFilter

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


def setup_logging(verbose: bool) -> None:
    """Rich log lines on a terminal; plain, timestamped one-line records when stderr is piped or logged."""
    level = logging.DEBUG if verbose else logging.WARNING
    handler: logging.Handler
    if console.is_terminal:
        handler = RichHandler(console=console, show_path=False, rich_tracebacks=verbose)
    else:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactingFilter())  # secrets never reach log output, whatever a library logs
    logging.basicConfig(level=level, handlers=[handler], force=True)


class LiveProgress:
    """Targets done, failed and remaining, live; silent when output is not a terminal or --quiet."""

    def __init__(self, enabled: bool) -> None:
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
        self._task: TaskID | None = None
        self._failed = 0
        self._remaining = 0

    def __enter__(self) -> LiveProgress:
        self._progress.start()
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._progress.stop()

    def planned(self, targets: int) -> None:
        self._task = self._progress.add_task("collecting", total=targets, failed=0, remaining=targets)
        self._remaining = targets

    def target_done(self, name: str, ok: bool) -> None:
        if self._task is None:
            return
        if not ok:
            self._failed += 1
        self._remaining -= 1
        self._progress.update(self._task, advance=1, failed=self._failed, remaining=self._remaining)

    def phase(self, text: str) -> None:
        if self._task is not None:
            self._progress.update(self._task, description=text)
