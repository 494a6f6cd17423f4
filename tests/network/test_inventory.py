"""Inventory import: Nornir SimpleInventory, Ansible YAML and a NetBox dcim/devices export."""

from __future__ import annotations

from pathlib import Path

from auditor.config.models import AuditConfig, InventorySource
from auditor.enums import Tier
from collectors.network.collector import DeviceCollector
from collectors.network.inventory import load_inventory

INV = Path(__file__).resolve().parents[1] / "fixtures" / "devsim" / "inventory"
CREDS = {"username": "audit", "password_env": "AUDIT_PASS"}


def load(fmt: str, path: str) -> tuple[dict[str, object], list[str]]:
    src = InventorySource.model_validate(
        {"path": path, "format": fmt, "credentials": CREDS, "known_hosts": "kh"}
    )
    imported = load_inventory(src, INV)
    return {d.target_name: d for d in imported.devices}, [str(p) for p in imported.problems]


def test_nornir_hosts_inherit_groups_and_defaults() -> None:
    devices, problems = load("nornir", ".")
    assert set(devices) == {"be-leaf1", "be-leaf2", "oob-sw1", "fe-router"}
    leaf1 = devices["be-leaf1"]
    assert (leaf1.host, leaf1.platform, leaf1.port, leaf1.tier, leaf1.role) == (
        "10.30.255.1",
        "eos",
        22,
        Tier.BACKEND,
        "leaf",
    )  # type: ignore[attr-defined]
    leaf2 = devices["be-leaf2"]
    # NAPALM's driver name is an alias: the device is stored under the platform's one name
    assert (leaf2.platform, leaf2.port, leaf2.tier) == ("nxos", 2222, Tier.BACKEND)  # type: ignore[attr-defined]
    oob = devices["oob-sw1"]
    assert (oob.platform, oob.tier, oob.role) == ("cumulus", Tier.OOB, "mgmt-switch")  # type: ignore[attr-defined]
    assert oob.credentials.password_env == "AUDIT_PASS"  # type: ignore[attr-defined]
    assert str(oob.known_hosts) == "kh"  # type: ignore[attr-defined]
    assert devices["fe-router"].platform == "junos"  # type: ignore[attr-defined]
    assert len(problems) == 1 and "fw-1" in problems[0] and "vyos" in problems[0]


def test_ansible_vars_flow_down_and_host_vars_win() -> None:
    devices, problems = load("ansible", "ansible.yaml")
    assert problems == []
    assert {n: (d.platform, d.tier, d.role) for n, d in devices.items()} == {  # type: ignore[attr-defined]
        "be-leaf1": ("eos", Tier.BACKEND, "leaf"),
        "be-leaf3": ("nxos", Tier.BACKEND, "leaf"),
        "be-sonic1": ("sonic", Tier.BACKEND, None),
        "oob-sw1": ("cumulus", Tier.OOB, None),
    }
    assert devices["be-leaf3"].port == 2222  # type: ignore[attr-defined]


def test_netbox_export() -> None:
    devices, problems = load("netbox", "netbox-devices.json")
    assert devices["be-leaf1"].host == "10.30.255.1"  # type: ignore[attr-defined]
    assert devices["be-leaf1"].tier == Tier.BACKEND  # type: ignore[attr-defined]
    assert devices["oob-sw1"].host == "10.250.0.11"  # type: ignore[attr-defined]
    assert (devices["oob-sw1"].platform, devices["oob-sw1"].role, devices["oob-sw1"].tier) == (  # type: ignore[attr-defined]
        "cumulus",
        "mgmt-switch",
        Tier.OOB,
    )
    assert "pdu-1" not in devices
    assert any("pdu-1" in p and "platform" in p for p in problems)


def test_collector_plans_config_and_inventory_devices_once() -> None:
    cfg = AuditConfig.model_validate(
        {
            "intent": {"tiers": {"oob": {"devices": ["oob-*"]}}},
            "sources": {
                "devices": [
                    {"host": "10.30.255.1", "name": "be-leaf1", "platform": "eos", "credentials": CREDS}
                ],
                "inventory": [{"path": ".", "format": "nornir", "credentials": CREDS}],
            },
            "base_dir": INV,
        }
    )
    plan = DeviceCollector().plan(cfg)
    names = [t.name for t in plan.targets]
    assert sorted(names) == ["be-leaf1", "be-leaf2", "fe-router", "oob-sw1"]
    assert any("listed twice" in p.message for p in plan.problems)
    oob = next(t for t in plan.targets if t.name == "oob-sw1")
    assert oob.tier == Tier.OOB and oob.payload.device.platform == "cumulus"


def test_missing_inventory_is_a_problem_not_a_crash() -> None:
    _, problems = load("nornir", "nowhere/hosts.yaml")
    assert problems and "does not exist" in problems[0]
