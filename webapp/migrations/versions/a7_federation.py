"""federation: seasons, rosters, cards, venues, pushed tournaments

Revision ID: a7_federation
Revises: a5_sem
"""
import uuid

from alembic import op
import sqlalchemy as sa


revision = 'a7_federation'
down_revision = 'a5_sem'
branch_labels = None
depends_on = None


def upgrade():
    # stable tournament ids: every existing tournament gets one of its own
    with op.batch_alter_table('tournament') as batch:
        batch.add_column(sa.Column('uid', sa.String(length=64), nullable=True))
        batch.add_column(sa.Column('replaced_by_id', sa.Integer(), nullable=True))
    conn = op.get_bind()
    tournament = sa.table('tournament', sa.column('id', sa.Integer), sa.column('uid', sa.String))
    for (tid,) in conn.execute(sa.select(tournament.c.id)).all():
        conn.execute(tournament.update().where(tournament.c.id == tid).values(uid=str(uuid.uuid4())))
    with op.batch_alter_table('tournament') as batch:
        batch.alter_column('uid', existing_type=sa.String(length=64), nullable=False)
        batch.create_index('ix_tournament_uid', ['uid'], unique=False)
        batch.create_foreign_key('fk_tournament_replaced_by_id', 'tournament', ['replaced_by_id'], ['id'])


def downgrade():
    with op.batch_alter_table('tournament') as batch:
        batch.drop_constraint('fk_tournament_replaced_by_id', type_='foreignkey')
        batch.drop_index('ix_tournament_uid')
        batch.drop_column('replaced_by_id')
        batch.drop_column('uid')
