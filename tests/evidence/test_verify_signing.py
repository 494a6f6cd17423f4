"""Signed seals: a run proves itself against a pinned public key; a writer who re-seals with a key of
their own, or strips the signature, fails against the pinned key; an unsigned run says so everywhere."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from pypdf import PdfReader
from sqlalchemy import Engine, text, update

from auditor.errors import ConfigError
from auditor.evidence.chain import sha256_hex
from auditor.evidence.signing import Signer, generate_keypair, load_signer, public_key_raw
from auditor.evidence.verify import verify_run
from auditor.store.engine import open_store
from auditor.store.models import Run, SealRecord
from auditor.store.seal import build_document, encode
from tests.e2e.conftest import run_cli
from tests.store.tamper_kit import CONFIG, SIGNER, build_run, drop_guards

MALLORY = Signer(Ed25519PrivateKey.generate(), "the database writer's own key")


def reseal(engine: Engine, run_id: int, signer: Signer | None) -> None:
    """What a writer with full database rights does: change the data, then recompute and re-sign the seal."""
    forged = {**CONFIG, "waivers": [*CONFIG["waivers"], {**CONFIG["waivers"][0], "check": "T1-Y"}]}
    with engine.begin() as conn:
        drop_guards(conn)
        conn.execute(update(Run).where(Run.id == run_id).values(config=forged))
        who = {"algorithm": "ed25519", "fingerprint": signer.fingerprint} if signer else None
        document = encode(build_document(conn, run_id, signer=who))
        conn.execute(
            update(SealRecord)
            .where(SealRecord.run_id == run_id)
            .values(
                document=document,
                digest=sha256_hex(document.encode()),
                signature=signer.sign(document.encode()).hex() if signer else None,
                public_key=signer.public_raw.hex() if signer else None,
                key_fingerprint=signer.fingerprint if signer else None,
            )
        )


def test_a_signed_run_proves_itself_against_the_pinned_key(engine: Engine) -> None:
    run_id = build_run(engine)
    result = verify_run(engine, run_id, SIGNER.public_raw)
    assert result.ok and result.pinned, result.mismatches
    assert result.signature_text().startswith("signed by the pinned key SHA256:")
    unpinned = verify_run(engine, run_id)
    assert unpinned.ok and "not pinned" in unpinned.signature_text()


def test_a_resigning_writer_fails_against_the_pinned_key(engine: Engine) -> None:
    run_id = build_run(engine)
    reseal(engine, run_id, MALLORY)
    assert verify_run(engine, run_id).ok  # self-consistent: that is all a stored key can show ...
    result = verify_run(engine, run_id, SIGNER.public_raw)  # ... the pinned key is what proves who sealed
    assert not result.ok
    assert [(m.what, m.field) for m in result.mismatches] == [("signature", "public_key")]
    assert "not by the pinned key" in result.mismatches[0].detail


def test_a_stripped_signature_fails_against_the_pinned_key(engine: Engine) -> None:
    run_id = build_run(engine)
    reseal(engine, run_id, None)
    unpinned = verify_run(engine, run_id)
    assert unpinned.ok and unpinned.signature_text() == "unsigned"
    result = verify_run(engine, run_id, SIGNER.public_raw)
    assert not result.ok and result.mismatches[0].what == "signature"
    assert "unsigned" in result.mismatches[0].detail


def test_a_forged_waiver_without_reseal_is_named(engine: Engine) -> None:
    run_id = build_run(engine)
    with engine.begin() as conn:
        drop_guards(conn)
        conn.execute(
            update(Run).where(Run.id == run_id).values(config={**CONFIG, "waivers": CONFIG["waivers"] * 2})
        )
    result = verify_run(engine, run_id, SIGNER.public_raw)
    assert [(m.what, m.field) for m in result.mismatches] == [("config", "config.waivers")]
    assert "1 added" in result.mismatches[0].detail


def test_an_unsigned_run_says_unsigned_and_fails_a_pin(engine: Engine) -> None:
    run_id = build_run(engine, signer=None)
    result = verify_run(engine, run_id)
    assert result.ok and result.signature_text() == "unsigned"
    pinned = verify_run(engine, run_id, SIGNER.public_raw)
    assert not pinned.ok and pinned.mismatches[0].what == "signature"


def test_a_tampered_signature_is_named(engine: Engine) -> None:
    run_id = build_run(engine)
    with engine.begin() as conn:
        drop_guards(conn)
        sig = conn.execute(text("SELECT signature FROM seals WHERE run_id = :r"), {"r": run_id}).scalar_one()
        flipped = ("1" if sig[0] == "0" else "0") + sig[1:]
        conn.execute(text("UPDATE seals SET signature = :s WHERE run_id = :r"), {"s": flipped, "r": run_id})
    result = verify_run(engine, run_id, SIGNER.public_raw)
    assert [(m.what, m.field) for m in result.mismatches] == [("signature", "signature")]


def test_keys_load_from_file_or_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    private, public, fp = generate_keypair(tmp_path)
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    signer = load_signer(private)
    assert signer.fingerprint == fp
    assert public_key_raw(str(public)) == signer.public_raw == public_key_raw(signer.public_raw.hex())
    monkeypatch.setenv("AUDITOR_TEST_KEY", private.read_text())
    assert load_signer(None, "AUDITOR_TEST_KEY").fingerprint == fp
    with pytest.raises(ConfigError, match="already exists"):
        generate_keypair(tmp_path)
    with pytest.raises(ConfigError, match="AUDITOR_UNSET_KEY"):
        load_signer(None, "AUDITOR_UNSET_KEY")
    (tmp_path / "bad.key").write_text("not a key")
    with pytest.raises(ConfigError, match=r"bad\.key"):
        load_signer(tmp_path / "bad.key")
    with pytest.raises(ConfigError, match="public key"):
        public_key_raw("zz" * 32)


def test_cli_keys_verify_pubkey_runs_list_report_and_check(tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    made = run_cli("keys", "generate", "-o", str(keys))
    assert made.returncode == 0, made.stdout + made.stderr
    assert "fingerprint: SHA256:" in made.stdout
    url = f"sqlite:///{tmp_path / 'store.db'}"
    engine = open_store(url)
    signed = build_run(engine, signer=load_signer(keys / "auditor-signing.key"))
    unsigned = build_run(engine, signer=None)
    engine.dispose()
    pub = str(keys / "auditor-signing.pub")
    ok = run_cli("verify", "--store", url, "--run", str(signed), "--pubkey", pub)
    assert ok.returncode == 0 and "signed by the pinned key" in ok.stdout, ok.stdout + ok.stderr
    bare = run_cli("verify", "--store", url, "--run", str(unsigned))
    assert bare.returncode == 0 and "unsigned" in bare.stdout
    assert run_cli("verify", "--store", url, "--run", str(unsigned), "--pubkey", pub).returncode == 1
    listing = run_cli("runs", "list", "--store", url, env={**os.environ, "COLUMNS": "200"})
    assert "unsigned" in listing.stdout and "signed SHA256:" in listing.stdout, listing.stdout

    engine = open_store(url)
    with engine.begin() as conn:  # a forged waiver, the seal left as it was
        drop_guards(conn)
        conn.execute(update(Run).where(Run.id == signed).values(config={**CONFIG, "waivers": []}))
    engine.dispose()
    bad = run_cli("verify", "--store", url, "--run", str(signed), "--pubkey", pub)
    assert bad.returncode == 1
    assert "config (runs, row 1, field config.waivers)" in bad.stdout.replace("\n", " "), bad.stdout
    out = tmp_path / "out"
    report = run_cli("report", "--store", url, "--run", str(signed), "-f", "json", "-o", str(out))
    assert report.returncode == 1 and "NOT VERIFIED" in report.stdout, report.stdout + report.stderr
    doc = json.loads((out / f"run-{signed}.json").read_text())
    assert doc["verification"]["verified"] is False
    assert doc["verification"]["mismatch"]["what"] == "config"
    report = run_cli(
        "report", "--store", url, "--run", str(unsigned), "-f", "json", "-f", "pdf", "-o", str(out)
    )
    assert report.returncode == 0, report.stdout + report.stderr
    assert json.loads((out / f"run-{unsigned}.json").read_text())["verification"]["signature"] == "unsigned"
    cover = " ".join((PdfReader(out / f"run-{unsigned}.pdf").pages[0].extract_text() or "").split())
    assert "seal UNSIGNED" in cover, cover
    check = run_cli("check", "--store", url, "--run", str(signed))
    assert check.returncode == 2, check.stdout + check.stderr
    assert "does not verify, re-checking refused" in (check.stdout + check.stderr).replace("\n", " ")


def test_env_is_not_leaked_into_the_store(tmp_path: Path) -> None:
    """The private key never reaches the database: not its PEM, not its raw bytes."""
    private, _, _ = generate_keypair(tmp_path)
    signer = load_signer(private)
    url = f"sqlite:///{tmp_path / 'store.db'}"
    engine = open_store(url)
    build_run(engine, signer=signer)
    engine.dispose()
    raw = signer.key.private_bytes_raw()
    blob = b"".join(p.read_bytes() for p in tmp_path.glob("store.db*"))
    assert raw not in blob and raw.hex().encode() not in blob
    assert b"PRIVATE KEY" not in blob
    assert os.environ.get("AUDITOR_TEST_KEY") is None


def test_the_config_names_the_signing_key_and_the_pin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from auditor.config.models import AuditConfig
    from auditor.evidence.signing import pinned_key, signer_for

    private, public, fp = generate_keypair(tmp_path / "keys")
    config = AuditConfig.model_validate(
        {"signing": {"key_file": "keys/auditor-signing.key", "public_key": "keys/auditor-signing.pub"}}
    ).model_copy(update={"base_dir": tmp_path})
    signer = signer_for(config)
    assert signer is not None and signer.fingerprint == fp
    assert pinned_key(None, config) == signer.public_raw
    assert pinned_key("ab" * 32, config) == bytes.fromhex("ab" * 32)  # --pubkey wins over the config
    monkeypatch.setenv("AUDITOR_SIGNING_KEY", private.read_text())
    by_env = AuditConfig.model_validate({"signing": {"key_env": "AUDITOR_SIGNING_KEY"}})
    assert signer_for(by_env) is not None and signer_for(AuditConfig()) is None
    only_pin = AuditConfig.model_validate({"signing": {"public_key": str(public)}})
    assert signer_for(only_pin) is None
    with pytest.raises(ValueError, match="not both"):
        AuditConfig.model_validate({"signing": {"key_file": "a", "key_env": "B"}})
    missing = config.model_copy(update={"base_dir": tmp_path / "elsewhere"})
    with pytest.raises(ConfigError, match="cannot read"):
        signer_for(missing)
