"""The Alembic migrations build exactly the schema the models describe."""
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from webapp import create_app
from webapp.extensions import db
from webapp.cli.server import upgrade_database


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


def test_the_security_upgrade_seals_accounts_and_clears_werkzeug_pin_hashes(database_url):
    """c7_security: an account of the older schema signs in afterwards (its row sealed with the
    server's key), a werkzeug PIN hash is gone (the player needs a new slip), a keyed one stays."""
    from flask_migrate import upgrade
    from sqlalchemy import text
    from werkzeug.security import generate_password_hash

    from webapp.services import accounts

    app = create_app({"TESTING": True, "SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": database_url,
                      "WTF_CSRF_ENABLED": False})
    with app.app_context():
        upgrade(directory=app.extensions["migrate"].directory, revision="b3_thousand")
        with db.engine.begin() as conn:
            conn.execute(text("INSERT INTO \"user\" (username, display_name, password_hash, role, active, created_at, "
                              "session_token) VALUES ('old', '', :h, 'operator', :t, '2026-01-01', 'tok')"),
                         {"h": generate_password_hash("old-password"), "t": True})
            conn.execute(text("INSERT INTO tournament (name, venue, ruleset, version, status, public_version, "
                              "chain_seq, chain_head, chain_mac, created_at, uid) VALUES ('T', '', 'sem', 1, 'setup', "
                              "1, 0, '', '', '2026-01-01', 'u-1')"))
            tid = conn.execute(text("SELECT id FROM tournament")).scalar()
            for no, h in ((1, generate_password_hash("1111", method="pbkdf2:sha256:1000")),
                          (2, "hmac-sha256$" + "0" * 64)):
                conn.execute(text("INSERT INTO player (tournament_id, start_no, name, status, present, nominated, "
                                  "pin_hash, pin_failures) VALUES (:t, :n, 'P', 'registered', :y, :f, :h, 0)"),
                             {"t": tid, "n": no, "h": h, "y": True, "f": False})
        upgrade(directory=app.extensions["migrate"].directory)
        with db.engine.connect() as conn:
            hashes = dict(conn.execute(text("SELECT start_no, pin_hash FROM player")).all())
        assert hashes == {1: None, 2: "hmac-sha256$" + "0" * 64}
        from webapp.models import User

        u = db.session.scalar(db.select(User).where(User.username == "old"))
        assert accounts.intact(u)
        db.session.remove()
    r = app.test_client().post("/login", data={"username": "old", "password": "old-password"})
    assert r.status_code == 302
    with app.app_context():
        db.engine.dispose()
