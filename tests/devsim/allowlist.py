"""The device side's own idea of what a read-only collector may send (independent of collectors/)."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field

_SESSION = {
    "",
    "terminal length 0",
    "terminal width 511",
    "terminal length 999",
    "no cli session paging enable",
    "enable",
    "exit",
}
_SHOW = re.compile(r"^(show|nv config show|nv show) [^;&`$<>]*$")
_BAD_PIPE = re.compile(r"\|\s*(redirect|tee|append|write|copy|save)\b|>")


def allowed(command: str) -> bool:
    if any(not " " <= c <= "~" for c in command):  # a control character edits or ends the line on a CLI
        return False
    cmd = " ".join(command.split())
    if cmd in _SESSION:
        return True
    return bool(_SHOW.match(cmd)) and not _BAD_PIPE.search(cmd)


@dataclass
class CommandLog:
    """Every (device, command) a server received, across all servers of the process."""

    entries: list[tuple[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, device: str, command: str) -> None:
        with self.lock:
            self.entries.append((device, command))

    def for_device(self, device: str) -> list[str]:
        with self.lock:
            return [c for d, c in self.entries if d == device]

    def violations(self) -> list[tuple[str, str]]:
        with self.lock:
            return [(d, c) for d, c in self.entries if not allowed(c)]


# One log for the whole test process: the session fixture in tests/network/conftest.py asserts on it,
# and every DevSim checks its own share when it stops.
GLOBAL_LOG = CommandLog()
