"""`auditor spot DEVICE`: one device, live, findings in seconds, nothing added to the team's store."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.devsim import profiles
from tests.devsim.sim import DevSim
from tests.network.helpers import cli, entry


def test_spot_collects_one_device_and_prints_its_findings(
    sim: DevSim, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    leaf = sim.add(profiles.eos("be-leaf1"))
    other = sim.add(profiles.sonic("be-sonic1"))
    store = tmp_path / "team.db"
    cfg = {
        "intent": {
            "tiers": {"backend": {"cidrs": ["10.30.0.0/15"], "vrfs": ["RDMA-A"], "devices": ["be-*"]}}
        },
        "sources": {"devices": [entry(sim, leaf), entry(sim, other)]},
        "store": f"sqlite:///{store}",
    }
    path = tmp_path / "auditor.yaml"
    path.write_text(yaml.safe_dump(cfg))
    code = cli("spot", "be-leaf1", "-c", str(path), "--check", "T3-MTU-JUMBO")
    printed = capsys.readouterr().out
    assert code in (0, 1, 3)
    assert "be-leaf1: collection" in printed
    assert "T3-MTU-JUMBO" in printed
    assert "be-sonic1" not in printed
    assert sim.log.for_device("be-sonic1") == []  # only the one device was contacted
    assert not store.exists()  # the team's store is untouched

    assert cli("spot", "nope", "-c", str(path)) == 2
    assert "no device named 'nope'" in capsys.readouterr().err
