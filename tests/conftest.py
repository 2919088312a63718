"""App, client, runner and database fixtures for the web, sync and browser tests.

Web tests run once on SQLite and once on PostgreSQL (TEST_DATABASE_URL; the
README's test command always sets it). Each PostgreSQL test gets a schema of
its own, dropped afterwards.
"""
from __future__ import annotations

import os
import uuid

import pytest
from sqlalchemy import create_engine, text

BACKENDS = ["sqlite"] + (["postgresql"] if os.environ.get("TEST_DATABASE_URL") else [])


def _pg_url() -> str:
    from webapp.config import normalise_database_url

    return normalise_database_url(os.environ["TEST_DATABASE_URL"])


@pytest.fixture(params=BACKENDS)
def database_url(request, tmp_path):
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'listok.db'}"
        return
    base = _pg_url()
    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    sep = "&" if "?" in base else "?"
    yield f"{base}{sep}options=-csearch_path%3D{schema}"
    with admin.connect() as conn:
        conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    admin.dispose()


@pytest.fixture
def app(database_url, tmp_path):
    from webapp import create_app
    from webapp.extensions import db

    app = create_app({
        "TESTING": True,
        "SECRET_KEY": "test-secret",
        "SQLALCHEMY_DATABASE_URI": database_url,
        "WTF_CSRF_ENABLED": False,
        "SERVER_NAME": "localhost",
    })
    with app.app_context():
        db.create_all()
    yield app
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()


@pytest.fixture
def db(app):
    from webapp.extensions import db as _db

    with app.app_context():
        yield _db
