"""keyed PIN verifiers and atomic PIN attempts

Revision ID: a2_pins
Revises: a1_auth
"""
from alembic import op
import sqlalchemy as sa


revision = 'a2_pins'
down_revision = 'a1_auth'
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
