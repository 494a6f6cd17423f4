"""Retention: `auditor runs prune` removes whole runs past retention as one recorded, signed operation.

Each pruned run leaves a tombstone (its identity, counts, chain head and every seal record it had, verbatim)
signed with the seal key when one is configured; the operation itself is a `prunings` row whose signed
document lists every tombstone's digest. A run is pruned whole or not at all, in one transaction; only a
sealed run in a final status is pruned (never one running, or leased by a live writer), and the newest
`keep_last` sealed runs of each scope are kept whatever their age. The store's guards hold the same rules
(migrations/guards.py); tombstones.py proves a pruned run's seal from its tombstone.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Engine, delete, func, insert, select

from auditor.enums import RunStatus
from auditor.errors import AuditorError
from auditor.evidence.chain import canonical_json, sha256_hex, utc_stamp
from auditor.evidence.signing import ALGORITHM, Signer
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
ROWS_OF_RUN = (Fact, Finding, Problem, Capture, Target, SealRecord)


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
    for model in ROWS_OF_RUN:
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


def stamp_text(value: Any) -> Any:
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
        "created_at": stamp_text(record.created_at),
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
            "run": {f: stamp_text(getattr(run, f)) for f in RUN_FIELDS},
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


# --- reading tombstones (verification: auditor/ops/tombstones.py) ----------------------------------------


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
