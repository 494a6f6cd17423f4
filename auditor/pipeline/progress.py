"""How the pipeline reports progress; the CLI plugs in a live progress bar, tests and jobs a no-op."""

from __future__ import annotations

from typing import Protocol


class Progress(Protocol):
    def planned(self, targets: int) -> None: ...

    def target_done(self, name: str, ok: bool) -> None: ...

    def phase(self, text: str) -> None: ...


class NoProgress:
    def planned(self, targets: int) -> None:
        pass

    def target_done(self, name: str, ok: bool) -> None:
        pass

    def phase(self, text: str) -> None:
        pass
