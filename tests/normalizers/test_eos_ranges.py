"""EOS interface ranges, lists and repeated blocks: one interface each, settings merged in file order.

A config file (a startup-config, a CloudVision configlet) may set shared settings on
`interface Ethernet1-8`, then a port's own lines in its own block; the lines apply to every interface
named, a later line wins, and no interface is called by the literal range name.
"""

from __future__ import annotations

from auditor.facts.network import AclBinding, Interface, QosInterface, Vlan, Vrf
from tests.normalizers.test_eos import facts_of, parse

BASE = """hostname dut
!
vlan 3001
   name A
!
vlan 3002
   name B
!
qos profile GPU
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
!
qos profile STORAGE
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   priority-flow-control priority 4 no-drop
!
vrf instance RDMA-A
!
vrf instance OLD
!
no vrf instance OLD
!
interface Ethernet1-4,Ethernet6
   mtu 9214
   speed 400g-4
   service-profile GPU
   switchport access vlan 3001
!
interface Ethernet1
   description GPU_node01
!
interface Ethernet5,7
   mtu 9214
   switchport access vlan 3002
!
interface Ethernet6
   service-profile STORAGE
!
interface Ethernet10/1-3
   no switchport
   mtu 9214
!
interface Ethernet10/2
   ip address 10.0.0.1/31
   ip access-group EDGE in
!
interface Port-Channel10
   description a hyphen in the type is not a range
!
interface Ethernet20
   no switchport
   ip address 10.9.9.1/24
!
interface Ethernet20
   vrf RDMA-A
   ip address 10.128.9.1/24
!
interface Ethernet21
   no switchport
   vrf RDMA-A
   ip address 10.128.10.1/24
!
interface Ethernet21
   no vrf
!
interface Ethernet30-25
   mtu 9214
!
end
"""


def _interfaces() -> dict[str, Interface]:
    return {i.name: i for i in facts_of(parse(BASE), Interface)}


def test_ranges_and_lists_become_the_interfaces_they_name() -> None:
    intfs = _interfaces()
    for name in ("Ethernet1", "Ethernet2", "Ethernet3", "Ethernet4", "Ethernet5", "Ethernet6", "Ethernet7"):
        assert intfs[name].mtu == 9214, name
    assert {"Ethernet10/1", "Ethernet10/2", "Ethernet10/3"} <= set(intfs)
    assert not any("-" in n.replace("Port-Channel", "") or "," in n for n in intfs), sorted(intfs)
    assert "Port-Channel10" in intfs  # decoy: a hyphenated type name is one interface
    assert [i.access_vlan for n, i in sorted(intfs.items()) if n in ("Ethernet5", "Ethernet7")] == [
        3002,
        3002,
    ]


def test_repeated_blocks_merge_and_the_later_line_wins() -> None:
    intfs = _interfaces()
    assert intfs["Ethernet1"].description == "GPU_node01"
    assert intfs["Ethernet1"].access_vlan == 3001 and intfs["Ethernet1"].speed_mbps == 400_000
    assert intfs["Ethernet10/2"].ipv4 == ["10.0.0.1/31"] and intfs["Ethernet10/2"].mode == "routed"
    assert intfs["Ethernet6"].service_profile == "STORAGE"
    result = parse(BASE)
    assert any(b.name == "Ethernet10/2" and b.acl == "EDGE" for b in facts_of(result, AclBinding))
    # one fact per interface, not one per block
    names = [i.name for i in facts_of(result, Interface)]
    assert len(names) == len(set(names))


def test_qos_profile_of_the_last_block_applies() -> None:
    qos = {q.interface: q for q in facts_of(parse(BASE), QosInterface)}
    assert qos["Ethernet6"].pfc_no_drop_priorities == [3, 4]  # the storage profile, set after the range's
    assert qos["Ethernet2"].pfc_no_drop_priorities == [3]


def test_vrf_change_drops_earlier_addresses_and_no_vrf_returns_to_default() -> None:
    intfs = _interfaces()
    assert intfs["Ethernet20"].vrf == "RDMA-A"
    assert intfs["Ethernet20"].ipv4 == ["10.128.9.1/24"]  # EOS removed 10.9.9.1 when the VRF changed
    assert intfs["Ethernet21"].vrf == "default"
    assert intfs["Ethernet21"].ipv4 == []


def test_vlans_list_ports_from_ranges_and_no_vrf_instance_removes() -> None:
    result = parse(BASE)
    vlans = {v.vlan_id: v for v in facts_of(result, Vlan)}
    assert vlans[3001].interfaces == ["Ethernet1", "Ethernet2", "Ethernet3", "Ethernet4", "Ethernet6"]
    assert vlans[3002].interfaces == ["Ethernet5", "Ethernet7"]
    vrfs = {v.name for v in facts_of(result, Vrf)}
    assert "OLD" not in vrfs and "RDMA-A" in vrfs


def test_a_backwards_range_is_a_problem_not_an_interface() -> None:
    result = parse(BASE)
    assert "Ethernet25" not in _interfaces()
    assert any("Ethernet30-25" in p.message and p.line == 69 for p in result.problems), result.problems


def test_varp_virtual_router_addresses_are_virtual_addresses() -> None:
    cfg = """hostname dut
interface Vlan3001
   vrf RDMA-A
   ip address 10.128.1.2/24
   ip virtual-router address 10.128.1.1
   ip virtual-router address 172.16.10.1/24
interface Vlan3002
   ip address virtual 10.129.1.1/24
interface Vlan3003
   ip virtual-router address 10.131.0.1
interface Vlan3004
   ip virtual-router address not-an-address
end
"""
    result = parse(cfg)
    intfs = {i.name: i for i in facts_of(result, Interface)}
    assert intfs["Vlan3001"].ipv4 == ["10.128.1.2/24"]
    assert intfs["Vlan3001"].ipv4_virtual == ["10.128.1.1/24", "172.16.10.1/24"]
    assert intfs["Vlan3002"].ipv4_virtual == ["10.129.1.1/24"]
    assert intfs["Vlan3003"].ipv4_virtual == ["10.131.0.1/32"]  # no subnet of its own to take a length from
    assert intfs["Vlan3004"].ipv4_virtual == []
    assert any("not-an-address" in p.message for p in result.problems)


def test_range_expansion_is_bounded_on_hostile_input() -> None:
    header = "interface " + ",".join(["Ethernet1-4000"] * 10)  # 40,000 blocks from 150 bytes
    cfg = "hostname dut\n" + "\n".join(f"{header}\n   mtu 9214" for _ in range(3)) + "\nend\n"
    result = parse(cfg)
    assert len(facts_of(result, Interface)) == 4000  # the first header expands, each name once
    assert [p.line for p in result.problems if "once ranges are expanded" in p.message] == [4, 6]
    huge = "interface " + ",".join(["Ethernet1-4000"] * 100_000)  # 400 million names: never built
    assert facts_of(parse(f"hostname dut\n{huge}\n   mtu 9214\nend\n"), Interface) == []


def test_trust_without_a_line_is_eos_default_by_port_mode() -> None:
    cfg = """hostname dut
qos profile GPU
   priority-flow-control on
   priority-flow-control priority 3 no-drop
!
interface Ethernet1
   description routed GPU port (/31 per NIC): EOS trusts DSCP on routed ports
   no switchport
   ip address 10.128.0.0/31
   service-profile GPU
!
interface Ethernet2
   description switchport GPU port: EOS trusts CoS on switchports
   switchport access vlan 3001
   service-profile GPU
!
interface Ethernet3
   no switchport
   no qos trust
!
interface Ethernet4
   qos trust dscp
!
interface Ethernet5.10
   encapsulation dot1q vlan 10
!
interface Loopback0
   ip address 10.143.0.1/32
!
end
"""
    trust = {q.interface: q.trust for q in facts_of(parse(cfg), QosInterface)}
    assert trust == {
        "Ethernet1": "dscp",
        "Ethernet2": "cos",
        "Ethernet3": "untrusted",
        "Ethernet4": "dscp",
        "Ethernet5.10": "dscp",  # a subinterface is routed
    }


def test_an_absurd_port_number_is_a_problem_not_a_lost_config() -> None:
    result = parse(
        f"hostname dut\ninterface Ethernet1-{'9' * 5000}\n   mtu 9214\ninterface Ethernet2\n   mtu 9214\nend\n"
    )
    assert [i.name for i in facts_of(result, Interface)] == ["Ethernet2"]
    assert any("is not an interface" in p.message and p.line == 2 for p in result.problems)
