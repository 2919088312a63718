"""Thousand on the server (TH-2/TH-4/TH-5): the tournament's lot seed, a
`lot` event's order, a sheet of a frozen table of two

Revision ID: b3_thousand
Revises: a8_rulesets
"""
from alembic import op
import sqlalchemy as sa


revision = 'b3_thousand'
down_revision = 'a8_rulesets'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('tournament') as batch:
        batch.add_column(sa.Column('seed', sa.BigInteger(), nullable=True))
    with op.batch_alter_table('event') as batch:
        batch.add_column(sa.Column('order', sa.JSON(), nullable=True))
    with op.batch_alter_table('sheet') as batch:
        batch.add_column(sa.Column('frozen', sa.Boolean(), nullable=True))


def downgrade():
    with op.batch_alter_table('sheet') as batch:
        batch.drop_column('frozen')
    with op.batch_alter_table('event') as batch:
        batch.drop_column('order')
    with op.batch_alter_table('tournament') as batch:
        batch.drop_column('seed')
