"""DevSim: serve a set of emulated devices on loopback, and tell a test how to reach them.

    with DevSim(tmp_path) as sim:
        sim.add(profiles.eos("leaf1"))
        sim.known_hosts()            # a known_hosts file listing every SSH device's key
        sim.ca_file                  # the CA that signed the eAPI servers' certificate
        sim.log.for_device("leaf1")  # every command leaf1 received

Stopping asserts that no device received a command outside the device-side allowlist.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
from pathlib import Path
from types import TracebackType
from typing import Any

import asyncssh

from tests.devsim.allowlist import GLOBAL_LOG, CommandLog, allowed
from tests.devsim.ca import make_pki
from tests.devsim.device import Device
from tests.devsim.eapi import serve_eapi, stop_eapi
from tests.devsim.ssh import serve_ssh

# A client that hangs up while the server writes is what half of these tests do on purpose.
logging.getLogger("asyncio").setLevel(logging.ERROR)


class _Log(CommandLog):
    """This sim's log, mirrored into the process-wide GLOBAL_LOG."""

    def add(self, device: str, command: str) -> None:
        super().add(device, command)
        GLOBAL_LOG.add(device, command)


class DevSim:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.log = _Log()
        self.devices: dict[str, Device] = {}
        self.host_key = asyncssh.generate_private_key("ssh-ed25519")
        self._pki = make_pki(folder / "pki")
        self.ca_file = self._pki.ca_file
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="devsim", daemon=True)
        self._thread.start()
        self._ssh: list[Any] = []
        self._eapi: list[Any] = []
        self._held: list[socket.socket] = []

    def __enter__(self) -> DevSim:
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop(check=et is None)

    def _run(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout=30)

    def add(self, device: Device) -> Device:
        if device.platform == "eos" and device.behaviour != "silent_tcp":
            self._eapi.append(serve_eapi(device, self.log, str(self._pki.cert_file), str(self._pki.key_file)))
        else:
            self._ssh.append(self._run(serve_ssh(device, self.host_key, self.log)))
        self.devices[device.name] = device
        return device

    def closed_port(self) -> int:
        """A loopback port that refuses connections for the simulator's lifetime.

        The socket stays bound but never listens, so no other server (another test worker's device, say)
        can take the port and turn "unreachable" into some other failure."""
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self._held.append(s)
        return int(s.getsockname()[1])

    def known_hosts(self, exclude: tuple[str, ...] = ()) -> Path:
        """A known_hosts file with the host key of every SSH device except `exclude`."""
        key = self.host_key.export_public_key("openssh").decode().strip()
        lines = [
            f"[127.0.0.1]:{d.port} {key}"
            for d in self.devices.values()
            if d.platform != "eos" and d.name not in exclude
        ]
        path = self.folder / ("known_hosts" if not exclude else f"known_hosts-without-{len(exclude)}")
        path.write_text("\n".join(lines) + "\n")
        return path

    def violations(self) -> list[tuple[str, str]]:
        return [(d, c) for d, c in self.log.entries if not allowed(c)]

    def stop(self, check: bool = True) -> None:
        stoppers = [threading.Thread(target=stop_eapi, args=(server,)) for server in self._eapi]
        for t in stoppers:  # each waits for its serve_forever loop to notice: stop them side by side
            t.start()
        for t in stoppers:
            t.join(timeout=10)

        async def close_all() -> None:
            for server in self._ssh:
                server.close()
            await asyncio.sleep(0)

        if self._loop.is_running():
            self._run(close_all())
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)
        self._ssh.clear()
        self._eapi.clear()
        for held in self._held:
            held.close()
        self._held.clear()
        if check:
            bad = self.violations()
            assert not bad, f"devices received commands outside the read-only allowlist: {bad}"
