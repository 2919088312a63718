"""A PostgreSQL schema of its own for one test or benchmark run, dropped afterwards."""
from __future__ import annotations

import os
import uuid
from contextlib import contextmanager

from sqlalchemy import create_engine, text

from webapp.config import normalise_database_url


@contextmanager
def temporary_schema(url: str, prefix: str = "t"):
    """Yield a database URL whose search_path is a fresh schema in `url`'s database."""
    base = normalise_database_url(url)
    schema = f"{prefix}_{uuid.uuid4().hex[:12]}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        sep = "&" if "?" in base else "?"
        yield f"{base}{sep}options=-csearch_path%3D{schema}"
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


NO_POSTGRESQL = ("this test needs PostgreSQL: set TEST_DATABASE_URL (e.g. postgresql://postgres@127.0.0.1:5432/test), "
                 "or run scripts/test, which sets it to a server on 127.0.0.1:5432 or starts a throwaway one")


def postgresql_url() -> str:
    """TEST_DATABASE_URL, or the test is skipped saying what to set; a URL no server
    answers at fails the test saying so (once per process, then at once)."""
    url = os.environ.get("TEST_DATABASE_URL")
    if not url:
        import pytest

        pytest.skip(NO_POSTGRESQL)
    if url not in _answered:
        _answered[url] = _unreachable(url)
    if _answered[url]:
        import pytest

        pytest.fail(_answered[url], pytrace=False)
    return url


_answered: dict[str, str] = {}  # URL -> why no server answers there ("" when one does)


def _unreachable(url: str) -> str:
    from sqlalchemy.exc import OperationalError

    engine = create_engine(normalise_database_url(url))
    try:
        with engine.connect():
            return ""
    except OperationalError as e:
        return (f"no PostgreSQL server answers at TEST_DATABASE_URL={url} ({e.orig}): start it, point "
                "TEST_DATABASE_URL at one, or unset it to run the SQLite tests alone")
    finally:
        engine.dispose()
