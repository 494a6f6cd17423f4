"""The example lab with a port manifest and VRF aliases in its auditor.yaml: through the real CLI, a
correct manifest changes no verdict, and a port declared to the wrong tenant fails port by port."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from tests.e2e.conftest import run_cli
from tests.e2e.test_example_lab import planted

UPLINKS = {"devices": ["be-leaf*"], "interfaces": ["Ethernet1-2"], "tier": "backend", "role": "uplink"}
TENANT_A = {"devices": ["be-leaf*"], "interfaces": ["Et3"], "tier": "backend", "tenant": "A", "vlan": 3001,
            "vrf": "RDMA-A", "role": "gpu"}  # fmt: skip
TENANT_B = {"devices": ["be-leaf*"], "interfaces": ["Ethernet4"], "tier": "backend", "tenant": "B",
            "vlan": "3002", "vrf": "RDMA-B", "role": "gpu"}  # fmt: skip


def _audit(lab: Path, ports: list[dict[str, Any]]) -> tuple[set[tuple[str, str]], list[dict[str, Any]]]:
    config = yaml.safe_load((lab / "auditor.yaml").read_text())
    config["intent"]["ports"] = ports
    config["intent"]["vrf_aliases"] = {"RDMA_A": "RDMA-A"}
    (lab / "auditor.yaml").write_text(yaml.safe_dump(config))
    result = run_cli("audit", "-c", str(lab / "auditor.yaml"), "--quiet")
    assert result.returncode == 1, result.stdout + result.stderr
    findings = json.loads((lab / "out" / "run-1.json").read_text())["findings"]
    failed = {(f["check_id"], f["subject"]) for f in findings if f["status"] == "FAIL"}
    return failed, findings


def test_a_correct_manifest_changes_no_verdict(lab: Path) -> None:
    failed, findings = _audit(lab, [UPLINKS, TENANT_A, TENANT_B])
    assert failed == planted()
    passed = {(f["check_id"], f["subject"]) for f in findings if f["status"] == "PASS"}
    assert ("T3-TENANT-ISOLATION", "be-leaf1: tenant ports") in passed
    assert {f["status"] for f in findings} <= {"PASS", "FAIL"}


def test_a_port_in_another_tenants_vlan_fails_port_by_port(lab: Path) -> None:
    wrong = dict(TENANT_A, interfaces=["Ethernet3-4"])  # Ethernet4 is in VLAN 3002, tenant B's
    failed, _ = _audit(lab, [UPLINKS, wrong, dict(TENANT_B, interfaces=["Ethernet40"])])
    extra = failed - planted()
    assert extra == {
        ("T3-TENANT-ISOLATION", "be-leaf1/Ethernet4"),
        ("T3-TENANT-ISOLATION", "be-leaf2/Ethernet4"),
    }
    assert planted() <= failed
