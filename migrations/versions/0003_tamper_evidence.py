"""tamper evidence: the seals table (signed seal documents) and write guards on every table a report reads

Revision ID: 0003_tamper_evidence
Revises: 0002
Create Date: 2026-12-03 10:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from migrations import guards

revision = "0003_tamper_evidence"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "seals",
        sa.Column("run_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("version", sa.String(length=32), nullable=False),
        sa.Column("document", sa.Text(), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("signature", sa.String(length=128), nullable=True),
        sa.Column("public_key", sa.String(length=64), nullable=True),
        sa.Column("key_fingerprint", sa.String(length=64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"], name=op.f("fk_seals_run_id_runs")),
        sa.PrimaryKeyConstraint("run_id", name=op.f("pk_seals")),
    )
    guards.install(resumable=False, prunable=False)  # as of this revision (0004: resume, 0005: prune)


def downgrade() -> None:
    guards.remove()
    op.drop_table("seals")
    _restore_0001_guards()


def _restore_0001_guards() -> None:
    """The append-only triggers of 0001, as they were."""
    evidence = ("captures", "facts", "findings", "problems")
    if op.get_context().dialect.name == "postgresql":
        op.execute(
            "CREATE FUNCTION auditor_append_only() RETURNS trigger AS $$ BEGIN "
            "RAISE EXCEPTION 'auditor: % is append-only (% refused)', TG_TABLE_NAME, TG_OP; "
            "END $$ LANGUAGE plpgsql"
        )
        op.execute(
            "CREATE FUNCTION auditor_sealed_run() RETURNS trigger AS $$ BEGIN "
            "IF OLD.sealed_at IS NOT NULL THEN "
            "RAISE EXCEPTION 'auditor: run % is sealed (% refused)', OLD.id, TG_OP; END IF; "
            "IF TG_OP = 'DELETE' THEN RETURN OLD; END IF; RETURN NEW; END $$ LANGUAGE plpgsql"
        )
        for table in evidence:
            op.execute(
                f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                "FOR EACH ROW EXECUTE FUNCTION auditor_append_only()"
            )
            op.execute(
                f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
                "FOR EACH STATEMENT EXECUTE FUNCTION auditor_append_only()"
            )
        op.execute(
            "CREATE TRIGGER runs_sealed BEFORE UPDATE OR DELETE ON runs "
            "FOR EACH ROW EXECUTE FUNCTION auditor_sealed_run()"
        )
        return
    for table in evidence:
        for action in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER {table}_no_{action.lower()} BEFORE {action} ON {table} "
                f"BEGIN SELECT RAISE(ABORT, 'auditor: {table} is append-only ({action} refused)'); END"
            )
    for action in ("UPDATE", "DELETE"):
        op.execute(
            f"CREATE TRIGGER runs_sealed_no_{action.lower()} BEFORE {action} ON runs "
            f"WHEN OLD.sealed_at IS NOT NULL "
            f"BEGIN SELECT RAISE(ABORT, 'auditor: run is sealed ({action} refused)'); END"
        )
