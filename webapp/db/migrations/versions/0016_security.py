"""Account rows sealed with a MAC, who created and assigned accounts, trusted sign-in
devices, and no werkzeug PIN hashes any more

Revision ID: c7_security
Revises: c5_paper_language

Every existing account is sealed with the server's key (services/accounts.py), so the upgrade
runs in the app (listok db-upgrade, or at start). Werkzeug PIN hashes (scrypt/pbkdf2, made
before keyed verifiers) no longer verify: those players get a new PIN slip.
"""
from alembic import op
import sqlalchemy as sa


revision = 'c7_security'
down_revision = 'c5_paper_language'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('user') as batch:
        batch.add_column(sa.Column('account_mac', sa.String(length=64), nullable=True))
        batch.add_column(sa.Column('created_by', sa.String(length=120), server_default='', nullable=False))
        batch.add_column(sa.Column('signin_unlocked_at', sa.DateTime(), nullable=True))
    with op.batch_alter_table('assignment') as batch:
        batch.add_column(sa.Column('created_by', sa.String(length=120), server_default='', nullable=False))
    with op.batch_alter_table('login_attempt') as batch:
        batch.add_column(sa.Column('device', sa.String(length=32), nullable=True))
    from webapp.services.accounts import account_mac

    conn = op.get_bind()
    user = sa.table('user', *(sa.column(c) for c in ('id', 'username', 'password_hash', 'role', 'active',
                                                      'session_token', 'venue_id', 'federation_id',
                                                      'account_mac')))
    for u in conn.execute(sa.select(user)).mappings().all():
        conn.execute(user.update().where(user.c.id == u['id']).values(account_mac=account_mac(
            u['username'], u['password_hash'], u['role'], u['active'], u['session_token'], u['venue_id'],
            u['federation_id'])))
    op.execute("UPDATE player SET pin_hash = NULL, pin_issued_at = NULL, pin_issued_by = NULL "
               "WHERE pin_hash LIKE 'scrypt:%' OR pin_hash LIKE 'pbkdf2:%'")


def downgrade():
    with op.batch_alter_table('login_attempt') as batch:
        batch.drop_column('device')
    with op.batch_alter_table('assignment') as batch:
        batch.drop_column('created_by')
    with op.batch_alter_table('user') as batch:
        batch.drop_column('signin_unlocked_at')
        batch.drop_column('created_by')
        batch.drop_column('account_mac')
