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
from contextlib import nullcontext
from typing import NamedTuple

from flask import has_request_context, request
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DisconnectionError

from .extensions import db

READ_ONLY_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
BUSY_SECONDS = 15  # PRAGMA busy_timeout, and the in-process writers' wait
IDLE_PING_SECONDS = 10.0


def in_write_request() -> bool:
    """Inside a request whose transactions take SQLite's write lock up front (see `_on_begin`)."""
    return has_request_context() and request.method not in READ_ONLY_METHODS


def read_row(statement, params: dict):
    """The first row of `statement` (None if none) on a pooled connection of its own, for one read
    (a page's stamp, a replay's key): never a writer on SQLite (no BEGIN), and on PostgreSQL in
    autocommit, so the statement is its only round trip (no BEGIN before it, no ROLLBACK when the
    connection goes back to the pool). Straight on the driver's cursor, the statement compiled
    once per dialect: a phone sheet and a revalidated page pay for no execution context."""
    engine = db.engine
    compiled = _compiled(engine.dialect, statement, params)
    pooled = engine.raw_connection()
    try:
        dbapi = pooled.driver_connection
        autocommit = engine.dialect.name == "postgresql"
        if autocommit:
            dbapi.autocommit = True  # psycopg: the client's setting, no round trip
        try:
            cur = dbapi.cursor()
            cur.execute(compiled.sql, _params(compiled, params))
            row = cur.fetchone()
            processors = _processors(engine.dialect, compiled, cur.description)
            cur.close()
        finally:
            if autocommit:
                dbapi.autocommit = False
    finally:
        pooled.close()
    return None if row is None else tuple(_processed([row], processors)[0])


def select_all(steps: list[tuple[object, dict]]) -> list[list[tuple]]:
    """Every row of each (statement, parameters) of `steps` (a SELECT, or an UPDATE … RETURNING), in
    order, in the session's transaction, straight on the driver's cursor with SQLAlchemy's result
    processors applied; on PostgreSQL all of them in one pipeline: one round trip (each statement
    still starts after the one before it ended, with a snapshot of its own). For the public pages'
    view of a tournament (seven SELECTs, services/results.engine_view: their execution contexts and
    round trips are a large part of the projector's full render) and a batch of phone sheets'
    first reads (services/sheets.submit_together)."""
    conn = db.session.connection()
    dbapi = conn.connection.driver_connection
    prepared = [(_compiled(conn.dialect, statement, params), params) for statement, params in steps]
    cursors = []
    with dbapi.pipeline() if conn.dialect.name == "postgresql" else nullcontext():
        for compiled, params in prepared:
            cursors.append(dbapi.cursor())
            cursors[-1].execute(compiled.sql, _params(compiled, params))
    out = []
    for cur, (compiled, _p) in zip(cursors, prepared):
        found = cur.fetchall()
        out.append(_processed(found, _processors(conn.dialect, compiled, cur.description)))
        cur.close()
    return out


def run_steps(steps: list[tuple[object, list[dict], bool]]) -> list:
    """Each (statement, rows, returning) of `steps`, in order, once per row, in the session's
    transaction, straight on the driver's cursor; on PostgreSQL every step in one pipeline: one
    round trip for all of them (a batch of phone sheets ends with four INSERTs and UPDATEs that
    each cost a round trip inside the tournament's lock). Per step: with `returning`,
    the first column of the row each of its rows returned (None where none); else the count of
    rows it changed in all. A failing statement raises after the pipeline, the transaction to be
    rolled back."""
    conn = db.session.connection()
    dbapi = conn.connection.driver_connection
    prepared = []
    for statement, rows, returning in steps:
        compiled = _compiled(conn.dialect, statement)
        prepared.append((compiled.sql, [_params(compiled, row) for row in rows], returning))
    out: list = []
    if conn.dialect.name == "postgresql":
        cursors = []
        with dbapi.pipeline():
            for sql, params, returning in prepared:
                cur = dbapi.cursor()
                cur.executemany(sql, params, returning=returning)
                cursors.append(cur)
        for cur, (_sql, _params_, returning) in zip(cursors, prepared):
            if returning:
                firsts = []
                while True:
                    found = cur.fetchone()
                    firsts.append(found[0] if found else None)
                    if not cur.nextset():
                        break
                out.append(firsts)
            else:
                out.append(cur.rowcount)
            cur.close()
        return out
    cur = dbapi.cursor()
    try:
        for sql, params, returning in prepared:
            firsts, count = [], 0
            for p in params:
                cur.execute(sql, p)
                if returning:
                    found = cur.fetchone()
                    firsts.append(found[0] if found else None)
                else:
                    count += cur.rowcount
            out.append(firsts if returning else count)
    finally:
        cur.close()
    return out


class _Compiled(NamedTuple):
    sql: str
    names: list | None  # the positional parameters' names in order, None for named parameters
    binds: dict  # bind processors by name
    defaults: dict  # the Python-side column defaults an INSERT's compiled form asks for, by name
    statement: object  # kept: the cache is keyed by its id
    expanding: tuple = ()  # the names of its IN lists (`bindparam(…, expanding=True)`), one placeholder each
    compiled: object = None  # SQLAlchemy's compiled form, which expands them (`_compiled` with parameters)


def _processed(rows, processors: list) -> list:
    """`rows` with the result processors applied (as lists; the rows themselves when there are none)."""
    if not processors:
        return rows
    out = [list(row) for row in rows]
    for row in out:
        for i, p in processors:
            row[i] = p(row[i])
    return out


def _processors(dialect, compiled: _Compiled, description) -> list[tuple[int, object]]:
    """(column, result processor) where SQLAlchemy applies one, as it chooses them: by the type the
    driver described (PostgreSQL's numeric …); found once per statement and described types."""
    key = (dialect.name, id(compiled.statement), tuple(d[1] for d in description))
    found = _PROCESSORS.get(key)
    if found is None:
        found = _PROCESSORS[key] = [
            (i, p) for i, (column, described) in enumerate(zip(compiled.statement.exported_columns, description))
            if (p := column.type._cached_result_processor(dialect, described[1])) is not None]
    return found


_PROCESSORS: dict = {}
_COMPILED: dict = {}
RAW_LISTENERS: list = []  # called with each statement run on the driver's cursor (the tests' statement counts)


def _compiled(dialect, statement, params: dict | None = None) -> _Compiled:
    """`statement` as read_row, select_all and run_steps send it, compiled once per dialect, with
    what SQLAlchemy applies to its parameters (its results': _processors). With `params`, its IN
    lists expanded to their lengths there (compiled once per lengths, as SQLAlchemy does)."""
    found = _compiled_once(dialect, statement)
    if not found.expanding:
        return found
    if params is None:
        raise ValueError("a statement with an IN list is compiled with its parameters")
    lengths = tuple(len(params[name]) for name in found.expanding)
    key = (dialect.name, id(statement), lengths)
    expanded = _COMPILED.get(key)
    if expanded is None:
        state = found.compiled.construct_expanded_state(params, escape_names=False)
        binds = dict(found.binds)
        for name, n in zip(found.expanding, lengths):
            if name in found.binds:
                binds.update((f"{name}_{i}", found.binds[name]) for i in range(1, n + 1))
        expanded = _COMPILED[key] = found._replace(
            sql=state.statement, names=list(state.positiontup) if found.names is not None else None, binds=binds)
    return expanded


def _compiled_once(dialect, statement) -> _Compiled:
    key = (dialect.name, id(statement))
    found = _COMPILED.get(key)
    if found is None:
        compiled = statement.compile(dialect=dialect)
        binds, defaults = {}, {}
        table = getattr(statement, "table", None)
        for name, bind in compiled.binds.items():
            processor = bind.type.dialect_impl(dialect).bind_processor(dialect)
            if processor is not None:
                binds[name] = processor
            default = table.c[name].default if table is not None and name in table.c else None
            if default is not None and default.is_scalar:
                defaults[name] = lambda value=default.arg: value
            elif default is not None and default.is_callable:
                defaults[name] = lambda make=default.arg: make(None)  # SQLAlchemy's wrapper takes a context
            elif default is not None:
                raise ValueError(f"{name}: a default not computed in Python")
            elif not bind.required:  # a value of the statement's own (a LIMIT's …)
                defaults[name] = lambda value=bind.effective_value: value
        found = _COMPILED[key] = _Compiled(compiled.string, list(compiled.positiontup) if compiled.positional
                                           else None, binds, defaults, statement,
                                           tuple(name for name, bind in compiled.binds.items() if bind.expanding),
                                           compiled)
    return found


def _params(compiled: _Compiled, row: dict):
    """A row's parameters as the driver takes them: defaults filled in, bind processors applied."""
    for listen in RAW_LISTENERS:
        listen(compiled.sql)
    values = {**{k: make() for k, make in compiled.defaults.items() if k not in row}, **row}
    for name in compiled.expanding:  # an IN list: a value per placeholder (`_compiled` with parameters)
        values.update((f"{name}_{i}", v) for i, v in enumerate(values.pop(name), start=1))
    values = {k: (compiled.binds[k](v) if k in compiled.binds else v) for k, v in values.items()}
    return [values[n] for n in compiled.names] if compiled.names is not None else values


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
