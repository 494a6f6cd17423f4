"""NAPALM's junos driver as the collector builds it: read-only and host-key verified. These tests stop
before `open()` (tests/network/test_junos_live.py connects to the simulator): they check what the driver
would send and how it would verify the host."""

from __future__ import annotations

from pathlib import Path

import pytest

from auditor.errors import ReadOnlyViolation
from collectors.network.drivers import napalm_driver
from collectors.platforms.junos.driver import ReadOnlyJunOSDriver


def _driver(tmp_path: Path, **netmiko: object) -> ReadOnlyJunOSDriver:
    drv = napalm_driver(
        "junos",
        host="192.0.2.10",
        port=None,
        username="audit",
        password="pw",
        timeout=30,
        netmiko_args={"ssh_strict": True, "alt_key_file": str(tmp_path / "known_hosts"), **netmiko},
    )
    assert isinstance(drv, ReadOnlyJunOSDriver)
    return drv


def test_the_registry_names_the_guarded_driver_for_junos(tmp_path: Path) -> None:
    drv = _driver(tmp_path)
    assert drv.device._hostkey_verify is True  # PyEZ's default is False
    config = Path(drv._ssh_config.name).read_text()
    assert f"UserKnownHostsFile {tmp_path / 'known_hosts'}" in config
    assert drv.device._port == 830
    drv._ssh_config.close()


def test_the_explicit_opt_out_is_the_only_way_to_skip_the_host_key(tmp_path: Path) -> None:
    drv = _driver(tmp_path, ssh_strict=False)
    assert drv.device._hostkey_verify is False
    drv._ssh_config.close()


@pytest.mark.parametrize(
    "command", ["configure", "request system reboot", "show configuration | save /tmp/x"]
)
def test_cli_refuses_anything_but_reads_before_sending(tmp_path: Path, command: str) -> None:
    drv = _driver(tmp_path)
    with pytest.raises(ReadOnlyViolation):
        drv.cli([command])  # the session is not even open: the guard answers first
    drv._ssh_config.close()


@pytest.mark.parametrize(
    "method",
    ["load_merge_candidate", "load_replace_candidate", "commit_config", "rollback", "discard_config"],
)
def test_configuration_methods_refuse(tmp_path: Path, method: str) -> None:
    drv = _driver(tmp_path)
    with pytest.raises(ReadOnlyViolation):
        getattr(drv, method)(config="set system host-name x")
    drv._ssh_config.close()
