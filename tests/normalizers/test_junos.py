"""The Junos config normalizer (entry "junos.config") on both formats Junos prints, against the
documented meaning of each statement (fixtures: tests/fixtures/junos, see SOURCE.txt there)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from auditor.capture import RawCapture
from auditor.facts import FactRecord
from auditor.facts.network import (
    Acl,
    AclBinding,
    BgpNeighbor,
    Device,
    Interface,
    MgmtService,
    QosInterface,
    Route,
    Vlan,
    Vrf,
    VxlanVni,
)
from auditor.normalize import RUNNING_CONFIG_COVERS, NormalizeResult
from collectors.platforms.junos.normalize import normalize_config

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "junos"


def _run(name: str, content: bytes | None = None) -> NormalizeResult:
    data = content if content is not None else (FIXTURES / name).read_bytes()
    capture = RawCapture(
        target="leaf",
        format="junos.config",
        source="show configuration",
        origin=name,
        collected_at=datetime(2025, 3, 4, tzinfo=UTC),
        content=data,
        meta={"device": "leaf", "platform": "junos"},
    )
    return normalize_config(capture)


def _of(result: NormalizeResult, kind: type[FactRecord]) -> list[FactRecord]:
    return [f for f in result.facts if isinstance(f, kind)]


def _key(fact: FactRecord) -> str:
    return json.dumps(fact.model_dump(mode="json"), sort_keys=True)


def _by_name(result: NormalizeResult) -> dict[str, Interface]:
    return {i.name: i for i in _of(result, Interface)}  # type: ignore[attr-defined, misc]


def test_curly_and_set_formats_give_the_same_facts() -> None:
    curly, flat = _run("ai_leaf.conf"), _run("ai_leaf.set")
    assert curly.problems == [] and flat.problems == []
    assert sorted(map(_key, curly.facts)) == sorted(map(_key, flat.facts))
    assert curly.covers == set(RUNNING_CONFIG_COVERS)


@pytest.fixture(scope="module")
def leaf() -> NormalizeResult:
    return _run("ai_leaf.conf")


def test_device_names_its_host_and_version(leaf: NormalizeResult) -> None:
    (device,) = _of(leaf, Device)
    assert (device.hostname, device.platform, device.os_version) == ("be-leaf-qfx1", "junos", "23.4R2-S3.9")  # type: ignore[attr-defined]


def test_interfaces_units_groups_and_inactive(leaf: NormalizeResult) -> None:
    intfs = _by_name(leaf)
    assert "et-0/0/49" not in intfs  # `inactive:` is not applied
    assert intfs["et-0/0/0"].mtu == 9000  # configured value wins over the group
    assert intfs["et-0/0/1"].mtu == 9216  # inherited from apply-groups JUMBO <et-*>
    assert intfs["et-0/0/48"].port_channel == "ae1"
    assert not any(name.endswith(".0") for name in intfs)  # unit 0 is read into its port
    assert "irb" not in intfs  # the SVI container itself is no interface
    access = intfs["et-0/0/0"]
    assert (access.switchport, access.mode, access.access_vlan) == (True, "access", 200)
    trunk = intfs["et-0/0/1"]
    assert (trunk.mode, trunk.trunk_allowed_vlans) == ("trunk", [(200, 200), (210, 211)])
    assert intfs["ae1"].ipv4 == ["10.30.0.1/31"] and intfs["ae1"].type == "port-channel"
    assert (intfs["irb.200"].vrf, intfs["irb.200"].type) == ("TENANT-A", "vlan")
    assert intfs["em0"].vrf == "mgmt_junos"  # system management-instance
    assert intfs["lo0"].vrf == "default"


def test_vrfs_route_targets_and_l3_vni(leaf: NormalizeResult) -> None:
    vrfs = {v.name: v for v in _of(leaf, Vrf)}  # type: ignore[attr-defined]
    tenant = vrfs["TENANT-A"]
    assert tenant.rd == "10.30.255.21:200"  # type: ignore[attr-defined]
    assert tenant.route_targets_import == tenant.route_targets_export == ["target:65000:200"]  # type: ignore[attr-defined]
    assert tenant.l3_vni == 50200  # type: ignore[attr-defined]
    assert vrfs["mgmt_junos"].interfaces == ["em0"]  # type: ignore[attr-defined]


def test_static_routes_per_instance(leaf: NormalizeResult) -> None:
    routes = {(r.vrf, r.prefix): r for r in _of(leaf, Route)}  # type: ignore[attr-defined]
    assert routes[("mgmt_junos", "0.0.0.0/0")].next_hop == "10.250.0.1"  # type: ignore[attr-defined]
    assert routes[("default", "10.30.255.0/24")].distance == 200  # type: ignore[attr-defined]
    assert routes[("TENANT-A", "10.99.0.0/16")].interface == "Null0"  # type: ignore[attr-defined]
    assert ("default", "0.0.0.0/0") not in routes  # the default route is in mgmt_junos only


def test_bgp_peer_as_inheritance(leaf: NormalizeResult) -> None:
    peers = {n.peer: n for n in _of(leaf, BgpNeighbor)}  # type: ignore[attr-defined]
    assert peers["10.30.0.0"].remote_as == "65000"  # from the group  # type: ignore[attr-defined]
    assert peers["10.30.0.0"].description == "to spines"  # type: ignore[attr-defined]
    assert (peers["10.30.0.2"].remote_as, peers["10.30.0.2"].description) == ("65002", "spine2")  # type: ignore[attr-defined]
    assert peers["10.30.255.1"].remote_as == "65101"  # internal: the local AS  # type: ignore[attr-defined]


def test_firewall_filter_terms_and_the_re_fence(leaf: NormalizeResult) -> None:
    (acl,) = _of(leaf, Acl)
    entries = acl.entries  # type: ignore[attr-defined]
    mgmt = entries[0]
    assert (mgmt.action, mgmt.protocol, mgmt.source, mgmt.destination_ports) == (
        "permit",
        "tcp",
        "10.250.0.0/16",  # the prefix-list, expanded
        "eq 22 830",  # `ssh` is port 22
    )
    bgp = [e for e in entries if e.sequence == 20]
    assert {(e.source_ports, e.destination_ports) for e in bgp} == {("eq 179", None), (None, "eq 179")}
    assert entries[-1].action == "deny" and entries[-1].source == "any"
    (binding,) = _of(leaf, AclBinding)
    assert (binding.attach_point, binding.acl, binding.direction) == ("control-plane", "PROTECT-RE", "in")  # type: ignore[attr-defined]
    services = {s.service: s for s in _of(leaf, MgmtService)}  # type: ignore[attr-defined]
    assert set(services) == {"ssh", "netconf", "snmp"}  # telnet is inactive
    assert all(s.vrf == "*" and s.acl == "PROTECT-RE" for s in services.values())  # type: ignore[attr-defined]


def test_vlans_and_vnis(leaf: NormalizeResult) -> None:
    vlans = {v.vlan_id: v for v in _of(leaf, Vlan)}  # type: ignore[attr-defined]
    assert vlans[200].interfaces == ["et-0/0/0", "et-0/0/1"]  # type: ignore[attr-defined]
    assert vlans[210].interfaces == ["et-0/0/1"]  # type: ignore[attr-defined]
    assert [(v.vni, v.vlan) for v in _of(leaf, VxlanVni)] == [(10200, 200)]  # type: ignore[attr-defined]


def test_class_of_service_pfc_ecn_trust(leaf: NormalizeResult) -> None:
    (qos,) = _of(leaf, QosInterface)
    assert qos.interface == "et-0/0/0"  # type: ignore[attr-defined]
    assert (qos.pfc_enabled, qos.pfc_no_drop_priorities, qos.ecn_queues, qos.trust) == (
        True,
        [3],
        [3],
        "dscp",
    )  # type: ignore[attr-defined]


def test_batfish_vmx_evpn_virtual_switch() -> None:
    result = _run("batfish_gh-2658-vrf-import-export.cfg")
    assert result.problems == []
    (device,) = _of(result, Device)
    assert device.hostname == "vMX4"  # type: ignore[attr-defined]
    assert sorted((v.vni, v.vlan) for v in _of(result, VxlanVni)) == [(100, 100), (101, 101)]  # type: ignore[attr-defined]
    vrfs = [v.name for v in _of(result, Vrf)]  # type: ignore[attr-defined]
    assert vrfs == ["vr"]  # the virtual-router; the virtual-switch is not a VRF
    peers = {n.peer: n.remote_as for n in _of(result, BgpNeighbor)}  # type: ignore[attr-defined]
    assert peers["192.168.1.3"] == "65500"  # overlay: internal group with local-as


def test_batfish_firewall_except_is_reported_and_unmodelled_deny_left_out() -> None:
    result = _run("batfish_juniper_firewall.set")
    assert any("except" in p.message and p.line == 28 for p in result.problems)
    acls = {a.name: a for a in _of(result, Acl)}  # type: ignore[attr-defined]
    assert acls["blah6"].family == "ipv6"  # type: ignore[attr-defined]
    # lo0's inet6 input filter protects the Routing Engine
    assert [(b.acl, b.attach_point) for b in _of(result, AclBinding)] == [("blah6", "control-plane")]  # type: ignore[attr-defined]
    denied = _run(
        "x.set",
        b"set system host-name x\n"
        b"set firewall family inet filter F term t from packet-length 70-100\n"
        b"set firewall family inet filter F term t then discard\n",
    )
    (acl,) = _of(denied, Acl)
    assert acl.entries == []  # type: ignore[attr-defined]
    assert any("packet-length" in p.message for p in denied.problems)


def test_batfish_interfaces_set_format() -> None:
    result = _run("batfish_juniper_interfaces.set")
    intfs = _by_name(result)
    assert intfs["ge-1/0/0"].port_channel == "ae0"
    # `vlan members all` with no interface-mode: an access port (Junos's default) in no single VLAN
    assert (intfs["xe-0/0/0:0"].mode, intfs["xe-0/0/0:0"].access_vlan) == ("access", None)
    assert intfs["ge-2/0/0.1"].type == "ethernet"  # a unit other than 0 is a sub-interface
    assert intfs["irb.5"].ipv4 == ["1.2.3.1/24"]
    assert intfs["vme"].type == "management"
    assert any("bippetyboppety" in p.message for p in result.problems)


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\x00\xff garbage \x01",
        b"error: syntax error, expecting <command>: configuratio\n",
        b"interfaces {\n    et-0/0/0 {\n        unit 0 {\n",  # truncated
        b"}\n}\n",
        b"% Invalid input detected at '^' marker.\n",
    ],
)
def test_bad_input_never_raises_and_never_yields_facts(content: bytes) -> None:
    result = _run("bad", content)
    assert (result.facts, result.covers) == ([], set())
    assert result.problems
