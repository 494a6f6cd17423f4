"""The EOS show-json normalizer against eAPI outputs (tests/fixtures/eos_show, see SOURCE.txt there).

Each test derives the expected facts from the raw JSON with the simplest code (a walk of the
documented layout) and compares field by field; the ACL test also holds the parsed entry text against
the structured ruleFilter EOS sent with it.
"""

from __future__ import annotations

import ipaddress
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from auditor.capture import RawCapture
from auditor.enums import FactKind
from auditor.facts import Acl, AclBinding, QosInterface, Route, VxlanVni
from auditor.normalize import NormalizeResult
from collectors.platforms.eos.show import normalize_show_json

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "eos_show"
ROUTE_FILES = sorted(FIXTURES.glob("route_*.json"))
PROTOCOLS = {"eBGP": "bgp", "iBGP": "bgp", "static": "static", "connected": "connected"}
PORT_NAMES = {"bootps": 67, "bootpc": 68}


def _capture(command: str, content: bytes) -> RawCapture:
    return RawCapture(
        target="leaf1",
        format="eos.show-json",
        source=command,
        origin="leaf1.example:443",
        collected_at=datetime(2025, 3, 4, tzinfo=UTC),
        content=content,
        meta={"device": "leaf1", "platform": "eos", "command": command},
    )


def _run(command: str, name: str) -> tuple[Any, NormalizeResult]:
    raw = (FIXTURES / name).read_bytes()
    return json.loads(raw), normalize_show_json(_capture(command, raw))


@pytest.mark.parametrize("path", ROUTE_FILES, ids=[p.stem for p in ROUTE_FILES])
def test_routes_field_by_field(path: Path) -> None:
    doc, result = _run("show ip route vrf all | json", path.name)
    assert result.problems == []
    assert result.covers == {FactKind.ROUTE}
    want = []
    for vrf, body in doc["vrfs"].items():
        for prefix, route in body["routes"].items():
            for via in route["vias"]:
                hop = via.get("nexthopAddr") or via.get("vtepAddr")
                item = (
                    vrf,
                    prefix,
                    PROTOCOLS[route["routeType"]],
                    hop,
                    via.get("interface"),
                    route["preference"],
                )
                if item not in want:
                    want.append(item)
    got = [(r.vrf, r.prefix, r.protocol, r.next_hop, r.interface, r.distance) for r in result.facts]
    assert all(isinstance(r, Route) and r.device == "leaf1" for r in result.facts)
    assert sorted(got) == sorted(want)
    assert want, "the fixture has routes"


def _cidr(spec: dict[str, int]) -> str:
    if spec["mask"] == 0:
        return "any"
    return str(ipaddress.ip_network(f"{spec['ip']}/{ipaddress.ip_address(spec['mask'])}"))


def _ports(spec: dict[str, Any], words: str | None) -> None:
    if spec["oper"] == "any":
        assert words is None
        return
    op, *values = (words or "").split()
    assert op == spec["oper"]
    assert [PORT_NAMES.get(v) or int(v) for v in values] == spec["ports"]


def test_acls_against_the_structured_rule_filter() -> None:
    doc, result = _run("show ip access-lists | json", "show_ip_access-lists.json")
    assert result.problems == [] and result.covers == {FactKind.ACL}
    acls = {a.name: a for a in result.facts if isinstance(a, Acl)}
    assert set(acls) == {a["name"] for a in doc["aclList"]}
    for raw in doc["aclList"]:
        acl = acls[raw["name"]]
        assert (acl.family, acl.standard) == ("ipv4", raw["standard"])
        assert [e.sequence for e in acl.entries] == [s["sequenceNumber"] for s in raw["sequence"]]
        for entry, seq in zip(acl.entries, raw["sequence"], strict=True):
            rule = seq["ruleFilter"]
            assert entry.text == f"{seq['sequenceNumber']} {seq['text']}"
            assert entry.action == seq["action"]
            assert entry.protocol == {1: "icmp", 6: "tcp", 17: "udp"}[rule["protocol"]]
            assert entry.source == _cidr(rule["source"])
            assert entry.destination == _cidr(rule["destination"])
            _ports(rule["srcPort"], entry.source_ports)
            _ports(rule["dstPort"], entry.destination_ports)


def test_acl_summary_bindings() -> None:
    doc, result = _run("show ip access-lists summary | json", "synthetic_show_ip_access-lists_summary.json")
    assert result.covers == {FactKind.ACL_BINDING}
    got = {(b.acl, b.attach_point, b.name, b.direction) for b in result.facts if isinstance(b, AclBinding)}
    assert got == {
        ("SG-IN-test_security_group", "interface", "Ethernet1", "in"),
        ("SG-IN-test_security_group", "interface", "Port-Channel10", "in"),
        ("SG-OUT-test_security_group", "interface", "Ethernet1", "out"),
        ("default-control-plane-acl", "control-plane", "control-plane", "in"),
    }
    assert len(result.facts) == sum(
        len(a["configuredIngressIntfs"]) + len(a["configuredEgressIntfs"]) for a in doc["aclList"]
    )


def test_vxlan_vni_bindings_field_by_field() -> None:
    doc, result = _run("show vxlan vni | json", "show_vxlan_vni.json")
    assert result.covers == {FactKind.VXLAN_VNI} and result.problems == []
    got = {(v.vni, v.vlan, v.vrf) for v in result.facts if isinstance(v, VxlanVni)}
    body = doc["vxlanIntfs"]["Vxlan1"]
    want = {(int(k), v["vlan"], None) for k, v in body["vniBindings"].items()}
    want |= {(int(k), None, v["vrfName"]) for k, v in body["vniBindingsToVrf"].items()}
    assert got == want == {(10020, 20, None), (500, None, "TEST"), (600, None, "PROD")}


def test_vxlan_interface_maps() -> None:
    _, result = _run("show interfaces vxlan 1 | json", "synthetic_show_interfaces_vxlan_1.json")
    got = {(v.vni, v.vlan, v.vrf) for v in result.facts if isinstance(v, VxlanVni)}
    assert got == {(10112, 112, None), (10134, 134, None), (50001, None, "RDMA-A"), (50002, None, "TENANT")}


def test_pfc_state_per_port() -> None:
    _, result = _run("show priority-flow-control | json", "synthetic_show_priority-flow-control.json")
    assert result.covers == {FactKind.QOS_INTERFACE} and result.problems == []
    got = {
        q.interface: (q.pfc_enabled, q.pfc_no_drop_priorities, q.pfc_watchdog, q.ecn_queues, q.trust)
        for q in result.facts
        if isinstance(q, QosInterface)
    }
    assert got == {
        "Ethernet1/1": (True, [3], True, [], None),
        "Ethernet2/1": (True, [3], False, [], None),
        "Ethernet3/1": (False, [], None, [], None),
    }


def test_pfc_port_in_an_unknown_layout_is_a_problem_not_off() -> None:
    doc = {"interfaceStatuses": {"Ethernet1/1": {"mode": "on"}}}
    result = normalize_show_json(_capture("show priority-flow-control | json", json.dumps(doc).encode()))
    assert result.facts == []
    assert "Ethernet1/1" in result.problems[0].message


def test_evidence_only_commands_give_nothing_quietly() -> None:
    result = normalize_show_json(_capture("show qos interfaces | json", b'{"whatever": 1}'))
    assert (result.facts, result.covers, result.problems) == ([], set(), [])


def test_unknown_command_and_missing_command_are_problems() -> None:
    result = normalize_show_json(_capture("show version | json", b"{}"))
    assert result.covers == set() and "no reader" in result.problems[0].message
    capture = _capture("x", b"{}")
    capture.meta.pop("command")
    result = normalize_show_json(capture)
    assert result.covers == set() and "meta['command']" in result.problems[0].message


def test_truncated_json_names_the_line() -> None:
    raw = (FIXTURES / ROUTE_FILES[0].name).read_bytes()
    result = normalize_show_json(_capture("show ip route vrf all | json", raw[: len(raw) // 2]))
    assert result.facts == [] and result.covers == set()
    assert result.problems[0].line is not None and result.problems[0].origin == "leaf1.example:443"


def test_bad_route_costs_only_itself() -> None:
    doc = {"vrfs": {"default": {"routes": {"10.0.0.0/8": {"routeType": "static", "vias": []}, "bogus": {}}}}}
    result = normalize_show_json(_capture("show ip route vrf all | json", json.dumps(doc).encode()))
    assert [(r.prefix, r.next_hop) for r in result.facts if isinstance(r, Route)] == [("10.0.0.0/8", None)]
    assert "bogus" in result.problems[0].message
    assert result.covers == {FactKind.ROUTE}
