"""The Cumulus NVUE normalizer against a synthetic `nv config show -o json` (see the fixture's SOURCE.txt).

Expected values were worked out by hand from the NVUE object model; a second test derives the
interface fields from the raw tree with the simplest code.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from auditor.capture import RawCapture
from auditor.facts import (
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
from auditor.normalize import NormalizeResult
from collectors.platforms.cumulus.detect import detect
from collectors.platforms.cumulus.nvue import COVERS, normalize_nvue_json, normalize_nvue_yaml

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "cumulus" / "synthetic_leaf01_nvue.json"


def _run(doc: Any) -> NormalizeResult:
    return normalize_nvue_json(
        RawCapture(
            target="leaf01",
            format="cumulus.nvue-json",
            source="nv config show -o json",
            origin="leaf01:22",
            collected_at=datetime(2025, 3, 4, tzinfo=UTC),
            content=json.dumps(doc, indent=2).encode() if not isinstance(doc, bytes) else doc,
            meta={
                "device": "leaf01",
                "platform": "cumulus",
                "tier": "backend",
                "command": "nv config show -o json",
            },
        )
    )


def _of(result: NormalizeResult, model: type[Any]) -> list[Any]:
    return [f for f in result.facts if isinstance(f, model)]


@pytest.fixture(scope="module")
def result() -> NormalizeResult:
    return _run(json.loads(FIXTURE.read_text()))


def test_device_and_coverage(result: NormalizeResult) -> None:
    assert result.problems == [] and result.covers == set(COVERS)
    [device] = _of(result, Device)
    assert (device.hostname, device.platform, device.tier) == ("leaf01", "cumulus", "backend")


def test_interfaces_exactly(result: NormalizeResult) -> None:
    i = {x.name: x for x in _of(result, Interface)}
    assert set(i) == {"bond1", "bond3", "eth0", "lo", "swp1", "swp3", "swp51", "vlan10"}
    assert (i["swp51"].type, i["swp51"].vrf, i["swp51"].ipv4, i["swp51"].mtu, i["swp51"].speed_mbps) == (
        "ethernet",
        "RDMA-A",
        ["10.0.1.0/31"],
        9216,
        400000,
    )
    assert (i["swp51"].mode, i["swp51"].description, i["swp51"].enabled) == ("routed", "to spine01", True)
    assert (i["bond1"].type, i["bond1"].mode, i["bond1"].access_vlan, i["bond1"].switchport) == (
        "port-channel",
        "access",
        10,
        True,
    )
    assert (i["bond3"].mode, i["bond3"].trunk_allowed_vlans, i["bond3"].native_vlan) == (
        "trunk",
        [(10, 10), (20, 20), (30, 30)],
        1,
    )
    assert i["swp1"].port_channel == "bond1" and i["swp1"].speed_mbps == 100000
    assert i["swp3"].enabled is False and i["swp3"].port_channel == "bond3"
    assert (i["eth0"].type, i["eth0"].vrf, i["eth0"].ipv4) == ("management", "mgmt", [])
    assert (i["vlan10"].type, i["vlan10"].ipv4, i["vlan10"].ipv6) == (
        "vlan",
        ["10.1.10.2/24"],
        ["2001:db8::2/64"],
    )


def test_interface_fields_follow_the_raw_tree(result: NormalizeResult) -> None:
    tree = json.loads(FIXTURE.read_text())
    facts = {x.name: x for x in _of(result, Interface)}
    for name, body in tree["interface"].items():
        link = body.get("link", {})
        assert facts[name].mtu == link.get("mtu"), name
        assert facts[name].enabled == ("down" not in link.get("state", {})), name
        assert facts[name].vrf == body.get("ip", {}).get("vrf", "default"), name
        assert set(facts[name].ipv4 + facts[name].ipv6) == {
            a for a in body.get("ip", {}).get("address", {}) if a != "dhcp"
        }


def test_vlans_vnis_vrfs_routes_bgp(result: NormalizeResult) -> None:
    vlans = {v.vlan_id: v.interfaces for v in _of(result, Vlan)}
    assert vlans == {10: ["bond1", "bond3"], 20: ["bond3"], 30: ["bond3"]}
    assert {(v.vni, v.vlan, v.vrf) for v in _of(result, VxlanVni)} == {
        (10010, 10, None),
        (10020, 20, None),
        (4001, None, "RDMA-A"),
    }
    vrfs = {v.name: v for v in _of(result, Vrf)}
    assert set(vrfs) == {"default", "RDMA-A", "FRONTEND", "mgmt"}
    assert (vrfs["RDMA-A"].l3_vni, vrfs["RDMA-A"].interfaces) == (4001, ["swp51"])
    routes = {(r.vrf, r.prefix, r.next_hop, r.interface, r.distance) for r in _of(result, Route)}
    assert routes == {
        ("RDMA-A", "10.30.0.0/15", "10.0.1.1", None, 200),
        ("FRONTEND", "0.0.0.0/0", None, "blackhole", 1),
        ("mgmt", "0.0.0.0/0", "192.168.200.1", None, 1),
    }
    peers = {(n.vrf, n.peer): (n.remote_as, n.description) for n in _of(result, BgpNeighbor)}
    assert peers == {("RDMA-A", "10.0.1.1"): ("65100", "spine01"), ("RDMA-A", "swp52"): ("external", None)}


def test_acls_qos_and_management(result: NormalizeResult) -> None:
    [acl] = _of(result, Acl)
    assert [(e.sequence, e.action, e.protocol, e.source, e.destination_ports) for e in acl.entries] == [
        (10, "permit", "tcp", "10.250.200.10/32", "eq 22"),
        (20, "deny", None, "any", None),  # NVUE's ANY is any: a deny that surely covers everything
    ]
    assert [(b.acl, b.name, b.direction) for b in _of(result, AclBinding)] == [("EDGE-IN", "swp51", "in")]
    qos = {q.interface: q for q in _of(result, QosInterface)}
    assert set(qos) == {"swp1", "swp3", "swp51"}  # RoCE settings apply to switch ports
    assert (
        qos["swp51"].pfc_enabled,
        qos["swp51"].pfc_no_drop_priorities,
        qos["swp51"].ecn_queues,
        qos["swp51"].trust,
    ) == (True, [3], [3], "dscp")
    services = {(s.service, s.vrf, s.enabled) for s in _of(result, MgmtService)}
    # `listening-address localhost` answers only the switch itself: not a listener in the default VRF
    assert services == {("ssh", "mgmt", True), ("snmp", "mgmt", True)}


def test_startup_layout_reads_the_same() -> None:
    tree = json.loads(FIXTURE.read_text())
    a = _run(tree)
    b = _run([{"header": {"model": "VX", "version": "Cumulus Linux 5.9.0"}}, {"set": tree}])
    assert sorted(json.dumps(f.to_json(), sort_keys=True) for f in a.facts) == sorted(
        json.dumps(f.to_json(), sort_keys=True) for f in b.facts
    )


@pytest.mark.parametrize("content", [b"", b"{oops", b'{"unrelated": 1}', b"[]"])
def test_unreadable_or_foreign_content_is_a_problem(content: bytes) -> None:
    result = _run(content)
    assert result.facts == [] and result.covers == set()
    assert len(result.problems) == 1 and result.problems[0].origin == "leaf01:22"


def test_bad_address_costs_only_itself() -> None:
    tree = {
        "interface": {"swp1": {"type": "swp", "ip": {"address": {"10.0.0.1/31": {}, "300.1.1.1/24": {}}}}}
    }
    result = _run(tree)
    [swp1] = _of(result, Interface)
    assert swp1.ipv4 == ["10.0.0.1/31"]
    assert "300.1.1.1/24" in result.problems[0].message


def _swp(**extra: Any) -> dict[str, Any]:
    return {"type": "swp", "link": {"speed": "400G"}, **extra}


QOS_TREE: dict[str, Any] = {
    "system": {"hostname": "leaf3"},
    "interface": {
        "swp1": {"type": "swp", "link": {"breakout": {"4x": {}}}},
        "swp1s0": {"type": "swp", "link": {"speed": "100G"}},
        "swp2": _swp(),
        "swp3": _swp(qos={"pfc": {"profile": "TWO-PRIO"}, "mapping": {"profile": "TRUST-COS"}}),
        "swp4": _swp(qos={"congestion-control": {"profile": "NO-ECN"}}),
        "swp5": _swp(qos={"pfc": {"profile": "MISSING"}}),
        "bond1": {"type": "bond", "bond": {"member": {"swp2": {}}}},
    },
    "qos": {
        "pfc": {
            "default-global": {"switch-priority": {"3": {}}, "rx": "enable", "tx": "enable"},
            "TWO-PRIO": {"switch-priority": {"3": {}, "4": {}}},
        },
        "congestion-control": {
            "default-global": {"traffic-class": {"3": {"ecn": "enable", "min-threshold": 150000}}},
            "NO-ECN": {"traffic-class": {"3": {"ecn": "disable", "red": "enable"}}},
        },
        "mapping": {"default-global": {"trust": "l3"}, "TRUST-COS": {"trust": "l2"}},
    },
}


def test_qos_global_profiles_and_per_port_profiles() -> None:
    """default-global applies to every port (breakout lanes included); a port's own profile wins: two
    no-drop priorities, ECN disabled on the lossless class and 802.1p trust are read as configured."""
    result = _run(QOS_TREE)
    qos = {
        q.interface: (q.pfc_enabled, q.pfc_no_drop_priorities, q.ecn_queues, q.trust)
        for q in _of(result, QosInterface)
    }
    assert qos == {
        "swp1s0": (True, [3], [3], "dscp"),
        "swp2": (True, [3], [3], "dscp"),
        "swp3": (True, [3, 4], [3], "cos"),
        "swp4": (True, [3], [], "dscp"),
        "swp5": (None, [], [3], "dscp"),  # its PFC profile is not defined: not reported
    }
    [problem] = result.problems
    assert "swp5" in problem.message and "MISSING" in problem.message


def test_explicit_profile_overrides_roce_defaults() -> None:
    tree = {
        **QOS_TREE,
        "qos": {"roce": {"enable": "on"}, "pfc": {"default-global": {"switch-priority": {"4": {}}}}},
    }
    qos = {q.interface: q for q in _of(_run(tree), QosInterface)}
    assert (qos["swp2"].pfc_no_drop_priorities, qos["swp2"].ecn_queues, qos["swp2"].trust) == (
        [4],
        [3],
        "dscp",
    )
    lossy = {**QOS_TREE, "qos": {"roce": {"enable": "on", "mode": "lossy"}}}
    swp2 = {q.interface: q for q in _of(_run(lossy), QosInterface)}["swp2"]
    assert (swp2.pfc_enabled, swp2.pfc_no_drop_priorities, swp2.ecn_queues) == (False, [], [3])


def test_no_qos_configured_reports_nothing() -> None:
    tree = {k: v for k, v in QOS_TREE.items() if k != "qos"}
    assert _of(_run(tree), QosInterface) == []


def test_breakout_parent_is_not_a_port() -> None:
    names = {i.name for i in _of(_run(QOS_TREE), Interface)}
    assert "swp1" not in names and {"swp1s0", "swp2"} <= names


def test_vrf_route_targets_rd_redistribution_and_leaks() -> None:
    """The tenant's own RT imported and exported (legitimate) and another tenant's RT imported (a leak
    the route-target graph must see); redistribution and `route-import from-vrf` are read too."""
    tree = {
        "interface": {"swp1": _swp()},
        "vrf": {
            "RDMA-A": {
                "router": {
                    "bgp": {
                        "rd": "10.143.0.13:3001",
                        "route-import": {"from-evpn": {"route-target": {"65100:3001": {}}}},
                        "route-export": {"to-evpn": {"route-target": {"65100:3001": {}}}},
                        "address-family": {
                            "ipv4-unicast": {
                                "redistribute": {"connected": {"enable": "on"}},
                                "network": {"10.128.3.0/24": {}},
                            }
                        },
                    }
                }
            },
            "RDMA-B": {
                "router": {
                    "bgp": {
                        "route-import": {"from-evpn": {"route-target": {"65100:3002": {}, "65100:3001": {}}}},
                        "route-export": {"to-evpn": {"route-target": {"auto": {}}}},
                        "address-family": {
                            "ipv4-unicast": {"route-import": {"from-vrf": {"list": {"RDMA-A": {}}}}}
                        },
                    }
                }
            },
        },
    }
    vrfs = {v.name: v for v in _of(_run(tree), Vrf)}
    a, b = vrfs["RDMA-A"], vrfs["RDMA-B"]
    assert (a.rd, a.route_targets_import, a.route_targets_export) == (
        "10.143.0.13:3001",
        ["65100:3001"],
        ["65100:3001"],
    )
    assert (a.bgp_redistribute, a.bgp_networks) == (["connected"], ["10.128.3.0/24"])
    assert (b.route_targets_import, b.route_targets_export) == (["65100:3002", "65100:3001"], ["auto"])
    assert b.leaks == [
        "vrf RDMA-B router bgp address-family ipv4-unicast route-import from-vrf list RDMA-A (vrf RDMA-A)"
    ]


def test_snmp_on_localhost_only_listens_nowhere_else() -> None:
    only_local = {"service": {"snmp-server": {"enable": "on", "listening-address": {"localhost": {}}}}}
    assert [m.service for m in _of(_run({"system": {}, **only_local}), MgmtService)] == ["ssh"]
    fabric = {"service": {"snmp-server": {"enable": "on", "listening-address": {"10.143.0.13": {}}}}}
    snmp = [
        (m.service, m.vrf) for m in _of(_run({"system": {}, **fabric}), MgmtService) if m.service == "snmp"
    ]
    assert snmp == [("snmp", "default")]


def test_default_route_origination_on_neighbour_or_peer_group() -> None:
    origination = {"address-family": {"ipv4-unicast": {"default-route-origination": {"enable": "on"}}}}
    bgp = {
        "peer-group": {"TENANT-GW": origination},
        "neighbor": {
            "10.129.3.254": {"remote-as": 65300, "peer-group": "TENANT-GW"},
            "10.129.3.253": {"remote-as": 65300, **origination},
            "swp29": {"remote-as": "external", "type": "unnumbered"},
        },
    }
    tree = {"interface": {"swp1": _swp()}, "vrf": {"RDMA-B": {"router": {"bgp": bgp}}}}
    peers = {n.peer: n.default_originate for n in _of(_run(tree), BgpNeighbor)}
    assert peers == {"10.129.3.254": True, "10.129.3.253": True, "swp29": False}


def test_acl_port_lists_ranges_and_control_plane_fence() -> None:
    """Several dest-port keys are one `eq` list (not the unreadable "22,443"), `A:B` a range, ANY no clause;
    a control-plane ACL fences SSH and SNMP (management bindings, and the services' acl)."""

    def permit(*dest_ports: str) -> dict[str, Any]:
        ip = {"protocol": "tcp", "source-ip": "172.16.200.10/32", "dest-port": {p: {} for p in dest_ports}}
        return {"action": {"permit": {}}, "match": {"ip": ip}}

    rules = {
        "10": permit("22", "443"),
        "20": permit("1024:65535"),
        "30": permit("22", "1024:2000"),
        "40": {"action": {"deny": {}}, "match": {"ip": {"source-ip": "ANY", "dest-port": {"ANY": {}}}}},
    }
    tree = {
        "acl": {"MGMT-IN": {"type": "ipv4", "rule": rules}},
        "system": {"control-plane": {"acl": {"MGMT-IN": {"inbound": {}}}}},
        "interface": {"eth0": {"type": "eth", "ip": {"vrf": "mgmt"}}},
        "service": {"snmp-server": {"enable": "on", "listening-address": {"172.16.1.33": {"vrf": "mgmt"}}}},
    }
    result = _run(tree)
    [acl] = _of(result, Acl)
    assert [(e.sequence, e.source, e.destination_ports) for e in acl.entries] == [
        (10, "172.16.200.10/32", "eq 22 443"),
        (20, "172.16.200.10/32", "range 1024 65535"),
        (30, "172.16.200.10/32", "eq 22 1024:2000"),  # mixed: kept verbatim, read as unknown
        (40, "any", None),
    ]
    bindings = {(b.acl, b.attach_point, b.name) for b in _of(result, AclBinding)}
    assert bindings == {("MGMT-IN", "management", "ssh"), ("MGMT-IN", "management", "snmp")}
    assert {(m.service, m.vrf, m.acl) for m in _of(result, MgmtService)} == {
        ("ssh", "mgmt", "MGMT-IN"),
        ("snmp", "mgmt", "MGMT-IN"),
    }


def test_peer_group_remote_as_and_static_route_into_another_vrf() -> None:
    bgp = {
        "peer-group": {"underlay": {"remote-as": "external"}},
        "neighbor": {
            "swp29": {"peer-group": "underlay", "type": "unnumbered"},
            "swp30": {"remote-as": 65100},
        },
    }
    static = {
        "10.130.0.0/16": {"via": {"10.130.3.1": {"vrf": "STORAGE-A"}}},
        "10.128.9.0/24": {"via": {"10.128.3.9": {}}},
    }
    tree = {
        "interface": {"swp1": _swp()},
        "vrf": {"default": {"router": {"bgp": bgp}}, "RDMA-A": {"router": {"static": static}}},
    }
    result = _run(tree)
    assert {n.peer: n.remote_as for n in _of(result, BgpNeighbor)} == {"swp29": "external", "swp30": "65100"}
    vrfs = {v.name: v for v in _of(result, Vrf)}
    assert vrfs["RDMA-A"].leaks == ["vrf RDMA-A router static 10.130.0.0/16 via 10.130.3.1 vrf STORAGE-A"]


def test_untyped_interfaces_by_name_state_as_value_and_default_trust() -> None:
    """A hand-written file without `type` keeps its switch ports (else they would silently leave the port
    checks); `state: down` as a plain value shuts the port; with PFC but no mapping, trust is 802.1p."""
    tree = {
        "interface": {
            "swp1s2": {"link": {"speed": "100G"}},
            "swp2": {"link": {"state": "down"}},
            "bond7": {"bond": {"member": {"swp2": {}}}},
            "vlan3001": {"ip": {"address": {"10.128.3.1/24": {}}, "vrf": "RDMA-A"}},
            "eth0": {"ip": {"vrf": "mgmt"}},
        },
        "qos": {"pfc": {"default-global": {"switch-priority": {"3": {}}}}},
    }
    result = _run(tree)
    i = {x.name: (x.type, x.enabled) for x in _of(result, Interface)}
    assert i == {
        "swp1s2": ("ethernet", True),
        "swp2": ("ethernet", False),
        "bond7": ("port-channel", True),
        "vlan3001": ("vlan", True),
        "eth0": ("management", True),
    }
    trust = {q.interface: (q.pfc_no_drop_priorities, q.trust) for q in _of(result, QosInterface)}
    assert trust == {"swp1s2": ([3], "cos"), "swp2": ([3], "cos")}


def test_vrr_gateway_addresses_are_virtual_addresses() -> None:
    tree = {
        "interface": {
            "vlan3001": {
                "type": "svi",
                "vlan": 3001,
                "ip": {
                    "vrf": "RDMA-A",
                    "address": {"10.128.3.2/24": {}},
                    "vrr": {"enable": "on", "address": {"10.128.3.1/24": {}, "fd00:3001::1/64": {}}},
                },
            },
            "vlan3002": {"type": "svi", "ip": {"vrr": {"enable": "off", "address": {"10.129.3.1/24": {}}}}},
        }
    }
    i = {x.name: (x.ipv4, x.ipv4_virtual, x.ipv6) for x in _of(_run(tree), Interface)}
    assert i == {
        "vlan3001": (["10.128.3.2/24"], ["10.128.3.1/24"], ["fd00:3001::1/64"]),
        "vlan3002": ([], [], []),
    }


BARE_SET = """\
set:
  interface:
    swp51:
      type: swp
    vlan10:
      ip:
        address:
          10.1.10.2/24: {}
        vrf: RED
        vrr:
          address:
            10.1.10.1/24: {}
          enable: on
      type: svi
      vlan: 10
  system:
    hostname: leaf1
  vrf:
    default:
      router:
        bgp:
          enable: on
          neighbor:
            swp51:
              peer-group: underlay
              type: unnumbered
          peer-group:
            underlay:
              remote-as: external
"""


def test_tree_under_a_bare_set_mapping_is_detected_and_read() -> None:
    """NVUE's tree as a mapping under `set:` (no header list), as NVUE-based tools write it: detected and
    read like startup.yaml (the unnumbered neighbour's remote-as comes from its peer group)."""
    found = detect("leaf1.yml", BARE_SET)
    assert found is not None and (found.format, found.hostname) == ("cumulus.nvue-yaml", "leaf1")
    assert detect("values.yaml", "set:\n  image: nginx\n  replicas: 2\n") is None
    result = normalize_nvue_yaml(
        RawCapture(
            target="leaf1",
            format="cumulus.nvue-yaml",
            source="leaf1.yml",
            origin="evidence/leaf1.yml",
            collected_at=datetime(2025, 3, 4, tzinfo=UTC),
            content=BARE_SET.encode(),
            meta={"device": "leaf1", "platform": "cumulus"},
        )
    )
    assert result.problems == []
    assert [(n.peer, n.remote_as) for n in _of(result, BgpNeighbor)] == [("swp51", "external")]
    [svi] = [i for i in _of(result, Interface) if i.name == "vlan10"]
    assert (svi.vrf, svi.ipv4, svi.ipv4_virtual) == ("RED", ["10.1.10.2/24"], ["10.1.10.1/24"])
