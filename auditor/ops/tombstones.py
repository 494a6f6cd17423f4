"""Verifying a pruned run from its tombstone (see retention.py): the tombstone's digest and signature, that
its columns say what its signed document says, that the seal records it keeps still match their digests and
signatures and name the run and its chain head, that its pruning lists it, and that the run is gone whole."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from sqlalchemy import Engine, select

from auditor.evidence.chain import sha256_hex
from auditor.evidence.signing import fingerprint, short, signature_valid
from auditor.ops.retention import ROWS_OF_RUN, TOMBSTONE_VERSION, stamp_text, tombstone_of
from auditor.store.models import Pruning, Run


@dataclass
class TombstoneCheck:
    """A pruned run as its tombstone proves it: what it was, who pruned it, and every problem found."""

    run_id: int
    row: Any
    problems: list[str] = field(default_factory=list)
    signed_by: str | None = None  # the tombstone's key fingerprint
    pinned: bool = False
    seal_signed_by: str | None = None

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        r = self.row
        who = f"signed by key {short(self.signed_by)}" if self.signed_by else "unsigned"
        if self.signed_by and self.pinned:
            who = f"signed by the pinned key {short(self.signed_by)}"
        seal = f"seal {short(r.seal_digest)}" if r.seal_digest else "no seal record"
        sealer = f", signed by key {short(self.seal_signed_by)}" if self.seal_signed_by else ""
        pruned, sealed = stamp_text(r.pruned_at), stamp_text(r.sealed_at)
        return (
            f"run {r.run_id} was pruned on {pruned} by {r.pruned_by} (pruning #{r.pruning_id}); "
            f"tombstone {who}; it was {r.status}, sealed {sealed}, {r.capture_count} captures, "
            f"{r.fact_count} facts, {r.finding_count} findings, chain head {r.chain_head}; {seal}{sealer}"
        )

    def json(self) -> dict[str, Any]:
        r = self.row
        return {
            "run_id": r.run_id,
            "pruned": True,
            "ok": self.ok,
            "problems": self.problems,
            "pruning_id": r.pruning_id,
            "pruned_at": stamp_text(r.pruned_at),
            "pruned_by": r.pruned_by,
            "scope": r.scope,
            "status": r.status,
            "sealed_at": stamp_text(r.sealed_at),
            "chain_head": r.chain_head,
            "captures": r.capture_count,
            "facts": r.fact_count,
            "findings": r.finding_count,
            "seal_digest": r.seal_digest,
            "signer": self.signed_by,
            "seal_signer": self.seal_signed_by,
        }


def _check_signed(what: str, row: Any, pin: bytes | None, problems: list[str]) -> tuple[str | None, bool]:
    """Digest and signature of a signed record (tombstone, pruning, seal); (fingerprint, pinned)."""
    data = str(row.document).encode("utf-8")
    if sha256_hex(data) != row.digest:
        problems.append(f"{what}: its document does not match its recorded digest")
    if row.signature is None and row.public_key is None:
        if pin is not None:
            problems.append(f"{what}: unsigned, so it cannot be proven against the pinned key")
        return None, False
    try:
        public, signature = bytes.fromhex(row.public_key or ""), bytes.fromhex(row.signature or "")
    except ValueError:
        problems.append(f"{what}: the stored public key or signature is not hex")
        return row.key_fingerprint, False
    if fingerprint(public) != row.key_fingerprint:
        problems.append(f"{what}: the key fingerprint does not match the stored public key")
    if not signature_valid(public, signature, data):
        problems.append(f"{what}: the signature does not match its document and the stored public key")
        return row.key_fingerprint, False
    if pin is not None and public != pin:
        problems.append(f"{what}: signed by key {short(fingerprint(public))}, not by the pinned key")
        return row.key_fingerprint, False
    return row.key_fingerprint, pin is not None


def _decode(what: str, text: str, problems: list[str]) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except ValueError as exc:
        problems.append(f"{what}: its document is not JSON ({exc})")
        return None
    if not isinstance(value, dict):
        problems.append(f"{what}: its document is not a JSON object")
        return None
    return value


def verify_tombstone(engine: Engine, run_id: int, pin: bytes | None = None) -> TombstoneCheck | None:
    """Check a pruned run's tombstone (None when the run has none): its digest and signature, that its
    columns say what its signed document says, that the seal records it keeps still match their digests
    and signatures and name this run and its chain head, that its pruning lists it, and that the run is
    gone whole. `pin` (raw Ed25519 public key) is the key the tombstone and the seal must be signed with."""
    row = tombstone_of(engine, run_id)
    if row is None:
        return None
    check = TombstoneCheck(run_id, row)
    problems = check.problems
    check.signed_by, check.pinned = _check_signed("tombstone", row, pin, problems)
    doc = _decode("tombstone", row.document, problems)
    if doc is not None:
        _check_document(row, doc, check, pin)
    with engine.connect() as conn:
        pruning = conn.execute(select(Pruning.__table__).where(Pruning.id == row.pruning_id)).first()
        keyed = [("runs", Run.__table__.c.id)]
        keyed += [(str(m.__tablename__), m.__table__.c.run_id) for m in ROWS_OF_RUN]
        left = [
            name
            for name, column in keyed
            if conn.execute(select(column).where(column == run_id).limit(1)).first() is not None
        ]
    if left:
        problems.append(f"the run was not pruned whole: rows are left in {', '.join(left)}")
    if pruning is None:
        problems.append(f"its pruning #{row.pruning_id} is missing")
        return check
    _check_signed(f"pruning #{pruning.id}", pruning, pin, problems)
    listed = _decode(f"pruning #{pruning.id}", pruning.document, problems) or {}
    entries = {
        (t.get("run_id"), t.get("digest")) for t in listed.get("tombstones", []) if isinstance(t, dict)
    }
    if (run_id, row.digest) not in entries:
        problems.append(f"pruning #{pruning.id} does not list this tombstone (run {run_id}, its digest)")
    return check


def _check_document(row: Any, doc: dict[str, Any], check: TombstoneCheck, pin: bytes | None) -> None:
    problems = check.problems
    run = doc.get("run") if isinstance(doc.get("run"), dict) else {}
    assert isinstance(run, dict)
    if doc.get("tombstone") != TOMBSTONE_VERSION:
        problems.append(f"tombstone: unknown version {doc.get('tombstone')!r}")
    signer = doc.get("signer")
    if (signer or {}).get("fingerprint") != row.key_fingerprint:
        problems.append("tombstone: the signed signer is not the stored key")
    for column, key in (
        ("run_id", "id"),
        ("scope", "scope"),
        ("status", "status"),
        ("chain_head", "chain_head"),
        ("capture_count", "capture_count"),
        ("fact_count", "fact_count"),
        ("finding_count", "finding_count"),
        ("started_at", "started_at"),
        ("sealed_at", "sealed_at"),
    ):
        if stamp_text(getattr(row, column)) != run.get(key):
            problems.append(f"tombstone: {column} is not what its signed document says")
    pruned = doc.get("pruned") if isinstance(doc.get("pruned"), dict) else {}
    assert isinstance(pruned, dict)
    if stamp_text(row.pruned_at) != pruned.get("at") or row.pruned_by != pruned.get("by"):
        problems.append("tombstone: pruned_at/pruned_by are not what its signed document says")
    seals = doc.get("seals") if isinstance(doc.get("seals"), list) else []
    assert isinstance(seals, list)
    if not seals:
        if row.seal_digest is not None:
            problems.append("tombstone: seal_digest set but no seal record kept")
        return
    for seal in seals:
        _check_seal(seal, run, pin, check)
    if row.seal_digest != seals[-1].get("digest"):
        problems.append("tombstone: seal_digest is not the latest kept seal's digest")


def _check_seal(seal: Any, run: dict[str, Any], pin: bytes | None, check: TombstoneCheck) -> None:
    """A kept seal record: its digest and signature still hold, and its sealed run is the tombstone's."""
    if not isinstance(seal, dict):
        check.problems.append("tombstone: a kept seal record is not an object")
        return
    what = f"kept seal (resume {seal.get('resume')})"
    record = SimpleNamespace(**{k: seal.get(k) for k in ("document", "digest", "signature", "public_key")})
    record.key_fingerprint = seal.get("key_fingerprint")
    fp, _ = _check_signed(what, record, pin, check.problems)
    check.seal_signed_by = fp
    sealed = _decode(what, str(seal.get("document")), check.problems)
    sealed_run = sealed.get("run") if sealed and isinstance(sealed.get("run"), dict) else None
    if sealed_run is None:
        check.problems.append(f"{what}: no run section")
        return
    if sealed_run.get("id") != run.get("id"):
        check.problems.append(f"{what}: it is the seal of run {sealed_run.get('id')!r}")
    if seal.get("resume") == run.get("resumes") and sealed_run.get("chain_head") != run.get("chain_head"):
        check.problems.append(f"{what}: its chain head is not the tombstone's")
