"""`auditor evidence export` carries the run's gaps: a partial live run (a device that stopped answering
half-way, one that could not be reached, a device listed twice), exported and re-audited offline, is
exactly as complete as the run: same target statuses and reasons, same findings (NOT_ASSESSED ones
included), same exit code."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from auditor.enums import Status
from auditor.pipeline.audit import run_audit
from auditor.store.engine import open_store
from auditor.store.reader import RunReader
from collectors.export import SUFFIX
from tests.devsim import profiles
from tests.devsim.sim import DevSim
from tests.network.helpers import cli, config, entry

INTENT = {
    "tiers": {
        "oob": {"cidrs": ["10.250.0.0/16"], "vrfs": ["MGMT", "mgmt"], "devices": ["oob-*"]},
        "frontend": {"cidrs": ["10.20.0.0/16"], "devices": ["fe-*"]},
        "backend": {"cidrs": ["10.30.0.0/15"], "vrfs": ["RDMA-A", "RDMA-B"], "devices": ["be-*"]},
    }
}


def _state(store: str, run_id: int) -> dict[str, Any]:
    engine = open_store(store)
    reader = RunReader(engine, run_id)
    state = {
        "targets": {(t.kind, t.name): (t.status, t.reason) for t in reader.targets()},
        "findings": sorted(
            (f.check_id, f.status, f.target or "", f.subject, f.message) for f in reader.findings()
        ),
        "run_problems": sorted((p.location, p.message) for p in reader.problems() if p.target is None),
        "target_problems": sorted(
            (p.target, p.location, p.message) for p in reader.problems() if p.target is not None
        ),
    }
    engine.dispose()
    return state


# With the planted configs' failures (exit 1), and with no tier declared: nothing fails, only the gaps
# remain (exit 3).
@pytest.mark.parametrize("intent", [INTENT, {}], ids=["tiers", "no-tiers"])
def test_partial_live_run_reaudits_offline_exactly_as_complete(
    sim: DevSim, tmp_path: Path, intent: dict[str, Any]
) -> None:
    healthy = [sim.add(profiles.eos("be-leaf1")), sim.add(profiles.sonic("fe-leaf2"))]
    stuck = sim.add(profiles.nxos("be-spine1", hang_on="show ip route vrf all | json"))
    gone = profiles.ios("oob-rtr1")
    gone.port = sim.closed_port()
    entries = [entry(sim, d) for d in [*healthy, stuck, gone]]
    entries.append(entry(sim, healthy[0]))  # listed twice: a problem of the run itself
    live_dir = tmp_path / "live"
    live_dir.mkdir()
    collection = {"device_deadline": 6, "command_timeout": 3, "connect_timeout": 2, "retries": 0}
    live: Any = config(entries, live_dir, intent=intent, collection=collection)
    outcome = run_audit(live, render=False)
    before = _state(live.store, outcome.run_id)
    assert before["targets"][("device", "be-spine1")][0] == "partial"
    assert before["targets"][("device", "oob-rtr1")][0] == "failed"
    assert before["run_problems"]  # the duplicate entry
    assert outcome.exit_code == (1 if intent else 3)

    export = tmp_path / "export"
    assert cli("evidence", "export", str(export), "--store", live.store, "--run", str(outcome.run_id)) == 0
    # the unreachable device has no capture but still has its file: its gap and status
    gone_lines = [json.loads(x) for x in (export / "device" / f"oob-rtr1{SUFFIX}").read_text().splitlines()]
    assert [x["record"] for x in gone_lines] == ["target"]
    assert gone_lines[0]["status"] == "failed" and "unreachable" in gone_lines[0]["reason"]

    off_dir = tmp_path / "offline"
    off_dir.mkdir()
    offline: Any = config([], off_dir, intent=intent, sources={"files": [{"path": str(export)}]})
    again = run_audit(offline, render=False)
    after = _state(offline.store, again.run_id)

    assert after["targets"] == before["targets"]
    assert after["findings"] == before["findings"]
    assert any(f[1] == Status.NOT_ASSESSED.value for f in after["findings"])
    assert set(before["run_problems"]) <= set(after["run_problems"])
    assert set(before["target_problems"]) <= set(after["target_problems"])
    assert again.exit_code == outcome.exit_code
    assert again.statuses.count(Status.NOT_ASSESSED) == outcome.statuses.count(Status.NOT_ASSESSED)


def test_complete_run_exports_no_gap_records(sim: DevSim, tmp_path: Path) -> None:
    dev = sim.add(profiles.sonic("fe-leaf9"))
    live: Any = config([entry(sim, dev)], tmp_path, intent=INTENT)
    outcome = run_audit(live, render=False)
    export = tmp_path / "export"
    assert cli("evidence", "export", str(export), "--store", live.store, "--run", str(outcome.run_id)) == 0
    records = [json.loads(x) for f in export.rglob(f"*{SUFFIX}") for x in f.read_text().splitlines()]
    assert records and not any("record" in r for r in records)
