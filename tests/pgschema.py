"""A PostgreSQL schema of its own for one test or benchmark run, dropped afterwards."""
from __future__ import annotations

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
