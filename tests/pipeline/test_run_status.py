"""Run statuses: an interrupted run is sealed as interrupted and keeps what was collected."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from sqlalchemy import Engine

from auditor.config.loader import load_config
from auditor.enums import RunStatus
from auditor.evidence.verify import verify_run
from auditor.pipeline.audit import run_audit
from auditor.store.engine import open_store
from auditor.store.reader import RunReader

LAB = Path(__file__).resolve().parents[2] / "examples" / "lab"


class InterruptAfter:
    """A progress sink that presses Ctrl-C after the first finished target (it runs in the writer thread)."""

    def planned(self, targets: int) -> None:
        pass

    def target_done(self, name: str, ok: bool) -> None:
        raise KeyboardInterrupt

    def phase(self, text: str) -> None:
        pass


@pytest.fixture
def lab_copy(tmp_path: Path) -> Path:
    shutil.copytree(LAB, tmp_path / "lab", ignore=shutil.ignore_patterns(".auditor", "out"))
    return tmp_path / "lab"


def test_interrupted_run_is_sealed_as_interrupted(lab_copy: Path, store_url: str) -> None:
    config = load_config(lab_copy / "auditor.yaml")
    engine: Engine = open_store(store_url)
    with pytest.raises(KeyboardInterrupt):
        run_audit(config, engine=engine, progress=InterruptAfter(), workers=1, render=False)
    reader = RunReader(engine, 1)
    run = reader.run_row()
    assert run.status == RunStatus.INTERRUPTED.value
    assert "interrupted" in run.reason
    assert run.capture_count >= 1  # what was collected before the interrupt is kept ...
    assert verify_run(engine, 1).ok  # ... and sealed, so it still verifies


def test_complete_run_on_both_stores(lab_copy: Path, store_url: str) -> None:
    config = load_config(lab_copy / "auditor.yaml")
    engine = open_store(store_url)
    outcome = run_audit(config, engine=engine, render=False)
    assert outcome.seal.status == RunStatus.COMPLETE
    assert outcome.exit_code == 1
    assert verify_run(engine, outcome.run_id).ok
    facts = RunReader(engine, outcome.run_id).facts()
    assert {f.target for f in facts} >= {
        "be-leaf1",
        "fe-leaf1",
        "oob-sw1",
        "lab-cluster",
        "111122223333/us-east-1",
    }
