"""run leases and resume: who writes a running run (host, pid, heartbeat), how often it was resumed, and one
seal per sealing of a run (an interrupted run that is resumed keeps the seal of its interruption)

Revision ID: 0004_run_leases_and_resume
Revises: 0003_tamper_evidence
Create Date: 2026-12-03 13:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from migrations import guards

revision = "0004_run_leases_and_resume"
down_revision = "0003_tamper_evidence"
branch_labels = None
depends_on = None


def upgrade() -> None:
    guards.remove()  # the batch copies below must not meet the guards; they are installed again at the end
    with op.batch_alter_table("runs", schema=None) as batch_op:
        batch_op.add_column(sa.Column("host", sa.String(length=255), nullable=True))
        batch_op.add_column(sa.Column("pid", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("resumes", sa.Integer(), server_default="0", nullable=False))
    with op.batch_alter_table("seals", schema=None, recreate="always") as batch_op:
        batch_op.add_column(sa.Column("resume", sa.Integer(), server_default="0", nullable=False))
        batch_op.drop_constraint("pk_seals", type_="primary")
        batch_op.create_primary_key("pk_seals", ["run_id", "resume"])
    guards.install(prunable=False)  # SQLite batch mode recreated the tables without their triggers


def downgrade() -> None:
    guards.remove()
    with op.batch_alter_table("seals", schema=None, recreate="always") as batch_op:
        batch_op.drop_constraint("pk_seals", type_="primary")
        batch_op.drop_column("resume")
        batch_op.create_primary_key("pk_seals", ["run_id"])
    # Not a batch copy of `runs` on SQLite: dropping the old table would break the other tables' foreign
    # keys to it. ALTER TABLE ... DROP COLUMN (SQLite 3.35+, PostgreSQL) drops in place.
    for column in ("resumes", "heartbeat_at", "pid", "host"):
        op.execute(f"ALTER TABLE runs DROP COLUMN {column}")
    guards.install(resumable=False, prunable=False)
