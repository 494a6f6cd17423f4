"""VRF aliases and the port manifest: interface globs on real names, canonical VRFs, line-precise errors."""

from __future__ import annotations

import pytest

from auditor.config.ifnames import compile_pattern
from auditor.config.loader import parse_config
from auditor.config.models import Intent
from auditor.errors import ConfigError


@pytest.mark.parametrize(
    ("pattern", "name", "hit"),
    [
        ("Ethernet1-32", "Ethernet1", True),
        ("Ethernet1-32", "Ethernet32", True),
        ("Ethernet1-32", "Ethernet33", False),
        ("Ethernet1-32", "Ethernet1/1", False),  # a whole name, not a prefix
        ("Ethernet1", "Ethernet10", False),  # a number is a whole run of digits
        ("Ethernet1/*", "Ethernet1/1", True),
        ("Ethernet1/*", "Ethernet1/1/1", True),  # breakout ports
        ("Ethernet1/*", "Ethernet11/1", False),
        ("Ethernet1/1-4/1", "Ethernet1/3/1", True),
        ("swp1-4s0-3", "swp2s3", True),
        ("swp1-4s0-3", "swp5s0", False),
        ("Ethernet0-124", "Ethernet0", True),  # SONiC numbers from 0
        ("Eth1/1-16", "Eth1/7", True),  # Onyx
        ("Ethernet1/1-16", "Eth1/7", True),  # one family, several spellings
        ("Et5", "Ethernet5", True),
        ("Port-Channel10", "Po10", True),
        ("PortChannel1", "PortChannel0001", True),
        ("ethernet5", "Ethernet5", True),
        ("Ethernet1/1", "Ethernet1/1.100", False),  # a subinterface is another interface
        ("*", "Vlan3001", True),
        ("Ethernet?", "Ethernet7", True),
    ],
)
def test_interface_globs_match_real_names(pattern: str, name: str, hit: bool) -> None:
    assert compile_pattern(pattern).matches(name) is hit


def test_backwards_range_is_refused() -> None:
    with pytest.raises(ValueError, match="runs backwards"):
        compile_pattern("Ethernet40-33")


def _intent(extra: dict[str, object]) -> Intent:
    tiers = {
        "backend": {"vrfs": ["default", "RDMA-A", "RDMA-B"], "vlans": "3000-3999"},
        "frontend": {"vrfs": ["FE"]},
    }
    return Intent.model_validate({"tiers": tiers, **extra})


def test_aliases_map_device_spellings_to_declared_vrfs() -> None:
    intent = _intent(
        {
            "vrf_aliases": [
                {"name": "RDMA_A", "vrf": "RDMA-A"},
                {"name": "tenant-b", "vrf": "RDMA-B", "devices": ["cl-*"], "platforms": ["cumulus"]},
            ]
        }
    )
    assert intent.canonical_vrf("RDMA_A", "any", "eos") == "RDMA-A"
    assert intent.canonical_vrf("tenant-b", "cl-leaf1", "cumulus") == "RDMA-B"
    assert intent.canonical_vrf("tenant-b", "be-leaf1", "cumulus") == "tenant-b"  # another device
    assert intent.canonical_vrf("tenant-b", "cl-leaf1", "eos") == "tenant-b"  # another platform
    # SONiC's mandatory Vrf prefix is folded on SONiC only, and only onto declared VRFs
    assert intent.canonical_vrf("Vrf-RDMA-A", "s1", "sonic") == "RDMA-A"
    assert intent.canonical_vrf("VrfRDMA-B", "s1", "sonic") == "RDMA-B"
    assert intent.canonical_vrf("Vrf-RDMA-A", "e1", "eos") == "Vrf-RDMA-A"
    assert intent.canonical_vrf("Vrf-OTHER", "s1", "sonic") == "Vrf-OTHER"


def test_both_spellings_declared_are_one_vrf() -> None:
    tiers = {"backend": {"vrfs": ["RDMA-A", "Vrf-RDMA-A"]}, "frontend": {"vrfs": ["Vrf-FE"]}}
    intent = Intent.model_validate({"tiers": tiers})
    assert intent.canonical_vrf("Vrf-RDMA-A") == "RDMA-A"  # any platform: the tier lists both
    assert intent.canonical_vrf("Vrf-FE", "s1", "sonic") == "Vrf-FE"  # "FE" is not declared


def test_mapping_form_of_aliases() -> None:
    intent = _intent({"vrf_aliases": {"Vrf-RDMA-A": "RDMA-A"}})
    assert intent.canonical_vrf("Vrf-RDMA-A") == "RDMA-A"


def test_port_manifest_first_entry_wins() -> None:
    intent = _intent(
        {
            "ports": [
                {
                    "devices": ["be-leaf1"],
                    "interfaces": ["Ethernet31-32"],
                    "tier": "backend",
                    "role": "uplink",
                },
                {
                    "devices": ["be-leaf*"],
                    "interfaces": ["Ethernet1-32"],
                    "tier": "backend",
                    "vlan": 3001,
                    "role": "gpu",
                },
            ]
        }
    )
    first = intent.port("be-leaf1", "Ethernet31")
    assert first is not None and first.role == "uplink" and first.edge is False
    gpu = intent.port("be-leaf2", "Ethernet31")
    assert gpu is not None and gpu.edge is True and gpu.carries(3001)
    assert intent.port("be-leaf1", "Ethernet33") is None


CONFIG = """\
intent:
  tiers:
    backend: {{vrfs: [RDMA-A], vlans: "3000-3999"}}
    frontend: {{vrfs: [FE]}}
{body}
"""


@pytest.mark.parametrize(
    ("body", "line", "field", "words"),
    [
        (
            "  vrf_aliases:\n    - {name: Vrf-RDMA-A, vrf: RDMA-A}\n    - {name: Vrf-C, vrf: RDMA-C}",
            7,
            "vrf_aliases[1].vrf",
            "no tier declares",
        ),
        (
            "  ports:\n    - {devices: [be-*], interfaces: [Ethernet1], tier: backend, vrf: FE}",
            6,
            "ports[0].vrf",
            "tier frontend",
        ),
        (
            "  ports:\n    - {devices: [be-*], interfaces: [Ethernet1], tier: backend, vlan: 2001}",
            6,
            "ports[0].vlan",
            "outside",
        ),
        (
            "  ports:\n    - {devices: [be-*], interfaces: [Ethernet1], tier: oob}",
            6,
            "ports[0].tier",
            "not declared",
        ),
        (
            "  ports:\n    - {devices: [be-*], interfaces: [Ethernet9-1], tier: backend}",
            6,
            "ports[0].interfaces",
            "backwards",
        ),
        (
            "  ports:\n    - {devices: [a], interfaces: [E1], tier: backend, vrf: RDMA-A, tenant: A}\n"
            "    - {devices: [b], interfaces: [E1], tier: backend, vrf: RDMA-A, tenant: B}",
            7,
            "ports[1].tenant",
            "one tenant",
        ),
    ],
)
def test_bad_references_name_the_line(body: str, line: int, field: str, words: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(CONFIG.format(body=body), source="auditor.yaml")
    err = info.value
    assert err.line == line, str(err)
    assert field in str(err) and words in str(err)
