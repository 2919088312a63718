"""The language of a tournament's player-facing paper (PIN slips, printed sheets)

Revision ID: c5_paper_language
Revises: c4_phone
"""
from alembic import op
import sqlalchemy as sa


revision = 'c5_paper_language'
down_revision = 'c4_phone'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('tournament') as batch:
        batch.add_column(sa.Column('paper_language', sa.String(length=5), nullable=True))


def downgrade():
    with op.batch_alter_table('tournament') as batch:
        batch.drop_column('paper_language')
