"""BGP group inheritance and the session's source (update-source / local-address) on every platform.

Violations: a neighbour that leaves a setting to its group (Junos `group ... local-address`, `export`,
`peer-as`; Onyx `neighbor A peer-group G`; IOS/EOS/NX-OS peer-groups and templates) must carry the
group's value. Decoys: what a neighbour sets itself wins (a Junos neighbour's `export` replaces its
group's list, never adds to it), a group's setting stays in that group, and a peer-group definition
is not a neighbour.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from auditor.capture import RawCapture
from auditor.facts.network import BgpNeighbor
from auditor.normalize import NormalizerRegistry

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
REGISTRY = NormalizerRegistry().load_entry_points()


def _peers(fmt: str, platform: str, content: bytes) -> dict[tuple[str, str], BgpNeighbor]:
    capture = RawCapture(
        target="dut",
        format=fmt,
        source="show running-config",
        origin="test",
        collected_at=datetime(2025, 3, 4, tzinfo=UTC),
        content=content,
        meta={"device": "dut", "platform": platform},
    )
    result = REGISTRY.get(fmt)(capture)
    return {(f.vrf, f.peer): f for f in result.facts if isinstance(f, BgpNeighbor)}


def test_junos_neighbours_inherit_their_groups_session_settings() -> None:
    """Batfish's example-juniper as1border1 (set format): groups carry type, peer-as, local-address,
    import and export; the neighbours say nothing but their address."""
    peers = _peers("junos.config", "junos", (FIXTURES / "junos/batfish_as1border1.set").read_bytes())
    ibgp = peers[("default", "1.10.1.1")]
    assert (ibgp.remote_as, ibgp.update_source, ibgp.export_policies) == ("1", "1.1.1.1", ["as1_to_as1"])
    ebgp = peers[("default", "10.12.11.2")]
    assert (ebgp.remote_as, ebgp.import_policies, ebgp.export_policies) == (
        "2",
        ["as2_to_as1"],
        ["as1_to_as2"],
    )
    # decoy: group as1's local-address is as1's; as2 has none, so its sessions leave the source to Junos
    assert ebgp.update_source is None
    assert peers[("default", "5.6.7.8")].import_policies == []


JUNOS_OVERRIDE = b"""
set system host-name dut
set routing-options autonomous-system 65001
set protocols bgp export ALL-OUT
set protocols bgp group OVERLAY type internal
set protocols bgp group OVERLAY local-address 10.30.255.21
set protocols bgp group OVERLAY export [ EVPN-OUT TAG ]
set protocols bgp group OVERLAY neighbor 10.30.255.1
set protocols bgp group OVERLAY neighbor 10.30.255.2 export ONLY-THIS
set protocols bgp group OVERLAY neighbor 10.30.255.2 local-address 10.30.255.99
set protocols bgp group EDGE type external
set protocols bgp group EDGE peer-as 65500
set protocols bgp group EDGE disable
set protocols bgp group EDGE neighbor 192.0.2.1
"""


def test_junos_a_neighbours_own_statement_replaces_its_groups() -> None:
    peers = _peers("junos.config", "junos", JUNOS_OVERRIDE)
    plain, own = peers[("default", "10.30.255.1")], peers[("default", "10.30.255.2")]
    assert (plain.remote_as, plain.update_source, plain.export_policies) == (
        "65001",
        "10.30.255.21",
        ["EVPN-OUT", "TAG"],
    )
    assert (own.update_source, own.export_policies) == ("10.30.255.99", ["ONLY-THIS"])  # not merged
    edge = peers[("default", "192.0.2.1")]
    assert (edge.remote_as, edge.shutdown, edge.export_policies) == ("65500", True, ["ALL-OUT"])


ONYX = b"""##
## BGP configuration
##
   protocol bgp
   router bgp 65001 vrf default
   router bgp 65001 vrf default router-id 10.30.255.31 force
   router bgp 65001 vrf default peer-group SPINES
   router bgp 65001 vrf default neighbor SPINES remote-as 65000
   router bgp 65001 vrf default neighbor SPINES update-source 10.30.255.31
   router bgp 65001 vrf default neighbor SPINES route-map SPINE-IN in
   router bgp 65001 vrf default neighbor 10.30.0.0 peer-group SPINES
   router bgp 65001 vrf default neighbor 10.30.0.2 peer-group SPINES
   router bgp 65001 vrf default neighbor 10.30.0.2 remote-as 65002
   router bgp 65001 vrf default neighbor 10.30.0.4 remote-as 65009
"""


def test_onyx_neighbours_take_their_peer_groups_settings() -> None:
    peers = _peers("onyx.running-config", "onyx", b"hostname dut\n" + ONYX)
    assert ("default", "SPINES") not in peers, "a peer group is not a neighbour"
    member = peers[("default", "10.30.0.0")]
    assert (member.remote_as, member.peer_group, member.update_source, member.import_policies) == (
        "65000",
        "SPINES",
        "10.30.255.31",
        ["SPINE-IN"],
    )
    assert peers[("default", "10.30.0.2")].remote_as == "65002"  # its own remote-as wins
    alone = peers[("default", "10.30.0.4")]
    assert (alone.peer_group, alone.update_source, alone.import_policies) == (None, None, [])


def test_update_source_through_peer_groups_and_templates() -> None:
    """IOS peer-group route-maps and per-neighbour update-source (Batfish as2border1), EOS peer-group
    update-source (AVD dc1-leaf1a), NX-OS `template peer` update-source (ai_backend_leaf)."""
    ios = _peers("ios.running-config", "ios", (FIXTURES / "ios/as2border1.cfg").read_bytes())
    assert ios[("default", "2.1.2.1")].update_source == "Loopback0"
    member = ios[("default", "10.12.11.1")]
    assert (member.peer_group, member.import_policies, member.export_policies) == (
        "as1",
        ["as1_to_as2"],
        ["as2_to_as1"],
    )
    assert member.update_source is None
    avd = FIXTURES / "avd/examples/single-dc-l3ls/intended/configs/dc1-leaf1a.cfg"
    eos = _peers("eos.running-config", "eos", avd.read_bytes())
    assert eos[("default", "10.255.0.1")].update_source == "Loopback0"  # EVPN-OVERLAY-PEERS
    assert eos[("default", "10.255.255.0")].update_source is None  # IPv4-UNDERLAY-PEERS: none
    nxos = _peers(
        "nxos.running-config",
        "nxos",
        (FIXTURES / "nxos/ai_backend_leaf/running-config.txt").read_bytes(),
    )
    assert nxos[("default", "10.0.255.1")].update_source == "loopback0"  # inherit peer EVPN-RR
    assert nxos[("default", "10.0.0.0")].update_source is None  # inherit peer SPINES: none


def test_frr_and_config_db_sources() -> None:
    frr = b"""frr version 8.5
router bgp 65001
 neighbor FABRIC peer-group
 neighbor FABRIC remote-as external
 neighbor FABRIC update-source Loopback0
 neighbor 10.0.0.1 peer-group FABRIC
 neighbor 10.0.0.3 remote-as 65003
 address-family ipv4 unicast
  neighbor FABRIC route-map FROM-FABRIC in
 exit-address-family
exit
"""
    peers = _peers("sonic.frr", "sonic", frr)
    assert (peers[("default", "10.0.0.1")].update_source, peers[("default", "10.0.0.1")].import_policies) == (
        "Loopback0",
        ["FROM-FABRIC"],
    )
    assert peers[("default", "10.0.0.3")].update_source is None
