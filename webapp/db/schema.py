"""The database schema against this code's migrations (docs/DEPLOY.md, "The schema").

`listok serve` and `listok db upgrade` bring the schema up to date. A WSGI server
(`gunicorn wsgi:app`, `waitress-serve wsgi:app`) never migrates: several workers
would race for it, a migration belongs to the deploy step where its failure is
seen, and the application's database user may lack the rights. Until the schema
is current every request the database refuses (a missing table or column) is
answered 503 with a page in the visitor's language that says to run `listok db
upgrade`, and `/healthz` fails, so a proxy's health check holds traffic back.
Nothing is read before a request: a current schema costs no request anything.
"""
from __future__ import annotations

import logging
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache

from flask import Flask, current_app, jsonify, render_template, request
from flask_babel import gettext as _

UPGRADE = "listok db upgrade"
RECHECK_SECONDS = 1.0


@dataclass(frozen=True)
class State:
    current: tuple[str, ...]  # the database's revisions (empty: no schema)
    heads: tuple[str, ...]  # this code's
    unmanaged: bool = False  # tables without Alembic's table: made from the models (tests)

    @property
    def ok(self) -> bool:
        return self.unmanaged or set(self.current) == set(self.heads)

    @property
    def fresh(self) -> bool:
        return not self.current and not self.unmanaged


@lru_cache(maxsize=4)
def _script(directory: str):
    from alembic.script import ScriptDirectory

    return ScriptDirectory(directory)


def heads(app: Flask) -> tuple[str, ...]:
    return tuple(sorted(_script(app.extensions["migrate"].directory).get_heads()))


def count(app: Flask) -> int:
    """How many migrations lead to the head(s)."""
    return sum(1 for _ in _script(app.extensions["migrate"].directory).walk_revisions())


def state(app: Flask) -> State:
    """Read in the app context: the database's Alembic revisions and whether it has tables."""
    from sqlalchemy import inspect, text

    from ..extensions import db

    with db.engine.connect() as conn:
        tables = set(inspect(conn).get_table_names())
        current: tuple[str, ...] = ()
        if "alembic_version" in tables:
            current = tuple(sorted(r[0] for r in conn.execute(text("SELECT version_num FROM alembic_version"))))
    return State(current, heads(app), unmanaged="alembic_version" not in tables and "tournament" in tables)


@contextmanager
def _quiet():
    """Alembic's INFO lines (one per revision, with its history) are not for the operator."""
    logger = logging.getLogger("alembic")
    before = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(before)


def upgrade(app: Flask) -> tuple[State, State]:
    """Bring the schema to the head (Alembic), creating it on an empty database,
    without Alembic's log lines; the states before and after."""
    from alembic import command

    with app.app_context():
        before = state(app)
        if not before.ok:
            migrate = app.extensions["migrate"]
            config = migrate.migrate.get_config(migrate.directory)
            config.attributes["listok_quiet"] = True  # env.py leaves logging alone
            with _quiet():
                command.upgrade(config, "head")
            return before, state(app)
    return before, before


def problem(s: State) -> str:
    """What is wrong and what to do, in the request's language."""
    if s.fresh:
        return _("The database has no tables yet. The administrator runs `%(command)s` once, then the "
                 "pages work.", command=UPGRADE)
    unknown = [r for r in s.current if r not in s.heads]
    if unknown and not _known(unknown):
        return _("The database's schema (%(current)s) is newer than this version of Listok: install the "
                 "newer version.", current=", ".join(s.current))
    return _("The database's schema (%(current)s) is older than this version of Listok (%(head)s). The "
             "administrator runs `%(command)s`, then the pages work.",
             current=", ".join(s.current), head=", ".join(s.heads), command=UPGRADE)


def _known(revisions: list[str]) -> bool:
    script = _script(current_app.extensions["migrate"].directory)
    try:
        return all(script.get_revision(r) is not None for r in revisions)
    except Exception:  # noqa: BLE001 - alembic's own error for an unknown revision id
        return False


class Guard:
    """A request the database refuses (a missing table or column) on a schema that is not
    current is answered 503 saying what to run; /healthz looks at the schema itself until it
    is current. Once it is, the guard steps aside for the process's life: a request never
    pays for it, not even a process's first one."""

    def __init__(self, app: Flask):
        from sqlalchemy.exc import OperationalError, ProgrammingError

        self.ok = False
        self.lock = threading.Lock()
        self.seen: tuple[float, State] | None = None
        app.before_request(self.health)
        # SQLite says "no such table/column" with the first, PostgreSQL "relation does not exist" with the second
        app.register_error_handler(OperationalError, self.refused)
        app.register_error_handler(ProgrammingError, self.refused)

    def current_state(self) -> State:
        now = time.monotonic()
        seen = self.seen
        if seen is None or now - seen[0] > RECHECK_SECONDS:
            with self.lock:
                seen = self.seen
                if seen is None or now - seen[0] > RECHECK_SECONDS:
                    seen = self.seen = (time.monotonic(), state(current_app))
        if seen[1].ok:
            self.ok = True
        return seen[1]

    def health(self):
        if self.ok or request.path != "/healthz":
            return None
        s = self.current_state()
        if s.ok:
            return None
        return f"schema not up to date: run `{UPGRADE}`\n", 503, {
            "Content-Type": "text/plain; charset=utf-8", **HEADERS}

    def refused(self, e: Exception):
        from sqlalchemy.exc import SQLAlchemyError

        if not self.ok:
            try:
                s = self.current_state()
            except SQLAlchemyError:  # the database itself is away: that error, not this one
                s = None
            if s is not None and not s.ok:
                message = problem(s)
                if request.path.startswith("/api/"):
                    return jsonify({"status": "busy", "error": "schema", "message": message,
                                    "retry_after_ms": 30000}), 503, HEADERS
                return render_template("error_plain.html", title=_("The database is not ready"),
                                       message=message), 503, HEADERS
        raise e  # a real failure: the 500 page


HEADERS = {"Retry-After": "30", "Cache-Control": "no-store"}


def init_app(app: Flask) -> None:
    app.extensions["schema_guard"] = Guard(app)
