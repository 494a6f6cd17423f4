"""Retention: `auditor runs prune` removes whole runs past retention as one recorded, signed operation.

Each pruned run leaves a tombstone (its identity, counts, chain head and every seal record it had, verbatim)
signed with the seal key when one is configured; the operation itself is a `prunings` row whose signed
document lists every tombstone's digest. A run is pruned whole or not at all, in one transaction; only a
sealed run in a final status is pruned (never one running, or leased by a live writer), and the newest
`keep_last` sealed runs of each scope are kept whatever their age. The store's guards hold the same rules
(migrations/guards.py); `verify_tombstone` proves a pruned run's seal from its tombstone.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

from sqlalchemy import Connection, Engine, delete, func, insert, select

from auditor.enums import RunStatus
from auditor.errors import AuditorError
from auditor.evidence.chain import canonical_json, sha256_hex, utc_stamp
from auditor.evidence.signing import ALGORITHM, Signer, fingerprint, short, signature_valid
from auditor.store.models import (
    Capture,
    Fact,
    Finding,
    Problem,
    Pruning,
    Run,
    SealRecord,
    Target,
    Tombstone,
)

TOMBSTONE_VERSION = "auditor-tombstone-v1"
PRUNING_VERSION = "auditor-pruning-v1"
FINAL = frozenset(s.value for s in RunStatus if s is not RunStatus.RUNNING)
# Children before parents (foreign keys): facts and problems point at captures and targets.
_ROWS_OF_RUN = (Fact, Finding, Problem, Capture, Target, SealRecord)


class RetentionError(AuditorError):
    hint = "run `auditor runs prune --dry-run` to see what would be pruned and why"


@dataclass(frozen=True)
class Policy:
    keep_days: int
    keep_last: int = 1
    scope: str | None = None  # None: every scope

    def __post_init__(self) -> None:
        if self.keep_days < 0:
            raise RetentionError(f"--keep-days must be 0 or more, got {self.keep_days}")
        if self.keep_last < 1:
            raise RetentionError(
                f"--keep-last must be 1 or more, got {self.keep_last}: the latest run of a scope is what "
                "the next audit's alerts and `diff --previous` compare with"
            )

    def json(self) -> dict[str, Any]:
        return {"keep_days": self.keep_days, "keep_last": self.keep_last, "scope": self.scope}


@dataclass(frozen=True)
class Decision:
    run_id: int
    scope: str
    status: str
    sealed_at: datetime | None
    prune: bool
    why: str

    def json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "scope": self.scope,
            "status": self.status,
            "sealed_at": self.sealed_at.isoformat() if self.sealed_at else None,
            "pruned": self.prune,
            "why": self.why,
        }


@dataclass
class PruneResult:
    policy: Policy
    decisions: list[Decision]
    pruning_id: int | None = None  # None: a dry run, or nothing to prune
    key_fingerprint: str | None = None
    tombstones: list[dict[str, Any]] = field(default_factory=list)

    @property
    def pruned(self) -> list[Decision]:
        return [d for d in self.decisions if d.prune]

    @property
    def kept(self) -> list[Decision]:
        return [d for d in self.decisions if not d.prune]


def _aware(stamp: datetime | None) -> datetime | None:
    if stamp is None:
        return None
    return stamp if stamp.tzinfo is not None else stamp.replace(tzinfo=UTC)


def plan(engine: Engine, policy: Policy, now: datetime | None = None) -> list[Decision]:
    """What the policy prunes and keeps, run by run (newest first), and why. Reads only."""
    now = now or datetime.now(UTC)
    cutoff = now - timedelta(days=policy.keep_days)
    query = select(Run.id, Run.scope, Run.status, Run.sealed_at).order_by(Run.id.desc())
    if policy.scope is not None:
        query = query.where(Run.scope == policy.scope)
    with engine.connect() as conn:
        rows = list(conn.execute(query))
    kept_per_scope: dict[str, int] = defaultdict(int)
    out: list[Decision] = []
    for r in rows:
        sealed = _aware(r.sealed_at)
        if sealed is None or r.status not in FINAL:
            why, prune = "not sealed (running, or interrupted without a seal): never pruned", False
        elif kept_per_scope[r.scope] < policy.keep_last:
            kept_per_scope[r.scope] += 1
            why, prune = f"among the newest {policy.keep_last} sealed run(s) of its scope", False
        elif sealed >= cutoff:
            why, prune = f"sealed within the last {policy.keep_days} day(s)", False
        else:
            why, prune = f"sealed before {cutoff:%Y-%m-%d %H:%M} UTC and not among the newest", True
        out.append(Decision(int(r.id), r.scope, r.status, sealed, prune, why))
    return out


def prune(
    engine: Engine,
    policy: Policy,
    *,
    operator: str,
    signer: Signer | None = None,
    dry_run: bool = False,
    now: datetime | None = None,
) -> PruneResult:
    """Plan, then (unless `dry_run`) remove the runs to prune in one transaction, leaving a tombstone each
    and one signed pruning record. Nothing is removed if any of it fails."""
    decisions = plan(engine, policy, now)
    result = PruneResult(policy, decisions, key_fingerprint=signer.fingerprint if signer else None)
    ids = [d.run_id for d in result.pruned]
    if dry_run or not ids:
        return result
    stamp = now or datetime.now(UTC)
    with engine.begin() as conn:
        rows = _lock_runs(conn, ids)
        changed = [
            i for i in ids if i not in rows or rows[i].sealed_at is None or rows[i].status not in FINAL
        ]
        if changed:
            raise RetentionError(
                f"run(s) {', '.join(map(str, changed))} changed while pruning; nothing pruned"
            )
        pruned = {"at": utc_stamp(stamp), "by": operator, "policy": policy.json()}
        stones = [_tombstone(conn, rows[i], stamp, pruned, signer) for i in ids]
        document = _encode(
            {
                "pruning": PRUNING_VERSION,
                **pruned,
                "tombstones": [{"run_id": s["run_id"], "digest": s["digest"]} for s in stones],
                "signer": _signer_json(signer),
            }
        )
        pruning_id = conn.execute(
            insert(Pruning),
            {
                "pruned_at": stamp,
                "operator": operator,
                "policy": policy.json(),
                "run_ids": ids,
                **_signed(document, signer),
            },
        ).inserted_primary_key[0]  # type: ignore[index]
        conn.execute(insert(Tombstone), [{**s, "pruning_id": pruning_id} for s in stones])
        _delete_runs(conn, ids)
    result.pruning_id = int(pruning_id)
    result.tombstones = stones
    return result


def _delete_runs(conn: Connection, ids: list[int]) -> None:
    """Every row of the runs, in the order the store's guards ask (migrations/guards.py): on PostgreSQL the
    rows, then the run rows; on SQLite the run rows first, foreign keys checked at the commit, then the
    rows (a row left behind fails the commit)."""
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql("PRAGMA defer_foreign_keys = ON")  # until this transaction ends
        conn.execute(delete(Run).where(Run.id.in_(ids)))
    for model in _ROWS_OF_RUN:
        conn.execute(delete(model).where(model.run_id.in_(ids)))
    if conn.dialect.name != "sqlite":
        conn.execute(delete(Run).where(Run.id.in_(ids)))


def _lock_runs(conn: Connection, ids: list[int]) -> dict[int, Any]:
    """The runs to prune, read again inside the pruning transaction (locked on PostgreSQL, so a resume
    cannot take one back to running meanwhile; on SQLite the tombstone guard refuses such a run)."""
    query = select(Run.__table__).where(Run.id.in_(ids))
    if conn.dialect.name == "postgresql":
        query = query.with_for_update()
    return {int(r.id): r for r in conn.execute(query)}


def _encode(document: dict[str, Any]) -> str:
    return canonical_json(document).decode("utf-8")


def _signer_json(signer: Signer | None) -> dict[str, str] | None:
    return {"algorithm": ALGORITHM, "fingerprint": signer.fingerprint} if signer else None


def _signed(document: str, signer: Signer | None) -> dict[str, Any]:
    data = document.encode("utf-8")
    return {
        "document": document,
        "digest": sha256_hex(data),
        "signature": signer.sign(data).hex() if signer else None,
        "public_key": signer.public_raw.hex() if signer else None,
        "key_fingerprint": signer.fingerprint if signer else None,
    }


def _stamp(value: Any) -> Any:
    return utc_stamp(value) if hasattr(value, "isoformat") else value


def _seal_json(record: Any) -> dict[str, Any]:
    return {
        "resume": record.resume,
        "version": record.version,
        "document": record.document,
        "digest": record.digest,
        "signature": record.signature,
        "public_key": record.public_key,
        "key_fingerprint": record.key_fingerprint,
        "created_at": _stamp(record.created_at),
    }


RUN_FIELDS = (
    "id",
    "status",
    "scope",
    "started_at",
    "finished_at",
    "sealed_at",
    "operator",
    "tool_version",
    "config_sha256",
    "genesis",
    "chain_head",
    "facts_digest",
    "findings_digest",
    "capture_count",
    "fact_count",
    "finding_count",
    "resumes",
)


def _tombstone(
    conn: Connection, run: Any, stamp: datetime, pruned: dict[str, Any], signer: Signer | None
) -> dict[str, Any]:
    """The tombstone row of one run (its document holds the run's fields and its seal records verbatim)."""
    seals = list(
        conn.execute(
            select(SealRecord.__table__).where(SealRecord.run_id == run.id).order_by(SealRecord.resume)
        )
    )
    document = _encode(
        {
            "tombstone": TOMBSTONE_VERSION,
            "run": {f: _stamp(getattr(run, f)) for f in RUN_FIELDS},
            "seals": [_seal_json(s) for s in seals],
            "pruned": pruned,
            "signer": _signer_json(signer),
        }
    )
    return {
        "run_id": run.id,
        "scope": run.scope,
        "status": run.status,
        "started_at": run.started_at,
        "sealed_at": run.sealed_at,
        "chain_head": run.chain_head,
        "capture_count": run.capture_count,
        "fact_count": run.fact_count,
        "finding_count": run.finding_count,
        "seal_digest": seals[-1].digest if seals else None,
        "pruned_at": stamp,
        "pruned_by": pruned["by"],
        **_signed(document, signer),
    }


# --- verification --------------------------------------------------------------------------------------


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
        return (
            f"run {r.run_id} was pruned on {_stamp(r.pruned_at)} by {r.pruned_by} (pruning #{r.pruning_id}); "
            f"tombstone {who}; it was {r.status}, sealed {_stamp(r.sealed_at)}, {r.capture_count} captures, "
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
            "pruned_at": _stamp(r.pruned_at),
            "pruned_by": r.pruned_by,
            "scope": r.scope,
            "status": r.status,
            "sealed_at": _stamp(r.sealed_at),
            "chain_head": r.chain_head,
            "captures": r.capture_count,
            "facts": r.fact_count,
            "findings": r.finding_count,
            "seal_digest": r.seal_digest,
            "signer": self.signed_by,
            "seal_signer": self.seal_signed_by,
        }


def tombstone_of(engine: Engine, run_id: int) -> Any | None:
    with engine.connect() as conn:
        return conn.execute(select(Tombstone.__table__).where(Tombstone.run_id == run_id)).first()


def count_tombstones(engine: Engine) -> int:
    with engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(Tombstone)).scalar_one())


def list_tombstones(engine: Engine, limit: int = 50) -> list[Any]:
    with engine.connect() as conn:
        query = select(Tombstone.__table__).order_by(Tombstone.run_id.desc()).limit(limit)
        return list(conn.execute(query))


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
        keyed += [(str(m.__tablename__), m.__table__.c.run_id) for m in _ROWS_OF_RUN]
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
        if _stamp(getattr(row, column)) != run.get(key):
            problems.append(f"tombstone: {column} is not what its signed document says")
    pruned = doc.get("pruned") if isinstance(doc.get("pruned"), dict) else {}
    assert isinstance(pruned, dict)
    if _stamp(row.pruned_at) != pruned.get("at") or row.pruned_by != pruned.get("by"):
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
