"""Retention on SQLite and PostgreSQL: prune, then verify the remaining runs and the tombstones; a tampered
tombstone fails verification; a running run is never pruned; the store refuses a partial or unrecorded prune."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlalchemy import Engine, delete, func, insert, select, text, update

from auditor.capture import RawCapture
from auditor.enums import RunStatus, TargetStatus
from auditor.evidence.signing import Signer
from auditor.evidence.verify import verify_run
from auditor.facts import Vrf
from auditor.ops.retention import Policy, RetentionError, prune
from auditor.ops.tombstones import verify_tombstone
from auditor.store.models import GUARDED_TABLES, RETENTION_TABLES, Capture, Fact, Finding, Run, Tombstone
from auditor.store.writer import FindingRow, RunWriter
from tests.e2e.conftest import run_cli

KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
SIGNER = Signer(KEY, "test key")
OTHER = Signer(Ed25519PrivateKey.from_private_bytes(bytes(range(1, 33))), "other key")
LATER = datetime.now(UTC) + timedelta(days=1)  # "now" for the policy: every sealed run is a day old


def sealed_run(engine: Engine, scope: str = "lab", signer: Signer | None = SIGNER) -> int:
    """A small sealed run: one target, two captures with facts, a failing finding."""
    writer = RunWriter.start(
        engine, config={"scope": scope}, config_sha256="0" * 64, scope=scope, signer=signer
    )
    tid = writer.add_target(kind="device", name="leaf1", platform="eos", tier="backend")
    for n in range(2):
        capture = RawCapture(
            target="leaf1",
            format="eos.running-config",
            source="show running-config",
            origin=f"leaf1-{n}.cfg",
            collected_at=datetime(2026, 12, 1, 10, 0, n, tzinfo=UTC),
            content=f"hostname leaf1\n! {n}\nvrf instance V{n}\n".encode(),
            meta={"device": "leaf1"},
        )
        writer.ingest(
            tid, capture, redactions=0, redaction_kinds={}, facts=[Vrf(device="leaf1", name=f"V{n}")]
        )
    writer.finish_target(tid, TargetStatus.OK)
    writer.add_findings(
        [FindingRow("T3-X", "FAIL", "high", "backend", "leaf1", "vrf V0", "m", "e", "f", [], [])]
    )
    writer.seal(RunStatus.COMPLETE)
    return writer.run_id


def _rows(engine: Engine, model: type, run_id: int) -> int:
    with engine.connect() as conn:
        return int(conn.execute(select(func.count()).where(model.run_id == run_id)).scalar_one())  # type: ignore[attr-defined]


def _drop_guards(engine: Engine) -> None:
    """What a database owner could do before tampering: take the triggers away."""
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            for table in (*GUARDED_TABLES, *RETENTION_TABLES):
                conn.execute(text(f"ALTER TABLE {table} DISABLE TRIGGER USER"))
            return
        for name in (
            conn.execute(text("SELECT name FROM sqlite_master WHERE type = 'trigger'")).scalars().all()
        ):
            conn.execute(text(f'DROP TRIGGER "{name}"'))


def test_prune_keeps_the_newest_per_scope_and_the_rest_verifies(engine: Engine) -> None:
    lab = [sealed_run(engine, "lab") for _ in range(4)]
    prod = [sealed_run(engine, "prod") for _ in range(2)]
    running = RunWriter.start(engine, config={}, config_sha256="0" * 64, scope="lab", signer=SIGNER)

    result = prune(engine, Policy(keep_days=0, keep_last=2), operator="ops@test", signer=SIGNER, now=LATER)

    assert sorted(d.run_id for d in result.pruned) == lab[:2]  # prod keeps its 2, lab its newest 2
    assert running.run_id not in [d.run_id for d in result.pruned]
    assert result.pruning_id is not None
    with engine.connect() as conn:
        assert conn.execute(select(Run.id).where(Run.id.in_(lab[:2]))).first() is None
    for model in (Capture, Fact, Finding):
        assert _rows(engine, model, lab[0]) == 0
    for run_id in [*lab[2:], *prod]:  # the remaining runs still verify against the pinned key
        assert verify_run(engine, run_id, SIGNER.public_raw).ok
    for run_id in lab[:2]:
        check = verify_tombstone(engine, run_id, SIGNER.public_raw)
        assert check is not None and check.ok, check.problems if check else None
        assert check.pinned and check.seal_signed_by == SIGNER.fingerprint
        assert check.row.capture_count == 2 and check.row.finding_count == 1
    assert verify_tombstone(engine, lab[2], None) is None  # not pruned

    again = prune(engine, Policy(keep_days=0, keep_last=2), operator="ops@test", signer=SIGNER, now=LATER)
    assert again.pruned == [] and again.pruning_id is None


def test_age_and_scope_limit_what_is_pruned(engine: Engine) -> None:
    runs = [sealed_run(engine, "lab") for _ in range(3)]
    other = [sealed_run(engine, "prod") for _ in range(2)]
    young = prune(engine, Policy(keep_days=30, keep_last=1), operator="t", now=LATER)
    assert young.pruned == []  # sealed a day before "now": within 30 days
    dry = prune(engine, Policy(keep_days=0, keep_last=1, scope="lab"), operator="t", dry_run=True, now=LATER)
    assert [d.run_id for d in dry.pruned] == runs[1::-1] and dry.pruning_id is None
    assert _rows(engine, Capture, runs[0]) == 2  # a dry run changes nothing
    done = prune(engine, Policy(keep_days=0, keep_last=1, scope="lab"), operator="t", now=LATER)
    assert sorted(d.run_id for d in done.pruned) == runs[:2]
    assert all(verify_run(engine, r).ok for r in [runs[2], *other])
    unsigned = verify_tombstone(engine, runs[0])
    assert unsigned is not None and unsigned.ok and unsigned.signed_by is None
    pinned = verify_tombstone(engine, runs[0], SIGNER.public_raw)  # unsigned tombstone against a pin
    assert pinned is not None and any("unsigned" in p for p in pinned.problems)


def test_a_running_run_is_never_pruned(engine: Engine) -> None:
    running = RunWriter.start(engine, config={}, config_sha256="0" * 64, scope="lab", signer=None)
    sealed_run(engine, "lab")
    sealed_run(engine, "lab")
    result = prune(engine, Policy(keep_days=0, keep_last=1), operator="t", now=LATER)
    assert running.run_id not in [d.run_id for d in result.pruned]
    assert any(d.run_id == running.run_id and "never pruned" in d.why for d in result.kept)
    # and the store itself refuses a tombstone for it, or deleting its rows without one
    with pytest.raises(Exception, match="tombstones"), engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO tombstones (run_id, pruning_id, scope, status, started_at, sealed_at, chain_head, "
                "capture_count, fact_count, finding_count, pruned_at, pruned_by, document, digest) "
                "VALUES (:r, :p, 'lab', 'running', :n, :n, 'x', 0, 0, 0, :n, 't', '{}', 'd')"
            ),
            {"r": running.run_id, "p": result.pruning_id, "n": LATER},
        )
    with pytest.raises(Exception, match=r"never deleted|pruned whole"), engine.begin() as conn:
        conn.execute(delete(Run).where(Run.id == running.run_id))


def test_partial_prune_is_refused(engine: Engine) -> None:
    """Rows of a run cannot go while its run row is there (PostgreSQL: the tombstone cannot commit; SQLite:
    the delete guard), nor the run row without all its rows (the foreign keys, checked at the commit on
    SQLite); a half-pruned run made by someone who dropped the guards is what verify reports."""
    first, _ = sealed_run(engine), sealed_run(engine)
    done = prune(engine, Policy(keep_days=0, keep_last=1), operator="t", now=LATER)
    assert [d.run_id for d in done.pruned] == [first]
    third, _ = sealed_run(engine), sealed_run(engine)
    stone = {
        "run_id": third,
        "pruning_id": done.pruning_id,
        "scope": "lab",
        "status": "complete",
        "started_at": LATER,
        "sealed_at": LATER,
        "chain_head": "0" * 64,
        "capture_count": 0,
        "fact_count": 0,
        "finding_count": 0,
        "pruned_at": LATER,
        "pruned_by": "t",
        "document": "{}",
        "digest": "d",
    }
    with pytest.raises(Exception, match="pruned whole"):
        _half_prune(engine, stone, third)
    with pytest.raises(Exception, match=r"(?i)foreign key"):
        _half_prune(engine, stone, third, run_row_first=True)
    assert _rows(engine, Finding, third) == 1 and verify_run(engine, third).ok
    _drop_guards(engine)
    _half_prune(engine, stone, third)
    check = verify_tombstone(engine, third)
    assert check is not None and any("not pruned whole" in p for p in check.problems)


def _half_prune(engine: Engine, stone: dict[str, Any], run_id: int, run_row_first: bool = False) -> None:
    """A tombstone, and of the run's rows only its findings (after its run row, if `run_row_first`)."""
    with engine.begin() as conn:
        conn.execute(insert(Tombstone), stone)
        if run_row_first:
            if conn.dialect.name == "sqlite":
                conn.exec_driver_sql("PRAGMA defer_foreign_keys = ON")
            conn.execute(delete(Run).where(Run.id == run_id))
        conn.execute(delete(Finding).where(Finding.run_id == run_id))


@pytest.mark.parametrize(
    "tamper",
    [
        "chain_head column",
        "document edited",
        "re-signed by another key",
        "seal inside edited",
        "pruning lost it",
    ],
)
def test_a_tampered_tombstone_fails_verification(engine: Engine, tamper: str) -> None:
    first = sealed_run(engine)
    sealed_run(engine)
    prune(engine, Policy(keep_days=0, keep_last=1), operator="t", signer=SIGNER, now=LATER)
    check = verify_tombstone(engine, first, SIGNER.public_raw)
    assert check is not None and check.ok
    _drop_guards(engine)
    with engine.begin() as conn:
        row = conn.execute(select(Tombstone.__table__).where(Tombstone.run_id == first)).one()
        doc = json.loads(row.document)
        values: dict[str, object] = {}
        if tamper == "chain_head column":
            values = {"chain_head": "f" * 64}
        elif tamper == "document edited":
            doc["run"]["finding_count"] = 0
            values = {"document": json.dumps(doc)}
        elif tamper == "re-signed by another key":  # a valid signature, but not by the pinned key
            body = json.dumps(doc).encode()
            values = {
                "document": body.decode(),
                "digest": __import__("hashlib").sha256(body).hexdigest(),
                "signature": OTHER.sign(body).hex(),
                "public_key": OTHER.public_raw.hex(),
                "key_fingerprint": OTHER.fingerprint,
            }
        elif tamper == "seal inside edited":
            doc["seals"][0]["document"] = doc["seals"][0]["document"].replace('"complete"', '"partial"')
            values = {"document": json.dumps(doc)}
        if values:
            conn.execute(update(Tombstone).where(Tombstone.run_id == first).values(**values))
        else:
            conn.execute(text("UPDATE prunings SET document = '{\"tombstones\": []}'"))
    check = verify_tombstone(engine, first, SIGNER.public_raw)
    assert check is not None and not check.ok, tamper


def _pem(tmp_path: Path) -> tuple[Path, Path]:
    key, pub = tmp_path / "k.key", tmp_path / "k.pub"
    key.write_bytes(
        KEY.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    pub.write_bytes(
        KEY.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    return key, pub


def test_cli_prune_then_verify_the_pruned_run(sqlite_url: str, tmp_path: Path) -> None:
    from auditor.store.engine import open_store

    engine = open_store(sqlite_url)
    first, _ = sealed_run(engine), sealed_run(engine)
    engine.dispose()
    key, pub = _pem(tmp_path)
    store = ["--store", sqlite_url]
    done = run_cli(
        "runs", "prune", *store, "--keep-days", "0", "--keep-last", "1", "--json", "--signing-key", str(key)
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["pruning_id"] == 1 and summary["signer"] == SIGNER.fingerprint
    assert [t["run_id"] for t in summary["tombstones"]] == [first]

    verified = run_cli("verify", *store, "--run", str(first), "--pubkey", str(pub))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert f"run {first} was pruned" in verified.stdout and "signed by the pinned key" in verified.stdout
    listed = run_cli("runs", "pruned", *store, "--json")
    assert [t["run_id"] for t in json.loads(listed.stdout)] == [first]
    runs = run_cli("runs", "list", *store)
    assert "1 run(s) pruned; `auditor runs pruned` lists their tombstones" in runs.stdout, runs.stdout

    engine = open_store(sqlite_url)
    _drop_guards(engine)
    with engine.begin() as conn:
        conn.execute(text("UPDATE tombstones SET fact_count = 99"))
    engine.dispose()
    tampered = run_cli("verify", *store, "--run", str(first))
    assert tampered.returncode == 1
    assert "FAILED verification" in tampered.stdout and "fact_count" in tampered.stdout


def test_keep_last_zero_is_refused() -> None:
    with pytest.raises(RetentionError, match="keep-last"):
        Policy(keep_days=1, keep_last=0)
