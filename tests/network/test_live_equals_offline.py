"""A live audit of a dozen emulated devices (EOS, NX-OS, IOS, Cumulus, SONiC across the three tiers)
lands exactly the same facts as an offline audit of the same captures, exported with
`auditor evidence export` and read back by the offline files collector."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from auditor.pipeline.audit import run_audit
from auditor.store.engine import open_store
from auditor.store.reader import RunReader
from tests.devsim import profiles
from tests.devsim.sim import DevSim
from tests.network.helpers import cli, config, entry

FLEET = [
    ("eos", "be-leaf1"),
    ("eos", "be-leaf2"),
    ("eos", "fe-leaf1"),
    ("nxos_ssh", "be-spine1"),
    ("nxos_ssh", "fe-spine1"),
    ("ios", "oob-rtr1"),
    ("ios", "fe-rtr1"),
    ("cumulus", "oob-sw1"),
    ("cumulus", "be-leaf3"),
    ("cumulus", "oob-sw2"),
    ("sonic", "be-leaf4"),
    ("sonic", "fe-leaf2"),
]
INTENT = {
    "tiers": {
        "oob": {"cidrs": ["10.250.0.0/16"], "vrfs": ["MGMT", "mgmt"], "devices": ["oob-*"]},
        "frontend": {"cidrs": ["10.20.0.0/16"], "devices": ["fe-*"]},
        "backend": {"cidrs": ["10.30.0.0/15"], "vrfs": ["RDMA-A", "RDMA-B"], "devices": ["be-*"]},
    }
}


def facts_of(store: str) -> set[tuple[str, str, str, str]]:
    engine = open_store(store)
    reader = RunReader(engine, 1)
    rows = {(r.target, r.kind, r.subject, json.dumps(r.data, sort_keys=True)) for r in reader.raw_facts()}
    engine.dispose()
    return rows


def test_live_audit_and_offline_audit_of_its_export_agree(sim: DevSim, tmp_path: Path) -> None:
    devices = [sim.add(profiles.BUILDERS[p](name)) for p, name in FLEET]
    live_dir = tmp_path / "live"
    live_dir.mkdir()
    live: Any = config([entry(sim, d) for d in devices], live_dir, intent=INTENT, collection={"workers": 6})
    outcome = run_audit(live, render=False, workers=6)
    engine = open_store(live.store)
    targets = {t.name: t for t in RunReader(engine, outcome.run_id).targets()}
    engine.dispose()
    assert sorted(targets) == sorted(n for _, n in FLEET)
    assert {t.tier for t in targets.values()} == {"oob", "frontend", "backend"}
    assert all(t.status != "failed" for t in targets.values()), {n: t.reason for n, t in targets.items()}

    export = tmp_path / "export"
    assert cli("evidence", "export", str(export), "--store", live.store, "--run", "1") == 0

    off_dir = tmp_path / "offline"
    off_dir.mkdir()
    offline: Any = config([], off_dir, intent=INTENT, sources={"files": [{"path": str(export)}]})
    run_audit(offline, render=False)

    live_facts, offline_facts = facts_of(live.store), facts_of(offline.store)
    assert len(live_facts) > 100
    assert {t for t, *_ in live_facts} == {n for _, n in FLEET}
    assert live_facts == offline_facts
