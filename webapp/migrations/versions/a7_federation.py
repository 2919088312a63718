"""federation: seasons, rosters, cards, venues, pushed tournaments

Revision ID: a7_federation
Revises: a5_sem
"""
from alembic import op
import sqlalchemy as sa


revision = 'a7_federation'
down_revision = 'a5_sem'
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
