"""desk corrections through the referee (no schema change)

Empty on purpose, kept in its place in the chain of revisions: databases upgraded
while it was the head record it in alembic_version, and the next revision names it
as its parent. A desk correction is a pending Sheet version and a Case of kind
"correction"; a SEM-C10 proposal is a Case of kind "c10" (existing columns).

Revision ID: a4_desk
Revises: a3_chain
"""


revision = 'a4_desk'
down_revision = 'a3_chain'
branch_labels = None
depends_on = None


def upgrade():
    # no schema change: a desk correction is a pending Sheet version (base_version) and a Case of kind
    # "correction"; a SEM-C10 proposal is a Case of kind "c10" whose payload holds it (both existing columns)
    pass


def downgrade():
    pass
