"""Live, the management plane is read from what the device reports running (through the real NAPALM
drivers against the test device server); offline, from its configuration, and the finding says so.

Where the device's report and its configuration agree, the live and offline records are the same but
for the mark of their source; the live records come from the operational captures, and the findings
name the basis of each service they judge.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from auditor.enums import FactKind
from auditor.facts import MgmtService
from auditor.pipeline.audit import run_audit
from auditor.store.engine import open_store
from auditor.store.reader import RunReader
from checks.reconcile import reconcile
from collectors.platforms.registry import get
from tests.devsim import profiles
from tests.devsim.sim import DevSim
from tests.network.helpers import config, entry

DEVICES = {"eos": "fe-leaf31", "nxos_ssh": "fe-leaf32", "ios": "fe-rtr33"}
OPERATIONAL = {
    "eos": {"eos.show-mgmt"},
    "nxos_ssh": {"nxos.show-json"},
    "ios": {"ios.show-mgmt", "ios.show-text"},
}
INTENT = {"tiers": {"oob": {"cidrs": ["10.250.0.0/16"], "vrfs": ["MGMT", "management"]}}}
MARKS = {"source", "all_vrfs"}


def _read(store: str, run: int) -> tuple[dict[str, Any], list[Any]]:
    engine = open_store(store)
    reader = RunReader(engine, run)
    stored = reader.facts({FactKind.MGMT_SERVICE})
    findings = [f for f in reader.findings() if f.check_id == "T1-MGMT-PLANE-IN-OOB-VRF"]
    engine.dispose()
    merged = {
        f.record.subject(): (f, f.record) for f in reconcile(stored) if isinstance(f.record, MgmtService)
    }
    return merged, findings


@pytest.mark.parametrize("builder", sorted(DEVICES))
def test_live_reads_the_running_state_offline_says_it_inferred(
    sim: DevSim, tmp_path: Path, builder: str
) -> None:
    name = DEVICES[builder]
    dev = sim.add(profiles.BUILDERS[builder](name))
    (tmp_path / "live").mkdir()
    live_cfg = config([entry(sim, dev, tier="frontend")], tmp_path / "live", intent=INTENT)
    live_run = run_audit(live_cfg, render=False).run_id
    files = tmp_path / "files"
    files.mkdir()
    (files / f"{name}.cfg").write_text(dev.answer(get(builder).live_commands()[0].command) or "")
    (tmp_path / "offline").mkdir()
    off_cfg = config([], tmp_path / "offline", intent=INTENT, sources={"files": [{"path": str(files)}]})
    off_run = run_audit(off_cfg, render=False).run_id

    live, live_findings = _read(live_cfg.store, live_run)
    offline, off_findings = _read(off_cfg.store, off_run)
    operational = {s for s, (f, r) in live.items() if r.source == "operational"}
    assert operational, "the device's report of what runs was read"
    assert all(live[s][0].capture_format in OPERATIONAL[builder] for s in operational)
    assert {r.source for _, r in offline.values()} == {"config"}
    for subject, (_, record) in offline.items():  # where both speak, they agree but for the mark
        if subject in operational:
            keep = set(type(record).model_fields) - MARKS
            assert live[subject][1].model_dump(include=keep) == record.model_dump(include=keep), subject
    # each finding about a service says what it rests on: the device's report, or an inference
    for findings, records in ((live_findings, live), (off_findings, offline)):
        assert findings
        for finding in findings:
            if finding.subject in records:
                basis = records[finding.subject][1].source
                said = "(operational state)" if basis == "operational" else "inferred from running-config"
                assert said in finding.found, (finding.subject, finding.found)
