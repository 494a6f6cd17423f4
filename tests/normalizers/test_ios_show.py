"""The IOS show-text normalizer (TextFSM via ntc-templates) against ntc-templates' own test captures.

Each .raw is a real device's output and its .yml parsed_sample the records the template must give;
the facts are compared with those records field by field after the documented mapping.
"""

from __future__ import annotations

import ipaddress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from auditor.capture import RawCapture
from auditor.enums import FactKind
from auditor.facts import Acl, LldpNeighbor, Route, Vlan, Vrf
from collectors.platforms.ios.show import normalize_show_text

NTC = Path(__file__).resolve().parents[1] / "fixtures" / "ntc" / "cisco_ios"
CODES = {"C": "connected", "L": "local", "S": "static", "O": "ospf", "B": "bgp", "D": "eigrp", "i": "isis"}


def _cases(command_dir: str) -> list[Path]:
    return sorted((NTC / command_dir).glob("*.raw"))


def _capture(command: str, raw: Path) -> RawCapture:
    return RawCapture(
        target="r1",
        format="ios.show-text",
        source=command,
        origin="r1.example:22",
        collected_at=datetime(2025, 3, 4, tzinfo=UTC),
        content=raw.read_bytes(),
        meta={"device": "r1", "platform": "ios", "command": command},
    )


def _expected(raw: Path) -> list[dict[str, Any]]:
    return list(yaml.safe_load(raw.with_suffix(".yml").read_text())["parsed_sample"] or [])


@pytest.mark.parametrize("raw", _cases("show_ip_route"), ids=lambda p: p.stem)
def test_routes_field_by_field(raw: Path) -> None:
    result = normalize_show_text(_capture("show ip route vrf *", raw))
    assert result.problems == [] and result.covers == {FactKind.ROUTE}
    want = sorted(
        (
            r["vrf"] or "default",
            str(ipaddress.ip_network(f"{r['network']}/{r['prefix_length'] or 32}", strict=False)),
            CODES[r["protocol"]],
            r["nexthop_ip"] or None,
            r["nexthop_if"] or None,
            int(r["distance"]) if r["distance"] else None,
        )
        for r in _expected(raw)
    )
    got = sorted((f.vrf, f.prefix, f.protocol, f.next_hop, f.interface, f.distance) for f in result.facts)
    assert got == want
    assert all(isinstance(f, Route) and f.device == "r1" for f in result.facts)


def test_route_command_vrf_names_records_without_a_vrf_header() -> None:
    raw = _cases("show_ip_route")[0]
    result = normalize_show_text(_capture("show ip route vrf RDMA-A", raw))
    headerless = [r for r in _expected(raw) if not r["vrf"]]
    assert sum(1 for f in result.facts if isinstance(f, Route) and f.vrf == "RDMA-A") == len(headerless)


@pytest.mark.parametrize("raw", _cases("show_ip_access-lists"), ids=lambda p: p.stem)
def test_acls_field_by_field(raw: Path) -> None:
    result = normalize_show_text(_capture("show ip access-lists", raw))
    assert result.problems == [] and result.covers == {FactKind.ACL}
    records = _expected(raw)
    acls = {a.name: a for a in result.facts if isinstance(a, Acl)}
    assert set(acls) == {r["acl_name"] for r in records}
    for name, acl in acls.items():
        rows = [r for r in records if r["acl_name"] == name and r["action"] in ("permit", "deny")]
        assert acl.standard == (
            records[[r["acl_name"] for r in records].index(name)]["acl_type"] == "Standard"
        )
        assert len(acl.entries) == len(rows), name
        for entry, r in zip(acl.entries, rows, strict=True):
            assert entry.action == r["action"]
            assert entry.sequence == (int(r["line_num"]) if r["line_num"] else None)
            assert entry.protocol == (r["protocol"] or None)
            for side, got in (("src", entry.source), ("dst", entry.destination)):
                if r[f"{side}_any"]:
                    assert got == "any"
                elif r[f"{side}_host"]:
                    assert got == f"host {r[f'{side}_host']}"
                elif r[f"{side}_network"]:
                    assert got is not None and got.split()[0] == r[f"{side}_network"]
            if r["dst_port_match"] and r["dst_port_match"] != "range":
                port = r["dst_port"]
                assert (
                    entry.destination_ports
                    == f"{r['dst_port_match']} {' '.join(port) if isinstance(port, list) else port}"
                )


@pytest.mark.parametrize("raw", _cases("show_vrf"), ids=lambda p: p.stem)
def test_vrfs_field_by_field(raw: Path) -> None:
    result = normalize_show_text(_capture("show vrf", raw))
    assert result.problems == [] and result.covers == {FactKind.VRF}
    got = {v.name: (v.rd, v.interfaces) for v in result.facts if isinstance(v, Vrf)}
    records = _expected(raw)
    assert len(got) == len(records)
    for r in records:
        interfaces = r["interfaces"] if isinstance(r["interfaces"], list) else [r["interfaces"]]
        rd = None if r["default_rd"] in ("", "<not set>") else r["default_rd"]
        assert got[r["name"]] == (rd, [i for i in interfaces if i])


@pytest.mark.parametrize("raw", _cases("show_ip_vrf_interfaces"), ids=lambda p: p.stem)
def test_vrf_interfaces_field_by_field(raw: Path) -> None:
    result = normalize_show_text(_capture("show ip vrf interfaces", raw))
    assert result.problems == [] and result.covers == {FactKind.VRF}
    want: dict[str, list[str]] = {}
    for r in _expected(raw):
        want.setdefault(r["vrf"], []).append(r["interface"])
    assert {v.name: v.interfaces for v in result.facts if isinstance(v, Vrf)} == want


@pytest.mark.parametrize("raw", _cases("show_lldp_neighbors"), ids=lambda p: p.stem)
def test_lldp_field_by_field(raw: Path) -> None:
    result = normalize_show_text(_capture("show lldp neighbors", raw))
    assert result.problems == [] and result.covers == {FactKind.LLDP_NEIGHBOR}
    got = sorted(
        (n.interface, n.neighbor, n.neighbor_interface) for n in result.facts if isinstance(n, LldpNeighbor)
    )
    want = sorted(
        (r["local_interface"], r["neighbor_name"], r["neighbor_interface"] or None) for r in _expected(raw)
    )
    assert got == want


@pytest.mark.parametrize("raw", _cases("show_vlan"), ids=lambda p: p.stem)
def test_vlans_field_by_field(raw: Path) -> None:
    result = normalize_show_text(_capture("show vlan", raw))
    assert result.problems == [] and result.covers == {FactKind.VLAN}
    got = {v.vlan_id: (v.name, v.interfaces) for v in result.facts if isinstance(v, Vlan)}
    assert got == {int(r["vlan_id"]): (r["vlan_name"] or None, r["interfaces"]) for r in _expected(raw)}


def test_switchport_is_evidence_only() -> None:
    result = normalize_show_text(
        _capture("show interfaces switchport", _cases("show_interfaces_switchport")[0])
    )
    assert (result.facts, result.covers, result.problems) == ([], set(), [])


def test_unknown_command_is_a_problem() -> None:
    result = normalize_show_text(_capture("show clock", _cases("show_vlan")[0]))
    assert result.covers == set() and result.problems[0].origin == "r1.example:22"
