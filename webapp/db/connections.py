"""Database settings: SQLite's for a venue server that must not lose a confirmed
sheet, and PostgreSQL's pooled connections checked only after a rest.

WAL lets readers work while one writer commits; synchronous=FULL makes a
commit durable before we answer; the busy timeout makes a second writer wait
instead of failing; and write transactions start with BEGIN IMMEDIATE so two
writers never both read first and then collide with "database is locked".

Within one process the writers also queue on a lock of their own, taken
before BEGIN IMMEDIATE and given back when the connection returns to the
pool (after its COMMIT or ROLLBACK): SQLite's busy handler polls, sleeping
up to 100 ms between tries, so under a round's burst the write lock would
sit idle while the waiters sleep; a lock hands it on at once. Writers of
other processes (a CLI command beside the server) still meet the busy
timeout.

PostgreSQL: a pooled connection that rested IDLE_PING_SECONDS is pinged
before use, so a database restarted meanwhile (or a connection a firewall
dropped) is replaced and the request never sees it. One in steady use is
not: `pool_pre_ping` costs every request a round trip (a large part of a
revalidated public page's cost). A connection that dies while
in steady use fails that request once; SQLAlchemy then replaces every
pooled connection as old as it.
"""
from __future__ import annotations

import sqlite3
import threading
import time

from flask import has_request_context, request
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DisconnectionError

from ..extensions import db

READ_ONLY_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
BUSY_SECONDS = 15  # PRAGMA busy_timeout, and the in-process writers' wait
IDLE_PING_SECONDS = 10.0


def in_write_request() -> bool:
    """Inside a request whose transactions take SQLite's write lock up front (see `_on_begin`)."""
    return has_request_context() and request.method not in READ_ONLY_METHODS


def read_row(statement, params: dict):
    """The first row of `statement` (None if none) on a pooled connection of its own, for one read
    (a page's stamp, a replay's key): never a writer on SQLite (`read_only`: no BEGIN, see
    `_on_begin`), and on PostgreSQL in autocommit, so the statement is its only round trip."""
    options = {"read_only": True}
    if db.engine.dialect.name == "postgresql":
        options["isolation_level"] = "AUTOCOMMIT"
    with db.engine.connect().execution_options(**options) as conn:
        return conn.execute(statement, params).first()


def configure_sqlite(engine: Engine) -> None:
    if engine.dialect.name != "sqlite":
        return

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record):
        # we issue BEGIN ourselves (below); pysqlite's implicit BEGIN would be DEFERRED
        dbapi_connection.isolation_level = None
        cur = dbapi_connection.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=FULL")
        cur.execute(f"PRAGMA busy_timeout={BUSY_SECONDS * 1000}")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()

    writer = threading.Lock()

    @event.listens_for(engine, "begin")
    def _on_begin(conn):
        if conn.get_execution_options().get("read_only"):
            return  # one statement on a connection of its own (a replay's key, a page's stamp): its own snapshot
        if has_request_context() and request.method in READ_ONLY_METHODS:
            conn.exec_driver_sql("BEGIN")
            return
        held = conn.info.get("listok_writer")
        if not held:
            if not writer.acquire(timeout=BUSY_SECONDS):
                raise sqlite3.OperationalError("database is locked")
            conn.info["listok_writer"] = True
        try:
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        except BaseException:
            _give_back(conn.info)
            raise

    def _give_back(info) -> None:
        if info.pop("listok_writer", False):
            writer.release()

    @event.listens_for(engine, "reset")
    def _on_reset(_dbapi_connection, record, _state):
        _give_back(record.info)

    @event.listens_for(engine, "checkin")
    def _on_checkin(_dbapi_connection, record):
        if record is not None:
            _give_back(record.info)

    @event.listens_for(engine, "invalidate")
    def _on_invalidate(_dbapi_connection, record, _exception):
        if record is not None:
            _give_back(record.info)

    @event.listens_for(engine, "close")
    def _on_close(_dbapi_connection, record):
        if record is not None:
            _give_back(record.info)


def ping_after_rest(engine: Engine) -> None:
    if engine.dialect.name == "sqlite":
        return

    @event.listens_for(engine, "checkin")
    def _resting(_dbapi_connection, record):
        if record is not None:
            record.info["listok_rest_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _ping_if_rested(dbapi_connection, record, _proxy):
        since = record.info.pop("listok_rest_since", None)
        if since is None or time.monotonic() - since < IDLE_PING_SECONDS:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except Exception as e:  # the pool drops it and checks out another (a new connection if need be)
            raise DisconnectionError(f"a pooled connection did not answer after its rest: {e}") from e
