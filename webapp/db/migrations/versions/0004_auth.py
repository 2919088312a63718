"""sign-in sessions, login throttle, roles per tournament

Revision ID: a1_auth
Revises: 8ce69311ff61

Existing operator and referee accounts are assigned to every existing
tournament, so that nobody loses what they could open before the upgrade;
an admin (listok create-user NAME --role admin) narrows that down.
"""
import secrets

from alembic import op
import sqlalchemy as sa


revision = 'a1_auth'
down_revision = '8ce69311ff61'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('user', schema=None) as batch_op:
        batch_op.add_column(sa.Column('session_token', sa.String(length=64), nullable=True))
    conn = op.get_bind()
    user = sa.table('user', sa.column('id', sa.Integer), sa.column('role', sa.String),
                    sa.column('session_token', sa.String))
    for (uid,) in conn.execute(sa.select(user.c.id)).all():
        conn.execute(user.update().where(user.c.id == uid).values(session_token=secrets.token_urlsafe(32)))
    with op.batch_alter_table('user', schema=None) as batch_op:
        batch_op.alter_column('session_token', existing_type=sa.String(length=64), nullable=False)
        batch_op.create_unique_constraint('uq_user_session_token', ['session_token'])

    op.create_table('assignment',
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('tournament_id', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['tournament_id'], ['tournament.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['user.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('user_id', 'tournament_id')
    )
    with op.batch_alter_table('assignment', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_assignment_tournament_id'), ['tournament_id'], unique=False)

    op.create_table('login_attempt',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('at', sa.DateTime(), nullable=False),
    sa.Column('username', sa.String(length=80), nullable=False),
    sa.Column('address', sa.String(length=64), nullable=False),
    sa.Column('outcome', sa.String(length=10), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('login_attempt', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_login_attempt_address'), ['address'], unique=False)
        batch_op.create_index(batch_op.f('ix_login_attempt_at'), ['at'], unique=False)
        batch_op.create_index(batch_op.f('ix_login_attempt_username'), ['username'], unique=False)

    tournament = sa.table('tournament', sa.column('id', sa.Integer))
    assignment = sa.table('assignment', sa.column('user_id', sa.Integer), sa.column('tournament_id', sa.Integer),
                          sa.column('created_at', sa.DateTime))
    staff = [uid for (uid,) in conn.execute(sa.select(user.c.id).where(user.c.role.in_(("operator", "referee"))))]
    tids = [tid for (tid,) in conn.execute(sa.select(tournament.c.id))]
    now = sa.func.current_timestamp()
    for uid in staff:
        for tid in tids:
            conn.execute(assignment.insert().values(user_id=uid, tournament_id=tid, created_at=now))


def downgrade():
    with op.batch_alter_table('login_attempt', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_login_attempt_username'))
        batch_op.drop_index(batch_op.f('ix_login_attempt_at'))
        batch_op.drop_index(batch_op.f('ix_login_attempt_address'))
    op.drop_table('login_attempt')
    with op.batch_alter_table('assignment', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_assignment_tournament_id'))
    op.drop_table('assignment')
    with op.batch_alter_table('user', schema=None) as batch_op:
        batch_op.drop_constraint('uq_user_session_token', type_='unique')
        batch_op.drop_column('session_token')
    op.execute(sa.text("UPDATE \"user\" SET role = 'operator' WHERE role = 'admin'"))
