"""A 50-device emulated fleet through the real CLI: 5 unreachable, 3 with bad credentials and 2 that
hang. The run completes, exactly those 10 targets fail with the right reasons, the other 40 are
collected, and the exit code is 3 (evidence incomplete)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from auditor.enums import TargetStatus
from auditor.store.engine import open_store
from auditor.store.reader import RunReader, latest_run_id
from tests.devsim import profiles
from tests.devsim.sim import DevSim
from tests.network.helpers import cli, entry

MIX = ["eos", "cumulus", "sonic", "eos", "cumulus", "sonic", "nxos_ssh", "ios", "onyx", "cumulus"]


def test_fleet_of_50_with_10_faulty(sim: DevSim, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    entries = []
    expected: dict[str, str] = {}
    for i in range(40):
        platform = MIX[i % len(MIX)]
        dev = sim.add(profiles.BUILDERS[platform](f"ok-{i:02d}-{platform}"))
        entries.append(dev)
    for i in range(3):
        dev = sim.add(profiles.BUILDERS[MIX[i]](f"badpw-{i}", password="wrong"))
        entries.append(dev)
        expected[dev.name] = "authentication failed"
    for i, platform in enumerate(("nxos_ssh", "eos")):
        dev = sim.add(profiles.BUILDERS[platform](f"hang-{i}", behaviour="hang"))
        entries.append(dev)
        expected[dev.name] = "timed out"
    rows = [entry(sim, d) for d in entries]
    for i in range(5):
        dev = profiles.BUILDERS[MIX[i]](f"down-{i}")
        dev.port = sim.closed_port()
        rows.append(entry(sim, dev))
        expected[dev.name] = "unreachable"
    rows[0]["accept_unknown_host_key"] = rows[0]["platform"] != "eos"
    rows[0]["verify_tls"] = rows[0]["platform"] != "eos"
    store = f"sqlite:///{tmp_path / 'fleet.db'}"
    cfg = {
        "sources": {"devices": rows},
        "collection": {"connect_timeout": 2, "command_timeout": 2, "retries": 1, "retry_backoff": 0.05},
        "store": store,
        "output": str(tmp_path / "out"),
        "reports": ["json"],
    }
    path = tmp_path / "auditor.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    code = cli("audit", "-c", str(path), "-q")
    assert code == 3
    printed = capsys.readouterr()
    assert "audit-pass" not in printed.out + printed.err

    engine = open_store(store)
    run_id = latest_run_id(engine)
    assert run_id is not None
    targets = {t.name: t for t in RunReader(engine, run_id).targets()}
    assert len(targets) == 50
    failed = {n for n, t in targets.items() if t.status == TargetStatus.FAILED.value}
    assert failed == set(expected)
    for name, reason in expected.items():
        assert reason in targets[name].reason, (name, targets[name].reason)
    for name, t in targets.items():
        if name.startswith("ok-"):
            # OK once every capture format has a normalizer; until then PARTIAL, for that reason only
            assert t.status == TargetStatus.OK.value or (
                t.status == TargetStatus.PARTIAL.value and "no normalizer for format" in t.reason
            ), (name, t.status, t.reason)
    engine.dispose()
    for db in tmp_path.glob("fleet.db*"):  # the database and its WAL: no secret was stored anywhere
        assert b"audit-pass" not in db.read_bytes()
    notes = targets[entries[0].name].notes
    assert notes and "NOT verified" in notes[0]
