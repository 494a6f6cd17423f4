"""A batch's facts are written together when it ends: the rows, their ids and order, and the facts digest
are what one write per capture gave, whatever mix of captures the batch holds, and a failed batch
leaves nothing behind (not even in the writer's queue)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import Engine, select

from auditor.capture import RawCapture
from auditor.enums import RunStatus, TargetStatus
from auditor.evidence.chain import canonical_json
from auditor.facts import FactRecord, Route, Vrf
from auditor.facts.kubernetes import K8sNetworkPolicy, PolicyFlavor
from auditor.store.digests import facts_section
from auditor.store.models import Capture, Fact
from auditor.store.writer import RunWriter


def _capture(name: str, n: int) -> RawCapture:
    return RawCapture(
        name, "synthetic", "synthetic", f"{name}-{n}", datetime(2026, 12, 1, tzinfo=UTC), f"{n}".encode(), {}
    )


def _facts(name: str, n: int) -> list[FactRecord]:
    return [Vrf(device=name, name=f"V{n}-{i}") for i in range(n % 4)] + [
        Route(device=name, vrf=f"V{n}", prefix=f"10.{n}.0.0/16")
    ]


def _policy(spec: dict[str, object]) -> K8sNetworkPolicy:
    return K8sNetworkPolicy(cluster="c", namespace="ns", name="p", flavor=PolicyFlavor.KUBERNETES, spec=spec)


def _stored(engine: Engine, run_id: int) -> list[tuple[int, int, str]]:
    with engine.connect() as conn:
        rows = conn.execute(
            select(Fact.id, Capture.seq, Fact.subject)
            .join(Capture, Capture.id == Fact.capture_id)
            .where(Fact.run_id == run_id)
            .order_by(Fact.id)
        )
        return [(int(i), int(s), str(subject)) for i, s, subject in rows]


def _assert_digest_as_read_back(engine: Engine, writer: RunWriter) -> None:
    seal = writer.seal(RunStatus.COMPLETE)
    with engine.connect() as conn:
        section = facts_section(conn, writer.run_id)
    assert (section["digest"], section["count"]) == (seal.facts_digest, seal.fact_count)


def test_batched_captures_keep_their_order_and_digest(engine: Engine) -> None:
    writer = RunWriter.start(engine, config={"intent": {}}, config_sha256="0" * 64, scope="t")
    expected: list[tuple[int, str]] = []
    with writer.batch():
        tids = [writer.add_target(kind="device", name=name) for name in ("a", "b", "c")]
    seq = 0
    for size in (1, 7, 2):  # batches of several captures, across targets
        with writer.batch():
            for n in range(size):
                name, tid = ("a", "b", "c")[n % 3], tids[n % 3]
                facts = _facts(name, seq)
                if seq == 4:  # a value orjson spells otherwise and JSONB re-spells: read back
                    facts.append(_policy({"x": 1e16, "y": [1.5, 2**70]}))
                writer.ingest(tid, _capture(name, seq), redactions=0, redaction_kinds={}, facts=facts)
                seq += 1
                expected += [(seq, f.subject()) for f in facts]
                if n == size - 1:
                    writer.finish_target(tid, TargetStatus.OK)
    stored = _stored(engine, writer.run_id)
    assert [(s, subject) for _, s, subject in stored] == expected
    ids = [i for i, _, _ in stored]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    _assert_digest_as_read_back(engine, writer)


def test_stored_text_is_canonical_json(engine: Engine) -> None:
    writer = RunWriter.start(engine, config={"intent": {}}, config_sha256="0" * 64, scope="t")
    tid = writer.add_target(kind="device", name="a")
    facts: list[FactRecord] = [
        Vrf(device="a", name='é"\\\x01漢', route_targets_import=["1e+16"], l3_vni=2**62)
    ]
    writer.ingest(tid, _capture("a", 0), redactions=0, redaction_kinds={}, facts=facts)
    if engine.dialect.name == "sqlite":  # JSONB keeps no text: the value is compared below
        with engine.connect() as conn:
            text = conn.exec_driver_sql("SELECT data FROM facts WHERE run_id = ?", (writer.run_id,)).scalar()
        assert text == canonical_json(facts[0].to_json()).decode()
    with engine.connect() as conn:
        data = conn.execute(select(Fact.data).where(Fact.run_id == writer.run_id)).scalar_one()
    assert data == facts[0].to_json()
    _assert_digest_as_read_back(engine, writer)


def test_a_failed_batch_leaves_no_facts_queued(engine: Engine) -> None:
    writer = RunWriter.start(engine, config={"intent": {}}, config_sha256="0" * 64, scope="t")
    tid = writer.add_target(kind="device", name="a")

    def failing_batch() -> None:
        with writer.batch():
            writer.ingest(tid, _capture("a", 1), redactions=0, redaction_kinds={}, facts=_facts("a", 1))
            raise RuntimeError("the batch fails before it ends")

    with pytest.raises(RuntimeError):
        failing_batch()
    assert _stored(engine, writer.run_id) == []
    writer.ingest(tid, _capture("a", 2), redactions=0, redaction_kinds={}, facts=_facts("a", 2))
    assert [(s, subject) for _, s, subject in _stored(engine, writer.run_id)] == [
        (1, f.subject()) for f in _facts("a", 2)
    ]
    _assert_digest_as_read_back(engine, writer)
