"""gunicorn settings for several workers on PostgreSQL behind a reverse proxy
(docs/DEPLOY.md, "Many workers"):

    listok db upgrade                      # the schema first: workers never migrate
    gunicorn -c python:webapp.serve.gunicorn_conf 'webapp:create_app()'

Environment: DATABASE_URL (PostgreSQL), LISTOK_SECRET_KEY or
LISTOK_SECRET_KEY_FILE (the same on every worker and machine), LISTOK_BIND
(127.0.0.1:8000), LISTOK_WORKERS (2 per core), LISTOK_THREADS (8, and one
more per write slot, LISTOK_MAX_WRITES: webapp/serve/admission.py),
LISTOK_TRUSTED_PROXIES (the reverse proxy's address). Command-line options
(--workers, --threads, --bind) override these.
"""
from __future__ import annotations

import gc
import os

from webapp.serve.admission import write_slots

bind = os.environ.get("LISTOK_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("LISTOK_WORKERS") or 2 * (os.cpu_count() or 1))
worker_class = "gthread"
# LISTOK_THREADS answer everyone; each write slot of admission control waits on a thread of its own
threads = int(os.environ.get("LISTOK_THREADS") or 8) + write_slots(os.environ.get("LISTOK_MAX_WRITES"))
# the app is built once in the master; workers share its pages (gc.freeze below keeps them shared)
preload_app = True
timeout = 60  # a phone gives up after 20 s; a worker stuck for a minute is restarted
graceful_timeout = 30
keepalive = 5
# the reverse proxy says who the client is; the app's TrustedProxyFix decides whom to believe
forwarded_allow_ips = "*"
accesslog = os.environ.get("LISTOK_ACCESS_LOG") or None
errorlog = "-"
loglevel = os.environ.get("LISTOK_LOG_LEVEL", "info")


def when_ready(server):
    """Before the first fork: what start-up made (modules, the app, templates' tables)
    leaves the collector's generations, so no worker's full collection touches
    (and un-shares) those pages."""
    gc.collect()
    gc.freeze()


def post_fork(server, worker):
    """In each worker: fresh database connections (a preloaded app's pool must not be
    shared across processes) and write admission within this worker's threads."""
    app = getattr(server.app, "callable", None) or server.app.wsgi()
    from webapp.extensions import db

    if "sqlalchemy" in app.extensions:  # not the benchmarks' bare yardstick, which connects after the fork
        with app.app_context():
            db.engine.dispose(close=False)
    admission = app.extensions.get("admission")
    if admission is not None:  # a --threads given by hand below the write slots leaves two for readers
        admission.max_writes = max(1, min(admission.max_writes, server.cfg.threads - 2))
