"""Virtual gateway addresses with their kind on every platform, and how the checks treat them.

Per platform (violation: the shared gateway address is read, with its protocol; decoy: the
interface's own addresses stay primary/secondary and ipv4 is what it always was): EOS VARP, `ip
address virtual` and VRRP; NX-OS HSRP and the anycast gateway; IOS HSRP, VRRP and VRRPv3; Junos
`vrrp-group` and the EVPN IRB's `virtual-gateway-address`; Cumulus VRR; SONiC SAG; Onyx MAGP.

On the checks: an MLAG pair sharing its gateway addresses (AVD's dc1-leaf1a and dc1-leaf1b, real
configs) gets exactly the findings it gets with the shared addresses removed (the same address on two
switches is a design, not a duplicate or a leak); the same shared address placed in the OOB range
still fails T1-OOB-NOT-ROUTED-ELSEWHERE on both switches (virtual addresses are never ignored).
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from auditor.capture import RawCapture
from auditor.config.models import Intent
from auditor.enums import Status, TargetStatus, Tier
from auditor.facts import Coverage, FactRecord, Interface
from auditor.normalize import NormalizerRegistry
from auditor.store.reader import StoredFact
from checks.base import CheckContext, FactView, TargetView, check_registry
from checks.runner import run_checks

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
REGISTRY = NormalizerRegistry().load_entry_points()
AVD = FIXTURES / "avd/examples/single-dc-l3ls/intended/configs"


def _normalize(fmt: str, platform: str, content: bytes, device: str = "dut") -> list[FactRecord]:
    capture = RawCapture(
        target=device,
        format=fmt,
        source="show running-config",
        origin=f"{device}.cfg",
        collected_at=datetime(2025, 3, 4, tzinfo=UTC),
        content=content,
        meta={"device": device, "platform": platform},
    )
    result = REGISTRY.get(fmt)(capture)
    return [*result.facts, *(Coverage(target=device, covers=k) for k in result.covers)]


def _kinds(fmt: str, platform: str, content: bytes) -> dict[str, list[tuple[str, str, int | None]]]:
    return {
        f.name: [(a.address, a.kind, a.group) for a in f.addresses]
        for f in _normalize(fmt, platform, content)
        if isinstance(f, Interface) and f.addresses
    }


def test_eos_varp_anycast_and_vrrp() -> None:
    config = b"""hostname dut
interface Vlan10
   vrf RED
   ip address 10.1.10.2/24
   ip address 10.1.11.2/24 secondary
   ip virtual-router address 10.1.10.1
   vrrp 7 ipv4 10.1.11.1
   vrrp 7 ipv4 version 3
interface Vlan20
   ip address virtual 10.1.20.1/24
"""
    kinds = _kinds("eos.running-config", "eos", config)
    assert kinds["Vlan10"] == [
        ("10.1.10.2/24", "primary", None),
        ("10.1.11.2/24", "secondary", None),
        ("10.1.10.1/24", "varp", None),
        ("10.1.11.1/24", "vrrp", 7),
    ]
    assert kinds["Vlan20"] == [("10.1.20.1/24", "anycast", None)]


def test_nxos_hsrp_and_anycast_gateway() -> None:
    hsrp = _kinds(
        "nxos.running-config",
        "nxos",
        (FIXTURES / "nxos/batfish_unit_nxos_interface/running-config.txt").read_bytes(),
    )
    assert hsrp["Ethernet0/1"] == [("1.1.1.1/32", "hsrp", 1), ("2.2.2.2/32", "hsrp", 1)]
    facts = _normalize(
        "nxos.running-config", "nxos", (FIXTURES / "nxos/ai_backend_leaf/running-config.txt").read_bytes()
    )
    svi = next(f for f in facts if isinstance(f, Interface) and f.name == "Vlan100")
    # the anycast SVI's own address is the gateway every leaf shares; ipv4 keeps it, as it always did
    assert svi.ipv4 == ["10.30.0.1/24", "10.30.1.1/24"] and svi.ipv4_virtual == []
    assert [(a.address, a.kind) for a in svi.addresses] == [
        ("10.30.0.1/24", "anycast"),
        ("10.30.1.1/24", "secondary"),
    ]
    loopback = next(f for f in facts if isinstance(f, Interface) and f.type == "loopback" and f.ipv4)
    assert loopback.addresses[0].kind == "primary"  # decoy: no anycast mode, its own address


def test_ios_hsrp_vrrp_and_vrrpv3() -> None:
    config = b"""hostname dut
interface Vlan10
 ip address 10.1.10.2 255.255.255.0
 standby 10 ip 10.1.10.1
 standby 10 priority 110
interface Vlan20
 ip address 10.1.20.2 255.255.255.0
 standby ip 10.1.20.1
 vrrp 20 ip 10.1.20.254
interface Vlan30
 ip address 10.1.30.2 255.255.255.0
 vrrp 30 address-family ipv4
  address 10.1.30.1 primary
"""
    kinds = _kinds("ios.running-config", "ios", config)
    assert kinds["Vlan10"] == [("10.1.10.2/24", "primary", None), ("10.1.10.1/24", "hsrp", 10)]
    assert kinds["Vlan20"][1:] == [("10.1.20.1/24", "hsrp", 0), ("10.1.20.254/24", "vrrp", 20)]
    assert kinds["Vlan30"][1:] == [("10.1.30.1/24", "vrrp", 30)]


def test_junos_vrrp_group_and_evpn_virtual_gateway() -> None:
    config = b"""set system host-name dut
set interfaces ge-0/0/1 unit 0 family inet address 10.1.10.2/24 vrrp-group 5 virtual-address 10.1.10.1
set interfaces irb unit 100 family inet address 10.30.0.2/24 virtual-gateway-address 10.30.0.1
set interfaces irb unit 100 family inet address 10.31.0.2/24 primary
"""
    kinds = _kinds("junos.config", "junos", config)
    assert kinds["ge-0/0/1"] == [("10.1.10.2/24", "primary", None), ("10.1.10.1/24", "vrrp", 5)]
    assert kinds["irb.100"] == [
        ("10.31.0.2/24", "primary", None),  # `primary` marks it
        ("10.30.0.2/24", "secondary", None),
        ("10.30.0.1/24", "anycast", None),
    ]


def test_cumulus_vrr_sonic_sag_onyx_magp() -> None:
    nvue = [
        {"header": {"model": "VX"}},
        {
            "set": {
                "system": {"hostname": "dut"},
                "interface": {
                    "vlan10": {
                        "type": "svi",
                        "vlan": 10,
                        "ip": {"address": {"10.1.10.2/24": {}}, "vrr": {"address": {"10.1.10.1/24": {}}}},
                    }
                },
            }
        },
    ]
    assert _kinds("cumulus.nvue-json", "cumulus", json.dumps(nvue).encode())["vlan10"] == [
        ("10.1.10.2/24", "primary", None),
        ("10.1.10.1/24", "vrr", None),
    ]
    db = json.loads((FIXTURES / "sonic/buildimage_sample_config_db.json").read_text())[
        "SAMPLE_CONFIG_DB_JSON"
    ]
    kinds = _kinds("sonic.config-db", "sonic", json.dumps(db).encode())
    assert kinds["Vlan111"] == [("10.222.10.65/26", "sag", None)]  # static_anycast_gateway "true"
    onyx = (FIXTURES / "onyx/synthetic_sn2700_running-config.txt").read_text().replace("HOSTNAME", "dut")
    onyx += (
        "##\n## MAGP configuration\n##\n   protocol magp\n   interface vlan 10\n"
        "   interface vlan 10 ip address 10.1.0.2/16 primary\n   interface vlan 10 magp 1\n"
        "   interface vlan 10 magp 1 ip virtual-router address 10.1.0.1\n"
    )
    kinds = _kinds("onyx.running-config", "onyx", onyx.encode())
    assert kinds["Vlan10"] == [("10.1.0.2/16", "primary", None), ("10.1.0.1/16", "magp", 1)]


# --- the checks ---------------------------------------------------------------------------------------

INTENT = {
    "tiers": {
        "oob": {"cidrs": ["10.250.0.0/16", "192.168.0.0/16"], "vrfs": ["MGMT"]},
        "frontend": {"cidrs": ["10.10.0.0/16", "10.255.0.0/16"], "vrfs": ["VRF10", "VRF11"]},
    }
}


def _verdicts(configs: dict[str, str]) -> set[tuple[str, str, str]]:
    facts: list[StoredFact[FactRecord]] = []
    targets = []
    for seq, (name, text) in enumerate(sorted(configs.items()), start=1):
        targets.append(TargetView(name, "device", "eos", Tier.FRONTEND, "leaf", TargetStatus.OK, None))
        for record in _normalize("eos.running-config", "eos", text.encode(), device=name):
            facts.append(StoredFact(len(facts) + 1, record.kind, name, seq, f"{seq:064x}", record))
    ctx = CheckContext(intent=Intent.model_validate(INTENT), facts=FactView(facts), targets=tuple(targets))
    return {
        (v.meta.id, v.finding.subject, v.finding.status.value)
        for v in run_checks(ctx, [c for _, c in check_registry().items()])
    }


def _pair(edit: Any = None) -> dict[str, str]:
    out = {}
    for name in ("dc1-leaf1a", "dc1-leaf1b"):
        text = (AVD / f"{name}.cfg").read_text()
        out[name] = edit(text) if edit else text
    return out


def test_a_shared_gateway_on_an_mlag_pair_adds_no_finding() -> None:
    shared = _pair()
    gateways = {
        name: {
            (f.name, a.address, a.kind)
            for f in _normalize("eos.running-config", "eos", t.encode(), name)
            if isinstance(f, Interface)
            for a in f.addresses
            if a.virtual
        }
        for name, t in shared.items()
    }
    assert gateways["dc1-leaf1a"] == gateways["dc1-leaf1b"] and len(gateways["dc1-leaf1a"]) == 4
    without = _pair(lambda t: re.sub(r"^   ip address virtual .*\n", "", t, flags=re.M))
    with_shared, baseline = _verdicts(shared), _verdicts(without)
    assert with_shared == baseline and len(with_shared) > 10
    assert not any(s == Status.FAIL.value and "10.10." in subject for _, subject, s in with_shared)


def test_a_shared_gateway_in_the_oob_range_still_fails() -> None:
    leaked = _pair(
        lambda t: t.replace("ip address virtual 10.10.11.1/24", "ip address virtual 10.250.11.1/24")
    )
    failed = {(check, subject) for check, subject, s in _verdicts(leaked) if s == Status.FAIL.value}
    hits = {
        subject
        for check, subject in failed
        if check == "T1-OOB-NOT-ROUTED-ELSEWHERE" and "10.250.11.1" in subject
    }
    assert {h.split(":")[0] for h in hits} == {"dc1-leaf1a", "dc1-leaf1b"}, failed
