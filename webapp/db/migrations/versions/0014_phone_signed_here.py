"""Phone sheets: who signed on the phone that published a draft, for the players' own phones

Revision ID: c4_phone
Revises: c3_new_rules
"""
from alembic import op
import sqlalchemy as sa


revision = 'c4_phone'
down_revision = 'c3_new_rules'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('sheet_draft') as batch:
        batch.add_column(sa.Column('signed_here', sa.JSON(), nullable=True))


def downgrade():
    with op.batch_alter_table('sheet_draft') as batch:
        batch.drop_column('signed_here')
