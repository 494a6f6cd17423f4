"""The IOS running-config normalizer against real configs (tests/fixtures/ios, see SOURCE.txt there).

Values pinned here were read by hand from the files; interface addresses are also recomputed with a
plain line scan for every file.
"""

from __future__ import annotations

import ipaddress
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from auditor.capture import RawCapture
from auditor.facts import Acl, AclBinding, BgpNeighbor, Device, Interface, MgmtService, Route, Vrf
from auditor.normalize import NormalizeResult
from collectors.platforms.ios.running_config import COVERS, normalize_running_config

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ios"
CONFIGS = sorted(FIXTURES.glob("*.cfg"))


def _run(name: str, content: bytes | None = None) -> NormalizeResult:
    raw = content if content is not None else (FIXTURES / name).read_bytes()
    capture = RawCapture(
        target="r1",
        format="ios.running-config",
        source="show running-config",
        origin=f"evidence/{name}",
        collected_at=datetime(2025, 3, 4, tzinfo=UTC),
        content=raw,
        meta={"device": "r1", "platform": "ios", "tier": "oob"},
    )
    return normalize_running_config(capture)


def _of(result: NormalizeResult, model: type[Any]) -> list[Any]:
    return [f for f in result.facts if isinstance(f, model)]


@pytest.mark.parametrize("path", CONFIGS, ids=[p.stem for p in CONFIGS])
def test_every_config_reads_and_addresses_match_a_line_scan(path: Path) -> None:
    result = _run(path.name)
    assert result.covers == set(COVERS)
    interfaces = {i.name: i for i in _of(result, Interface)}
    current = None
    want: dict[str, list[str]] = {}
    for line in path.read_text().splitlines():
        if line.startswith("interface "):
            current = line.split(" ", 1)[1].replace(" ", "")
            want[current] = []
        elif not line.startswith(" "):
            current = None
        elif current and (m := re.fullmatch(r" ip address (\d+\.\d+\.\d+\.\d+) (\d+\.\d+\.\d+\.\d+)", line)):
            want[current].append(str(ipaddress.ip_interface(f"{m[1]}/{m[2]}")))
    for name, addresses in want.items():
        assert [a for a in interfaces[name].ipv4 if "/" in a and a in addresses] == addresses, name


def test_border_router_exactly() -> None:
    result = _run("lhr-border-02.cfg")
    assert [p.message for p in result.problems] == []
    [device] = _of(result, Device)
    assert (device.hostname, device.os_version, device.platform, device.tier) == (
        "lhr-border-02",
        "15.2",
        "ios",
        "oob",
    )
    interfaces = {i.name: i for i in _of(result, Interface)}
    assert len(interfaces) == 14
    e13 = interfaces["Ethernet1/3"]
    assert (e13.description, e13.ipv4, e13.enabled, e13.mode, e13.type) == (
        "link to lix-peer-01 e1/1",
        ["10.10.30.1/30"],
        False,
        "routed",
        "ethernet",
    )
    assert interfaces["GigabitEthernet0/0"].speed_mbps == 1000
    assert interfaces["Loopback0"].ipv4 == ["10.10.255.8/32"] and interfaces["Loopback0"].type == "loopback"
    assert interfaces["Tunnel1"].type == "tunnel" and interfaces["Ethernet0/0"].ipv4 == []
    routes = {(r.prefix, r.next_hop, r.interface) for r in _of(result, Route)}
    assert routes == {
        ("8.8.0.0/16", "172.16.1.1", None),
        ("10.10.0.0/16", None, "Null0"),
        ("52.0.0.0/8", "172.16.1.1", None),
    }
    peers = {n.peer: n for n in _of(result, BgpNeighbor)}
    assert set(peers) == {
        "10.10.10.37",
        "10.10.10.45",
        "10.10.30.2",
        "10.10.255.7",
        "169.254.13.237",
        "169.254.15.193",
    }
    assert (peers["10.10.10.37"].remote_as, peers["10.10.10.37"].peer_group) == ("65201", "FW")
    assert peers["169.254.13.237"].default_originate and not peers["10.10.30.2"].default_originate
    acls = {a.name: a for a in _of(result, Acl)}
    assert set(acls) == {"LIMIT_PEER", "MATCH_ALL_BGP", "2001"}
    assert [(e.action, e.protocol, e.source, e.destination) for e in acls["LIMIT_PEER"].entries] == [
        ("permit", "ip", "10.1.30.0 0.0.0.255", "any"),
        ("permit", "ip", "host 10.10.30.2", "host 10.10.30.1"),
    ]
    assert not acls["2001"].standard and len(acls["2001"].entries) == 2
    assert [(b.acl, b.name, b.direction) for b in _of(result, AclBinding)] == [
        ("LIMIT_PEER", "Ethernet1/3", "in")
    ]
    services = {s.service: (s.enabled, s.acl) for s in _of(result, MgmtService)}
    assert services == {
        "ssh": (True, None),
        "telnet": (True, None),
        "http": (False, None),
        "https": (False, None),
    }
    assert [v.name for v in _of(result, Vrf)] == ["default"]


def test_vrf_definition_and_membership() -> None:
    result = _run("ios-xe-bgp-vrf.cfg")
    vrfs = {v.name: v for v in _of(result, Vrf)}
    assert vrfs["vrf-A"].rd == "45000:1"
    assert vrfs["vrf-A"].route_targets_import == ["45000:100"] == vrfs["vrf-A"].route_targets_export
    assert vrfs["vrf-A"].interfaces == ["FastEthernet1/1"]
    [fa] = _of(result, Interface)
    assert (fa.vrf, fa.ipv4, fa.enabled) == ("vrf-A", ["10.4.8.149/24"], True)


def test_named_acl_with_sequence_numbers_and_binding() -> None:
    result = _run("rtr-with-acl.cfg")
    [acl] = [a for a in _of(result, Acl) if a.name == "acl_in"]
    first = acl.entries[1]
    assert (first.sequence, first.action, first.protocol, first.source, first.source_ports) == (
        50,
        "permit",
        "udp",
        "117.186.185.0/24",
        "range 49152 65535",
    )
    assert (first.destination, first.destination_ports) == ("117.186.185.0/24", "eq 3784")
    assert ("acl_in", "in") in {(b.acl, b.direction) for b in _of(result, AclBinding)}


def test_switchports_vty_acl_and_snmp() -> None:
    config = b"""hostname sw1
interface GigabitEthernet1/0/1
 switchport mode trunk
 switchport trunk native vlan 99
 switchport trunk allowed vlan 10,20-22
 switchport trunk allowed vlan add 30
interface GigabitEthernet1/0/2
 switchport access vlan 10
 switchport mode access
 channel-group 5 mode active
interface Vlan10
 ip vrf forwarding MGMT
 ip address 10.250.0.2 255.255.255.0
vlan 10
 name users
ip route vrf MGMT 0.0.0.0 0.0.0.0 10.250.0.1 name mgmt-default
snmp-server community s3cret RO SNMP-ACL
line vty 0 4
 access-class VTY-ACL in
 transport input ssh
end
"""
    result = _run("sw1.cfg", config)
    assert result.problems == []
    i = {x.name: x for x in _of(result, Interface)}
    assert (i["GigabitEthernet1/0/1"].mode, i["GigabitEthernet1/0/1"].native_vlan) == ("trunk", 99)
    assert i["GigabitEthernet1/0/1"].trunk_allowed_vlans == [(10, 10), (20, 22), (30, 30)]
    assert (i["GigabitEthernet1/0/2"].mode, i["GigabitEthernet1/0/2"].access_vlan) == ("access", 10)
    assert i["GigabitEthernet1/0/2"].port_channel == "Port-channel5"
    assert (i["Vlan10"].vrf, i["Vlan10"].ipv4) == ("MGMT", ["10.250.0.2/24"])
    [route] = _of(result, Route)
    assert (route.vrf, route.prefix, route.next_hop, route.name, route.distance) == (
        "MGMT",
        "0.0.0.0/0",
        "10.250.0.1",
        "mgmt-default",
        1,
    )
    services = {s.service: (s.enabled, s.acl) for s in _of(result, MgmtService)}
    assert services == {"ssh": (True, "VTY-ACL"), "telnet": (False, None), "snmp": (True, "SNMP-ACL")}
    bindings = {(b.acl, b.attach_point, b.name) for b in _of(result, AclBinding)}
    assert bindings == {("VTY-ACL", "management", "ssh"), ("SNMP-ACL", "management", "snmp")}


def test_bad_input_is_a_problem_with_its_line() -> None:
    empty = _run("x.cfg", b"\n\n")
    assert empty.facts == [] and empty.covers == set() and empty.problems[0].origin == "evidence/x.cfg"
    result = _run(
        "x.cfg",
        b"hostname x\ninterface Gi1\n ip address 10.0.0.300 255.255.255.0\n ip address 10.0.0.1 255.0.0.0 secondary\n",
    )
    assert result.covers == set(COVERS)
    lines = {p.line for p in result.problems}
    assert 3 in lines and 4 in lines  # the bad address, and the missing `end` at the last line
    [gi] = _of(result, Interface)
    assert gi.ipv4 == ["10.0.0.1/8"]


def test_peer_group_members_inherit_remote_as() -> None:
    """as2border1 (batfish example network): every member of a group with `remote-as` gets that AS."""
    path = FIXTURES / "as2border1.cfg"
    text = path.read_text()
    group_as = dict(re.findall(r"(?m)^ neighbor (\S+) remote-as (\S+)$", text))
    member_of = dict(re.findall(r"(?m)^ neighbor (\d\S+) peer-group (\S+)$", text))
    assert member_of and group_as
    neighbors = {n.peer: n for n in _of(_run(path.name), BgpNeighbor)}
    assert set(neighbors) == set(member_of)  # groups themselves are not neighbours
    for peer, group in member_of.items():
        assert neighbors[peer].peer_group == group
        assert neighbors[peer].remote_as == group_as[group], peer
    assert {n.remote_as for n in neighbors.values()} == {"1", "2"}


def test_peer_group_shutdown_and_own_setting_wins() -> None:
    config = b"""hostname r1
router bgp 65000
 neighbor SPINES peer-group
 neighbor SPINES remote-as 65100
 neighbor SPINES shutdown
 neighbor 10.0.0.1 peer-group SPINES
 neighbor 10.0.0.2 peer-group SPINES
 neighbor 10.0.0.2 remote-as 65200
 neighbor UP peer-group
 neighbor UP remote-as 65300
 neighbor 10.0.0.3 peer-group UP
 neighbor 10.0.0.3 shutdown
 neighbor 10.0.0.4 peer-group UP
 !
 address-family ipv4 vrf RED
  neighbor EDGE peer-group
  neighbor EDGE remote-as 65400
  neighbor 10.1.0.1 peer-group EDGE
  neighbor 10.1.0.2 peer-group UP
 exit-address-family
!
"""
    got = {(n.vrf, n.peer): (n.remote_as, n.shutdown) for n in _of(_run("inline.cfg", config), BgpNeighbor)}
    assert got == {
        ("default", "10.0.0.1"): ("65100", True),
        ("default", "10.0.0.2"): ("65200", True),
        ("default", "10.0.0.3"): ("65300", True),
        ("default", "10.0.0.4"): ("65300", False),
        ("RED", "10.1.0.1"): ("65400", False),
        ("RED", "10.1.0.2"): ("65300", False),
    }


def test_peer_session_and_policy_templates_fill_what_the_neighbour_leaves_unset() -> None:
    config = b"""hostname r1
router bgp 65000
 template peer-policy ORIGINATE
  default-originate
 exit-peer-policy
 template peer-session BASE
  remote-as 65100
  shutdown
 exit-peer-session
 template peer-session LEAF
  inherit peer-session BASE
 exit-peer-session
 template peer-session LOOP
  inherit peer-session LOOP
 exit-peer-session
 neighbor 10.0.0.1 inherit peer-session LEAF
 neighbor 10.0.0.2 remote-as 65200
 neighbor 10.0.0.2 inherit peer-session BASE
 neighbor 10.0.0.3 inherit peer-session LOOP
 neighbor 10.0.0.4 remote-as 65300
 !
 address-family ipv4
  neighbor 10.0.0.4 inherit peer-policy ORIGINATE
  neighbor 10.0.0.4 activate
 exit-address-family
!
"""
    got = {
        n.peer: (n.remote_as, n.shutdown, n.default_originate)
        for n in _of(_run("inline.cfg", config), BgpNeighbor)
    }
    assert got == {
        "10.0.0.1": ("65100", True, False),
        "10.0.0.2": ("65200", True, False),
        "10.0.0.4": ("65300", False, True),
    }  # 10.0.0.3's only template inherits itself: no AS anywhere, so it is no neighbour
