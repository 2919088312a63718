"""rule sets beyond SEM: a sheet's second figure (ČSM PB, Thousand score), how a
Thousand game ended and ČSM's premium-game lines

Revision ID: a8_rulesets
Revises: a6_speed
"""
from alembic import op
import sqlalchemy as sa


revision = 'a8_rulesets'
down_revision = 'a6_speed'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('sheet') as batch:
        batch.add_column(sa.Column('scores', sa.JSON(), nullable=True))
        batch.add_column(sa.Column('ended', sa.String(length=10), nullable=True))
        batch.add_column(sa.Column('premium_games', sa.JSON(), nullable=True))


def downgrade():
    with op.batch_alter_table('sheet') as batch:
        batch.drop_column('premium_games')
        batch.drop_column('ended')
        batch.drop_column('scores')
