"""The yardstick for sync_bench.py: a bare Flask app whose POST /bare parses the
phone's JSON body and does one INSERT + commit, on the same database (SQLite
with the venue server's settings: WAL, synchronous=FULL, BEGIN IMMEDIATE) and
under the same waitress with the same threads as `listok serve` — its --threads and
one per write slot, webapp/serve/admission.py — (or under the same gunicorn
configuration as listok's workers: app_from_env).

    DATABASE_URL=… python benchmarks/bare_app.py --port 8001 --threads 8
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from flask import Flask, jsonify, request  # noqa: E402
from sqlalchemy import Column, Integer, MetaData, String, Table, Text, create_engine  # noqa: E402

from webapp.config import normalise_database_url  # noqa: E402
from webapp.db.connections import configure_sqlite  # noqa: E402
from webapp.serve.admission import write_slots  # noqa: E402

metadata = MetaData()
bare = Table("bare_sheet", metadata, Column("id", Integer, primary_key=True),
             Column("key", String(64), unique=True), Column("body", Text))


def make_app(url: str) -> Flask:
    engine = create_engine(normalise_database_url(url))
    configure_sqlite(engine)  # the venue server's own settings (nothing on PostgreSQL)
    metadata.create_all(engine)
    engine.dispose()  # under gunicorn the app is built before the fork: no connection crosses it
    app = Flask(__name__)

    @app.get("/hello")
    def hello():
        return "hello"

    @app.post("/bare")
    def store():
        data = json.loads(request.get_data())
        with engine.begin() as conn:
            conn.execute(bare.insert().values(key=data["idempotency_key"] + os.urandom(4).hex(),
                                              body=json.dumps(data["content"])))
        return jsonify({"status": "accepted", "receipt": "bare"})

    return app


def app_from_env() -> Flask:
    """For gunicorn (sync_bench.py --workers): `gunicorn 'benchmarks.bare_app:app_from_env()'`."""
    return make_app(os.environ["DATABASE_URL"])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--threads", type=int, default=8)
    args = ap.parse_args()
    from waitress import serve

    threads = args.threads + write_slots(os.environ.get("LISTOK_MAX_WRITES"))
    serve(make_app(os.environ["DATABASE_URL"]), host="127.0.0.1", port=args.port, threads=threads)


if __name__ == "__main__":
    main()
