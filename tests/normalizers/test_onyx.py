"""The Onyx running-config normalizer against a synthetic config in Onyx's documented syntax
(tests/fixtures/onyx/SOURCE.txt); every expected value was read by hand from that file."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from auditor.capture import RawCapture
from auditor.facts import (
    AclBinding,
    BgpNeighbor,
    Device,
    Interface,
    MgmtService,
    QosInterface,
    Route,
    Vlan,
    Vrf,
)
from auditor.normalize import NormalizeResult
from collectors.platforms.onyx.cli import COVERS, normalize_running_config, normalize_show_text

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "onyx" / "synthetic_sn2700_running-config.txt"


def _capture(
    content: bytes, fmt: str = "onyx.running-config", command: str = "show running-config"
) -> RawCapture:
    return RawCapture(
        target="be-leaf-onyx1",
        format=fmt,
        source=command,
        origin="be-leaf-onyx1:22",
        collected_at=datetime(2025, 3, 4, tzinfo=UTC),
        content=content,
        meta={"device": "be-leaf-onyx1", "platform": "onyx", "tier": "backend", "command": command},
    )


def _of(result: NormalizeResult, model: type[Any]) -> list[Any]:
    return [f for f in result.facts if isinstance(f, model)]


@pytest.fixture(scope="module")
def result() -> NormalizeResult:
    return normalize_running_config(_capture(FIXTURE.read_bytes()))


def test_device_and_coverage(result: NormalizeResult) -> None:
    assert result.problems == [] and result.covers == set(COVERS)
    [device] = _of(result, Device)
    assert (device.hostname, device.os_version, device.platform) == ("be-leaf-onyx1", "3.10.4000", "onyx")


def test_interfaces(result: NormalizeResult) -> None:
    i = {x.name: x for x in _of(result, Interface)}
    assert set(i) == {"Po10", "Eth1/1", "Eth1/2", "Eth1/3", "Eth1/4", "Loopback0", "mgmt0"}
    e1 = i["Eth1/1"]
    assert (e1.description, e1.mtu, e1.speed_mbps, e1.vrf, e1.ipv4, e1.mode, e1.switchport) == (
        "to be-spine1 Eth1/1",
        9216,
        100000,
        "RDMA-A",
        ["10.30.0.1/31"],
        "routed",
        False,
    )
    assert (i["Eth1/2"].ipv4, i["Eth1/2"].vrf, i["Eth1/2"].speed_mbps) == (
        ["10.30.0.3/31"],
        "default",
        100000,
    )
    assert (i["Eth1/3"].enabled, i["Eth1/3"].port_channel, i["Eth1/3"].mode) == (False, "Po10", None)
    assert (i["Eth1/4"].mode, i["Eth1/4"].trunk_allowed_vlans) == ("trunk", [(3001, 3003)])
    assert (i["Po10"].type, i["Po10"].mode, i["Po10"].access_vlan) == ("port-channel", "access", 3001)
    assert (i["Loopback0"].type, i["Loopback0"].ipv4) == ("loopback", ["10.31.255.1/32"])
    assert (i["mgmt0"].type, i["mgmt0"].ipv4) == ("management", ["10.250.1.21/24"])


def test_vlans_vrfs_routes_bgp(result: NormalizeResult) -> None:
    vlans = {v.vlan_id: (v.name, sorted(v.interfaces)) for v in _of(result, Vlan)}
    assert vlans == {
        3001: ("rdma-tenant-a", ["Eth1/4", "Po10"]),
        3002: (None, ["Eth1/4"]),
        3003: (None, ["Eth1/4"]),
    }
    vrfs = {v.name: (v.rd, v.interfaces) for v in _of(result, Vrf)}
    assert vrfs["RDMA-A"] == ("65001:1", ["Eth1/1"])
    assert "Eth1/2" in vrfs["default"][1]
    routes = {(r.vrf, r.prefix, r.next_hop) for r in _of(result, Route)}
    assert routes == {("RDMA-A", "10.30.8.0/24", "10.30.0.0"), ("default", "0.0.0.0/0", "10.250.1.1")}
    [peer] = _of(result, BgpNeighbor)
    assert (peer.vrf, peer.peer, peer.remote_as, peer.description) == (
        "RDMA-A",
        "10.30.0.0",
        "65000",
        "be-spine1",
    )


def test_pfc_ecn_trust_per_port(result: NormalizeResult) -> None:
    qos = {
        q.interface: (q.pfc_enabled, q.pfc_no_drop_priorities, q.ecn_queues, q.trust)
        for q in _of(result, QosInterface)
    }
    assert qos == {
        "Eth1/1": (True, [3], [3], "dscp"),
        "Eth1/2": (True, [3], [], "dscp"),
        "Eth1/3": (False, [], [], None),
        "Eth1/4": (False, [], [], None),
    }


def test_management_and_bindings(result: NormalizeResult) -> None:
    services = {s.service: s.enabled for s in _of(result, MgmtService)}
    assert services == {"ssh": True, "snmp": True, "https": True, "http": False}
    assert [(b.acl, b.name, b.direction) for b in _of(result, AclBinding)] == [("EDGE-IN", "Eth1/4", "in")]


def test_bad_lines_cost_only_themselves() -> None:
    text = b"interface ethernet 1/1 ip address 10.0.0.300/31 primary\ninterface ethernet 1/1 mtu 9216 force\nvlan x\n"
    result = normalize_running_config(_capture(text))
    assert sorted(p.line for p in result.problems) == [1, 3]
    [eth] = _of(result, Interface)
    assert (eth.mtu, eth.ipv4) == (9216, [])


def test_empty_config_and_show_text() -> None:
    empty = normalize_running_config(_capture(b"##\n## nothing\n"))
    assert empty.facts == [] and empty.covers == set() and len(empty.problems) == 1
    shown = normalize_show_text(
        _capture(b"Eth1/1\n  Admin state: Enabled\n", "onyx.show-text", "show interfaces ethernet")
    )
    assert (shown.facts, shown.covers, shown.problems) == ([], set(), [])
