"""The read-only guard: what it allows, and that a refused command never reaches a device."""

from __future__ import annotations

import pytest

from auditor.errors import ReadOnlyViolation
from collectors.network import netmiko_guard
from collectors.network.collector import DeviceCollector
from collectors.network.commands import SHOW_COMMANDS, all_commands
from collectors.network.eapi import ReadOnlyEapiConnection, tls_context
from collectors.network.readonly import check_command, is_allowed
from tests.devsim import profiles
from tests.devsim.allowlist import allowed as device_side_allowed
from tests.devsim.sim import DevSim

REFUSED = [
    "configure terminal",
    "conf t",
    "configure session x",
    "write memory",
    "copy running-config startup-config",
    "reload",
    "clear ip bgp *",
    "show running-config | redirect flash:x.cfg",
    "show running-config | tee flash:x.cfg",
    "show running-config | append flash:x.cfg",
    "show version > bootflash:x",
    "show version; reload",
    "show version && reboot",
    "show $(reboot)",
    "show `reboot`",
    "nv set interface swp1 link state down",
    "nv config apply",
    "sudo config reload -y",
    "config vlan add 100",
    "bash",
    "sh run",
    "terminal monitor",
    "debug ip packet",
]


@pytest.mark.parametrize(
    "command", [*all_commands(), "show running-config", "terminal length 0", "enable", ""]
)
def test_every_collector_command_is_allowed(command: str) -> None:
    assert is_allowed(command)
    assert device_side_allowed(command)


@pytest.mark.parametrize("command", REFUSED)
def test_writes_and_escapes_are_refused(command: str) -> None:
    assert not is_allowed(command)
    with pytest.raises(ReadOnlyViolation):
        check_command(command, target="leaf1")


def test_refusal_does_not_echo_what_could_be_a_secret() -> None:
    with pytest.raises(ReadOnlyViolation) as err:
        check_command("Sup3r$ecret!", target="leaf1")
    assert "Sup3r" not in str(err.value)


def test_every_platform_has_commands_and_permissions_list_them() -> None:
    assert set(SHOW_COMMANDS) >= {"eos", "nxos", "nxos_ssh", "ios", "cumulus", "sonic", "onyx"}
    listed = DeviceCollector.permissions["device commands"]
    for command in all_commands():
        assert command in listed


def test_netmiko_guard_refuses_before_the_device_sees_it(sim: DevSim) -> None:
    dev = sim.add(profiles.cumulus("guard-cl"))
    conn = netmiko_guard.connect(
        "linux",
        host="127.0.0.1",
        port=dev.port,
        username=dev.username,
        password=dev.password,
        ssh_strict=True,
        alt_host_keys=True,
        alt_key_file=str(sim.known_hosts()),
    )
    try:
        with pytest.raises(ReadOnlyViolation):
            conn.send_command("nv set interface swp1 link state down")
        conn.write_channel("nv con")  # a partial line is held back, not sent ...
        with pytest.raises(ReadOnlyViolation):
            conn.write_channel("fig apply\n")  # ... and refused whole when its RETURN arrives
        out = conn.send_command("nv config show -o json")
        assert '"hostname": "guard-cl"' in out
    finally:
        conn.disconnect()
    received = sim.log.for_device("guard-cl")
    assert "nv config show -o json" in received
    assert not any(
        c.startswith(("nv set", "nv con", "fig")) and c != "nv config show -o json" for c in received
    )


def test_eapi_guard_refuses_before_the_request_is_sent(sim: DevSim) -> None:
    dev = sim.add(profiles.eos("guard-eos"))
    conn = ReadOnlyEapiConnection(
        "127.0.0.1",
        port=dev.port,
        username=dev.username,
        password=dev.password,
        context=tls_context(True, str(sim.ca_file)),
        timeout=5,
    )
    with pytest.raises(ReadOnlyViolation):
        conn.execute(["show version", "configure", "hostname pwned"])
    assert sim.log.for_device("guard-eos") == []  # nothing of the batch was sent
    assert conn.execute(["show hostname"])["result"][0]["hostname"] == "guard-eos"
