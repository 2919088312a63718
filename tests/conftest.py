"""App, client, runner and database fixtures for the web, sync and browser tests.

Web tests run once on SQLite and once on PostgreSQL (TEST_DATABASE_URL; the
README's test command always sets it). Each PostgreSQL test gets a schema of
its own, dropped afterwards.
"""
from __future__ import annotations

import os

import pytest

BACKENDS = ["sqlite"] + (["postgresql"] if os.environ.get("TEST_DATABASE_URL") else [])


@pytest.fixture(params=BACKENDS)
def database_url(request, tmp_path):
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'listok.db'}"
        return
    from tests.pgschema import postgresql_url, temporary_schema

    with temporary_schema(postgresql_url()) as url:
        yield url


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


# --------------------------------------------------------------------------- real browser

CHROMIUM = "/usr/bin/chromium"
# Debian's chromium, never a Playwright download (none can be fetched here)
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


class LiveServer:
    def __init__(self, url: str, app):
        self.url = url
        self.app = app

    def __iter__(self):  # base_url, app = live_server
        return iter((self.url, self.app))


@pytest.fixture
def live_server(tmp_path):
    """The app on a real port (threaded, like the venue server), with real CSRF."""
    import threading

    from werkzeug.serving import make_server

    from webapp import create_app
    from webapp.extensions import db as _db

    app = create_app({
        "SECRET_KEY": "live-test-secret",
        "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'live.db'}",
        "WTF_CSRF_ENABLED": True,
    })
    with app.app_context():
        _db.create_all()
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="live-server", daemon=True)
    thread.start()
    yield LiveServer(f"http://127.0.0.1:{server.server_port}", app)
    server.shutdown()
    thread.join(timeout=10)
    server.server_close()
    with app.app_context():
        _db.session.remove()
        _db.engine.dispose()


@pytest.fixture
def op(app, client):
    """A client signed in as an operator, pages in English."""
    from tests.helpers import login, make_user

    make_user(app)
    login(client)
    client.set_cookie("lang", "en")
    return client


@pytest.fixture
def ref(app, client):
    """A client signed in as a referee, pages in English."""
    from tests.helpers import login, make_user

    make_user(app, "referee", role="referee")
    login(client, "referee")
    client.set_cookie("lang", "en")
    return client


@pytest.fixture
def anon(client):
    """A visitor who is not signed in, pages in English."""
    client.set_cookie("lang", "en")
    return client
