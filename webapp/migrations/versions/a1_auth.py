"""sign-in sessions, login throttle, roles per tournament

Revision ID: a1_auth
Revises: 8ce69311ff61
"""
from alembic import op
import sqlalchemy as sa


revision = 'a1_auth'
down_revision = '8ce69311ff61'
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
