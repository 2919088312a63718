"""keyed PIN verifiers and atomic PIN attempts

Revision ID: a2_pins
Revises: a1_auth
"""
import secrets

from alembic import op
import sqlalchemy as sa


revision = 'a2_pins'
down_revision = 'a1_auth'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('tournament', schema=None) as batch_op:
        batch_op.add_column(sa.Column('pin_salt', sa.String(length=32), nullable=True))
    with op.batch_alter_table('player', schema=None) as batch_op:
        batch_op.add_column(sa.Column('pin_issued_at', sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column('pin_issued_by', sa.String(length=120), nullable=True))
    op.create_table('pin_attempt',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('at', sa.DateTime(), nullable=False),
    sa.Column('kept', sa.Boolean(), nullable=False),
    sa.ForeignKeyConstraint(['player_id'], ['player.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('pin_attempt', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_pin_attempt_player_id'), ['player_id'], unique=False)
    # every existing tournament gets a salt of its own; its old (scrypt) PIN hashes keep working
    conn = op.get_bind()
    tournament = sa.table('tournament', sa.column('id', sa.Integer), sa.column('pin_salt', sa.String))
    for (tid,) in conn.execute(sa.select(tournament.c.id)).all():
        conn.execute(tournament.update().where(tournament.c.id == tid).values(pin_salt=secrets.token_hex(16)))


def downgrade():
    # the older code cannot check keyed verifiers: those players need a new PIN slip
    op.execute("UPDATE player SET pin_hash = NULL WHERE pin_hash LIKE 'hmac-sha256$%'")
    with op.batch_alter_table('pin_attempt', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_pin_attempt_player_id'))
    op.drop_table('pin_attempt')
    with op.batch_alter_table('player', schema=None) as batch_op:
        batch_op.drop_column('pin_issued_by')
        batch_op.drop_column('pin_issued_at')
    with op.batch_alter_table('tournament', schema=None) as batch_op:
        batch_op.drop_column('pin_salt')
