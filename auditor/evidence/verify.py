"""Re-computes a run's evidence from the stored rows and compares it with the signed seal.

Four things are checked, and every difference is named (table, row, field where the seal holds it):
1. the capture chain: every content hash and link, from the genesis to the sealed head;
2. the seal document: rebuilt from the store as it is now (run fields, stored config, targets, captures,
   facts, findings, problems) and compared section by section with the sealed one;
3. the links between rows: each fact's capture belongs to this run and to the fact's target; each
   finding's facts and evidence belong to this run; each problem's target and capture too;
4. the signature over the seal document: valid for the stored public key, and, given `pubkey`, made by
   that key. Without a pinned key a valid signature only shows the seal is self-consistent: anyone who
   can write the database can re-seal with a key of their own. An unsigned seal proves even less.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Engine, select

from auditor.evidence.chain import LinkInput, genesis_hash, link_hash, sha256_hex, utc_stamp
from auditor.evidence.signing import fingerprint, short, signature_valid
from auditor.store.links import link_problems
from auditor.store.models import Capture, Run, SealRecord
from auditor.store.reader import RunReader
from auditor.store.running_digest import FactObserver
from auditor.store.seal import SEAL_VERSION, UNREADABLE, build_document, decode, differences
from auditor.store.verify_names import describe


@dataclass(frozen=True)
class Mismatch:
    """Something that does not match what was sealed, named so an auditor can find it."""

    what: str  # "capture", "chain head", "genesis", "seal", "signature", "run", "config", "targets", ...
    detail: str
    seq: int | None = None
    target: str | None = None
    source: str | None = None
    table: str | None = None
    row: str | None = None
    field: str | None = None


@dataclass
class VerifyResult:
    run_id: int
    captures_checked: int = 0
    sealed: bool = False
    chain_head: str | None = None
    signed: bool = False
    key_fingerprint: str | None = None
    pinned: bool = False  # the signature was checked against a key given by the verifier
    mismatches: list[Mismatch] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.sealed and not self.mismatches

    def signature_text(self) -> str:
        """How the seal's signature is described wherever a run is shown."""
        if not self.signed or self.key_fingerprint is None:
            return "unsigned"
        if self.pinned:
            return f"signed by the pinned key {short(self.key_fingerprint)}"
        return (
            f"signed by key {short(self.key_fingerprint)} (not pinned: give --pubkey to prove who sealed it)"
        )


def verify_run(
    engine: Engine, run_id: int, pubkey: bytes | None = None, observe: FactObserver | None = None
) -> VerifyResult:
    """Verify one run; `pubkey` (raw Ed25519 public key) pins the key the seal must be signed with.
    `observe` sees every fact row as the facts are recomputed (and their end, if they all were read), so a
    report reads the facts once: it observes, it cannot change what is hashed."""
    reader = RunReader(engine, run_id)
    try:
        run = reader.run_row()
        expected_genesis = genesis_hash(run_id, run.started_at)
    except Exception as exc:  # a forged value the driver cannot parse is a finding, not a crash
        result = VerifyResult(run_id=run_id)
        result.mismatches.append(
            Mismatch("run", f"runs row {run_id} cannot be read ({type(exc).__name__}: {exc})", table="runs")
        )
        return result
    result = VerifyResult(run_id=run_id, sealed=run.sealed_at is not None, chain_head=run.chain_head)
    if run.genesis != expected_genesis:
        result.mismatches.append(
            Mismatch("genesis", "the run's chain anchor does not match its id and start time", table="runs")
        )
    try:
        head = _verify_chain(reader, result, expected_genesis)
    except Exception as exc:  # as above
        result.mismatches.append(
            Mismatch(
                "capture", f"a stored capture cannot be read ({type(exc).__name__}: {exc})", table="captures"
            )
        )
        head = None
    if not result.sealed:
        result.mismatches.append(
            Mismatch("chain head", f"run {run_id} was never sealed (status {run.status})", table="runs")
        )
        return result
    try:
        _verify_seal(engine, run_id, head, result, pubkey, observe)
    except Exception as exc:  # hostile data, as above
        result.mismatches.append(
            Mismatch("seal", f"cannot be read ({type(exc).__name__}: {exc})", table="seals")
        )
    return result


def _verify_seal(
    engine: Engine,
    run_id: int,
    head: str | None,
    result: VerifyResult,
    pubkey: bytes | None,
    observe: FactObserver | None = None,
) -> None:
    with engine.connect() as conn:
        records = list(
            conn.execute(
                select(SealRecord.__table__).where(SealRecord.run_id == run_id).order_by(SealRecord.resume)
            )
        )
        record = records[-1] if records else None  # the latest sealing proves the run (see --resume)
        for earlier in records[:-1]:
            _check_earlier(conn, run_id, earlier, result, pubkey)
        resumes = conn.execute(select(Run.resumes).where(Run.id == run_id)).scalar()
        if record is not None and record.resume != resumes:
            result.mismatches.append(
                Mismatch(
                    "seal",
                    f"the latest seal is of resume {record.resume}, the run counts {resumes} resumes",
                    table="seals",
                    row=f"{run_id}/{record.resume}",
                    field="resume",
                )
            )
        if record is None:
            result.mismatches.append(
                Mismatch(
                    "seal",
                    f"run {run_id} has no seal record (sealed by a version before seal v2, or the seal was "
                    "deleted): nothing proves its stored config, targets, problems or findings",
                    table="seals",
                )
            )
            return
        sealed = _check_record(record, result, pubkey)
        if sealed is None:
            return
        if sealed["run"].get("id") != run_id:
            result.mismatches.append(
                Mismatch(
                    "seal",
                    f"the seal record of run {run_id} holds the seal of run {sealed['run'].get('id')!r}",
                    table="seals",
                    row=str(run_id),
                    field="run_id",
                )
            )
        sealed_head = str(sealed["run"].get("chain_head"))
        if head is not None and head != sealed_head:
            result.mismatches.append(
                Mismatch(
                    "chain head",
                    f"recomputed head {head[:16]}… != sealed head {sealed_head[:16]}…",
                    table="captures",
                )
            )
        if head is not None and result.captures_checked != sealed["run"].get("capture_count"):
            result.mismatches.append(
                Mismatch(
                    "chain head",
                    f"{result.captures_checked} captures stored, {sealed['run'].get('capture_count')} sealed",
                    table="captures",
                )
            )
        _compare(conn, run_id, sealed, result, observe)
        try:
            result.mismatches.extend(Mismatch(**m) for m in link_problems(conn, run_id))
        except Exception as exc:  # hostile data, as above
            result.mismatches.append(Mismatch("links", f"rows cannot be read ({type(exc).__name__}: {exc})"))


def _check_earlier(
    conn: Connection, run_id: int, record: Any, result: VerifyResult, pubkey: bytes | None
) -> None:
    """An interruption's seal, kept when the run was resumed: its digest and signature still hold, and the
    chain head it sealed is a link of the run's chain (the resumed run continued that chain, not another)."""
    own = VerifyResult(run_id=run_id)
    sealed = _check_record(record, own, pubkey)
    label, row = f"earlier seal (resume {record.resume})", f"{run_id}/{record.resume}"
    result.mismatches.extend(
        Mismatch(m.what, f"{label}: {m.detail}", table="seals", row=row, field=m.field)
        for m in own.mismatches
    )
    if sealed is None:
        return
    if sealed["run"].get("status") != "interrupted" or sealed["run"].get("resumes", 0) != record.resume:
        result.mismatches.append(
            Mismatch(
                "seal",
                f"{label}: not the seal of an interruption at resume {record.resume} (status "
                f"{sealed['run'].get('status')!r}, resume {sealed['run'].get('resumes', 0)!r})",
                table="seals",
                row=row,
                field="resume",
            )
        )
    head, count = sealed["run"].get("chain_head"), sealed["run"].get("capture_count")
    if count == 0:
        on_chain = head == genesis_hash(run_id, sealed_stamp_run(conn, run_id))
    else:
        link = conn.execute(
            select(Capture.link_hash).where(Capture.run_id == run_id, Capture.seq == count)
        ).scalar()
        on_chain = link is not None and link == head
    if not on_chain:
        result.mismatches.append(
            Mismatch(
                "chain head",
                f"{label}: its chain head {str(head)[:16]}… (capture {count}) is not on the run's chain",
                table="seals",
                row=row,
            )
        )


def sealed_stamp_run(conn: Connection, run_id: int) -> Any:
    return conn.execute(select(Run.started_at).where(Run.id == run_id)).scalar_one()


def _verify_chain(reader: RunReader, result: VerifyResult, genesis: str) -> str | None:
    """Recompute every link; the head, or None when the chain broke (the first break is named)."""
    prev = genesis
    for cap in reader.captures():
        result.captures_checked += 1
        where: dict[str, Any] = {"seq": cap.seq, "target": cap.target_name, "source": cap.source}
        where |= {"table": "captures", "row": str(cap.id)}
        if cap.seq != result.captures_checked:
            result.mismatches.append(
                Mismatch(
                    "capture", f"sequence gap: expected seq {result.captures_checked}", field="seq", **where
                )
            )
            return None
        if cap.content is not None and sha256_hex(cap.content) != cap.content_sha256:
            actual = sha256_hex(cap.content)
            result.mismatches.append(
                Mismatch(
                    "capture",
                    f"content hash {actual[:16]}… != recorded {cap.content_sha256[:16]}…",
                    field="content",
                    **where,
                )
            )
            return None
        if cap.prev_hash != prev:
            result.mismatches.append(
                Mismatch("capture", "previous-link hash does not match the chain", field="prev_hash", **where)
            )
            return None
        recomputed = link_hash(
            prev,
            LinkInput(
                run_id=result.run_id,
                seq=cap.seq,
                target=cap.target_name,
                format=cap.format,
                source=cap.source,
                origin=cap.origin,
                collected_at=cap.collected_at,
                meta=cap.meta,
                size=cap.size,
                content_sha256=cap.content_sha256,
                redactions=cap.redactions,
            ),
        )
        if recomputed != cap.link_hash:
            result.mismatches.append(
                Mismatch("capture", "metadata changed: link hash does not match", field="link_hash", **where)
            )
            return None
        prev = recomputed
    return prev


def _check_pin(result: VerifyResult, pubkey: bytes | None) -> None:
    if pubkey is not None and not result.signed:
        result.mismatches.append(
            Mismatch(
                "signature",
                "the run is unsigned, so it cannot be proven against the pinned key "
                f"{short(fingerprint(pubkey))}",
                table="seals",
            )
        )


def _check_record(record: Any, result: VerifyResult, pubkey: bytes | None) -> dict[str, Any] | None:
    """The stored seal document, once its digest and signature hold; None when it cannot be read."""
    text = str(record.document)
    data = text.encode("utf-8")
    try:
        sealed = decode(text)
    except ValueError as exc:
        result.mismatches.append(Mismatch("seal", f"the seal document is not readable: {exc}", table="seals"))
        return None
    if not isinstance(sealed.get("run"), dict):
        result.mismatches.append(Mismatch("seal", "the seal document has no run section", table="seals"))
        return None
    if sealed.get("seal") != SEAL_VERSION or record.version != SEAL_VERSION:
        result.mismatches.append(
            Mismatch("seal", f"unknown seal version {sealed.get('seal')!r}/{record.version!r}", table="seals")
        )
        return None
    if _stamp(record.created_at) != sealed.get("run", {}).get("sealed_at"):
        result.mismatches.append(
            Mismatch(
                "seal",
                "the seal record's time is not the run's sealed time",
                table="seals",
                field="created_at",
            )
        )
    if sha256_hex(data) != record.digest:
        result.mismatches.append(
            Mismatch(
                "seal",
                "the seal document does not match its recorded digest",
                table="seals",
                field="document",
            )
        )
    signer = sealed.get("signer")
    if record.signature is not None or record.public_key is not None or signer is not None:
        result.signed = True
        result.key_fingerprint = record.key_fingerprint
        _check_signature(record, signer, data, result, pubkey)
    _check_pin(result, pubkey)
    return sealed


def _stamp(value: Any) -> Any:
    return utc_stamp(value) if hasattr(value, "isoformat") else value


def _check_signature(
    record: Any, signer: Any, data: bytes, result: VerifyResult, pubkey: bytes | None
) -> None:
    def bad(detail: str, column: str) -> None:
        result.mismatches.append(Mismatch("signature", detail, table="seals", field=column))

    try:
        public = bytes.fromhex(record.public_key or "")
        signature = bytes.fromhex(record.signature or "")
    except ValueError:
        bad("the stored public key or signature is not hex", "signature")
        return
    fp = fingerprint(public)
    expected_fp = signer.get("fingerprint") if isinstance(signer, dict) else None
    if record.key_fingerprint != fp or expected_fp != fp:
        bad(
            "the stored key fingerprint does not match the stored public key and the sealed signer",
            "key_fingerprint",
        )
    if not signature_valid(public, signature, data):
        bad("the signature does not match the seal document and the stored public key", "signature")
        return
    if pubkey is not None:
        if public != pubkey:
            bad(
                f"signed by key {short(fp)}, not by the pinned key {short(fingerprint(pubkey))}",
                "public_key",
            )
            return
        result.pinned = True


def _compare(
    conn: Connection,
    run_id: int,
    sealed: dict[str, Any],
    result: VerifyResult,
    observe: FactObserver | None = None,
) -> None:
    now = build_document(conn, run_id, signer=sealed.get("signer"), tolerant=True, observe=observe)
    broken = {k for k, v in now.items() if isinstance(v, dict) and UNREADABLE in v}
    for name in sorted(broken):
        result.mismatches.append(
            Mismatch(name, f"{name}: a stored row cannot be read ({now[name][UNREADABLE]})", table=name)
        )
    diffs = [d for d in differences(sealed, now) if d[0][0] not in broken]
    finer = {p[0] for p, _, _ in diffs if len(p) >= 3 or p[:2] == ("config", "waivers")}
    paths = {p for p, _, _ in diffs}
    for path, was, is_now in diffs:
        if len(path) == 2 and path[1] in ("digest", "sha256") and path[0] in finer:
            continue  # a row or field of the section is named instead
        if path == ("config", "keys", "waivers") and ("config", "waivers") in paths:
            continue
        named = describe(path, was, is_now)
        if named.get("table") == "runs" and not named.get("row"):
            named["row"] = str(run_id)
        result.mismatches.append(Mismatch(**named))
