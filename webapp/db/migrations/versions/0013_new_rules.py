"""The rules of the seeds that had no implementation: a sheet's late players (BB-1) and
the scorekeeper chosen by lot (CSM-3), what seeded round 1 (CSM-5), and the officials
named per tournament (BB-2 jury, SMU-4 referees)

Revision ID: c3_new_rules
Revises: b3_thousand
"""
from alembic import op
import sqlalchemy as sa


revision = 'c3_new_rules'
down_revision = 'b3_thousand'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('sheet') as batch:
        batch.add_column(sa.Column('late', sa.JSON(), nullable=True))
        batch.add_column(sa.Column('keeper_by_lot', sa.Integer(), nullable=True))
    with op.batch_alter_table('round') as batch:
        batch.add_column(sa.Column('seeding', sa.JSON(), nullable=True))
    op.create_table('official',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('tournament_id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('club', sa.String(length=120), nullable=True),
    sa.Column('start_no', sa.Integer(), nullable=True),
    sa.Column('created_by', sa.String(length=120), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['tournament_id'], ['tournament.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['user.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('tournament_id', 'user_id')
    )
    with op.batch_alter_table('official', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_official_tournament_id'), ['tournament_id'], unique=False)


def downgrade():
    with op.batch_alter_table('official', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_official_tournament_id'))
    op.drop_table('official')
    with op.batch_alter_table('round') as batch:
        batch.drop_column('seeding')
    with op.batch_alter_table('sheet') as batch:
        batch.drop_column('keeper_by_lot')
        batch.drop_column('late')
