"""Referee calls from a table's phone or a player's own page: open, taken, closed

Revision ID: c8_companion
Revises: c7_security
"""
from alembic import op
import sqlalchemy as sa


revision = 'c8_companion'
down_revision = 'c7_security'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'referee_call',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('tournament_id', sa.Integer(), nullable=False),
        sa.Column('round', sa.Integer(), nullable=False),
        sa.Column('table', sa.Integer(), nullable=False),
        sa.Column('reason', sa.Text(), nullable=False),
        sa.Column('caller', sa.String(length=40), nullable=False),
        sa.Column('status', sa.String(length=10), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('taken_by', sa.String(length=120), nullable=True),
        sa.Column('taken_at', sa.DateTime(), nullable=True),
        sa.Column('closed_by', sa.String(length=120), nullable=True),
        sa.Column('closed_at', sa.DateTime(), nullable=True),
        sa.Column('note', sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(['tournament_id'], ['tournament.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    with op.batch_alter_table('referee_call') as batch:
        batch.create_index(batch.f('ix_referee_call_tournament_id'), ['tournament_id'], unique=False)


def downgrade():
    with op.batch_alter_table('referee_call') as batch:
        batch.drop_index(batch.f('ix_referee_call_tournament_id'))
    op.drop_table('referee_call')
