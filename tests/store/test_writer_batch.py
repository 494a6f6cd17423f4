"""Several writes in one transaction (the collection's writer thread drains its queue into batches): a
batch lands whole, in chain order, or not at all, and after a failed batch the chain goes on from the
last committed link, so the sealed run still verifies."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import Engine, func, select

from auditor.capture import RawCapture
from auditor.enums import RunStatus, TargetStatus
from auditor.evidence.verify import verify_run
from auditor.facts import Vrf
from auditor.normalize import Problem
from auditor.store import writer as writer_module
from auditor.store.digests import facts_digest
from auditor.store.models import Capture, Fact, Target
from auditor.store.models import Problem as ProblemRow
from auditor.store.reader import RunReader
from auditor.store.writer import RunWriter


def _capture(n: int) -> RawCapture:
    return RawCapture(
        target="leaf1",
        format="eos.running-config",
        source="show running-config",
        origin=f"leaf1-{n}.cfg",
        collected_at=datetime(2026, 12, 1, 10, 0, n, tzinfo=UTC),
        content=f"hostname leaf1\n! capture {n}\n".encode(),
        meta={"device": "leaf1"},
    )


def _ingest(writer: RunWriter, tid: int, n: int) -> None:
    writer.ingest(
        tid, _capture(n), redactions=0, redaction_kinds={}, facts=[Vrf(device="leaf1", name=f"V{n}")]
    )


def _count(engine: Engine, table: type, run_id: int) -> int:
    with engine.connect() as conn:
        return int(conn.execute(select(func.count()).where(table.run_id == run_id)).scalar_one())  # type: ignore[attr-defined]


def test_a_batch_lands_whole_and_in_chain_order(engine: Engine) -> None:
    writer = RunWriter.start(engine, config={"intent": {}}, config_sha256="0" * 64, scope="t")
    with writer.batch():
        tid = writer.add_target(kind="device", name="leaf1")
        for n in range(5):
            _ingest(writer, tid, n)
        writer.add_problems(tid, [Problem("leaf1", "one command was refused")])
        writer.finish_target(tid, TargetStatus.PARTIAL, "one command was refused")
    seal = writer.seal(RunStatus.PARTIAL)
    assert (seal.capture_count, seal.fact_count) == (5, 5)
    reader = RunReader(engine, writer.run_id)
    assert [f.record.name for f in reader.facts()] == [f"V{n}" for n in range(5)]  # type: ignore[attr-defined]
    assert [f.capture_seq for f in reader.facts()] == [1, 2, 3, 4, 5]
    assert [t.status for t in reader.targets()] == ["partial"]
    assert _count(engine, ProblemRow, writer.run_id) == 1
    assert verify_run(engine, writer.run_id).ok


def test_a_failed_batch_leaves_nothing_and_the_chain_goes_on(engine: Engine) -> None:
    writer = RunWriter.start(engine, config={"intent": {}}, config_sha256="0" * 64, scope="t")
    tid = writer.add_target(kind="device", name="leaf1")
    _ingest(writer, tid, 0)
    head = writer.chain_head

    def failing_batch() -> None:
        with writer.batch():
            _ingest(writer, tid, 1)
            _ingest(writer, tid, 2)
            writer.finish_target(tid, TargetStatus.OK)
            raise RuntimeError("store went away")

    with pytest.raises(RuntimeError, match="store went away"):
        failing_batch()
    # nothing of the batch: neither its captures nor their facts nor the target's new state
    assert writer.chain_head == head
    assert _count(engine, Capture, writer.run_id) == 1 and _count(engine, Fact, writer.run_id) == 1
    with engine.connect() as conn:
        assert conn.execute(select(Target.status).where(Target.id == tid)).scalar_one() == "pending"
    _ingest(writer, tid, 3)  # chained to the last committed capture
    writer.finish_target(tid, TargetStatus.OK)
    seal = writer.seal(RunStatus.COMPLETE)
    assert (seal.capture_count, seal.fact_count) == (2, 2)
    result = verify_run(engine, writer.run_id)
    assert result.ok, result.mismatches
    assert result.captures_checked == 2


def test_the_running_facts_digest_is_the_verify_digest(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writer_module, "DIGEST_EVERY", 3)  # read back in several steps
    writer = RunWriter.start(engine, config={"intent": {}}, config_sha256="0" * 64, scope="t")
    tid = writer.add_target(kind="device", name="leaf1")
    for first in range(0, 12, 4):
        with writer.batch():
            for n in range(first, first + 4):
                writer.ingest(
                    tid,
                    _capture(n),
                    redactions=0,
                    redaction_kinds={},
                    facts=[Vrf(device="leaf1", name=f"V{n}"), Vrf(device="leaf1", name=f"W{n}", rd=f"1:{n}")],
                )
    writer.finish_target(tid, TargetStatus.OK)
    seal = writer.seal(RunStatus.COMPLETE)
    with engine.connect() as conn:
        assert (
            (seal.facts_digest, seal.fact_count)
            == facts_digest(conn, writer.run_id)
            == (seal.facts_digest, 24)
        )
    assert verify_run(engine, writer.run_id).ok
