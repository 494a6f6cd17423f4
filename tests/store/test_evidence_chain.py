"""Captures are chained and append-only; verify names the first capture that was tampered with."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.exc import DBAPIError, IntegrityError

from auditor.capture import RawCapture
from auditor.enums import RunStatus, TargetStatus
from auditor.evidence.verify import verify_run
from auditor.facts import Route, Vrf
from auditor.normalize import Problem
from auditor.store.reader import RunReader
from auditor.store.writer import FindingRow, RunWriter

BLOCKED = (DBAPIError, IntegrityError)


def _capture(target: str, n: int) -> RawCapture:
    return RawCapture(
        target=target,
        format="eos.running-config",
        source="show running-config",
        origin=f"{target}.cfg",
        collected_at=datetime(2026, 12, 1, 10, 0, n, 123456, tzinfo=UTC),
        content=f"hostname {target}\n! capture {n}\nend\n".encode(),
        meta={"device": target, "platform": "eos"},
    )


def _run(engine: Engine, captures: int = 3) -> RunWriter:
    writer = RunWriter.start(engine, config={"intent": {}}, config_sha256="0" * 64, scope="test")
    tid = writer.add_target(kind="device", name="leaf1", platform="eos")
    for n in range(captures):
        writer.ingest(
            tid,
            _capture("leaf1", n),
            redactions=0,
            redaction_kinds={},
            facts=[
                Vrf(device="leaf1", name=f"V{n}"),
                Route(device="leaf1", vrf=f"V{n}", prefix="10.0.0.0/8"),
            ],
        )
    writer.finish_target(tid, TargetStatus.OK)
    writer.seal(RunStatus.COMPLETE)
    return writer


def test_sealed_run_verifies(engine: Engine) -> None:
    writer = _run(engine)
    result = verify_run(engine, writer.run_id)
    assert result.ok, result.mismatches
    assert result.captures_checked == 3
    assert result.chain_head == writer.chain_head


def test_facts_read_back_typed(engine: Engine) -> None:
    writer = _run(engine, captures=2)
    facts = RunReader(engine, writer.run_id).facts()
    assert [type(f.record).__name__ for f in facts] == ["Vrf", "Route", "Vrf", "Route"]
    assert facts[1].record == Route(device="leaf1", vrf="V0", prefix="10.0.0.0/8")
    assert facts[1].capture_seq == 1 and len(facts[1].capture_sha256) == 64


def test_evidence_tables_refuse_update_and_delete(engine: Engine) -> None:
    writer = RunWriter.start(engine, config={}, config_sha256="0" * 64, scope="")
    tid = writer.add_target(kind="device", name="leaf1")
    writer.ingest(
        tid,
        _capture("leaf1", 0),
        redactions=0,
        redaction_kinds={},
        facts=[Vrf(device="leaf1", name="A")],
        problems=[Problem("leaf1.cfg", "truncated", line=3)],
    )
    writer.add_findings([FindingRow("T3-X", "PASS", "high", "backend", "leaf1", "s", "m", "e", "f", [1], [])])
    for table in ("captures", "facts", "findings", "problems"):
        for statement in (f"UPDATE {table} SET run_id = run_id", f"DELETE FROM {table}"):
            with pytest.raises(BLOCKED, match="append-only"), engine.begin() as conn:
                conn.execute(text(statement))
    writer.seal(RunStatus.COMPLETE)
    with pytest.raises(BLOCKED, match="sealed"), engine.begin() as conn:
        conn.execute(text("UPDATE runs SET chain_head = :h"), {"h": "f" * 64})


def _disable_guards(engine: Engine) -> None:
    """What an attacker with database admin rights could do: drop the append-only triggers."""
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            conn.execute(text("ALTER TABLE captures DISABLE TRIGGER USER"))
            conn.execute(text("ALTER TABLE runs DISABLE TRIGGER USER"))
        else:
            for trig in ("captures_no_update", "runs_sealed_no_update"):
                conn.execute(text(f"DROP TRIGGER {trig}"))


def test_one_changed_byte_is_named(engine: Engine) -> None:
    writer = _run(engine)
    _disable_guards(engine)
    with engine.begin() as conn:
        content = conn.execute(
            text("SELECT content FROM captures WHERE run_id = :r AND seq = 2"), {"r": writer.run_id}
        ).scalar_one()
        tampered = bytes(content[:5]) + bytes([content[5] ^ 0x01]) + bytes(content[6:])
        conn.execute(
            text("UPDATE captures SET content = :c WHERE run_id = :r AND seq = 2"),
            {"c": tampered, "r": writer.run_id},
        )
    result = verify_run(engine, writer.run_id)
    assert not result.ok
    first = result.mismatches[0]
    assert (first.what, first.seq, first.target) == ("capture", 2, "leaf1")
    assert "content hash" in first.detail


def test_rehashed_capture_breaks_the_chain(engine: Engine) -> None:
    """Changing the bytes and their recorded hash still breaks the link of that capture."""
    from auditor.evidence.chain import sha256_hex

    writer = _run(engine)
    _disable_guards(engine)
    forged = b"hostname leaf1\nip route vrf V1 0.0.0.0/0 10.0.0.1\nend\n"
    with engine.begin() as conn:
        conn.execute(
            text("UPDATE captures SET content = :c, content_sha256 = :h WHERE run_id = :r AND seq = 1"),
            {"c": forged, "h": sha256_hex(forged), "r": writer.run_id},
        )
    first = verify_run(engine, writer.run_id).mismatches[0]
    assert (first.what, first.seq) == ("capture", 1)
    assert "link hash" in first.detail


def test_changed_seal_is_detected(engine: Engine) -> None:
    writer = _run(engine)
    _disable_guards(engine)
    with engine.begin() as conn:
        conn.execute(
            text("UPDATE runs SET chain_head = :h WHERE id = :r"), {"h": "e" * 64, "r": writer.run_id}
        )
    mismatches = verify_run(engine, writer.run_id).mismatches
    assert [m.what for m in mismatches] == ["chain head"]


def test_unsealed_run_does_not_verify(engine: Engine) -> None:
    writer = RunWriter.start(engine, config={}, config_sha256="0" * 64, scope="")
    tid = writer.add_target(kind="device", name="leaf1")
    writer.ingest(tid, _capture("leaf1", 0), redactions=0, redaction_kinds={}, facts=[])
    result = verify_run(engine, writer.run_id)
    assert not result.ok
    assert result.mismatches[0].what == "chain head"
