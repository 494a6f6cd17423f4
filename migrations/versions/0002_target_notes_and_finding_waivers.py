"""target notes and finding waivers

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02 14:50:44.893749
"""
from __future__ import annotations

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:

    with op.batch_alter_table('findings', schema=None) as batch_op:
        batch_op.add_column(sa.Column('waiver', sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql'), nullable=True))

    with op.batch_alter_table('targets', schema=None) as batch_op:
        batch_op.add_column(sa.Column('notes', sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql'), nullable=True))




def downgrade() -> None:

    with op.batch_alter_table('targets', schema=None) as batch_op:
        batch_op.drop_column('notes')

    with op.batch_alter_table('findings', schema=None) as batch_op:
        batch_op.drop_column('waiver')


