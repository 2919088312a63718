"""desk corrections through the referee

Revision ID: a4_desk
Revises: a3_chain
"""
from alembic import op
import sqlalchemy as sa


revision = 'a4_desk'
down_revision = 'a3_chain'
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
