"""The SSH side: one asyncssh server per device port, all on one event loop in a background thread.

It behaves like a network CLI: prompt, echo of every keystroke, CR/LF line ends, an error for unknown
commands, an optional fixed delay per command; and it logs every command it receives.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import asyncssh

from tests.devsim.allowlist import CommandLog
from tests.devsim.device import Device
from tests.devsim.netconf import serve_netconf


class _Auth(asyncssh.SSHServer):
    def __init__(self, device: Device) -> None:
        self.device = device

    def begin_auth(self, username: str) -> bool:
        return True

    def password_auth_supported(self) -> bool:
        return True

    def validate_password(self, username: str, password: str) -> bool:
        return username == self.device.username and password == self.device.password


def _crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


async def _shell(process: Any, device: Device, log: CommandLog) -> None:
    if device.behaviour == "hang":
        with contextlib.suppress(Exception):
            await process.stdin.read()  # never answer; wait until the client gives up
        return
    process.stdout.write(_crlf("\n" + device.prompt))
    line = ""
    last = ""
    try:
        while True:
            data = await process.stdin.read(4096)
            if not data:
                break
            for ch in data:
                if ch == "\x00":
                    continue
                if ch == "\n" and last == "\r":
                    last = ch
                    continue
                last = ch
                if ch not in "\r\n":
                    line += ch
                    process.stdout.write(ch)  # echo as the user types
                    continue
                command, line = line.strip(), ""
                process.stdout.write("\r\n")
                if command:
                    log.add(device.name, command)
                if command in ("exit", "logout"):
                    process.exit(0)
                    return
                if device.delay and command:
                    await asyncio.sleep(device.delay)
                if device.hang_on is not None and command == device.hang_on:
                    with contextlib.suppress(Exception):
                        await process.stdin.read()  # never answer; wait until the client gives up
                    return
                out = device.answer(command)
                if out is None:
                    out = device.invalid(command)
                dropping = device.behaviour == "close_mid_output" or device.drop_sessions > 0
                if dropping and command.startswith(("show", "nv")):
                    device.drop_sessions = max(0, device.drop_sessions - 1)
                    process.stdout.write(_crlf(out[: max(1, len(out) // 2)]))
                    process.channel.get_connection().abort()
                    return
                body = _crlf(out)
                if body and not body.endswith("\r\n"):
                    body += "\r\n"
                process.stdout.write(body + device.prompt)
    except (asyncssh.BreakReceived, asyncssh.TerminalSizeChanged, BrokenPipeError, ConnectionError):
        pass
    except asyncssh.misc.DisconnectError:
        pass


async def _silent_tcp(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Accepts the TCP connection and never says a word (not even the SSH banner)."""
    with contextlib.suppress(Exception):
        await reader.read()
    writer.close()


async def serve_ssh(
    device: Device, host_key: asyncssh.SSHKey, log: CommandLog, host: str = "127.0.0.1"
) -> Any:
    """Start serving `device` on an ephemeral port (sets device.port); returns the server object."""
    if device.behaviour == "silent_tcp":
        tcp = await asyncio.start_server(_silent_tcp, host, 0)
        device.port = tcp.sockets[0].getsockname()[1]
        return tcp

    async def handle(process: Any) -> None:
        if process.subsystem == "netconf":  # Junos through NAPALM/junos-eznc: NETCONF, not a CLI
            await serve_netconf(process, device, log)
            return
        await _shell(process, device, log)
        with contextlib.suppress(Exception):
            process.exit(0)

    server = await asyncssh.create_server(
        lambda: _Auth(device),
        host,
        0,
        server_host_keys=[host_key],
        process_factory=handle,
        line_editor=False,
        encoding="utf-8",
        keepalive_interval=0,
    )
    device.port = server.sockets[0].getsockname()[1]
    return server
