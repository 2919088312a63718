"""App, client, runner and database fixtures for the web, sync and browser tests.

Web tests run once on SQLite and once on PostgreSQL (the `backend` parameter;
PostgreSQL when TEST_DATABASE_URL is set, as scripts/test always does).

How the tests stay apart while sharing one app:

- Each pytest process (each xdist worker) builds one app per backend, the first
  time a test asks for `app`, with its schema created once: a SQLite file of its
  own, or a PostgreSQL schema of its own (tests/pgschema.py), dropped at the end.
- Before every test that app is put back as it was built: every row deleted
  (child tables first) and the ids started again from 1, its config and
  `app.extensions` restored, the phone-write admission and the sheets' batching
  made anew, the schema guard's verdict forgotten, and `app.instance_path`
  pointed at the test's own tmp_path. The process's caches of pages, standings,
  stamps and published chain heads are emptied too: they are keyed by the
  database URL, which the shared app keeps from test to test, and by ids, which
  start again from 1.
- A test asking for `database_url` gets an empty database of its own (a SQLite
  file in tmp_path, a fresh PostgreSQL schema), as tests of migrations or of a
  second server process need; if it asks for `app` as well, that app is built
  for it alone on that database, as before; so is a test marked `own_app`
  (one that adds a route: Flask allows that only before the first request).
- A test needing another config (a federation server, a live server) builds its
  own app with create_app.

Account passwords are hashed with one round of PBKDF2 in this process (as
Django's test settings do): scrypt, deliberately slow, was paid for every
account a fixture made and every sign-in. Stored hashes still say their
method, and tests/web/test_passwords.py checks the app's own choice.
"""
from __future__ import annotations

import copy
import os
from contextlib import ExitStack
from pathlib import Path

import pytest

BACKENDS = ["sqlite"] + (["postgresql"] if os.environ.get("TEST_DATABASE_URL") else [])

TEST_CONFIG = {
    "TESTING": True,
    "SECRET_KEY": "test-secret",
    "WTF_CSRF_ENABLED": False,
    "SERVER_NAME": "localhost",
}


FAST_PASSWORD_HASH = "pbkdf2:sha256:1"


@pytest.fixture(scope="session", autouse=True)
def fast_password_hashes():
    """Yields the app's own password hashing function, the one replaced for the session."""
    from functools import partial

    from werkzeug.security import generate_password_hash

    from webapp import models
    from webapp.views import auth

    with pytest.MonkeyPatch.context() as mp:
        fast = partial(generate_password_hash, method=FAST_PASSWORD_HASH)
        mp.setattr(models, "generate_password_hash", fast)
        mp.setattr(auth, "generate_password_hash", fast)
        yield generate_password_hash


@pytest.fixture(params=BACKENDS)
def backend(request):
    return request.param


@pytest.fixture
def database_url(backend, tmp_path):
    """An empty database of this test's own."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'listok.db'}"
        return
    from tests.pgschema import postgresql_url, temporary_schema

    with temporary_schema(postgresql_url()) as url:
        yield url


def _new_app(database_url: str):
    from webapp import create_app
    from webapp.extensions import db

    app = create_app({**TEST_CONFIG, "SQLALCHEMY_DATABASE_URI": database_url})
    with app.app_context():
        db.create_all()
    return app


def _close(app) -> None:
    from webapp.extensions import db

    with app.app_context():
        db.session.remove()
        db.engine.dispose()


class SharedApp:
    """One backend's app for every test of this process, reset before each."""

    def __init__(self, database_url: str):
        from webapp.extensions import db

        self.app = _new_app(database_url)
        self.config = copy.deepcopy(dict(self.app.config))
        self.extensions = dict(self.app.extensions)
        with self.app.app_context():
            self.dialect = db.engine.dialect.name
            self.reset_sql = self._reset_sql(db)

    def _reset_sql(self, db) -> list[str]:
        from sqlalchemy import inspect

        quote = db.engine.dialect.identifier_preparer.quote
        deletes = [f"DELETE FROM {quote(t.name)}" for t in reversed(db.metadata.sorted_tables)]
        with db.engine.connect() as conn:
            names = set(inspect(conn).get_table_names())
        if self.dialect == "sqlite":
            if "sqlite_sequence" in names:
                deletes.append("DELETE FROM sqlite_sequence")
            return deletes
        # DELETE and setval: much quicker than TRUNCATE … RESTART IDENTITY on tables this small
        deletes.append("SELECT setval(c.oid, 1, false) FROM pg_class c "
                       "WHERE c.relkind = 'S' AND c.relnamespace = current_schema()::regnamespace")
        return ["; ".join(deletes)]

    def reset(self, instance: Path) -> None:
        from webapp.extensions import db
        from webapp.serve import admission, together

        app = self.app
        app.config.clear()
        app.config.update(copy.deepcopy(self.config))
        app.extensions.clear()
        app.extensions.update(self.extensions)
        admission.init_app(app)
        together.init_app(app)
        guard = app.extensions["schema_guard"]
        guard.ok, guard.seen = False, None
        app.instance_path = str(instance)
        with app.app_context():
            db.session.remove()
            with db.engine.begin() as conn:
                for statement in self.reset_sql:
                    conn.exec_driver_sql(statement)
        forget_process_caches()


def forget_process_caches() -> None:
    """Empty what this process keeps between requests about a database's rows."""
    import sys

    from webapp.http import caching
    from webapp.http.cache import VersionedCache
    from webapp.services import chain_heads, chain_rows

    for name, module in list(sys.modules.items()):
        if name.startswith("webapp.") and module is not None:
            for value in vars(module).values():
                if isinstance(value, VersionedCache):
                    value.clear()
    caching._memo.clear()
    chain_heads._published.clear()
    chain_rows._known.clear()


@pytest.fixture(scope="session")
def shared_apps(tmp_path_factory):
    """backend -> SharedApp, built on first use in this process."""
    apps: dict[str, SharedApp] = {}
    with ExitStack() as stack:
        stack.callback(lambda: [_close(shared.app) for shared in apps.values()])

        def build(backend: str) -> SharedApp:
            if backend not in apps:
                if backend == "sqlite":
                    url = f"sqlite:///{tmp_path_factory.mktemp('shared') / 'listok.db'}"
                else:
                    from tests.pgschema import postgresql_url, temporary_schema

                    url = stack.enter_context(temporary_schema(postgresql_url(), prefix="s"))
                apps[backend] = SharedApp(url)
            return apps[backend]

        yield build


@pytest.fixture
def app(request, backend, shared_apps, tmp_path):
    if "database_url" in request.fixturenames or request.node.get_closest_marker("own_app"):
        # the test works on this database with a second app or engine of its own, or changes the app's
        # routes: an app for it alone
        app = _new_app(request.getfixturevalue("database_url"))
        yield app
        _close(app)
        return
    shared = shared_apps(backend)
    shared.reset(tmp_path / "instance")
    yield shared.app
    from webapp.extensions import db as _db

    with shared.app.app_context():
        _db.session.remove()


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
    from tests.helpers import served
    from webapp import create_app
    from webapp.extensions import db as _db

    app = create_app({
        "SECRET_KEY": "live-test-secret",
        "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'live.db'}",
        "WTF_CSRF_ENABLED": True,
    })
    with app.app_context():
        _db.create_all()
    with served(app) as (url, _server):
        yield LiveServer(url, app)
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
