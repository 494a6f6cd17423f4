"""The SONiC config_db normalizer against real config_db files in both layouts (tests/fixtures/sonic).

No expected facts ship with these files, so each test computes what the facts must say from the raw
JSON with the simplest code it can (a table lookup per field), and a few cases are pinned to values
read by hand from the files.
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
from auditor.facts import (
    Acl,
    AclBinding,
    BgpNeighbor,
    Device,
    FactRecord,
    Interface,
    MgmtService,
    QosInterface,
    Route,
    Vlan,
    Vrf,
    VxlanVni,
)
from auditor.normalize import NormalizeResult
from collectors.platforms.sonic.config_db import COVERS, normalize_config_db

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "sonic"
FILES = sorted(FIXTURES.glob("*.json"))
L3_TABLES = (
    "INTERFACE",
    "PORTCHANNEL_INTERFACE",
    "VLAN_INTERFACE",
    "LOOPBACK_INTERFACE",
    "VLAN_SUB_INTERFACE",
)


def _document(path: Path) -> Any:
    doc = json.loads(path.read_text())
    return doc.get("SAMPLE_CONFIG_DB_JSON", doc)


def _capture(content: bytes, origin: str = "evidence/sw1/config_db.json") -> RawCapture:
    return RawCapture(
        target="sw1",
        format="sonic.config-db",
        source="show runningconfiguration all",
        origin=origin,
        collected_at=datetime(2025, 3, 4, tzinfo=UTC),
        content=content,
        meta={"device": "sw1", "platform": "sonic", "tier": "backend", "role": "leaf"},
    )


def _normalize(path: Path) -> NormalizeResult:
    return normalize_config_db(_capture(json.dumps(_document(path), indent=2).encode(), str(path)))


def _raw_tables(doc: dict[str, Any]) -> dict[str, dict[str, dict[str, Any]]]:
    """The tables, read independently of the normalizer: flat keys split once, '@' lists split on ','."""
    tables: dict[str, dict[str, dict[str, Any]]] = {}
    for key, value in doc.items():
        if "|" not in key:
            tables[key] = value
            continue
        table, entry = key.split("|", 1)
        fields = value["value"] if value.get("type") == "hash" else value
        row = {}
        for name, v in fields.items():
            if name == "NULL":
                continue
            row[name.rstrip("@")] = v.split(",") if name.endswith("@") else v
        tables.setdefault(table, {})[entry] = row
    return tables


def _of(result: NormalizeResult, model: type[FactRecord]) -> list[Any]:
    return [f for f in result.facts if isinstance(f, model)]


@pytest.fixture(scope="module", params=FILES, ids=[p.stem for p in FILES])
def case(request: pytest.FixtureRequest) -> tuple[dict[str, Any], NormalizeResult]:
    path: Path = request.param
    return _raw_tables(_document(path)), _normalize(path)


def test_reads_without_problems_and_covers_everything(case: tuple[dict[str, Any], NormalizeResult]) -> None:
    _, result = case
    assert result.problems == []
    assert result.covers == set(COVERS)
    devices = _of(result, Device)
    assert len(devices) == 1
    assert devices[0].platform == "sonic"
    assert devices[0].tier is not None and devices[0].tier.value == "backend"


def test_ports_field_by_field(case: tuple[dict[str, Any], NormalizeResult]) -> None:
    tables, result = case
    interfaces = {i.name: i for i in _of(result, Interface)}
    for table in ("PORT", "PORTCHANNEL"):
        for name, row in tables.get(table, {}).items():
            i = interfaces[name]
            assert i.type == ("ethernet" if table == "PORT" else "port-channel"), name
            assert i.enabled == (row.get("admin_status", "down") == "up"), name
            assert i.mtu == (int(row["mtu"]) if "mtu" in row else None), name
            assert i.speed_mbps == (int(row["speed"]) if "speed" in row else None), name
            assert i.description == (row.get("description") or None), name
    for key in tables.get("PORTCHANNEL_MEMBER", {}):
        pc, member = key.split("|")
        assert interfaces[member].port_channel == pc


def test_addresses_and_vrfs_field_by_field(case: tuple[dict[str, Any], NormalizeResult]) -> None:
    tables, result = case
    interfaces = {i.name: i for i in _of(result, Interface)}
    mgmt_on = tables.get("MGMT_VRF_CONFIG", {}).get("vrf_global", {}).get("mgmtVrfEnabled") == "true"
    expected: dict[str, tuple[set[str], set[str], str]] = {}
    for table in (*L3_TABLES, "MGMT_INTERFACE"):
        for key, row in tables.get(table, {}).items():
            name = key.split("|")[0]
            v4, v6, vrf = expected.setdefault(name, (set(), set(), "default"))
            if "|" in key:
                addr = ipaddress.ip_interface(key.split("|")[1])
                (v6 if addr.version == 6 else v4).add(str(addr))
            elif row.get("vrf_name"):
                expected[name] = (v4, v6, row["vrf_name"])
            if table == "MGMT_INTERFACE" and mgmt_on:
                expected[name] = (v4, v6, "mgmt")
    anycast = {
        k
        for k, row in tables.get("VLAN_INTERFACE", {}).items()
        if row.get("static_anycast_gateway") == "true"
    }
    for name, (v4, v6, vrf) in expected.items():
        assert set(interfaces[name].ipv4 + interfaces[name].ipv4_virtual) == v4, name
        assert (interfaces[name].ipv4_virtual != []) == (name in anycast and bool(v4)), name
        assert set(interfaces[name].ipv6) == v6, name
        assert interfaces[name].vrf == vrf, name
        assert interfaces[name].mode in ("routed", "access", "trunk"), name
    vrfs = {v.name: v for v in _of(result, Vrf)}
    assert "default" in vrfs
    for name, row in tables.get("VRF", {}).items():
        assert vrfs[name].l3_vni == (int(row["vni"]) if int(row.get("vni", 0)) else None)
    for vrf in vrfs.values():
        assert vrf.interfaces == [i.name for i in interfaces.values() if i.vrf == vrf.name]


def test_vlans_and_switchports_field_by_field(case: tuple[dict[str, Any], NormalizeResult]) -> None:
    tables, result = case
    interfaces = {i.name: i for i in _of(result, Interface)}
    vlans = {v.vlan_id: v for v in _of(result, Vlan)}
    assert set(vlans) == {int(r.get("vlanid") or n[4:]) for n, r in tables.get("VLAN", {}).items()}
    tagged: dict[str, set[int]] = {}
    untagged: dict[str, set[int]] = {}
    for key, row in tables.get("VLAN_MEMBER", {}).items():
        vlan, port = key.split("|")
        vid = int(vlan[4:])
        assert port in vlans[vid].interfaces, key
        (tagged if row.get("tagging_mode") == "tagged" else untagged).setdefault(port, set()).add(vid)
    for port in set(tagged) | set(untagged):
        i = interfaces[port]
        configured = {**tables.get("PORT", {}), **tables.get("PORTCHANNEL", {})}.get(port, {}).get("mode")
        mode = configured or ("trunk" if port in tagged else "access")
        assert i.mode == mode, port
        if mode == "access" and not configured:
            assert i.access_vlan == min(untagged[port]), port
        if mode == "trunk" and not configured:
            carried = tagged.get(port, set()) | untagged.get(port, set())
            allowed = {v for lo, hi in i.trunk_allowed_vlans or [] for v in range(lo, hi + 1)}
            assert allowed == carried, port
    for vid, vlan in vlans.items():
        members = [k.split("|")[1] for k in tables.get("VLAN_MEMBER", {}) if k.split("|")[0] == f"Vlan{vid}"]
        assert sorted(vlan.interfaces) == sorted(members)


def test_static_routes_and_bgp_field_by_field(case: tuple[dict[str, Any], NormalizeResult]) -> None:
    tables, result = case
    routes = [r for r in _of(result, Route) if r.vrf != "mgmt"]
    want_routes = []
    for key, row in tables.get("STATIC_ROUTE", {}).items():
        vrf, prefix = key.split("|") if "|" in key else ("default", key)
        for hop, ifname in zip(row["nexthop"].split(","), row["ifname"].split(","), strict=True):
            want_routes.append((vrf, str(ipaddress.ip_network(prefix, strict=False)), hop, ifname))
    assert sorted((r.vrf, r.prefix, r.next_hop, r.interface) for r in routes) == sorted(want_routes)
    neighbors = {(n.vrf, n.peer): n for n in _of(result, BgpNeighbor)}
    assert len(neighbors) == len(tables.get("BGP_NEIGHBOR", {}))
    for key, row in tables.get("BGP_NEIGHBOR", {}).items():
        vrf, peer = key.split("|") if "|" in key else ("default", key)
        n = neighbors[(vrf, peer)]
        assert n.remote_as == row.get("asn")
        assert n.description == row.get("name")
        assert n.shutdown == (row.get("admin_status") == "down")


def test_acls_field_by_field(case: tuple[dict[str, Any], NormalizeResult]) -> None:
    tables, result = case
    acls = {a.name: a for a in _of(result, Acl)}
    bindings = {(b.acl, b.name, b.direction) for b in _of(result, AclBinding)}
    assert set(acls) == set(tables.get("ACL_TABLE", {}))
    for name, table in tables.get("ACL_TABLE", {}).items():
        rules = {k.split("|")[1]: r for k, r in tables.get("ACL_RULE", {}).items() if k.split("|")[0] == name}
        entries = acls[name].entries
        assert len(entries) == len(rules), name
        priorities = [e.sequence or 0 for e in entries]
        assert priorities == sorted(priorities, reverse=True), name
        for entry in entries:
            rule = rules[entry.text.split(": ")[0]]
            action = rule.get("PACKET_ACTION", "FORWARD").upper()
            assert entry.action == ("deny" if action in ("DROP", "REJECT") else "permit")
            assert entry.source == rule.get("SRC_IP", rule.get("SRC_IPV6", "any"))
            assert entry.destination == rule.get("DST_IP", rule.get("DST_IPV6", "any"))
            if "L4_DST_PORT" in rule:
                assert entry.destination_ports == f"eq {rule['L4_DST_PORT']}"
        direction = "out" if table.get("stage", "").lower() == "egress" else "in"
        if table.get("type", "").upper() == "CTRLPLANE":
            for service in table.get("services", []):
                assert (name, service.lower(), "in") in bindings
        else:
            for port in table.get("ports", []):
                assert (name, port, direction) in bindings


def test_qos_and_vnis_field_by_field(case: tuple[dict[str, Any], NormalizeResult]) -> None:
    tables, result = case
    qos = {q.interface: q for q in _of(result, QosInterface)}
    for port, row in tables.get("PORT_QOS_MAP", {}).items():
        if port == "global":
            continue
        want = sorted(int(p) for p in row["pfc_enable"].split(",")) if row.get("pfc_enable") else []
        assert qos[port].pfc_no_drop_priorities == want, port
        assert qos[port].pfc_enabled == bool(want), port
        assert qos[port].trust == ("dscp" if row.get("dscp_to_tc_map") else qos[port].trust)
    vnis = {(v.vni, v.vlan, v.vrf) for v in _of(result, VxlanVni)}
    for row in tables.get("VXLAN_TUNNEL_MAP", {}).values():
        assert (int(row["vni"]), int(row["vlan"][4:]), None) in vnis
    for name, row in tables.get("VRF", {}).items():
        if int(row.get("vni", 0)):
            assert (int(row["vni"]), None, name) in vnis


# Exact expectations, read by hand from the files.


def test_batfish_acl_snapshot_exactly() -> None:
    result = _normalize(FIXTURES / "batfish_acl.json")
    assert [(d.hostname, d.model) for d in _of(result, Device)] == [("acl", None)]
    [port] = _of(result, Interface)
    assert port.model_dump(exclude={"device"}) == Interface(
        device="sw1", name="Ethernet0", type="ethernet", enabled=False, mode="routed", ipv4=["1.1.1.1/24"]
    ).model_dump(exclude={"device"})
    [acl] = _of(result, Acl)
    assert acl.name == "test-acl" and acl.family == "ipv4"
    [entry] = acl.entries
    assert (entry.sequence, entry.action, entry.protocol, entry.source, entry.destination) == (
        10,
        "permit",
        "udp",
        "10.1.4.0/22",
        "any",
    )
    assert entry.destination_ports == "eq 161" and entry.source_ports is None
    assert [(b.acl, b.attach_point, b.name, b.direction) for b in _of(result, AclBinding)] == [
        ("test-acl", "interface", "Ethernet0", "in")
    ]
    assert [(s.service, s.vrf) for s in _of(result, MgmtService)] == [("ssh", "default")]


def test_management_vrf_key_must_be_vrf_global() -> None:
    # batfish's "mgmt" snapshot names the entry vrf_global_not_default: SONiC reads only vrf_global.
    for name in ("batfish_mgmt.json", "batfish_mgmt-novrf.json"):
        result = _normalize(FIXTURES / name)
        [eth0] = _of(result, Interface)
        assert (eth0.name, eth0.type, eth0.vrf, eth0.enabled) == ("eth0", "management", "default", True)
        assert (eth0.ipv4, eth0.ipv6) == (["1.1.1.1/24"], ["fc00:2::32/64"])
        assert _of(result, Route) == []


def test_buildimage_sample_exact_values() -> None:
    result = _normalize(FIXTURES / "buildimage_sample_config_db.json")
    qos = {q.interface: q for q in _of(result, QosInterface)}
    assert (
        qos["Ethernet0"].model_dump()
        == QosInterface(
            device="sw1",
            interface="Ethernet0",
            pfc_enabled=True,
            pfc_no_drop_priorities=[3, 4],
            pfc_watchdog=True,
            ecn_queues=[0, 1],  # QUEUE|Ethernet0|0 and |1 use Wred1, whose ecn is ecn_all
            trust="dscp",
        ).model_dump()
    )
    vrfs = {v.name: v for v in _of(result, Vrf)}
    assert vrfs["Vrf_blue"].l3_vni == 100 and vrfs["Vrf_blue"].interfaces == ["PortChannel0004"]
    assert vrfs["mgmt"].interfaces == ["eth0"]
    routes = {(r.vrf, r.prefix, r.next_hop, r.interface, r.distance) for r in _of(result, Route)}
    assert routes == {
        ("default", "20.20.20.0/24", "10.184.229.212", "Ethernet14", 1),
        ("mgmt", "0.0.0.0/0", "10.11.0.1", "eth0", None),
        ("mgmt", "::/0", "fc00:2::1", "eth0", None),
        ("mgmt", "2001:aa:aa::aa/128", "fc00:2::1", "eth0", None),
    }
    # VRFs on the box (mgmt, Vrf_blue): sshd's default-VRF socket answers in every VRF (tcp_l3mdev_accept)
    services = {(s.service, s.vrf) for s in _of(result, MgmtService)}
    assert services == {("ssh", "*"), ("snmp", "*")}
    # BGP_GLOBALS_AF_NETWORK|default|ipv4_unicast|21.0.0.0/8 and ROUTE_REDISTRIBUTE|default|connected|bgp|ipv4
    assert (vrfs["default"].bgp_networks, vrfs["default"].bgp_redistribute) == (["21.0.0.0/8"], ["connected"])
    assert vrfs["default"].route_targets_import == [] and vrfs["default"].rd is None  # autort only
    interfaces = {i.name: i for i in _of(result, Interface)}
    # VLAN_INTERFACE|Vlan111 static_anycast_gateway "true": its address is the SAG anycast gateway
    assert (interfaces["Vlan111"].ipv4, interfaces["Vlan111"].ipv4_virtual) == ([], ["10.222.10.65/26"])
    assert interfaces["Vlan111"].mtu == 9216
    assert interfaces["Ethernet12.10"].mode == "routed" and interfaces["Ethernet12.10"].ipv4 == [
        "10.0.1.56/31"
    ]
    assert interfaces["PortChannel0004"].vrf == "Vrf_blue"
    assert interfaces["Ethernet0"].mode == "trunk"  # PORT|Ethernet0 mode: trunk, though only untagged in 111


def test_mellanox_qos_render_pfc_ecn_trust() -> None:
    result = _normalize(FIXTURES / "buildimage_qos_mellanox4600c_c64.json")
    qos = _of(result, QosInterface)
    doc = _document(FIXTURES / "buildimage_qos_mellanox4600c_c64.json")
    ports = [p for p in doc["PORT_QOS_MAP"] if p != "global"]
    assert sorted(q.interface for q in qos) == sorted(ports)
    lossless = {"3,4": [3, 4], "2,3,4,6": [2, 3, 4, 6]}  # the two port profiles this HWSKU renders
    for q in qos:
        want = lossless[doc["PORT_QOS_MAP"][q.interface]["pfc_enable"]]
        ecn = sorted(
            int(k.split("|")[1])
            for k, v in doc["QUEUE"].items()
            if k.split("|")[0] == q.interface and v.get("wred_profile") == "AZURE_LOSSLESS"
        )
        assert ecn == want, q.interface  # ECN marks exactly the lossless queues
        assert (q.pfc_enabled, q.pfc_no_drop_priorities, q.ecn_queues, q.trust, q.pfc_watchdog) == (
            True,
            want,
            want,
            "dscp",
            True,
        ), q.interface


def test_flat_and_nested_layouts_give_the_same_facts() -> None:
    nested = _document(FIXTURES / "buildimage_sample_config_db.json")
    flat: dict[str, Any] = {}
    for table, rows in nested.items():
        for key, row in rows.items():
            flat[f"{table}|{key}"] = {
                (f"{k}@" if isinstance(v, list) else k): (",".join(v) if isinstance(v, list) else v)
                for k, v in row.items()
            } or {"NULL": "NULL"}
    a = normalize_config_db(_capture(json.dumps(nested).encode()))
    b = normalize_config_db(_capture(json.dumps(flat).encode()))
    assert b.problems == []
    assert sorted(json.dumps(f.to_json(), sort_keys=True) for f in a.facts) == sorted(
        json.dumps(f.to_json(), sort_keys=True) for f in b.facts
    )


def test_redis_dump_wrapper_and_multi_asic_namespaces() -> None:
    doc = {
        "localhost": {"DEVICE_METADATA": {"localhost": {"hostname": "chassis1"}}},
        "asic0": {
            "PORT|Ethernet0": {"type": "hash", "value": {"admin_status": "up", "mtu": "9100"}},
            "INTERFACE|Ethernet0|10.0.0.1/31": {"type": "hash", "value": {"NULL": "NULL"}},
        },
    }
    result = normalize_config_db(_capture(json.dumps(doc).encode()))
    assert result.problems == []
    [device] = _of(result, Device)
    assert device.hostname == "chassis1"
    [port] = _of(result, Interface)
    assert (port.name, port.enabled, port.mtu, port.ipv4) == ("Ethernet0", True, 9100, ["10.0.0.1/31"])


# Bad input: a Problem naming the origin and the line, never an exception, keeping what was read.


def test_truncated_json_names_the_line_and_covers_nothing() -> None:
    text = json.dumps(_document(FIXTURES / "batfish_vlan.json"), indent=2)
    result = normalize_config_db(_capture(text[: len(text) // 2].encode()))
    assert result.facts == [] and result.covers == set()
    [problem] = result.problems
    assert problem.origin == "evidence/sw1/config_db.json"
    assert problem.line is not None and problem.line > 1
    assert "not valid JSON" in problem.message


def test_bad_values_cost_only_their_entry() -> None:
    doc = {
        "PORT": {"Ethernet0": {"admin_status": "up"}, "Ethernet4": {"admin_status": "up"}},
        "INTERFACE": {"Ethernet0|10.0.0.1/31": {}, "Ethernet4|10.0.0.999/31": {}},
        "STATIC_ROUTE": {"default|not-a-prefix": {"nexthop": "10.0.0.0"}},
        "VLAN": "oops",
    }
    text = json.dumps(doc, indent=2)
    result = normalize_config_db(_capture(text.encode()))
    messages = [p.message for p in result.problems]
    assert any("10.0.0.999/31" in m for m in messages)
    assert any("not-a-prefix" in m for m in messages)
    assert any("table VLAN" in m for m in messages)
    lines = text.splitlines()
    for p in result.problems:
        assert p.line is not None and p.origin == "evidence/sw1/config_db.json"
    bad = next(p for p in result.problems if "10.0.0.999" in p.message)
    assert "10.0.0.999/31" in lines[bad.line - 1]  # type: ignore[operator]
    interfaces = {i.name: i for i in _of(result, Interface)}
    assert interfaces["Ethernet0"].ipv4 == ["10.0.0.1/31"] and interfaces["Ethernet4"].ipv4 == []
    assert result.covers == set(COVERS)


@pytest.mark.parametrize("content", [b"", b"[1, 2]", b"{}"])
def test_empty_or_wrong_document_is_a_problem_not_a_pass(content: bytes) -> None:
    result = normalize_config_db(_capture(content))
    assert result.facts == [] and result.covers == set()
    assert len(result.problems) == 1
    assert FactKind.INTERFACE not in result.covers


def _db(doc: dict[str, Any]) -> NormalizeResult:
    return normalize_config_db(_capture(json.dumps(doc, indent=4, sort_keys=True).encode()))


TENANT_VRFS: dict[str, Any] = {
    "DEVICE_METADATA": {"localhost": {"hostname": "leaf2", "hwsku": "ACS-MSN4700"}},
    "VRF": {"Vrf-RDMA-A": {"vni": "13001"}, "Vrf-RDMA-B": {"vni": "13002"}},
    "BGP_GLOBALS": {"Vrf-RDMA-A": {"local_asn": "65102"}, "Vrf-RDMA-B": {"local_asn": "65102"}},
    "BGP_GLOBALS_EVPN_RT": {
        "Vrf-RDMA-A|L2VPN_EVPN|65100:3001": {"route-target-type": "both"},
        "Vrf-RDMA-B|L2VPN_EVPN|65100:3002": {"route-target-type": "both"},
        "Vrf-RDMA-B|L2VPN_EVPN|65100:3001": {"route-target-type": "import"},
    },
    "BGP_GLOBALS_AF": {
        "Vrf-RDMA-A|l2vpn_evpn": {"route-distinguisher": "10.143.0.12:3001", "export-rts": ["65100:3901"]},
        "Vrf-RDMA-A|ipv4_unicast": {"import_vrf": "Vrf-RDMA-B"},
    },
    "BGP_GLOBALS_EVPN_VNI_RT": {"default|L2VPN_EVPN|10100|65100:100": {"route-target-type": "both"}},
}


def test_route_targets_rd_and_vrf_imports_per_vrf() -> None:
    """frrcfgd's tables: the VRF's own RT on both sides (legitimate), another tenant's RT imported
    (the leak the checks must see), per-VNI MAC-VRF RTs left out, `import vrf` kept as a leak."""
    result = _db(TENANT_VRFS)
    assert result.problems == []
    vrfs = {v.name: v for v in _of(result, Vrf)}
    a, b = vrfs["Vrf-RDMA-A"], vrfs["Vrf-RDMA-B"]
    assert (a.route_targets_import, a.route_targets_export) == (["65100:3001"], ["65100:3001", "65100:3901"])
    assert (b.route_targets_import, b.route_targets_export) == (["65100:3001", "65100:3002"], ["65100:3002"])
    assert a.rd == "10.143.0.12:3001" and b.rd is None
    assert vrfs["default"].route_targets_import == []  # the L2 VNI's RT is no IP-VRF route target
    assert a.leaks == ["BGP_GLOBALS_AF|Vrf-RDMA-A|ipv4_unicast import_vrf Vrf-RDMA-B (vrf Vrf-RDMA-B)"]


def test_unknown_route_target_type_is_a_problem_on_its_line() -> None:
    doc = {
        **TENANT_VRFS,
        "BGP_GLOBALS_EVPN_RT": {"Vrf-RDMA-A|L2VPN_EVPN|65100:3001": {"route-target-type": "x"}},
    }
    result = _db(doc)
    [problem] = result.problems
    assert "route-target-type" in problem.message and problem.line is not None
    assert {v.name: v.route_targets_import for v in _of(result, Vrf)}["Vrf-RDMA-A"] == []


def test_ssh_in_every_vrf_once_the_box_has_vrfs() -> None:
    """No VRF: sshd is the default VRF's. Data VRFs or the management VRF: it answers in all of them,
    and a CTRLPLANE ACL bound to SSH is what fences it; SNMP bound by SNMP_AGENT_ADDRESS_CONFIG stays
    in the VRF each address names (empty = default)."""
    plain = _db({"DEVICE_METADATA": {"localhost": {"hostname": "leaf2"}}, "PORT": {"Ethernet0": {}}})
    assert [(s.service, s.vrf, s.acl) for s in _of(plain, MgmtService)] == [("ssh", "default", None)]
    doc = {
        **TENANT_VRFS,
        "MGMT_VRF_CONFIG": {"vrf_global": {"mgmtVrfEnabled": "true"}},
        "ACL_TABLE": {"SSH_ONLY": {"type": "CTRLPLANE", "services": ["SSH"], "stage": "ingress"}},
        "ACL_RULE": {
            "SSH_ONLY|RULE_1": {"PRIORITY": "9999", "SRC_IP": "172.16.200.10/32", "PACKET_ACTION": "ACCEPT"}
        },
        "SNMP_COMMUNITY": {"ro": {"TYPE": "RO"}},
        "SNMP_AGENT_ADDRESS_CONFIG": {"172.16.1.22|161|mgmt": {}, "10.143.0.12|161|": {}},
    }
    services = {(s.service, s.vrf, s.acl) for s in _of(_db(doc), MgmtService)}
    assert services == {("ssh", "*", "SSH_ONLY"), ("snmp", "mgmt", None), ("snmp", "default", None)}


def test_snmp_on_loopback_only_and_default_originate() -> None:
    doc = {
        "DEVICE_METADATA": {"localhost": {"hostname": "leaf2"}},
        "SNMP_COMMUNITY": {"ro": {"TYPE": "RO"}},
        "SNMP_AGENT_ADDRESS_CONFIG": {"127.0.0.1|161|": {}},
        "BGP_NEIGHBOR": {
            "Vrf-RDMA-B|10.129.2.254": {"asn": "65300", "peer_group_name": "GW"},
            "Vrf-RDMA-B|10.129.2.253": {"asn": "65300"},
            "default|10.143.12.0": {"asn": "65100"},
        },
        "BGP_PEER_GROUP_AF": {"Vrf-RDMA-B|GW|ipv4_unicast": {"send_default_route": "true"}},
        "BGP_NEIGHBOR_AF": {
            "Vrf-RDMA-B|10.129.2.253|ipv4_unicast": {"send_default_route": "true"},
            "default|10.143.12.0|ipv4_unicast": {"send_default_route": "false", "admin_status": "true"},
        },
    }
    result = _db(doc)
    assert [m.service for m in _of(result, MgmtService)] == ["ssh"]  # SNMP on 127.0.0.1 only
    assert {n.peer: n.default_originate for n in _of(result, BgpNeighbor)} == {
        "10.129.2.254": True,
        "10.129.2.253": True,
        "10.143.12.0": False,
    }


def test_peer_group_asn_and_shutdown_inherited_own_setting_wins() -> None:
    doc = {
        "DEVICE_METADATA": {"localhost": {"hostname": "leaf2"}},
        "BGP_PEER_GROUP": {"default|SPINES": {"asn": "65100", "admin_status": "down"}},
        "BGP_NEIGHBOR": {
            "default|10.143.12.0": {"peer_group_name": "SPINES"},
            "default|10.143.12.2": {"peer_group_name": "SPINES", "asn": "65199", "admin_status": "up"},
            "10.143.12.4": {"name": "no group"},
        },
    }
    peers = {n.peer: (n.remote_as, n.shutdown, n.peer_group) for n in _of(_db(doc), BgpNeighbor)}
    assert peers == {
        "10.143.12.0": ("65100", True, "SPINES"),
        "10.143.12.2": ("65199", False, "SPINES"),
        "10.143.12.4": (None, False, None),
    }
