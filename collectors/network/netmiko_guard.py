"""Netmiko connections whose every written line passes the read-only guard first.

Netmiko's public `BaseConnection.write_channel(out_data)` is the one method through which every
keystroke reaches the SSH channel (send_command, find_prompt, disable_paging, cleanup, ...), so a
subclass that overrides it is the narrowest public hook. Text is released only line by line: a
partial line is held back until its RETURN arrives, and the whole line is checked before any of it
is written, so a refused command never reaches the device, not even as a prefix. A write holding more
than one command line is refused whole (Netmiko sends one command per write), so `show x\nconf t` or
`show x\rshow y` never reach a shell that would run the second line.
"""

from __future__ import annotations

import functools
from typing import Any, cast

from netmiko import BaseConnection, ssh_dispatcher

from auditor.errors import ReadOnlyViolation
from collectors.network.readonly import check_command


class ReadOnlyChannelMixin:
    """Mixed in front of a Netmiko connection class; see the module docstring."""

    _guard_pending: str = ""

    def write_channel(self, out_data: str) -> None:
        pending = self._guard_pending + out_data
        if "\n" not in pending and "\r" not in pending:
            if pending.strip("\x00"):  # text without RETURN: hold it back until its line is whole
                self._guard_pending = pending
                return
            self._guard_pending = ""
            super().write_channel(pending)  # type: ignore[misc]  # NUL: Netmiko's keepalive
            return
        complete, sep, rest = _split_last_line(pending)
        target = str(getattr(self, "host", "device"))
        try:
            lines = complete.replace("\r\n", "\n").replace("\r", "\n").split("\n")
            for line in lines:
                check_command(line, target=target)
            if len(lines) > 1 and any(lines):  # one command per write: never a line break inside it
                raise ReadOnlyViolation(
                    f"{target}: refused to send several lines at once: one command per line is sent"
                )
        except Exception:
            self._guard_pending = ""  # the refused line is dropped whole, held-back prefix included
            raise
        self._guard_pending = rest
        super().write_channel(complete + sep)  # type: ignore[misc]


def _split_last_line(text: str) -> tuple[str, str, str]:
    """Split into (complete lines without the final terminator, that terminator, the unfinished tail)."""
    cut = max(text.rfind("\n"), text.rfind("\r"))
    end = cut
    while end > 0 and text[end - 1] in "\r\n":
        end -= 1
    return text[:end], text[end : cut + 1], text[cut + 1 :]


@functools.cache
def guarded_class(device_type: str) -> type[BaseConnection]:
    """The Netmiko class for `device_type`, with the read-only guard in front of it."""
    base = ssh_dispatcher(device_type)
    return cast(type[BaseConnection], type(f"ReadOnly{base.__name__}", (ReadOnlyChannelMixin, base), {}))


def connect(device_type: str, **kwargs: Any) -> BaseConnection:
    """Open a guarded Netmiko connection (same arguments as netmiko.ConnectHandler)."""
    return guarded_class(device_type)(**kwargs)
