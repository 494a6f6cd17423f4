"""Forgery end to end on a copy of the example lab, as issue 11 found it: REPLACE with every trigger in
place, forged waivers flipping `auditor check`, a forged store rendered as verified, and a writer who
re-seals with a key of their own. Each now fails loudly."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update

from auditor.evidence.chain import sha256_hex
from auditor.evidence.signing import generate_keypair, load_signer
from auditor.store.engine import open_store
from auditor.store.models import Run, SealRecord
from auditor.store.seal import build_document, encode
from tests.e2e.conftest import run_cli
from tests.store.tamper_kit import drop_guards


def flat(result: Any) -> str:
    return " ".join((result.stdout + result.stderr).split())


@pytest.fixture
def sealed_lab(lab: Path) -> Path:
    """The lab audited once, its seal signed (--signing-key) with a key the config pins."""
    private, _, _ = generate_keypair(lab / "keys")
    config = lab / "auditor.yaml"
    config.write_text(config.read_text() + "\nsigning:\n  public_key: keys/auditor-signing.pub\n")
    audit = run_cli("audit", "-c", str(config), "--quiet", "--signing-key", str(private))
    assert audit.returncode == 1, audit.stdout + audit.stderr
    return lab


def db(lab: Path) -> Path:
    return lab / ".auditor" / "auditor.db"


def cfg(lab: Path) -> str:
    return str(lab / "auditor.yaml")


def test_a_signed_lab_run_verifies_and_rechecks(sealed_lab: Path) -> None:
    ok = run_cli("verify", "--run", "1", "-c", cfg(sealed_lab))
    assert ok.returncode == 0 and "signed by the pinned key" in flat(ok), flat(ok)
    report = json.loads((sealed_lab / "out" / "run-1.json").read_text())
    assert report["verification"]["verified"] is True
    assert report["verification"]["signature"].startswith("signed by the pinned key SHA256:")
    assert run_cli("check", "--run", "1", "-c", cfg(sealed_lab)).returncode == 1


def test_replace_is_refused_with_the_triggers_in_place(sealed_lab: Path) -> None:
    """The attack of issue 11: INSERT OR REPLACE rewrote a capture, its chain and the seal."""
    conn = sqlite3.connect(db(sealed_lab))
    for sql in (
        "INSERT OR REPLACE INTO captures SELECT * FROM captures WHERE seq = 1",
        "REPLACE INTO runs SELECT * FROM runs WHERE id = 1",
        "INSERT OR REPLACE INTO seals SELECT * FROM seals WHERE run_id = 1",
        "UPDATE targets SET status = 'ok'",
        "DELETE FROM findings WHERE status = 'FAIL'",
        "UPDATE facts SET target_id = (SELECT max(id) FROM targets)",
    ):
        with pytest.raises(sqlite3.DatabaseError, match="auditor: "):  # every statement touches rows
            conn.execute(sql)
    conn.close()
    assert run_cli("verify", "--run", "1", "-c", cfg(sealed_lab)).returncode == 0


def test_forged_waivers_no_longer_flip_check_and_report_says_not_verified(sealed_lab: Path) -> None:
    report = json.loads((sealed_lab / "out" / "run-1.json").read_text())
    fails = [f for f in report["findings"] if f["status"] == "FAIL"]
    forged = [
        {
            "check": f["check_id"],
            "target": "*",
            "subject": "*",
            "owner": "mallory",
            "reason": "forged",
            "expires": "2099-01-01",
        }
        for f in fails
    ]
    engine = open_store(f"sqlite:///{db(sealed_lab)}")
    with engine.begin() as conn:  # a database admin: drop the triggers, edit the stored config
        drop_guards(conn)
        config = conn.execute(Run.__table__.select().where(Run.id == 1)).one().config
        conn.execute(update(Run).where(Run.id == 1).values(config={**config, "waivers": forged}))
    engine.dispose()
    store = f"sqlite:///{db(sealed_lab)}"
    check = run_cli("check", "--run", "1", "--store", store)  # the stored (forged) waivers would apply
    assert check.returncode == 2, flat(check)
    assert "does not verify, re-checking refused" in flat(check)
    assert "config.waivers" in flat(check)
    verify = run_cli("verify", "--run", "1", "-c", cfg(sealed_lab))
    assert verify.returncode == 1 and "field config.waivers" in flat(verify), flat(verify)
    out = sealed_lab / "again"
    rendered = run_cli(
        "report", "--run", "1", "-c", cfg(sealed_lab), "-f", "json", "-f", "pdf", "-o", str(out)
    )
    assert rendered.returncode == 1 and "NOT VERIFIED" in flat(rendered), flat(rendered)
    doc = json.loads((out / "run-1.json").read_text())
    assert doc["verification"]["verified"] is False
    assert doc["verification"]["mismatch"]["what"] == "config"


def test_a_writer_who_reseals_with_their_own_key_fails_the_pinned_key(
    sealed_lab: Path, tmp_path: Path
) -> None:
    forged_db = tmp_path / "forged.db"
    shutil.copyfile(db(sealed_lab), forged_db)
    mallory = load_signer(generate_keypair(tmp_path / "mallory")[0])
    engine = open_store(f"sqlite:///{forged_db}")
    with engine.begin() as conn:  # move every fact of one device to another device, then re-seal
        drop_guards(conn)
        conn.exec_driver_sql(
            "UPDATE facts SET target_id = (SELECT max(target_id) FROM facts) "
            "WHERE target_id = (SELECT min(target_id) FROM facts)"
        )
        signer = {"algorithm": "ed25519", "fingerprint": mallory.fingerprint}
        document = encode(build_document(conn, 1, signer=signer))
        conn.execute(
            update(SealRecord)
            .where(SealRecord.run_id == 1)
            .values(
                document=document,
                digest=sha256_hex(document.encode()),
                signature=mallory.sign(document.encode()).hex(),
                public_key=mallory.public_raw.hex(),
                key_fingerprint=mallory.fingerprint,
            )
        )
    engine.dispose()
    store = f"sqlite:///{forged_db}"
    pub = str(sealed_lab / "keys" / "auditor-signing.pub")
    pinned = run_cli("verify", "--run", "1", "--store", store, "--pubkey", pub)
    assert pinned.returncode == 1, flat(pinned)
    assert "not by the pinned key" in flat(pinned)
    assert "fact " in flat(pinned) and "field target_id" in flat(pinned)  # the moved facts are named too
    assert run_cli("check", "--run", "1", "--store", store, "--pubkey", pub).returncode == 2
