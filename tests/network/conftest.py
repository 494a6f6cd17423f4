"""Device-simulator fixtures. The session fixture asserts, at the end of the test session, that no
emulated device anywhere in this process received a command outside the read-only allowlist."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.devsim.allowlist import GLOBAL_LOG
from tests.devsim.sim import DevSim

PASSWORD_ENV = "DEVSIM_PASSWORD"


@pytest.fixture(scope="session", autouse=True)
def _device_command_logs_are_read_only() -> Iterator[None]:
    yield
    bad = GLOBAL_LOG.violations()
    assert not bad, f"emulated devices received non-allowlisted commands: {bad}"


@pytest.fixture
def sim(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[DevSim]:
    monkeypatch.setenv(PASSWORD_ENV, "audit-pass")
    with DevSim(tmp_path / "devsim") as s:
        yield s
