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
    # venues, federations, seasons, rosters, received tournaments, the card register, downloaded seasons
    op.create_table('federation',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('code', sa.String(length=20), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('code')
    )
    op.create_table('season_copy',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('ruleset', sa.String(length=20), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('document', sa.JSON(), nullable=False),
    sa.Column('downloaded_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('club',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('federation_id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=120), nullable=False),
    sa.ForeignKeyConstraint(['federation_id'], ['federation.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('federation_id', 'name')
    )
    with op.batch_alter_table('club', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_club_federation_id'), ['federation_id'], unique=False)

    op.create_table('season',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('federation_id', sa.Integer(), nullable=False),
    sa.Column('ruleset', sa.String(length=20), nullable=False),
    sa.Column('name', sa.String(length=120), nullable=False),
    sa.Column('starts', sa.Date(), nullable=True),
    sa.Column('ends', sa.Date(), nullable=True),
    sa.Column('best', sa.Integer(), nullable=True),
    sa.Column('strike', sa.Integer(), nullable=True),
    sa.Column('rating_window', sa.Integer(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['federation_id'], ['federation.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('federation_id', 'ruleset', 'name')
    )
    with op.batch_alter_table('season', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_season_federation_id'), ['federation_id'], unique=False)

    op.create_table('venue',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('federation_id', sa.Integer(), nullable=True),
    sa.Column('token_hash', sa.String(length=64), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['federation_id'], ['federation.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('name'),
    sa.UniqueConstraint('token_hash')
    )
    with op.batch_alter_table('venue', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_venue_federation_id'), ['federation_id'], unique=False)

    op.create_table('roster_entry',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('season_id', sa.Integer(), nullable=False),
    sa.Column('reg_id', sa.String(length=40), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('status', sa.String(length=20), nullable=False),
    sa.Column('club_id', sa.Integer(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['club_id'], ['club.id'], ),
    sa.ForeignKeyConstraint(['season_id'], ['season.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('season_id', 'reg_id')
    )
    with op.batch_alter_table('roster_entry', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_roster_entry_season_id'), ['season_id'], unique=False)

    op.create_table('season_tournament',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('season_id', sa.Integer(), nullable=False),
    sa.Column('uid', sa.String(length=64), nullable=False),
    sa.Column('venue_id', sa.Integer(), nullable=True),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('date', sa.Date(), nullable=True),
    sa.Column('file', sa.Text(), nullable=False),
    sa.Column('chain', sa.JSON(), nullable=True),
    sa.Column('heads', sa.JSON(), nullable=True),
    sa.Column('verdict', sa.JSON(), nullable=False),
    sa.Column('source', sa.String(length=20), nullable=False),
    sa.Column('received_by', sa.String(length=120), nullable=False),
    sa.Column('received_at', sa.DateTime(), nullable=False),
    sa.Column('replaced_by_id', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['replaced_by_id'], ['season_tournament.id'], ),
    sa.ForeignKeyConstraint(['season_id'], ['season.id'], ),
    sa.ForeignKeyConstraint(['venue_id'], ['venue.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('season_tournament', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_season_tournament_season_id'), ['season_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_season_tournament_uid'), ['uid'], unique=False)

    op.create_table('card',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('season_id', sa.Integer(), nullable=False),
    sa.Column('season_tournament_id', sa.Integer(), nullable=False),
    sa.Column('reg_id', sa.String(length=64), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('colour', sa.String(length=10), nullable=False),
    sa.Column('round', sa.Integer(), nullable=True),
    sa.Column('fine_paid', sa.Boolean(), nullable=False),
    sa.ForeignKeyConstraint(['season_id'], ['season.id'], ),
    sa.ForeignKeyConstraint(['season_tournament_id'], ['season_tournament.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('card', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_card_season_id'), ['season_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_card_season_tournament_id'), ['season_tournament_id'], unique=False)

    with op.batch_alter_table('tournament', schema=None) as batch_op:
        batch_op.add_column(sa.Column('venue_id', sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f('ix_tournament_venue_id'), ['venue_id'], unique=False)
        batch_op.create_foreign_key('fk_tournament_venue_id', 'venue', ['venue_id'], ['id'])

    with op.batch_alter_table('user', schema=None) as batch_op:
        batch_op.add_column(sa.Column('venue_id', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('federation_id', sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f('ix_user_federation_id'), ['federation_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_user_venue_id'), ['venue_id'], unique=False)
        batch_op.create_foreign_key('fk_user_venue_id', 'venue', ['venue_id'], ['id'])
        batch_op.create_foreign_key('fk_user_federation_id', 'federation', ['federation_id'], ['id'])


def downgrade():
    with op.batch_alter_table('user') as batch:
        batch.drop_constraint('fk_user_venue_id', type_='foreignkey')
        batch.drop_constraint('fk_user_federation_id', type_='foreignkey')
        batch.drop_index('ix_user_venue_id')
        batch.drop_index('ix_user_federation_id')
        batch.drop_column('federation_id')
        batch.drop_column('venue_id')
    with op.batch_alter_table('tournament') as batch:
        batch.drop_constraint('fk_tournament_venue_id', type_='foreignkey')
        batch.drop_index('ix_tournament_venue_id')
        batch.drop_column('venue_id')
    for table in ('card', 'season_tournament', 'roster_entry', 'venue', 'season', 'club', 'season_copy',
                  'federation'):
        op.drop_table(table)
    with op.batch_alter_table('tournament') as batch:
        batch.drop_constraint('fk_tournament_replaced_by_id', type_='foreignkey')
        batch.drop_index('ix_tournament_uid')
        batch.drop_column('replaced_by_id')
        batch.drop_column('uid')
