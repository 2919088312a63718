"""the tournament's public version (what public pages show changed)

Revision ID: a6_speed
Revises: a7_federation
"""
from alembic import op
import sqlalchemy as sa


revision = 'a6_speed'
# after a7_federation, which already follows a5_sem: one Alembic head
down_revision = 'a7_federation'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('tournament') as batch:
        batch.add_column(sa.Column('public_version', sa.Integer(), nullable=False, server_default='1'))


def downgrade():
    with op.batch_alter_table('tournament') as batch:
        batch.drop_column('public_version')
