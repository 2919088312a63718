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
    with op.batch_alter_table('tournament', schema=None) as batch_op:
        batch_op.add_column(sa.Column('chain_seq', sa.Integer(), server_default='0', nullable=False))
        batch_op.add_column(sa.Column('chain_head', sa.String(length=64), server_default='', nullable=False))
        batch_op.add_column(sa.Column('chain_mac', sa.String(length=64), server_default='', nullable=False))
    with op.batch_alter_table('sheet', schema=None) as batch_op:
        batch_op.add_column(sa.Column('content', sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column('chain_seq', sa.Integer(), nullable=True))
    with op.batch_alter_table('audit_entry', schema=None) as batch_op:
        batch_op.add_column(sa.Column('seq', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('mac', sa.String(length=64), server_default='', nullable=False))
        batch_op.create_unique_constraint('uq_audit_entry_tournament_seq', ['tournament_id', 'seq'])
    op.create_table(
        'published_head',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('tournament_id', sa.Integer(), nullable=False),
        sa.Column('seq', sa.Integer(), nullable=False),
        sa.Column('hash', sa.String(length=64), nullable=False),
        sa.Column('mac', sa.String(length=64), nullable=False),
        sa.Column('place', sa.String(length=40), nullable=False),
        sa.Column('published_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(['tournament_id'], ['tournament.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('tournament_id', 'seq', 'hash'),
    )
    with op.batch_alter_table('published_head', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_published_head_tournament_id'), ['tournament_id'], unique=False)


def downgrade():
    with op.batch_alter_table('published_head', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_published_head_tournament_id'))
    op.drop_table('published_head')
    with op.batch_alter_table('audit_entry', schema=None) as batch_op:
        batch_op.drop_constraint('uq_audit_entry_tournament_seq', type_='unique')
        batch_op.drop_column('mac')
        batch_op.drop_column('seq')
    with op.batch_alter_table('sheet', schema=None) as batch_op:
        batch_op.drop_column('chain_seq')
        batch_op.drop_column('content')
    with op.batch_alter_table('tournament', schema=None) as batch_op:
        batch_op.drop_column('chain_mac')
        batch_op.drop_column('chain_head')
        batch_op.drop_column('chain_seq')
