"""The device guard fed hostile strings: control characters, line breaks, Unicode separators, shell and
CLI syntax, abbreviations, batched eAPI requests. Each is refused by the guard itself, and, sent through
the real Netmiko, NAPALM and eAPI paths to the device simulator, never reaches the device (the simulator
logs every command it receives)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from auditor.errors import ReadOnlyViolation
from collectors.network import netmiko_guard
from collectors.network.drivers import napalm_driver
from collectors.network.eapi import ReadOnlyEapiConnection, check_request, tls_context
from collectors.network.readonly import check_command, is_allowed
from collectors.network.session import refusal_in
from tests.devsim import profiles
from tests.devsim.sim import DevSim

GOOD = "show version"
C0 = [chr(c) for c in range(0x20)]
C1 = [chr(c) for c in range(0x80, 0xA0)]
SEPARATORS = ["\u2028", "\u2029", "\u0085", "\x7f"]  # line sep, paragraph sep, NEL, DEL
# Look-alikes and invisible characters: none is ASCII, so none may pass.
LOOKALIKES = ["\u00a0", "\u200b", "\u202e", "\ufeff", "\uff53how version", "sh\u043ew version"]


def embedded(ch: str) -> list[str]:
    """`ch` at the start, inside and at the end of a read-only command, and before a write."""
    return [f"{ch}{GOOD}", f"show{ch}version", f"{GOOD}{ch}", f"{GOOD}{ch}configure terminal"]


CONTROL = [s for ch in C0 + C1 + SEPARATORS for s in embedded(ch)]

EDITING = [
    "show run\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7fconfigure terminal",  # DEL erases, then a write
    "show version\x15reload",  # Ctrl-U kills the line
    "show version\x17\x17reload",  # Ctrl-W kills words
    "show version\x08\x08\x08\x08\x08\x08\x08\x08\x08\x08\x08\x08reload",  # backspaces
    "conf\t t",  # Tab completes
    "show version\x1b[Dreload",  # ESC sequence (cursor left)
    "show run\nconfigure terminal",
    "sh run\nconf t",
    "show run\rconfigure terminal",
    "show run\r\nconfigure terminal",
    "show version\n",
    "\nreload",
]

SYNTAX = [
    "show version; reload",
    "show version ; configure terminal",
    "show version && reboot",
    "show version || reboot",
    "show version & reboot",
    "show $(reboot)",
    "show ${IFS}",
    "show `reboot`",
    "show version > flash:x",
    "show version >> flash:x",
    "show version < /etc/passwd",
    "show version \\",
    "show version | bash",
    "show version | python",
    "show version | sh",
    "show running-config | redirect flash:x.cfg",
    "show running-config | tee flash:x.cfg",
    "show running-config | append flash:x.cfg",
    "show running-config | write flash:x.cfg",
    "show running-config | copy flash:x",
    "show running-config | json | redirect x",
    "show version | include x | tee y",
    "show version |",
    "show version | ",
    "show version ?",
    "show version !!",
    "show 'a|b'",
    'show "a;b"',
    "show (reload)",
    "show {a,b}",
    "copy running-config startup-config",
    "copy running-config tftp://x",
    "bash",
    "bash reboot",
    "run bash",
    "conf t",
    "conf",
    "config",
    "configure",
    "configure terminal",
    "configure session x",
    "sh run",
    "sho run",
    "sh ver",
    "write",
    "write memory",
    "wr",
    "reload",
    "enable 15",
    "enable secret x",
    "nv set system hostname x",
    "nv config apply",
    "nv unset interface swp1",
    "sudo show version",
    "start shell",
    "debug all",
]

EVERYTHING = CONTROL + EDITING + SYNTAX + LOOKALIKES


@pytest.mark.parametrize("command", EVERYTHING, ids=lambda s: repr(s)[:40])
def test_guard_refuses(command: str) -> None:
    assert not is_allowed(command)
    with pytest.raises(ReadOnlyViolation):
        check_command(command, target="leaf1")


def test_refusal_names_control_characters_without_echoing_them() -> None:
    with pytest.raises(ReadOnlyViolation) as err:
        check_command("show version\x15reload", target="leaf1")
    text = str(err.value)
    assert "U+0015" in text and "\x15" not in text and "reload" not in text


@pytest.mark.parametrize(
    "request_body",
    [
        {"method": "runCmds", "params": {"version": 1, "cmds": ["show version", "configure"]}},
        {"method": "runCmds", "params": {"version": 1, "cmds": ["show version\nconfigure terminal"]}},
        {"method": "runCmds", "params": {"version": 1, "cmds": ["show version\u2028configure"]}},
        {"method": "runCmds", "params": {"version": 1, "cmds": ["enable", "show version", "enable"]}},
        {"method": "runCmds", "params": {"version": 1, "cmds": [{"cmd": "enable", "input": "pw"}]}},
        {"method": "runCmds", "params": {"version": 1, "cmds": [{"cmd": "show version", "input": "y"}]}},
        {"method": "runCmds", "params": {"version": 1, "cmds": [{"cmd": "configure"}]}},
        {"method": "runCmds", "params": {"version": 1, "cmds": [["show version"]]}},
        {"method": "runCmds", "params": {"version": 1, "cmds": ["sh run"], "autoComplete": True}},
        {"method": "runCmds", "params": {"version": 1, "cmds": ["show x"], "expandAliases": True}},
        {"method": "runCmds", "params": {"version": 1}},
        {"method": "runCmds"},
        {"method": "runConfig", "params": {"cmds": ["show version"]}},
        ["show version"],
    ],
)
def test_eapi_request_is_checked_command_by_command(request_body: Any) -> None:
    with pytest.raises(ReadOnlyViolation):
        check_request(json.dumps(request_body), target="eos1")


def test_eapi_request_as_napalm_sends_it_passes() -> None:
    body = {
        "jsonrpc": "2.0",
        "method": "runCmds",
        "params": {
            "version": 1,
            "cmds": ["enable", "show version", {"cmd": "show hostname"}],
            "format": "json",
        },
        "id": "1",
    }
    check_request(json.dumps(body), target="eos1")


def _received_only_good(sim: DevSim, device: str, good: set[str]) -> None:
    received = sim.log.for_device(device)
    assert set(received) <= good, set(received) - good
    for command in received:
        assert is_allowed(command)


@pytest.fixture
def cumulus_conn(sim: DevSim) -> Iterator[Any]:
    dev = sim.add(profiles.cumulus("adv-cl"))
    conn = netmiko_guard.connect(
        "linux",
        host="127.0.0.1",
        port=dev.port,
        username=dev.username,
        password=dev.password,
        ssh_strict=True,
        alt_host_keys=True,
        alt_key_file=str(sim.known_hosts()),
        conn_timeout=5,
        read_timeout_override=5,
    )
    try:
        yield conn
    finally:
        conn.disconnect()


# Netmiko strips trailing whitespace (str.rstrip: Tab, VT, FF, CR, LF, FS-US, NEL, U+2028/9, NBSP) from a
# command before it writes it, so `show version<NEL>` leaves as the plain `show version`: those are
# checked on the raw write below, where nothing strips them.
STRIPPED_BY_NETMIKO = {c for c in EVERYTHING if is_allowed(c.rstrip())}
# `show version\r` + RETURN is one ordinary line on the wire.
ENDS_IN_RETURN = {c for c in EVERYTHING if is_allowed(c.rstrip("\r\n"))}
# Through a driver's send_command (each costs a prompt read): every hostile string but the control
# characters, which are sent there in one position each (all positions go through the raw write).
THROUGH_DRIVER = [
    *(f"show{ch}version configure" for ch in C0 + C1 + SEPARATORS),
    *EDITING,
    *SYNTAX,
    *LOOKALIKES,
]


def test_netmiko_path_never_sends_a_refused_line(sim: DevSim, cumulus_conn: Any) -> None:
    good = "nv config show -o json"
    for command in THROUGH_DRIVER:
        if command not in STRIPPED_BY_NETMIKO:
            with pytest.raises(ReadOnlyViolation):
                cumulus_conn.send_command(command, read_timeout=5)
    for command in EVERYTHING:
        if command not in ENDS_IN_RETURN:
            with pytest.raises(ReadOnlyViolation):  # and written raw, with its own RETURN
                cumulus_conn.write_channel(command + "\n")
    assert '"hostname": "adv-cl"' in cumulus_conn.send_command(good, read_timeout=5)
    # the session is intact and nothing of any refused line arrived, not even a prefix
    _received_only_good(sim, "adv-cl", {good})


def test_netmiko_refuses_two_read_only_lines_in_one_write(sim: DevSim, cumulus_conn: Any) -> None:
    with pytest.raises(ReadOnlyViolation):
        cumulus_conn.write_channel("nv config show -o json\nnv show system\n")
    assert sim.log.for_device("adv-cl") == []


def test_napalm_cli_path_never_sends_a_refused_line(sim: DevSim) -> None:
    dev = sim.add(profiles.nxos("adv-nx"))
    drv = napalm_driver(
        "nxos_ssh",
        host="127.0.0.1",
        port=dev.port,
        username=dev.username,
        password=dev.password,
        timeout=5,
        netmiko_args={
            "ssh_strict": True,
            "alt_host_keys": True,
            "alt_key_file": str(sim.known_hosts()),
            "conn_timeout": 5,
        },
    )
    drv.open()
    try:
        before = set(sim.log.for_device("adv-nx"))  # what open() sent (terminal settings, prompt)
        for command in THROUGH_DRIVER:
            if command not in STRIPPED_BY_NETMIKO:
                with pytest.raises(ReadOnlyViolation):
                    drv.cli([command])
        assert "adv-nx" in drv.cli(["show hostname"])["show hostname"]
    finally:
        drv.close()
    _received_only_good(sim, "adv-nx", before | {"show hostname", "exit"})


def test_eapi_path_never_sends_a_refused_command(sim: DevSim) -> None:
    dev = sim.add(profiles.eos("adv-eos"))
    conn = ReadOnlyEapiConnection(
        "127.0.0.1",
        port=dev.port,
        username=dev.username,
        password=dev.password,
        context=tls_context(True, str(sim.ca_file)),
        timeout=5,
        connect_timeout=5,
    )
    for command in EVERYTHING:
        with pytest.raises(ReadOnlyViolation):
            conn.execute([command])
        with pytest.raises(ReadOnlyViolation):  # a good command first does not carry a bad one along
            conn.execute(["show hostname", command])
    with pytest.raises(ReadOnlyViolation):
        conn.execute(["show hostname"], autoComplete=True)
    with pytest.raises(ReadOnlyViolation):
        conn.execute(["show hostname"], expandAliases=True)
    assert sim.log.for_device("adv-eos") == []
    assert conn.execute(["show hostname"])["result"][0]["hostname"] == "adv-eos"
    _received_only_good(sim, "adv-eos", {"show hostname"})


def test_napalm_eos_cli_never_sends_a_refused_command(sim: DevSim) -> None:
    dev = sim.add(profiles.eos("adv-eos2"))
    drv = napalm_driver(
        "eos",
        host="127.0.0.1",
        port=dev.port,
        username=dev.username,
        password=dev.password,
        timeout=5,
        netmiko_args={"conn_timeout": 5},
        verify_tls=True,
        ca_file=str(sim.ca_file),
    )
    drv.open()
    try:
        for command in ["show version\nconfigure terminal", "show version\x15reload", "conf t", "sh run"]:
            # NAPALM's EOS cli() wraps any error in CommandErrorException, the guard's refusal included
            with pytest.raises(Exception, match="refused") as err:
                drv.cli([command])
            assert refusal_in(err.value) is not None  # so the collector ends the target, not one capture
    finally:
        drv.close()
    _received_only_good(sim, "adv-eos2", {"enable", "show version"})
