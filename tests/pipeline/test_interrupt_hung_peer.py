"""An interrupt returns at once even while a worker hangs on a device (issue 11, timeouts/crash safety).

The peer is real: a loopback TCP server that accepts the SSH connection and never says a word, so the
real Netmiko/Paramiko path blocks reading its banner until the device deadline (here 120 s). Before,
the collection pool was a ThreadPoolExecutor, whose threads the interpreter joins at exit: Ctrl-C or
SIGTERM sealed the run but the process then sat until the hung worker gave up. Now the workers are
abandoned, the hung target is recorded as interrupted while collecting, the one never started as
interrupted before collection, and both stay pending for `audit --resume`.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import yaml
from sqlalchemy import create_engine, text

REPO = Path(__file__).resolve().parents[2]
DEADLINE = 120.0  # what the old exit join waited for
PROMPT = 20.0  # start-up of the CLI included; a generous bound far under the deadline


class SilentPeer:
    """Accepts TCP connections on loopback and never answers; counts what it accepted."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.accepted = threading.Event()
        self._held: list[socket.socket] = []
        self._stop = False
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        self.sock.settimeout(0.2)
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self._held.append(conn)  # held open, never read from or written to
            self.accepted.set()

    def close(self) -> None:
        self._stop = True
        self._thread.join(timeout=2)
        for conn in self._held:
            conn.close()
        self.sock.close()


@pytest.fixture
def peers() -> Iterator[list[SilentPeer]]:
    made = [SilentPeer(), SilentPeer()]
    yield made
    for peer in made:
        peer.close()


def _config(tmp_path: Path, peers: list[SilentPeer]) -> Path:
    data = {
        "intent": {"tiers": {"backend": {"cidrs": ["10.30.0.0/15"], "vrfs": ["RDMA-A"]}}},
        "sources": {
            "devices": [
                {
                    "host": "127.0.0.1",
                    "name": f"silent-{i}",
                    "port": peer.port,
                    "platform": "eos",
                    "tier": "backend",
                    "credentials": {"username": "audit", "password_env": "SILENT_PASSWORD"},
                }
                for i, peer in enumerate(peers)
            ]
        },
        "collection": {"connect_timeout": DEADLINE, "command_timeout": DEADLINE, "device_deadline": DEADLINE},
        "store": f"sqlite:///{tmp_path / 'audit.db'}",
        "reports": ["json"],
    }
    path = tmp_path / "auditor.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


@contextmanager
def _ctrl_c_as_at_a_terminal() -> Iterator[None]:
    """Children started here get SIGINT at its default, as a command run at a terminal does. A shell
    without job control starts background commands with SIGINT and SIGQUIT ignored (POSIX), and a test
    run started that way (`pytest ... &` in a script) passed the ignore on: the audit never saw Ctrl-C.
    A handler (unlike an ignore) is reset to the default at exec."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _signal_masks(pid: int) -> str:
    """The child's blocked, ignored and caught signal masks (an inherited SIG_IGN would explain a hang)."""
    status = Path(f"/proc/{pid}/status")
    if not status.exists():
        return "no /proc status"
    lines = status.read_text().splitlines()
    return ", ".join(
        line.replace("\t", " ") for line in lines if line.startswith(("SigBlk", "SigIgn", "SigCgt"))
    )


def _dump(proc: subprocess.Popen[str]) -> str:
    """Every thread's stack of a process that did not exit (faulthandler prints them on SIGABRT)."""
    proc.send_signal(signal.SIGABRT)
    try:
        return proc.communicate(timeout=10)[0][-6000:]
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.communicate()[0][-6000:]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_interrupt_returns_promptly_while_a_worker_hangs(
    tmp_path: Path, peers: list[SilentPeer], sig: signal.Signals
) -> None:
    cfg = _config(tmp_path, peers)
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "SILENT_PASSWORD": "x", "PYTHONPATH": path, "PYTHONFAULTHANDLER": "1"}
    with _ctrl_c_as_at_a_terminal():
        proc = subprocess.Popen(
            [sys.executable, "-m", "auditor", "audit", "-c", str(cfg), "-q", "--workers", "1"],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
    try:
        # One worker: the first device hangs it, the second is never started.
        assert any(p.accepted.wait(60) for p in peers), "the audit never connected to the silent peer"
        time.sleep(0.5)  # the worker is now blocked reading the SSH banner
        assert proc.poll() is None, proc.communicate()[0]
        signalled = time.monotonic()
        masks = _signal_masks(proc.pid)
        proc.send_signal(sig)
        try:
            out, _ = proc.communicate(timeout=2 * PROMPT)
        except subprocess.TimeoutExpired:
            pytest.fail(
                f"still running {2 * PROMPT:.0f} s after {sig.name} ({masks}); its threads:\n{_dump(proc)}"
            )
        took = time.monotonic() - signalled
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, out
    assert took < PROMPT, f"the interrupted audit took {took:.1f} s to exit (device deadline {DEADLINE} s)"
    assert sum(p.accepted.is_set() for p in peers) == 1  # the second target was never started

    engine = create_engine(f"sqlite:///{tmp_path / 'audit.db'}")
    with engine.connect() as conn:
        run = conn.execute(text("SELECT status FROM runs")).one()
        rows = conn.execute(text("SELECT name, status || ': ' || reason FROM targets")).all()
    targets: dict[str, str] = {str(name): str(state) for name, state in rows}
    engine.dispose()
    assert run.status == "interrupted"
    hung = next(i for i, p in enumerate(peers) if p.accepted.is_set())
    assert targets[f"silent-{hung}"].startswith("pending: interrupted while collecting")
    assert targets[f"silent-{1 - hung}"].startswith("pending: interrupted: the run was stopped before")
