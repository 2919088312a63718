"""SQLite settings for a venue server that must not lose a confirmed sheet.

WAL lets readers work while one writer commits; synchronous=FULL makes a
commit durable before we answer; the busy timeout makes a second writer wait
instead of failing; and write transactions start with BEGIN IMMEDIATE so two
writers never both read first and then collide with "database is locked".
"""
from __future__ import annotations

from flask import has_request_context, request
from sqlalchemy import event
from sqlalchemy.engine import Engine

READ_ONLY_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def in_write_request() -> bool:
    """Inside a request whose transactions take SQLite's write lock up front (see `_on_begin`)."""
    return has_request_context() and request.method not in READ_ONLY_METHODS


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
        cur.execute("PRAGMA busy_timeout=15000")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn):
        read_only = conn.get_execution_options().get("read_only")
        if read_only or (has_request_context() and request.method in READ_ONLY_METHODS):
            conn.exec_driver_sql("BEGIN")
        else:
            conn.exec_driver_sql("BEGIN IMMEDIATE")
