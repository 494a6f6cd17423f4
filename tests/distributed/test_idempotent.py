"""A task is idempotent (no broker here: the task's own work, on a PostgreSQL store): an attempt that dies
after part of its target landed is followed by one that stores only the rest; a task whose target is done
does nothing; the chain verifies."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from sqlalchemy import text

from auditor.config.loader import load_config
from auditor.distributed import task as task_module
from auditor.distributed.task import TaskRef, WorkerContext, collect_one
from auditor.enums import RunStatus
from auditor.evidence.verify import verify_run
from auditor.pipeline.audit import config_snapshot
from auditor.store.engine import open_store
from auditor.store.writer import RunWriter

pytestmark = pytest.mark.postgres
LAB = Path(__file__).resolve().parents[2] / "examples" / "lab"


class WorkerDied(BaseException):
    """Stands for SIGKILL: nothing after it runs, not even `except Exception`."""


def test_redelivered_task_stores_only_what_the_dead_attempt_did_not(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = yaml.safe_load((LAB / "auditor.yaml").read_text())
    data["sources"] = {"files": [{"path": str(LAB / "evidence" / "k8s"), "cluster": "lab-cluster"}]}
    data["store"] = pg_url
    (tmp_path / "a.yaml").write_text(yaml.safe_dump(data))
    cfg = load_config(tmp_path / "a.yaml")
    engine = open_store(pg_url)
    snapshot, digest = config_snapshot(cfg)
    writer = RunWriter.start(engine, config=snapshot, config_sha256=digest, scope=cfg.scope)
    writer.shared = True
    tid = writer.add_target(kind="kubernetes", name="lab-cluster")
    ref = TaskRef(writer.run_id, tid, "kubernetes", "lab-cluster", str(tmp_path))
    context = WorkerContext(engine)

    monkeypatch.setattr(task_module, "FLUSH_ITEMS", 2)  # the 6 files land 2 by 2
    flush = task_module._Appender.flush
    flushed = {"n": 0}

    def dies_after_first_batch(self: Any, batch: list[Any]) -> bool:
        if flushed["n"] == 1:
            raise WorkerDied
        flushed["n"] += 1
        return flush(self, batch)

    monkeypatch.setattr(task_module._Appender, "flush", dies_after_first_batch)
    with pytest.raises(WorkerDied):
        collect_one(context, ref)
    monkeypatch.setattr(task_module._Appender, "flush", flush)
    assert _captures(engine, writer.run_id) == 2

    assert collect_one(context, ref) == "collected lab-cluster: 4 captures stored, 2 already held"
    assert collect_one(context, ref) == "skipped: lab-cluster was already collected (ok)"
    with engine.connect() as conn:
        keys = conn.execute(
            text("SELECT source, origin FROM captures WHERE run_id = :r"), {"r": writer.run_id}
        )
        assert set(Counter(tuple(k) for k in keys).values()) == {1}
    assert _captures(engine, writer.run_id) == 6
    seal = writer.seal(RunStatus.COMPLETE)
    assert seal.capture_count == 6
    assert verify_run(engine, writer.run_id, None).ok
    engine.dispose()


def _captures(engine: Any, run_id: int) -> int:
    with engine.connect() as conn:
        return int(
            conn.execute(text("SELECT count(*) FROM captures WHERE run_id = :r"), {"r": run_id}).scalar_one()
        )
