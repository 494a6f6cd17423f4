"""What one emulated device is: platform, name, answers, login, and how it misbehaves."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Behaviour = Literal["ok", "hang", "close_mid_output", "silent_tcp"]


@dataclass
class Device:
    name: str
    platform: str  # eos (eAPI) | nxos_ssh | ios | cumulus | sonic | onyx (SSH) | junos (NETCONF over SSH)
    text: dict[str, str] = field(default_factory=dict)  # command -> CLI text output
    json: dict[str, Any] = field(default_factory=dict)  # eAPI: command -> JSON result (format=json)
    # command -> the error the OS answers it with, as its CLI prints it ("% Interface does not exist"):
    # the CLI text over SSH, a JSON-RPC error over eAPI (see tests/devsim/eapi.py)
    errors: dict[str, str] = field(default_factory=dict)
    username: str = "audit"
    password: str = "audit-pass"
    behaviour: Behaviour = "ok"
    delay: float = 0.0  # seconds added to every command
    drop_sessions: int = 0  # the first N sessions are cut off in the middle of their first show output
    hang_on: str | None = None  # this command is never answered (the session stays open, silent)
    port: int = 0  # set when served

    @property
    def prompt(self) -> str:
        if self.platform in ("cumulus", "sonic"):
            return f"{self.username}@{self.name}:~$ "
        if self.platform == "onyx":
            return f"{self.name} [standalone: master] # "
        return f"{self.name}#"

    def answer(self, command: str) -> str | None:
        """The CLI text for `command`, or None when the device would reject it."""
        cmd = " ".join(command.split())
        if cmd in self.errors:
            return self.errors[cmd]
        if cmd in self.text:
            return self.text[cmd]
        return _SESSION_ANSWERS.get(self.platform, {}).get(cmd, _COMMON_SESSION.get(cmd))

    def invalid(self, command: str) -> str:
        if self.platform in ("cumulus", "sonic"):
            return f"-bash: {command.split(maxsplit=1)[0] if command.split() else ''}: command not found"
        if self.platform == "onyx":
            return '% Unrecognized command "' + command + '".\nType "show ?" for help.'
        return "% Invalid input detected at '^' marker."


_COMMON_SESSION = {"": "", "terminal length 0": "", "terminal width 511": "", "enable": ""}
_SESSION_ANSWERS = {
    "eos": {"terminal width 511": "Width set to 511 columns.", "terminal length 0": "Pagination disabled."},
    "onyx": {"no cli session paging enable": "", "terminal length 999": ""},
}
