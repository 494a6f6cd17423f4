"""SQLAlchemy 2 typed models. Every change here needs an Alembic migration (a test compares them)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

Json = JSON().with_variant(JSONB(), "postgresql")
BigId = BigInteger().with_variant(Integer(), "sqlite")
Stamp = DateTime(timezone=True)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class Run(Base):
    """One audit run. Sealed with the chain head once collection ends; sealed runs never change."""

    __tablename__ = "runs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    status: Mapped[str] = mapped_column(String(16))
    started_at: Mapped[datetime] = mapped_column(Stamp)
    finished_at: Mapped[datetime | None] = mapped_column(Stamp)
    scope: Mapped[str] = mapped_column(Text, default="")
    tool_version: Mapped[str] = mapped_column(String(32))
    operator: Mapped[str] = mapped_column(String(255), default="")
    config_sha256: Mapped[str] = mapped_column(String(64))
    config: Mapped[dict[str, Any]] = mapped_column(Json)
    genesis: Mapped[str] = mapped_column(String(64))
    chain_head: Mapped[str | None] = mapped_column(String(64))
    facts_digest: Mapped[str | None] = mapped_column(String(64))
    findings_digest: Mapped[str | None] = mapped_column(String(64))
    capture_count: Mapped[int] = mapped_column(Integer, default=0)
    fact_count: Mapped[int] = mapped_column(Integer, default=0)
    finding_count: Mapped[int] = mapped_column(Integer, default=0)
    sealed_at: Mapped[datetime | None] = mapped_column(Stamp)
    reason: Mapped[str | None] = mapped_column(Text)
    # The lease of the process writing the run (see auditor/store/lease.py): a running run whose lease
    # expired, or whose process is gone from its host, is shown as interrupted and may be resumed.
    host: Mapped[str | None] = mapped_column(String(255))
    pid: Mapped[int | None] = mapped_column(Integer)
    heartbeat_at: Mapped[datetime | None] = mapped_column(Stamp)
    resumes: Mapped[int] = mapped_column(Integer, default=0, server_default="0")  # `audit --resume` count


class Target(Base):
    """Something collected from: a device, an AWS account/region, a cluster, a directory of flow logs."""

    __tablename__ = "targets"
    __table_args__ = (UniqueConstraint("run_id", "kind", "name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id"), index=True)
    kind: Mapped[str] = mapped_column(String(32))
    name: Mapped[str] = mapped_column(String(255))
    platform: Mapped[str | None] = mapped_column(String(64))
    tier: Mapped[str | None] = mapped_column(String(16))
    role: Mapped[str | None] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16))
    reason: Mapped[str | None] = mapped_column(Text)
    notes: Mapped[list[str] | None] = mapped_column(Json)  # e.g. an explicit host-key opt-out, for the report
    started_at: Mapped[datetime | None] = mapped_column(Stamp)
    finished_at: Mapped[datetime | None] = mapped_column(Stamp)


class Capture(Base):
    """A raw capture: redacted bytes, their SHA-256, and the link to the previous capture. Append-only."""

    __tablename__ = "captures"
    __table_args__ = (UniqueConstraint("run_id", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    target_id: Mapped[int] = mapped_column(ForeignKey("targets.id"), index=True)  # indexed: see 0006
    format: Mapped[str] = mapped_column(String(64))
    source: Mapped[str] = mapped_column(Text)
    origin: Mapped[str] = mapped_column(Text)
    collected_at: Mapped[datetime] = mapped_column(Stamp)
    meta: Mapped[dict[str, str]] = mapped_column(Json)
    content: Mapped[bytes | None] = mapped_column(LargeBinary)
    content_uri: Mapped[str | None] = mapped_column(Text)
    size: Mapped[int] = mapped_column(BigInteger)
    content_sha256: Mapped[str] = mapped_column(String(64))
    prev_hash: Mapped[str] = mapped_column(String(64))
    link_hash: Mapped[str] = mapped_column(String(64))
    redactions: Mapped[int] = mapped_column(Integer, default=0)
    redaction_kinds: Mapped[dict[str, int]] = mapped_column(Json)


class Fact(Base):
    """A normalized fact row. Written in bulk through Core, never row by row through the ORM. Its foreign
    keys are indexed (migration 0006): deleting a pruned run's captures and targets checks them per row."""

    __tablename__ = "facts"
    __table_args__ = (Index("ix_facts_run_kind", "run_id", "kind"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id"))
    target_id: Mapped[int] = mapped_column(ForeignKey("targets.id"), index=True)
    capture_id: Mapped[int] = mapped_column(ForeignKey("captures.id"), index=True)
    kind: Mapped[str] = mapped_column(String(48))
    subject: Mapped[str] = mapped_column(Text)
    data: Mapped[dict[str, Any]] = mapped_column(Json)


class Finding(Base):
    __tablename__ = "findings"
    __table_args__ = (Index("ix_findings_run_check", "run_id", "check_id"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id"))
    check_id: Mapped[str] = mapped_column(String(96))
    status: Mapped[str] = mapped_column(String(16))
    severity: Mapped[str] = mapped_column(String(16))
    tier: Mapped[str] = mapped_column(String(16))
    target: Mapped[str | None] = mapped_column(String(255))
    subject: Mapped[str] = mapped_column(Text)
    message: Mapped[str] = mapped_column(Text)
    expected: Mapped[str] = mapped_column(Text)
    found: Mapped[str] = mapped_column(Text)
    fact_ids: Mapped[list[int]] = mapped_column(Json)
    evidence: Mapped[list[dict[str, Any]]] = mapped_column(Json)
    waiver: Mapped[dict[str, Any] | None] = mapped_column(Json)  # the waiver that applied to a FAIL


class Problem(Base):
    """An evidence gap: a target that could not be collected, a file or line that could not be read."""

    __tablename__ = "problems"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id"), index=True)
    target_id: Mapped[int | None] = mapped_column(ForeignKey("targets.id"), index=True)
    capture_id: Mapped[int | None] = mapped_column(ForeignKey("captures.id"), index=True)
    location: Mapped[str] = mapped_column(Text)
    message: Mapped[str] = mapped_column(Text)
    hint: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(Stamp)


class SealRecord(Base):
    """The seal of a run: the canonical document that commits to everything a report shows (run fields,
    stored config, targets, captures, facts, findings, problems), and its Ed25519 signature when a key
    was configured. Inserted once per sealing of the run; never changed (see migrations/guards.py)."""

    __tablename__ = "seals"

    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id"), primary_key=True, autoincrement=False)
    # The run's `resumes` when sealed: an interrupted run that is resumed keeps the seal of its interruption
    # (resume 0, say) and is sealed again when it ends (resume 1); the latest one proves the run.
    resume: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False, server_default="0")
    version: Mapped[str] = mapped_column(String(32))
    document: Mapped[str] = mapped_column(Text)  # canonical JSON, exactly the bytes that are signed
    digest: Mapped[str] = mapped_column(String(64))  # SHA-256 of the document
    signature: Mapped[str | None] = mapped_column(String(128))  # hex Ed25519 signature; None: unsigned
    public_key: Mapped[str | None] = mapped_column(String(64))  # hex raw Ed25519 public key
    key_fingerprint: Mapped[str | None] = mapped_column(String(64))  # SHA-256 of the raw public key
    created_at: Mapped[datetime] = mapped_column(Stamp)


class Pruning(Base):
    """One retention operation (`auditor runs prune`): when, by whom, under which policy, and the runs it
    removed. Its canonical document lists each tombstone's digest and is signed when a key is configured,
    so the operation as a whole is recorded and signed, not only each run. Insert-only."""

    __tablename__ = "prunings"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    pruned_at: Mapped[datetime] = mapped_column(Stamp)
    operator: Mapped[str] = mapped_column(String(255))
    policy: Mapped[dict[str, Any]] = mapped_column(Json)  # keep_days, keep_last, scope
    run_ids: Mapped[list[int]] = mapped_column(Json)
    document: Mapped[str] = mapped_column(Text)  # canonical JSON, exactly the bytes that are signed
    digest: Mapped[str] = mapped_column(String(64))
    signature: Mapped[str | None] = mapped_column(String(128))
    public_key: Mapped[str | None] = mapped_column(String(64))
    key_fingerprint: Mapped[str | None] = mapped_column(String(64))


class Tombstone(Base):
    """What is left of a pruned run: its identity, counts, chain head and every seal record it had (the
    signed seal documents, verbatim), so its seal stays verifiable after its rows are gone. A run's rows
    may be deleted only under its tombstone (see migrations/guards.py). Insert-only."""

    __tablename__ = "tombstones"

    run_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)  # the run is gone
    pruning_id: Mapped[int] = mapped_column(ForeignKey("prunings.id"), index=True)
    scope: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16))
    started_at: Mapped[datetime] = mapped_column(Stamp)
    sealed_at: Mapped[datetime] = mapped_column(Stamp)
    chain_head: Mapped[str] = mapped_column(String(64))
    capture_count: Mapped[int] = mapped_column(Integer)
    fact_count: Mapped[int] = mapped_column(Integer)
    finding_count: Mapped[int] = mapped_column(Integer)
    seal_digest: Mapped[str | None] = mapped_column(String(64))  # the latest seal's; None: no seal record
    pruned_at: Mapped[datetime] = mapped_column(Stamp)
    pruned_by: Mapped[str] = mapped_column(String(255))
    document: Mapped[str] = mapped_column(Text)  # canonical JSON, exactly the bytes that are signed
    digest: Mapped[str] = mapped_column(String(64))
    signature: Mapped[str | None] = mapped_column(String(128))
    public_key: Mapped[str | None] = mapped_column(String(64))
    key_fingerprint: Mapped[str | None] = mapped_column(String(64))


APPEND_ONLY_TABLES = ("captures", "facts", "findings", "problems")
GUARDED_TABLES = ("runs", "targets", *APPEND_ONLY_TABLES, "seals")
RETENTION_TABLES = ("prunings", "tombstones")  # insert-only records of what retention removed
