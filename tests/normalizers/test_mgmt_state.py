"""The management plane as the device reports it running, preferred to what its config implies.

Readers on the public layouts (EOS `show management ssh` before and from 4.32, `show management api
http-commands`; NX-OS `show feature | json`; IOS `show ip http server status`, `show ip ssh`), and on
T1-MGMT-PLANE-IN-OOB-VRF:
- decoy: EOS keeps SSH on in the default VRF unless told otherwise, so a config without `management
  ssh` implies a data-plane listener (FAIL offline, saying it inferred that); the switch reports
  `SSHD status for Default VRF: disabled`, and that reading wins: no SSH finding;
- violation: a config that shuts SSH (`management ssh` / `shutdown`) on a switch that reports SSH
  enabled in the default VRF FAILs on the operational reading, saying so;
- NX-OS `show feature` reporting nxapi disabled supersedes the config's `nxapi use-vrf` reading.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from auditor.capture import RawCapture
from auditor.config.models import Intent
from auditor.enums import Status, TargetStatus, Tier
from auditor.facts import Coverage, FactRecord, MgmtService
from auditor.normalize import NormalizerRegistry
from auditor.store.reader import StoredFact
from checks.base import CheckContext, FactView, TargetView
from checks.reconcile import reconcile
from checks.tier1.mgmt_plane_in_oob_vrf import MgmtPlaneInOobVrf

ROOT = Path(__file__).resolve().parents[2]
DEVSIM = ROOT / "tests/fixtures/devsim"
AVD_LEAF = ROOT / "tests/fixtures/avd/examples/single-dc-l3ls/intended/configs/dc1-leaf1a.cfg"
NXOS_LEAF = ROOT / "tests/fixtures/nxos/ai_backend_leaf/running-config.txt"
REGISTRY = NormalizerRegistry().load_entry_points()

SSH_OLD = "SSHD status for Default VRF is disabled\nSSH connection limit is 50\nSSH per host connection limit is 20\n"
SSH_432 = (
    "User certificate authentication methods: none (neither trusted CA nor SSL profile configured)\n"
    "SSHD status for Default VRF: enabled\nSSHD status for VRF MGMT: enabled\nSSH connection limit: 50\n"
)


def _read(fmt: str, platform: str, text: str, command: str | None = None) -> list[FactRecord]:
    meta = {"device": "dut", "platform": platform}
    if command:
        meta["command"] = command
    capture = RawCapture(
        target="dut",
        format=fmt,
        source=command or "file",
        origin="dut",
        collected_at=datetime(2025, 3, 4, tzinfo=UTC),
        content=text.encode(),
        meta=meta,
    )
    result = REGISTRY.get(fmt)(capture)
    return [*result.facts, *(Coverage(target="dut", covers=k) for k in result.covers)]


def _services(facts: list[FactRecord]) -> set[tuple[str, str, bool, str]]:
    return {(f.service, f.vrf, f.enabled, f.source) for f in facts if isinstance(f, MgmtService)}


def test_eos_readers() -> None:
    assert _services(_read("eos.show-mgmt", "eos", SSH_OLD, "show management ssh")) == {
        ("ssh", "default", False, "operational")
    }
    assert _services(_read("eos.show-mgmt", "eos", SSH_432, "show management ssh")) == {
        ("ssh", "default", True, "operational"),
        ("ssh", "MGMT", True, "operational"),
    }
    http = (DEVSIM / "eos/show_management_api_http-commands.txt").read_text()
    assert _services(_read("eos.show-mgmt", "eos", http, "show management api http-commands")) == {
        ("eapi", "MGMT", True, "operational")
    }
    stopped = http.replace("HTTPS server:       running", "HTTPS server:       shutdown")
    assert _services(_read("eos.show-mgmt", "eos", stopped, "show management api http-commands")) == {
        ("eapi", "MGMT", False, "operational")
    }


def test_nxos_and_ios_readers() -> None:
    features = (DEVSIM / "nxos_ssh/show_feature___json.txt").read_text()
    facts = _read("nxos.show-json", "nxos", features, "show feature | json")
    # nxapi runs: the VRF it serves is the config's (`nxapi use-vrf`), so the reading adds nothing for it
    assert _services(facts) == {("ssh", "*", True, "operational"), ("telnet", "*", False, "operational")}
    http = (DEVSIM / "ios/show_ip_http_server_status.txt").read_text()
    assert _services(_read("ios.show-text", "ios", http, "show ip http server status")) == {
        ("http", "default", False, "operational"),
        ("https", "default", False, "operational"),
    }
    ssh = (DEVSIM / "ios/show_ip_ssh.txt").read_text()
    assert _services(_read("ios.show-mgmt", "ios", ssh, "show ip ssh")) == {
        ("ssh", "default", True, "operational")
    }


def _stored(facts: list[FactRecord]) -> list[StoredFact[FactRecord]]:
    return [StoredFact(i, f.kind, "dut", i, f"{i:064x}", f) for i, f in enumerate(facts, start=1)]


def _findings(*captures: list[FactRecord]) -> dict[str, tuple[Status, str]]:
    facts = _stored([f for c in captures for f in c])
    intent = Intent.model_validate(
        {"tiers": {"oob": {"cidrs": ["10.250.0.0/16"], "vrfs": ["MGMT", "management"]}}}
    )
    target = TargetView("dut", "device", "eos", Tier.FRONTEND, "leaf", TargetStatus.OK, None)
    ctx = CheckContext(intent=intent, facts=FactView(facts), targets=(target,))
    return {f.subject: (f.status, f.found) for f in MgmtPlaneInOobVrf().evaluate(ctx)}


def test_operational_ssh_state_clears_an_inferred_listener() -> None:
    config = _read("eos.running-config", "eos", AVD_LEAF.read_text(), "show running-config")
    offline = _findings(config)
    status, found = offline["dut/ssh in vrf default"]
    assert status == Status.FAIL and "inferred from running-config; operational state not collected" in found
    live = _findings(config, _read("eos.show-mgmt", "eos", SSH_OLD, "show management ssh"))
    assert "dut/ssh in vrf default" not in live  # the switch reports SSH off there
    assert live["dut/eapi in vrf default"][0] == Status.FAIL  # eAPI's default VRF: still inferred, still said
    assert "inferred from running-config" in live["dut/eapi in vrf default"][1]


def test_operational_ssh_state_reveals_a_listener_the_config_shuts() -> None:
    text = AVD_LEAF.read_text().replace(
        "management api http-commands", "management ssh\n   shutdown\n!\nmanagement api http-commands", 1
    )
    config = _read("eos.running-config", "eos", text, "show running-config")
    assert "dut/ssh in vrf default" not in _findings(config)  # the config says off
    live = _findings(config, _read("eos.show-mgmt", "eos", SSH_432, "show management ssh"))
    status, found = live["dut/ssh in vrf default"]
    assert status == Status.FAIL and found.endswith("(operational state)")


def test_nxos_feature_off_supersedes_use_vrf() -> None:
    config = _read("nxos.running-config", "nxos", NXOS_LEAF.read_text(), "show running-config")
    assert ("nxapi", "management", True, "config") in _services(config)
    doc = json.loads((DEVSIM / "nxos_ssh/show_feature___json.txt").read_text())
    for row in doc["TABLE_cfcFeatureCtrlTable"]["ROW_cfcFeatureCtrlTable"]:
        if row["cfcFeatureCtrlName2"] == "nxapi":
            row["cfcFeatureCtrlOpStatus2"] = "disabled"
    state = _read("nxos.show-json", "nxos", json.dumps(doc), "show feature | json")
    merged = {
        (f.record.service, f.record.vrf): f.record
        for f in reconcile(_stored(config + state))
        if isinstance(f.record, MgmtService)
    }
    assert ("nxapi", "management") not in merged
    assert merged[("nxapi", "*")].enabled is False
    ssh = merged[("ssh", "*")]  # merged with the config's record of the same VRF: its VTY ACL stays
    assert (ssh.source, ssh.enabled, ssh.acl) == ("operational", True, "MGMT-SSH")
