"""The Alembic migrations build exactly the schema the models describe."""
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from webapp import create_app
from webapp.extensions import db
from webapp.server_cli import upgrade_database


def test_migrations_match_models(database_url):
    app = create_app({"TESTING": True, "SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": database_url})
    upgrade_database(app)
    with app.app_context():
        with db.engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), db.metadata)
        db.engine.dispose()
    assert diff == []


def test_upgrade_keeps_the_servers_loggers(database_url):
    """Alembic's fileConfig used to disable every logger created before it, so
    `listok serve` never showed waitress' "Task queue depth" warnings."""
    import logging

    waitress_log = logging.getLogger("waitress.queue")
    app = create_app({"TESTING": True, "SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": database_url})
    upgrade_database(app)
    with app.app_context():
        db.engine.dispose()
    assert not waitress_log.disabled
    assert not logging.getLogger("waitress").disabled
