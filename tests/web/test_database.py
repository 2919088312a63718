"""PostgreSQL's pooled connections (webapp/db/connections.py): pinged after a rest, not per request."""
from __future__ import annotations

import pytest
from sqlalchemy import create_engine, text

from tests.pgschema import postgresql_url
from webapp.db import connections as database
from webapp.config import normalise_database_url
from webapp.extensions import db


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
def test_a_rested_connection_the_server_ended_is_replaced_and_one_in_use_is_not_pinged(app, client,
                                                                                        monkeypatch):
    pings = []
    with app.app_context():
        engine = db.engine
        ping = engine.dialect.do_ping
        monkeypatch.setattr(engine.dialect, "do_ping", lambda conn: pings.append(1) or ping(conn))
        engine.dispose()
        with engine.connect() as conn:
            pid = conn.execute(text("SELECT pg_backend_pid()")).scalar()
        # back in the pool, it rests; meanwhile the database server ends it (a restart, an idle timeout)
        admin = create_engine(normalise_database_url(postgresql_url()), isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            assert conn.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid}).scalar()
        admin.dispose()
        monkeypatch.setattr(database, "IDLE_PING_SECONDS", 0.0)
    assert client.get("/").status_code == 200  # the request never meets the dead connection
    with app.app_context():
        with db.engine.connect() as conn:
            assert conn.execute(text("SELECT pg_backend_pid()")).scalar() != pid
    assert len(pings) == 2  # the dead one, then the new one after it rested (0 s here)
    monkeypatch.setattr(database, "IDLE_PING_SECONDS", 3600.0)
    for _ in range(3):
        assert client.get("/").status_code == 200
    assert len(pings) == 2  # in steady use: no round trip before each request
