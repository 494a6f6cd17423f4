"""One canonical name per interface across NAPALM getters and the running config (NX-OS).

NAPALM's nxos_ssh getters spell one port two ways: `get_interfaces` says `Management0` and
`Port-channel12` (napalm-mocked-data, tests/fixtures/napalm/nxos_ssh), `get_network_instances` says
`mgmt0`, and the running config says `mgmt0` and `port-channel12`. Each port must be one Interface fact,
in the VRF the device puts it in, named as the running config names it."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from auditor.capture import RawCapture
from auditor.enums import FactKind
from auditor.facts import Interface, LldpNeighbor, Vlan, Vrf
from auditor.normalize import NormalizerRegistry
from collectors.parsing.napalm_names import canonical_getters
from collectors.platforms.registry import get

NAPALM = Path(__file__).resolve().parents[1] / "fixtures" / "napalm" / "nxos_ssh"
REGISTRY = NormalizerRegistry().load_entry_points()
CANON = get("nxos").interface_namer()


def _load(getter: str, case: str) -> Any:
    return json.loads((NAPALM / getter / case / "expected_result.json").read_text())


def _bundle() -> dict[str, Any]:
    return {
        "get_interfaces": _load("get_interfaces", "N93180_7_0_3_I7_2"),
        "get_interfaces_ip": _load("get_interfaces_ip", "normal"),
        "get_network_instances": _load("get_network_instances", "normal"),
        "get_vlans": _load("get_vlans", "normal"),
        "get_lldp_neighbors": _load("get_lldp_neighbors", "normal"),
    }


def _normalize(bundle: dict[str, Any], platform: str = "nxos_ssh") -> list[Any]:
    capture = RawCapture(
        target="leaf9",
        format="napalm.getters",
        source="napalm nxos_ssh " + " ".join(sorted(bundle)),
        origin="127.0.0.1:22",
        collected_at=datetime(2026, 1, 2, tzinfo=UTC),
        content=json.dumps(bundle, sort_keys=True).encode(),
        meta={"device": "leaf9", "platform": platform},
    )
    result = REGISTRY.get("napalm.getters")(capture)
    assert result.problems == []
    assert FactKind.INTERFACE in result.covers
    return result.facts


def test_the_fixture_spells_mgmt0_two_ways() -> None:
    """The premise: the getters really disagree."""
    bundle = _bundle()
    assert "Management0" in bundle["get_interfaces"]
    assert "mgmt0" in bundle["get_network_instances"]["management"]["interfaces"]["interface"]
    assert (
        "Port-channel22" in bundle["get_vlans"]["161"]["interfaces"]
        and "Port-channel22" in bundle["get_interfaces"]
    )


def test_each_nxos_port_is_one_interface_named_as_the_config_names_it() -> None:
    facts = _normalize(_bundle())
    interfaces = [f for f in facts if isinstance(f, Interface)]
    names = [i.name for i in interfaces]
    assert len(names) == len(set(names)), "one fact per port"
    assert all(CANON(n) == n for n in names), [n for n in names if CANON(n) != n]
    assert "Management0" not in names and "Port-channel93" not in names
    mgmt = next(i for i in interfaces if i.name == "mgmt0")
    raw = _bundle()["get_interfaces"]["Management0"]
    assert (mgmt.vrf, mgmt.enabled, mgmt.mtu, mgmt.speed_mbps) == ("management", True, 1500, 1000)
    assert mgmt.description == raw["description"]
    po = next(i for i in interfaces if i.name == "port-channel22")
    assert po.switchport  # its VLAN memberships (get_vlans says Port-channel22) found it
    for vlan in (f for f in facts if isinstance(f, Vlan)):
        assert all(CANON(m) == m for m in vlan.interfaces)
    vrfs = {v.name: v for v in facts if isinstance(v, Vrf)}
    assert "mgmt0" in vrfs["management"].interfaces
    assert {n.interface for n in facts if isinstance(n, LldpNeighbor)} <= set(names) | {"Ethernet1/6"}


def test_two_spellings_in_one_getter_merge_into_one_port() -> None:
    """The first reading wins; the second fills only what the first lacks."""
    bundle = _bundle()
    links = bundle["get_interfaces"]
    links["mgmt0"] = {**links["Management0"], "description": "", "mtu": 9216}
    facts = _normalize(bundle)
    mgmt = [f for f in facts if isinstance(f, Interface) and f.name == "mgmt0"]
    assert len(mgmt) == 1
    assert (mgmt[0].description, mgmt[0].mtu) == ("*** LIBRE ***", 1500)


def test_distinct_ports_stay_distinct() -> None:
    """Decoy: names that only look alike (Ethernet1/1 and Ethernet1/10, loopback0 and loopback1) are
    different ports."""
    got = canonical_getters(
        {"get_interfaces": {"Eth1/1": {"mtu": 1}, "Ethernet1/10": {"mtu": 2}, "Loopback0": {}, "lo1": {}}},
        CANON,
    )
    assert got["get_interfaces"] == {
        "Ethernet1/1": {"mtu": 1},
        "Ethernet1/10": {"mtu": 2},
        "loopback0": {},
        "loopback1": {},
    }


def test_a_platform_without_a_name_function_keeps_names_as_given() -> None:
    """EOS names its ports one way in every getter; its record declares no function."""
    assert get("eos").interface_name is None
    names = {f.name for f in _normalize(_bundle(), platform="eos") if isinstance(f, Interface)}
    assert "Management0" in names
