"""SONiC's FRR configuration (split routing mode) -> Vrf, BgpNeighbor, Route facts.

The real files are pybatfish's SONiC example (leaf01's BGP lives only in frr.conf: its config_db.json has
no BGP table) and a batfish grammar snapshot whose frr.conf holds a route-map alone; the expected values
were read by hand from the files. A synthetic EVPN leaf (written in FRR's `write` layout from FRR's
documented commands) covers tenant VRFs, their route targets and the leaks the checks must see.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from auditor.capture import RawCapture
from auditor.facts import BgpNeighbor, Route, Vrf
from auditor.normalize import NormalizeResult
from collectors.platforms.sonic.detect import detect
from collectors.platforms.sonic.frr import COVERS, normalize_frr

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "sonic"


def _run(text: str) -> NormalizeResult:
    return normalize_frr(
        RawCapture(
            target="leaf2",
            format="sonic.frr",
            source="frr.conf",
            origin="evidence/leaf2/frr.conf",
            collected_at=datetime(2025, 3, 4, tzinfo=UTC),
            content=text.encode(),
            meta={"device": "leaf2", "platform": "sonic"},
        )
    )


def _of(result: NormalizeResult, model: type[Any]) -> list[Any]:
    return [f for f in result.facts if isinstance(f, model)]


def test_pybatfish_leaf01_bgp_from_frr_conf() -> None:
    text = (FIXTURES / "pybatfish_leaf01_frr.conf").read_text()
    found = detect("frr.conf", text)
    assert found is not None and (found.format, found.hostname) == ("sonic.frr", "leaf01")
    result = _run(text)
    assert result.problems == [] and result.covers == set(COVERS)
    [vrf] = _of(result, Vrf)
    assert (vrf.name, vrf.bgp_networks, vrf.bgp_redistribute) == ("default", ["5.5.5.5/32"], ["connected"])
    peers = {(n.vrf, n.peer): (n.remote_as, n.peer_group, n.description) for n in _of(result, BgpNeighbor)}
    assert peers == {
        ("default", "10.1.23.1"): ("65041", "LEAF_TO_SPINE", "BGP-spine01:Ethernet0"),
        ("default", "192.168.1.1"): ("65041", "LEAF_TO_SPINE", "BGP-spine01:Etherne2"),
        ("default", "2022:cafe:23::1"): ("65041", "LEAF_TO_SPINE", "BGP-spine01:Ethernet0"),
        ("default", "2022:cafe:192:1::1"): ("65041", "LEAF_TO_SPINE", "BGP-spine01:Ethernet2"),
    }  # LEAF_TO_SPINE itself is a peer group, not a peer
    assert _of(result, Route) == []


def test_route_map_only_file_is_read_and_configures_nothing() -> None:
    result = _run((FIXTURES / "batfish_basic_frr.conf").read_text())
    assert (result.facts, result.problems, result.covers) == ([], [], set(COVERS))


EVPN_LEAF = """\
frr version 8.5.4
frr defaults datacenter
hostname be-leaf2
service integrated-vtysh-config
!
ip route 10.143.99.0/24 10.143.12.0
ip route 0.0.0.0/0 10.129.2.254 vrf Vrf-RDMA-B
!
vrf Vrf-RDMA-A
 vni 50001
 ip route 10.130.0.0/16 10.130.2.1 nexthop-vrf Vrf-STORAGE-A
exit-vrf
!
vrf Vrf-RDMA-B
 vni 50002
exit-vrf
!
router bgp 65102
 bgp router-id 10.143.0.12
 neighbor SPINES peer-group
 neighbor SPINES remote-as 65100
 neighbor Ethernet224 interface peer-group SPINES
 neighbor 10.143.12.2 peer-group SPINES
 neighbor 10.143.12.2 shutdown
 !
 address-family ipv4 unicast
  redistribute connected
 exit-address-family
 !
 address-family l2vpn evpn
  neighbor SPINES activate
  advertise-all-vni
  vni 13001
   route-target import 65100:13001
   route-target export 65100:13001
  exit-vni
 exit-address-family
exit
!
router bgp 65102 vrf Vrf-RDMA-A
 !
 address-family ipv4 unicast
  redistribute connected
 exit-address-family
 !
 address-family l2vpn evpn
  advertise ipv4 unicast
  rd 10.143.0.12:3001
  route-target import 65100:3001
  route-target export 65100:3001
 exit-address-family
exit
!
router bgp 65102 vrf Vrf-RDMA-B
 neighbor 10.129.2.254 remote-as 65300
 !
 address-family ipv4 unicast
  network 10.129.2.0/24
  import vrf Vrf-RDMA-A
  neighbor 10.129.2.254 default-originate
 exit-address-family
 !
 address-family l2vpn evpn
  route-target both 65100:3002
  route-target import 65100:3001 65100:3901
 exit-address-family
exit
!
"""


def test_evpn_leaf_vrfs_route_targets_leaks_neighbours_routes() -> None:
    found = detect("bgpd.conf", EVPN_LEAF)
    assert found is not None and (found.format, found.hostname) == ("sonic.frr", "be-leaf2")
    result = _run(EVPN_LEAF)
    assert result.problems == []
    vrfs = {v.name: v for v in _of(result, Vrf)}
    a, b, default = vrfs["Vrf-RDMA-A"], vrfs["Vrf-RDMA-B"], vrfs["default"]
    # the tenant's own RT both ways is legitimate; tenant B importing A's RT is the leak to see
    assert (a.rd, a.route_targets_import, a.route_targets_export, a.l3_vni) == (
        "10.143.0.12:3001",
        ["65100:3001"],
        ["65100:3001"],
        50001,
    )
    assert (b.route_targets_import, b.route_targets_export) == (
        ["65100:3002", "65100:3001", "65100:3901"],
        ["65100:3002"],
    )
    assert default.route_targets_import == []  # `vni 13001` route targets belong to a MAC-VRF
    assert a.leaks == ["ip route vrf Vrf-RDMA-A 10.130.0.0/16 10.130.2.1 nexthop-vrf Vrf-STORAGE-A"]
    assert b.leaks == ["router bgp vrf Vrf-RDMA-B address-family ipv4 unicast import vrf Vrf-RDMA-A"]
    assert (b.bgp_networks, default.bgp_redistribute) == (["10.129.2.0/24"], ["connected"])
    peers = {
        (n.vrf, n.peer): (n.remote_as, n.shutdown, n.default_originate) for n in _of(result, BgpNeighbor)
    }
    assert peers == {
        ("default", "Ethernet224"): ("65100", False, False),  # unnumbered, remote-as from its peer group
        ("default", "10.143.12.2"): ("65100", True, False),
        ("Vrf-RDMA-B", "10.129.2.254"): ("65300", False, True),
    }
    routes = {(r.vrf, r.prefix, r.next_hop) for r in _of(result, Route)}
    assert routes == {
        ("default", "10.143.99.0/24", "10.143.12.0"),
        ("Vrf-RDMA-B", "0.0.0.0/0", "10.129.2.254"),
        ("Vrf-RDMA-A", "10.130.0.0/16", "10.130.2.1"),
    }


@pytest.mark.parametrize(
    "text", ["", "lorem ipsum dolor sit amet\nconsectetur adipiscing\n", "<html><body>502</body></html>\n"]
)
def test_not_frr_is_a_problem_and_covers_nothing(text: str) -> None:
    result = _run(text)
    assert result.facts == [] and result.covers == set() and len(result.problems) == 1


def test_other_platforms_configs_are_not_taken_for_frr() -> None:
    eos = "hostname leaf1\n!\nrouter bgp 65101\n   neighbor 10.0.0.1 remote-as 65100\n!\nend\n"
    assert detect("leaf1.cfg", eos) is None


def test_address_family_lines_at_the_same_indent_as_documentation_prints_them() -> None:
    """NVIDIA's documentation prints `router bgp 65101 vrf RED` snippets with the address-family's lines at
    its own indent; they belong to the address-family until `exit-address-family`."""
    text = (
        "hostname leaf01\n!\nrouter bgp 65101 vrf RED\n  address-family l2vpn evpn\n  rd 10.1.20.2:5\n"
        "  route-target import 65102:4001\n  exit-address-family\n  neighbor 10.9.9.9 remote-as 65999\n!\n"
    )
    result = _run(text)
    [vrf] = _of(result, Vrf)
    assert (vrf.name, vrf.rd, vrf.route_targets_import) == ("RED", "10.1.20.2:5", ["65102:4001"])
    assert [(n.vrf, n.peer, n.remote_as) for n in _of(result, BgpNeighbor)] == [("RED", "10.9.9.9", "65999")]
