"""per-tournament hash chain, published heads, receipts

Revision ID: a3_chain
Revises: a2_pins
"""
from alembic import op
import sqlalchemy as sa


revision = 'a3_chain'
down_revision = 'a2_pins'
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
