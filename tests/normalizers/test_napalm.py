"""The NAPALM normalizers against NAPALM's own getter results (tests/fixtures/napalm).

Every expected_result.json is a getter's return value. Each test reads the facts back field by field
and checks they reproduce every field of the getter output that the fact model carries.
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
from auditor.facts import Device, FactRecord, Interface, LldpNeighbor, Vlan, Vrf
from auditor.normalize import NormalizeResult
from collectors.normalizers.napalm import normalize_getter, normalize_getters

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "napalm"
DRIVERS = ("eos", "nxos", "nxos_ssh")


def _cases(getter: str) -> list[Path]:
    return sorted(FIXTURES.glob(f"*/{getter}/*/expected_result.json"))


def _ids(paths: list[Path]) -> list[str]:
    return [f"{p.parents[2].name}-{p.parent.name}" for p in paths]


def _load(path: Path) -> Any:
    return json.loads(path.read_text())


def _capture(fmt: str, value: Any) -> RawCapture:
    return RawCapture(
        target="leaf1",
        format=fmt,
        source=f"napalm eos {fmt.partition('.')[2]}",
        origin="leaf1.example:443",
        collected_at=datetime(2025, 3, 4, tzinfo=UTC),
        content=json.dumps(value, sort_keys=True, indent=1).encode(),
        meta={"device": "leaf1", "platform": "eos", "tier": "frontend", "role": "leaf"},
    )


def _of(result: NormalizeResult, model: type[FactRecord]) -> list[Any]:
    return [f for f in result.facts if isinstance(f, model)]


def _first(getter: str, driver: str) -> Any:
    return _load(sorted((FIXTURES / driver / getter).glob("*/expected_result.json"))[0])


def _interface_vrfs(instances: dict[str, Any]) -> dict[str, str]:
    out = {}
    for name, entry in instances.items():
        vrf = "default" if entry["type"] == "DEFAULT_INSTANCE" else name
        for ifname in entry["interfaces"]["interface"]:
            out.setdefault(ifname, vrf)
    return out


@pytest.mark.parametrize("path", _cases("get_network_instances"), ids=_ids(_cases("get_network_instances")))
def test_network_instances_field_by_field(path: Path) -> None:
    expected = _load(path)
    result = normalize_getter(_capture("napalm.get_network_instances", expected))
    assert result.problems == []
    assert result.covers == {FactKind.VRF}
    vrfs = {v.name: v for v in _of(result, Vrf)}
    assert len(vrfs) == len(expected)
    for name, entry in expected.items():
        vrf = vrfs["default" if entry["type"] == "DEFAULT_INSTANCE" else name]
        assert vrf.rd == (entry["state"]["route_distinguisher"] or None)
        assert vrf.interfaces == sorted(entry["interfaces"]["interface"])
        assert vrf.device == "leaf1"


@pytest.mark.parametrize("path", _cases("get_vlans"), ids=_ids(_cases("get_vlans")))
def test_vlans_field_by_field(path: Path) -> None:
    expected = _load(path)
    result = normalize_getter(_capture("napalm.get_vlans", expected))
    assert result.problems == []
    assert result.covers == {FactKind.VLAN}
    vlans = {v.vlan_id: v for v in _of(result, Vlan)}
    assert set(vlans) == {int(k) for k in expected}
    for key, entry in expected.items():
        assert vlans[int(key)].name == (entry["name"] or None)
        assert vlans[int(key)].interfaces == sorted(entry["interfaces"])


@pytest.mark.parametrize("path", _cases("get_lldp_neighbors"), ids=_ids(_cases("get_lldp_neighbors")))
def test_lldp_field_by_field(path: Path) -> None:
    expected = _load(path)
    result = normalize_getter(_capture("napalm.get_lldp_neighbors", expected))
    assert result.problems == []
    assert result.covers == {FactKind.LLDP_NEIGHBOR}
    got = sorted((n.interface, n.neighbor, n.neighbor_interface) for n in _of(result, LldpNeighbor))
    want = sorted((port, n["hostname"], n["port"]) for port, ns in expected.items() for n in ns)
    assert got == want


def test_get_facts_gives_the_device() -> None:
    value = _load(FIXTURES / "synthetic" / "get_facts" / "docstring" / "expected_result.json")
    result = normalize_getter(_capture("napalm.get_facts", value))
    assert result.covers == {FactKind.DEVICE}
    [device] = _of(result, Device)
    assert (device.device, device.hostname, device.model, device.os_version) == (
        "leaf1",
        value["hostname"],
        value["model"],
        value["os_version"],
    )
    assert (device.platform, device.tier, device.role) == ("eos", "frontend", "leaf")


@pytest.mark.parametrize("getter", ["get_interfaces", "get_interfaces_ip", "get_config"])
def test_partial_getters_alone_give_nothing_and_cover_nothing(getter: str) -> None:
    value = _first(getter, "eos") if getter != "get_config" else {"running": "hostname x\n"}
    result = normalize_getter(_capture(f"napalm.{getter}", value))
    assert (result.facts, result.covers, result.problems) == ([], set(), [])


def _bundle_cases() -> list[tuple[str, Path, Path]]:
    """Every get_interfaces case with its driver's first IP case, and every IP case with the first
    interfaces case, so each recorded output is read at least once."""
    cases = []
    for driver in DRIVERS:
        links = sorted((FIXTURES / driver / "get_interfaces").glob("*/expected_result.json"))
        ips = sorted((FIXTURES / driver / "get_interfaces_ip").glob("*/expected_result.json"))
        cases += [(driver, link, ips[0]) for link in links]
        cases += [(driver, links[0], ip) for ip in ips[1:]]
    return cases


@pytest.mark.parametrize(
    ("driver", "links_path", "ips_path"),
    _bundle_cases(),
    ids=[f"{d}-{a.parent.name}-{b.parent.name}" for d, a, b in _bundle_cases()],
)
def test_bundle_interfaces_field_by_field(driver: str, links_path: Path, ips_path: Path) -> None:
    links, ips = _load(links_path), _load(ips_path)
    instances = _first("get_network_instances", driver)
    vlans = _first("get_vlans", driver)
    bundle = {
        "get_interfaces": links,
        "get_interfaces_ip": ips,
        "get_network_instances": instances,
        "get_vlans": vlans,
    }
    result = normalize_getters(_capture("napalm.getters", bundle))
    assert result.problems == []
    assert result.covers == {FactKind.INTERFACE, FactKind.VRF, FactKind.VLAN}
    interfaces = {i.name: i for i in _of(result, Interface)}
    assert len(interfaces) == len(_of(result, Interface)), "one record per interface"
    assert set(interfaces) == set(links) | set(ips)
    vrf_of = _interface_vrfs(instances)
    vlans_of: dict[str, set[int]] = {}
    for vid, entry in vlans.items():
        for port in entry["interfaces"]:
            vlans_of.setdefault(port, set()).add(int(vid))
    for name, i in interfaces.items():
        link = links.get(name)
        if link is not None:
            assert i.enabled == link["is_enabled"], name
            assert i.description == (link["description"] or None), name
            assert i.mtu == (link["mtu"] or None), name
            assert i.speed_mbps == (round(link["speed"]) if link["speed"] > 0 else None), name
        want_v4 = {f"{a}/{p['prefix_length']}" for a, p in ips.get(name, {}).get("ipv4", {}).items()}
        want_v6 = {
            str(ipaddress.ip_interface(f"{a}/{p['prefix_length']}"))
            for a, p in ips.get(name, {}).get("ipv6", {}).items()
        }
        assert set(i.ipv4) == want_v4, name
        assert set(i.ipv6) == want_v6, name
        assert i.vrf == vrf_of.get(name, "default"), name
        assert i.switchport == (name in vlans_of), name
        if len(vlans_of.get(name, ())) > 1:
            assert i.mode == "trunk", name
            allowed = {v for lo, hi in i.trunk_allowed_vlans or [] for v in range(lo, hi + 1)}
            assert allowed == vlans_of[name], name
        else:
            assert i.mode is None and i.trunk_allowed_vlans is None, name


def test_bundle_matches_the_single_getters() -> None:
    """A bundle gives the same Device/Vrf/Vlan/LLDP facts as the getters captured one by one."""
    getters = {
        "get_facts": _load(FIXTURES / "synthetic" / "get_facts" / "docstring" / "expected_result.json"),
        "get_network_instances": _first("get_network_instances", "eos"),
        "get_vlans": _first("get_vlans", "eos"),
        "get_lldp_neighbors": _first("get_lldp_neighbors", "eos"),
    }
    bundle = normalize_getters(_capture("napalm.getters", getters))
    singles = [normalize_getter(_capture(f"napalm.{g}", v)) for g, v in getters.items()]
    assert sorted(json.dumps(f.to_json(), sort_keys=True) for f in bundle.facts) == sorted(
        json.dumps(f.to_json(), sort_keys=True) for r in singles for f in r.facts
    )
    assert bundle.covers == set().union(*(r.covers for r in singles))


def test_eos_interface_exact_record() -> None:
    bundle = {
        "get_interfaces": _load(FIXTURES / "eos" / "get_interfaces" / "normal" / "expected_result.json"),
        "get_interfaces_ip": {"Ethernet1": {"ipv4": {"10.0.0.1": {"prefix_length": 31}}}},
        "get_network_instances": {
            "default": {
                "name": "default",
                "type": "DEFAULT_INSTANCE",
                "state": {"route_distinguisher": ""},
                "interfaces": {"interface": {"Ethernet1": {}}},
            },
            "MGMT": {
                "name": "MGMT",
                "type": "L3VRF",
                "state": {"route_distinguisher": ""},
                "interfaces": {"interface": {"Management1": {}}},
            },
        },
    }
    result = normalize_getters(_capture("napalm.getters", bundle))
    interfaces = {i.name: i for i in _of(result, Interface)}
    assert interfaces["Ethernet1"] == Interface(
        device="leaf1", name="Ethernet1", type="ethernet", mtu=9214, ipv4=["10.0.0.1/31"]
    )  # speed 0.0 is NAPALM's "unknown"
    assert interfaces["Management1"] == Interface(
        device="leaf1", name="Management1", type="management", vrf="MGMT", mtu=1500, speed_mbps=1000
    )
    assert interfaces["Ethernet5"].speed_mbps == 2  # 2.5 Mb/s, rounded


# Bad input


def test_bundle_without_network_instances_has_no_interfaces_and_says_why() -> None:
    bundle = {"get_interfaces": _first("get_interfaces", "eos"), "get_interfaces_ip": {}}
    result = normalize_getters(_capture("napalm.getters", bundle))
    assert _of(result, Interface) == []
    assert FactKind.INTERFACE not in result.covers
    [problem] = result.problems
    assert "get_network_instances" in problem.message and problem.origin == "leaf1.example:443"


def test_bad_entries_cost_only_themselves() -> None:
    vlans = {"10": {"name": "A", "interfaces": ["Ethernet1"]}, "bogus": {"name": "B", "interfaces": []}}
    capture = _capture("napalm.get_vlans", vlans)
    result = normalize_getter(capture)
    assert [v.vlan_id for v in _of(result, Vlan)] == [10]
    [problem] = result.problems
    text = capture.content.decode().splitlines()
    assert problem.line is not None and '"bogus"' in text[problem.line - 1]
    ips = {"Ethernet1": {"ipv4": {"10.0.0.1": {"prefix_length": 31}, "10.0.0.300": {"prefix_length": 24}}}}
    bundle = {"get_interfaces": {}, "get_interfaces_ip": ips, "get_network_instances": {}}
    result = normalize_getters(_capture("napalm.getters", bundle))
    [eth1] = _of(result, Interface)
    assert eth1.ipv4 == ["10.0.0.1/31"]
    assert any("10.0.0.300" in p.message for p in result.problems)


@pytest.mark.parametrize("content", [b"", b"{not json", b"[]"])
def test_unreadable_capture_is_a_problem_and_covers_nothing(content: bytes) -> None:
    for fmt, fn in (("napalm.getters", normalize_getters), ("napalm.get_vlans", normalize_getter)):
        capture = RawCapture("leaf1", fmt, "napalm", "o", datetime(2025, 1, 1, tzinfo=UTC), content, {})
        result = fn(capture)
        assert result.facts == [] and result.covers == set(), fmt
        assert len(result.problems) == 1 and result.problems[0].origin == "o", fmt


def test_unknown_getter_format_is_a_problem() -> None:
    result = normalize_getter(_capture("napalm.get_bgp_neighbors", {}))
    assert result.facts == [] and "get_bgp_neighbors" in result.problems[0].message


def test_bundle_content_round_trips() -> None:
    from collectors.normalizers.napalm import bundle_content

    getters = {
        "get_vlans": _first("get_vlans", "eos"),
        "get_facts": {"hostname": "x", "model": "m", "os_version": "1"},
    }
    capture = _capture("napalm.getters", {})
    capture = RawCapture(**{**capture.__dict__, "content": bundle_content(getters)})
    result = normalize_getters(capture)
    assert result.covers == {FactKind.VLAN, FactKind.DEVICE} and result.problems == []
