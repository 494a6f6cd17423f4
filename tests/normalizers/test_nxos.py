"""The NX-OS running-config normalizer against captured configs, one test parameter per case folder.

Each folder under tests/fixtures/nxos/ holds a config, the SOURCE.txt saying where it came from, and an
expected.yaml whose values were read by hand from the config. Every fact kind the normalizer covers is
listed there (an empty list means "none"), and each record is compared field by field after the fact
model fills the defaults, so a field the normalizer gets wrong, adds or drops fails the case.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
import yaml

from auditor.capture import RawCapture
from auditor.enums import FactKind
from auditor.facts import Acl, Device, Interface, fact_model
from auditor.normalize import NormalizeResult, NormalizerRegistry
from collectors.platforms.nxos.running_config import COVERS, normalize_running_config

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "nxos"
CASE_DIRS = sorted(p for p in CASES.iterdir() if (p / "expected.yaml").is_file())


def _capture(content: bytes, meta: dict[str, str], origin: str = "evidence/sw1.cfg") -> RawCapture:
    return RawCapture(
        target=meta.get("device", "sw1"),
        format="nxos.running-config",
        source="show running-config",
        origin=origin,
        collected_at=datetime(2025, 3, 4, tzinfo=UTC),
        content=content,
        meta=meta,
    )


def _load(case: Path) -> tuple[dict[str, Any], RawCapture]:
    spec = yaml.safe_load((case / "expected.yaml").read_text())
    config = case / spec["capture"]["file"]
    return spec, _capture(config.read_bytes(), spec["capture"]["meta"], origin=str(config))


def _canon(records: list[dict[str, Any]]) -> list[str]:
    return sorted(json.dumps(r, sort_keys=True) for r in records)


@pytest.mark.parametrize("case", CASE_DIRS, ids=[p.name for p in CASE_DIRS])
def test_case(case: Path) -> None:
    spec, capture = _load(case)
    assert (case / "SOURCE.txt").is_file(), "every case says where its config came from"
    result = normalize_running_config(capture)
    device = spec["capture"]["meta"]["device"]

    expected_facts: dict[str, list[dict[str, Any]]] = spec["facts"]
    assert set(expected_facts) == {k.value for k in COVERS}, "expected.yaml must list every covered kind"
    for kind_name, records in expected_facts.items():
        kind = FactKind(kind_name)
        model = fact_model(kind)
        want = [model.model_validate({"device": device, **r}).to_json() for r in records or []]
        got = [f.to_json() for f in result.facts if f.kind == kind]
        missing = [r for r in _canon(want) if r not in _canon(got)]
        unexpected = [r for r in _canon(got) if r not in _canon(want)]
        report = (
            f"{kind_name}: missing (expected, not produced):\n  "
            + "\n  ".join(missing)
            + "\nunexpected (produced, not expected):\n  "
            + "\n  ".join(unexpected)
        )
        assert not missing, report
        assert not unexpected, report
        assert len(got) == len(want), f"{kind_name}: duplicate facts"

    want_covers = set(COVERS) if spec.get("covers", "all") == "all" else set()
    assert result.covers == want_covers
    _check_problems(result, spec.get("problems") or [], str(capture.origin))


def _check_problems(result: NormalizeResult, expected: list[dict[str, Any]], origin: str) -> None:
    got = [(p.line, p.message) for p in result.problems]
    assert len(got) == len(expected), f"problems: {got}"
    for want, problem in zip(expected, result.problems, strict=True):
        assert problem.origin == origin
        assert problem.line == want["line"], f"{problem}: expected line {want['line']}"
        assert want["match"] in problem.message, f"{problem!s} should mention {want['match']!r}"


# --- behaviour beyond the case folders ---------------------------------------------------------------


def test_registered_through_its_platform_entry_point() -> None:
    found = [e for e in entry_points(group="auditor.platforms") if e.name == "nxos"]
    assert found, "pyproject declares the nxos platform"
    registered = NormalizerRegistry().load_entry_points().get("nxos.running-config")
    assert registered.__wrapped__ is normalize_running_config  # type: ignore[attr-defined]  # behind the reply gate


def test_same_capture_same_facts() -> None:
    _, capture = _load(CASES / "ai_backend_leaf")
    first, second = normalize_running_config(capture), normalize_running_config(capture)
    assert [f.to_json() for f in first.facts] == [f.to_json() for f in second.facts]


def test_crlf_line_endings_read_like_lf() -> None:
    _, capture = _load(CASES / "ai_backend_leaf")
    crlf = _capture(capture.content.replace(b"\n", b"\r\n"), dict(capture.meta), origin=capture.origin)
    assert [f.to_json() for f in normalize_running_config(crlf).facts] == [
        f.to_json() for f in normalize_running_config(capture).facts
    ]


def test_meta_fills_tier_and_role_and_rejects_unknown_tier() -> None:
    config = b"version 9.3(8)\nhostname leaf9\n"
    good = normalize_running_config(_capture(config, {"device": "leaf9", "tier": "backend", "role": "leaf"}))
    device = next(f for f in good.facts if isinstance(f, Device))
    assert (device.tier, device.role, device.os_version) == ("backend", "leaf", "9.3(8)")
    bad = normalize_running_config(_capture(config, {"device": "leaf9", "tier": "dmz"}))
    assert next(f for f in bad.facts if isinstance(f, Device)).tier is None
    assert [p.line for p in bad.problems] == [None]
    assert "dmz" in bad.problems[0].message


def test_undecodable_bytes_never_raise() -> None:
    content = b"hostname x\nversion 1\ninterface Ethernet1/1\n  description caf\xe9 \xff\xfe\n  mtu 9216\n"
    result = normalize_running_config(_capture(content, {"device": "x"}))
    iface = next(f for f in result.facts if isinstance(f, Interface))
    assert iface.mtu == 9216
    assert iface.description is not None
    assert "\ufffd" in iface.description


@pytest.mark.parametrize(
    ("last_line", "truncated"),
    [
        ("  no shut", True),
        ("  switchport trunk allowed vlan 100-", True),
        ("  ip address", True),
        ("  ip address 10.0.0.", True),
        ("  switchport mode tru", True),
        ("  no shutdown", False),
        ("  no switchport", False),
        ("  switchport", False),
        ("  ip access-group FRONT-IN in", False),
        ("  description link to sw-", False),
        ("  vrf member re", False),
        ("logging history size 400", False),
    ],
)
def test_truncation_is_judged_on_the_last_line(last_line: str, truncated: bool) -> None:
    content = f"version 9.3(8)\nhostname leaf9\ninterface Ethernet1/1\n{last_line}\n".encode()
    result = normalize_running_config(_capture(content, {"device": "leaf9"}))
    flagged = [p for p in result.problems if "truncated" in p.message]
    assert bool(flagged) == truncated, result.problems
    if truncated:
        assert flagged[0].line == 4
    assert any(isinstance(f, Interface) and f.name == "Ethernet1/1" for f in result.facts)


def test_mac_access_list_entries() -> None:
    content = (
        b"version 9.3(8)\nhostname leaf9\nmac access-list NO-SPOOF\n"
        b"  10 deny 0000.1111.2222 0000.0000.0000 any\n  20 permit any any 0x0800\n"
    )
    result = normalize_running_config(_capture(content, {"device": "leaf9"}))
    acl = next(f for f in result.facts if isinstance(f, Acl))
    assert acl.family == "mac"
    assert [(e.sequence, e.action, e.source, e.destination, e.protocol) for e in acl.entries] == [
        (10, "deny", "0000.1111.2222 0000.0000.0000", "any", None),
        (20, "permit", "any", "any", "0x0800"),
    ]


def test_comments_only_cover_nothing() -> None:
    result = normalize_running_config(
        _capture(b"!Command: show running-config\n!Time: now\n\n", {"device": "a"})
    )
    assert result.facts == []
    assert result.covers == set()
    assert [p.line for p in result.problems] == [None]


def test_hsrp_and_vrrp_addresses_are_virtual_gateway_addresses() -> None:
    cfg = b"""hostname n
feature hsrp
feature vrrp
interface Vlan2010
  no shutdown
  vrf member FRONTEND
  ip address 10.64.0.2/20
  hsrp version 2
  hsrp 10
    preempt
    ip 10.64.0.1
    ip 10.64.16.1 secondary
interface Vlan2020
  no shutdown
  ip address 10.65.0.2/20
  vrrp 20
    address 10.65.0.1
interface Vlan2030
  no shutdown
  ip address 10.66.0.2/24
  vrrpv3 30 address-family ipv4
    address 10.66.0.1 primary
interface Vlan2040
  no shutdown
  ip address 10.67.0.2/24
  hsrp 40 ipv6
    ip autoconfig
interface Vlan2050
  no shutdown
  ip address 10.68.0.2/24
  hsrp 50
    ip 10.68.0.1
  vrf member OTHER
"""
    result = normalize_running_config(_capture(cfg, {"device": "n"}))
    virtual = {f.name: f.ipv4_virtual for f in result.facts if isinstance(f, Interface)}
    assert virtual["Vlan2010"] == ["10.64.0.1/20", "10.64.16.1/32"]  # outside every subnet: a host
    assert virtual["Vlan2020"] == ["10.65.0.1/20"]
    assert virtual["Vlan2030"] == ["10.66.0.1/24"]
    assert virtual["Vlan2040"] == []  # IPv6 autoconfig: no IPv4 address
    assert virtual["Vlan2050"] == []  # erased with the port's other addresses by the VRF change
    assert not result.problems


def test_interface_range_expansion_is_bounded() -> None:
    header = "interface " + ",".join(["Ethernet1/1-4000"] * 10)  # 40,000 blocks from 170 bytes
    cfg = "hostname n\n" + "\n".join(f"{header}\n  mtu 9216" for _ in range(3)) + "\n"
    result = normalize_running_config(_capture(cfg.encode(), {"device": "n"}))
    assert len([f for f in result.facts if isinstance(f, Interface)]) == 4000
    assert [p.line for p in result.problems if "over" in p.message] == [4, 6]
    huge = "interface " + ",".join(["Ethernet1/1-4000"] * 100_000)  # never built
    result = normalize_running_config(_capture(f"hostname n\n{huge}\n  mtu 9216\n".encode(), {"device": "n"}))
    assert not [f for f in result.facts if isinstance(f, Interface)]
