"""Live collection from each platform, through the real NAPALM and Netmiko drivers, compared with the
fixtures' own expected results field by field."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import UTC
from pathlib import Path
from typing import Any

import pytest

from auditor.capture import RawCapture
from auditor.normalize import Problem
from collectors.network.collector import DeviceCollector
from collectors.network.commands import NAPALM_GETTERS, commands_for
from collectors.platforms.registry import canonical
from tests.devsim import profiles
from tests.devsim.profiles import DEVSIM
from tests.devsim.sim import DevSim
from tests.network.conftest import PASSWORD_ENV
from tests.network.helpers import config, entry


def collect_one(sim: DevSim, tmp_path: Path, dev: Any, **over: Any) -> dict[str, RawCapture]:
    cfg = config([entry(sim, dev, **over)], tmp_path)
    collector = DeviceCollector()
    (target,) = collector.plan(cfg).targets
    got = list(collector.collect(target))
    problems = [g for g in got if isinstance(g, Problem)]
    assert not problems, problems
    caps = [g for g in got if isinstance(g, RawCapture)]
    return {c.meta.get("command") or c.format: c for c in caps}


Collected = dict[str, tuple[Any, dict[str, RawCapture], DevSim]]


@pytest.fixture(scope="module")
def collected(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Collected]:
    """One device per platform, collected once for the whole module (collection takes seconds)."""
    tmp = tmp_path_factory.mktemp("collect")
    saved = os.environ.get(PASSWORD_ENV)
    os.environ[PASSWORD_ENV] = "audit-pass"
    try:
        with DevSim(tmp / "devsim") as sim:
            out: Collected = {}
            for platform, name, over in [
                ("eos", "be-leaf1", {}),
                ("nxos_ssh", "be-leaf2", {"tier": "backend", "role": "leaf"}),
                ("ios", "oob-rtr1", {}),
                ("cumulus", "be-sw9", {}),
                ("sonic", "be-sw10", {}),
                ("onyx", "be-sw11", {}),
            ]:
                dev = sim.add(profiles.BUILDERS[platform](name))
                out[platform] = (dev, collect_one(sim, tmp / name, dev, **over), sim)
            yield out
    finally:
        if saved is None:
            os.environ.pop(PASSWORD_ENV, None)
        else:
            os.environ[PASSWORD_ENV] = saved


def expected(platform: str, getter: str) -> Any:
    return json.loads((DEVSIM / platform / f"expected_{getter}.json").read_text())


def check_common(caps: dict[str, RawCapture], dev: Any) -> None:
    for cap in caps.values():
        assert cap.target == dev.name
        assert cap.origin == f"127.0.0.1:{dev.port}"
        assert cap.collected_at.tzinfo == UTC
        assert cap.meta["device"] == dev.name
        assert cap.meta["platform"] == canonical(dev.platform)  # `nxos_ssh` is stored as `nxos`
        if "command" in cap.meta:
            assert cap.source == cap.meta["command"]
            assert cap.content == dev.answer(cap.meta["command"]).strip("\n").encode() or cap.content in (
                dev.answer(cap.meta["command"]).encode(),
                dev.answer(cap.meta["command"]).rstrip().encode(),
            )


@pytest.mark.parametrize(
    "getter",
    ["get_interfaces", "get_network_instances", "get_lldp_neighbors", "get_vlans", "get_interfaces_ip"],
)
def test_eos_getters_over_eapi_match_napalm_expected(collected: Collected, getter: str) -> None:
    _, caps, _ = collected["eos"]
    assert json.loads(caps["napalm.getters"].content)[getter] == expected("eos", getter)
    assert caps["napalm.getters"].source == f"napalm eos {' '.join(NAPALM_GETTERS)}"


def test_eos_capture_set_and_exact_bytes(collected: Collected) -> None:
    dev, caps, _ = collected["eos"]
    facts = json.loads(caps["napalm.getters"].content)["get_facts"]
    assert (facts["hostname"], facts["fqdn"], facts["os_version"], facts["model"]) == (
        "be-leaf1",
        "be-leaf1.example",
        "4.30.1F-33242011.4301F",  # NAPALM reports EOS's internalVersion
        "vEOS",
    )
    assert caps["show running-config"].format == "eos.running-config"
    assert caps["show running-config"].content == dev.text["show running-config"].encode()
    for cmd in commands_for("eos"):
        assert caps[cmd.command].format == cmd.format
        if cmd.format == "eos.show-json":
            assert json.loads(caps[cmd.command].content) == json.loads(dev.text[cmd.command])
        else:  # the management plane's text, byte for byte
            assert caps[cmd.command].content == dev.text[cmd.command].encode()
    assert set(json.loads(caps["napalm.getters"].content)) == set(NAPALM_GETTERS)
    check_common(caps, dev)


@pytest.mark.parametrize(
    "getter",
    ["get_network_instances", "get_lldp_neighbors", "get_vlans", "get_interfaces_ip", "get_interfaces"],
)
def test_nxos_getters_over_ssh_match_napalm_expected(collected: Collected, getter: str) -> None:
    _, caps, _ = collected["nxos_ssh"]
    got = json.loads(caps["napalm.getters"].content)[getter]
    want = expected("nxos_ssh", getter)
    if getter == "get_interfaces":  # last_flapped is relative to "now" in NAPALM's parser
        for d in (got, want):
            for iface in d.values():
                iface.pop("last_flapped", None)
    assert got == want


def test_nxos_capture_set(collected: Collected) -> None:
    dev, caps, _ = collected["nxos_ssh"]
    facts = json.loads(caps["napalm.getters"].content)["get_facts"]
    assert (facts["hostname"], facts["os_version"], facts["vendor"]) == ("be-leaf2", "16.1(2.133b)", "Cisco")
    assert caps["show running-config"].format == "nxos.running-config"
    assert b"hostname be-leaf2" in caps["show running-config"].content
    for cmd in commands_for("nxos_ssh"):
        assert caps[cmd.command].format == "nxos.show-json"
        json.loads(caps[cmd.command].content)
        assert caps[cmd.command].meta["tier"] == "backend"
        assert caps[cmd.command].meta["role"] == "leaf"
    check_common(caps, dev)


def test_ios_collects_getters_and_textfsm_commands(collected: Collected) -> None:
    dev, caps, _ = collected["ios"]
    vrfs = json.loads(caps["napalm.getters"].content)["get_network_instances"]
    assert vrfs["opsnet"]["state"]["route_distinguisher"] == "10283:1021312690"
    assert vrfs["Mgmt-intf"]["type"] == "L3VRF"
    assert json.loads(caps["napalm.getters"].content)["get_lldp_neighbors"] == {
        "GigabitEthernet1": [{"port": "Gi2/0", "hostname": "MDB CSCT"}]
    }
    facts = json.loads(caps["napalm.getters"].content)["get_facts"]
    assert (facts["serial_number"], facts["model"], facts["fqdn"]) == (
        "FHK0922W0JC",
        "WS-C2950T-48-SI",
        "c2950.example.com",
    )
    vlans = json.loads(caps["napalm.getters"].content)["get_vlans"]
    assert vlans["3"]["name"] == "Vlan3"
    assert "TenGigabitEthernet1/3/7" in vlans["3"]["interfaces"]
    assert caps["show running-config"].format == "ios.running-config"
    assert caps["show running-config"].content.startswith(b"Building configuration...")
    for cmd in commands_for("ios"):
        assert caps[cmd.command].format == cmd.format
        assert cmd.format in ("ios.show-text", "ios.show-mgmt")
    check_common(caps, dev)


@pytest.mark.parametrize(
    ("platform", "fmt", "command"),
    [
        ("cumulus", "cumulus.nvue-json", "nv config show -o json"),
        ("sonic", "sonic.config-db", "show runningconfiguration all"),
        ("onyx", "onyx.running-config", "show running-config"),
    ],
)
def test_netmiko_platforms(collected: Collected, platform: str, fmt: str, command: str) -> None:
    dev, caps, sim = collected[platform]
    assert caps[command].format == fmt
    assert caps[command].content.decode().strip() == dev.text[command].strip()
    assert set(caps) == {c.command for c in commands_for(dev.platform)}
    if fmt.endswith(("json", "config-db")):
        json.loads(caps[command].content)
    assert command in sim.log.for_device(dev.name)
    check_common(caps, dev)
