"""SEM fidelity (nomination duty fixed at round 1 and others)

Revision ID: a5_sem
Revises: a4_desk
"""
from alembic import op
import sqlalchemy as sa


revision = 'a5_sem'
down_revision = 'a4_desk'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('tournament') as batch:
        batch.add_column(sa.Column('nomination_duty', sa.JSON(), nullable=True))


def downgrade():
    with op.batch_alter_table('tournament') as batch:
        batch.drop_column('nomination_duty')
