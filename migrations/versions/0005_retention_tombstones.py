"""retention: prunings (one signed record per `auditor runs prune`) and tombstones (what is left of each
pruned run: its identity, counts, chain head and seal records); the guards let a run's rows be deleted only
under its tombstone, whole

Revision ID: 0005_retention_tombstones
Revises: 0004_run_leases_and_resume
Create Date: 2026-12-03 16:55:00
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

from migrations import guards

revision = "0005_retention_tombstones"
down_revision = "0004_run_leases_and_resume"
branch_labels = None
depends_on = None

_HASH = sa.String(length=64)
_STAMP = sa.DateTime(timezone=True)


def _json() -> Any:
    return sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    op.create_table(
        "prunings",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("pruned_at", _STAMP, nullable=False),
        sa.Column("operator", sa.String(length=255), nullable=False),
        sa.Column("policy", _json(), nullable=False),
        sa.Column("run_ids", _json(), nullable=False),
        sa.Column("document", sa.Text(), nullable=False),
        sa.Column("digest", _HASH, nullable=False),
        sa.Column("signature", sa.String(length=128), nullable=True),
        sa.Column("public_key", _HASH, nullable=True),
        sa.Column("key_fingerprint", _HASH, nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_prunings")),
    )
    op.create_table(
        "tombstones",
        sa.Column("run_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("pruning_id", sa.Integer(), nullable=False),
        sa.Column("scope", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("started_at", _STAMP, nullable=False),
        sa.Column("sealed_at", _STAMP, nullable=False),
        sa.Column("chain_head", _HASH, nullable=False),
        sa.Column("capture_count", sa.Integer(), nullable=False),
        sa.Column("fact_count", sa.Integer(), nullable=False),
        sa.Column("finding_count", sa.Integer(), nullable=False),
        sa.Column("seal_digest", _HASH, nullable=True),
        sa.Column("pruned_at", _STAMP, nullable=False),
        sa.Column("pruned_by", sa.String(length=255), nullable=False),
        sa.Column("document", sa.Text(), nullable=False),
        sa.Column("digest", _HASH, nullable=False),
        sa.Column("signature", sa.String(length=128), nullable=True),
        sa.Column("public_key", _HASH, nullable=True),
        sa.Column("key_fingerprint", _HASH, nullable=True),
        sa.ForeignKeyConstraint(
            ["pruning_id"], ["prunings.id"], name=op.f("fk_tombstones_pruning_id_prunings")
        ),
        sa.PrimaryKeyConstraint("run_id", name=op.f("pk_tombstones")),
    )
    op.create_index(op.f("ix_tombstones_pruning_id"), "tombstones", ["pruning_id"], unique=False)
    guards.install()  # the delete guards now allow a run's rows to go under its tombstone


def downgrade() -> None:
    guards.remove()
    op.drop_index(op.f("ix_tombstones_pruning_id"), table_name="tombstones")
    op.drop_table("tombstones")
    op.drop_table("prunings")
    guards.install(prunable=False)
