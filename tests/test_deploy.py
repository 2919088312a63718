"""A real deployment — `listok db upgrade` as a deploy step, gunicorn
with several workers (webapp/serve/gunicorn_conf.py), `listok serve --threads`, and
translations compiled into the wheel at build time (setup.py)."""
from __future__ import annotations

import gettext
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path

from click.testing import CliRunner
from sqlalchemy import create_engine, inspect

from webapp.cli import main
from webapp.config import normalise_database_url
from webapp.serve.admission import DEFAULT_MAX_WRITES

ROOT = Path(__file__).resolve().parents[1]
HEAD = "alembic_version"


def _env(url: str) -> dict:
    return {"DATABASE_URL": url, "LISTOK_SECRET_KEY": "deploy-test-secret-0123456789abcdef0123"}


def test_listok_db_upgrade_creates_the_schema_and_says_which(database_url, monkeypatch):
    for k, v in _env(database_url).items():
        monkeypatch.setenv(k, v)
    runner = CliRunner()
    before = runner.invoke(main, ["db", "current"])
    assert before.exit_code == 0 and before.output.strip() == "(no schema)"
    result = runner.invoke(main, ["db", "upgrade"])
    assert result.exit_code == 0, result.output
    line = result.output.strip()
    assert line.startswith("database schema up to date (") and line.endswith("; created)")
    head = line.split("(", 1)[1].split(";")[0]
    engine = create_engine(normalise_database_url(database_url))
    try:
        tables = set(inspect(engine).get_table_names())
    finally:
        engine.dispose()
    assert {"tournament", "player", "sheet", HEAD} <= tables
    assert runner.invoke(main, ["db", "current"]).output.strip() == head
    again = runner.invoke(main, ["db", "upgrade"])  # a second deploy of the same version: nothing to do
    assert again.exit_code == 0 and again.output == f"database schema up to date ({head})\n"


def test_listok_serve_threads_sets_waitress_threads_and_write_admission(monkeypatch, tmp_path):
    import waitress

    for k, v in _env(f"sqlite:///{tmp_path / 'serve.db'}").items():
        monkeypatch.setenv(k, v)
    seen = {}

    class FakeServer:
        def print_listen(self, _fmt):
            pass

        def run(self):
            pass

    def fake_create_server(app, **kw):
        seen.update(kw, max_writes=app.extensions["admission"].max_writes)
        return FakeServer()

    monkeypatch.setattr(waitress, "create_server", fake_create_server)
    monkeypatch.delenv("LISTOK_MAX_WRITES", raising=False)
    result = CliRunner().invoke(main, ["serve", "--threads", "12", "--port", "8123"])
    assert result.exit_code == 0, result.output
    # the 12 threads for everyone, and one for each phone sheet that may wait for its group commit
    assert seen["threads"] == 12 + DEFAULT_MAX_WRITES and seen["port"] == 8123
    assert "_dispatcher" not in seen and seen["max_writes"] == DEFAULT_MAX_WRITES
    monkeypatch.setenv("LISTOK_MAX_WRITES", "20")
    assert CliRunner().invoke(main, ["serve", "--threads", "12"]).exit_code == 0
    assert (seen["threads"], seen["max_writes"]) == (32, 20)
    assert CliRunner().invoke(main, ["serve", "--threads", "1"]).exit_code == 2  # at least 2


def test_a_gunicorn_worker_has_a_thread_per_write_slot_and_two_for_readers_at_least(monkeypatch):
    """gunicorn_conf's threads: LISTOK_THREADS for everyone and one per write slot; a --threads given by
    hand below that keeps two threads for readers."""
    import importlib
    from types import SimpleNamespace

    from webapp.serve import gunicorn_conf
    from webapp.serve.admission import Admission

    monkeypatch.setenv("LISTOK_THREADS", "6")
    monkeypatch.setenv("LISTOK_MAX_WRITES", "40")
    assert importlib.reload(gunicorn_conf).threads == 46
    monkeypatch.delenv("LISTOK_MAX_WRITES")
    assert importlib.reload(gunicorn_conf).threads == 6 + DEFAULT_MAX_WRITES
    monkeypatch.delenv("LISTOK_THREADS")
    assert importlib.reload(gunicorn_conf).threads == 8 + DEFAULT_MAX_WRITES
    for threads, slots in ((8 + DEFAULT_MAX_WRITES, DEFAULT_MAX_WRITES), (4, 2), (2, 1)):
        admission = Admission()
        app = SimpleNamespace(extensions={"admission": admission})  # no database: nothing to reconnect
        gunicorn_conf.post_fork(SimpleNamespace(app=SimpleNamespace(callable=app),
                                                cfg=SimpleNamespace(threads=threads)), None)
        assert admission.max_writes == slots, threads


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def test_gunicorn_config_serves_from_several_workers_after_db_upgrade(database_url):
    env = {**os.environ, **_env(database_url), "PYTHONPATH": str(ROOT)}
    env.pop("LISTOK_MAX_WRITES", None)
    upgrade = subprocess.run([sys.executable, "-m", "webapp.cli", "db", "upgrade"], env=env, cwd=ROOT,
                             capture_output=True, text=True, timeout=120)
    assert upgrade.returncode == 0, upgrade.stderr
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", "python:webapp.serve.gunicorn_conf",
                             "--bind", f"127.0.0.1:{port}", "--workers", "2", "--threads", "4",
                             "webapp:create_app()"], env=env, cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if _get(f"http://127.0.0.1:{port}/healthz")[0] == 200:
                    break
            except OSError:
                time.sleep(0.2)
        status, body = _get(f"http://127.0.0.1:{port}/")
        assert status == 200 and b"Listok" in body
        children = []  # the master and its two workers (the first may answer before the second is forked)
        while len(children) < 2 and time.monotonic() < deadline:
            children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
            time.sleep(0.1)
        assert len(children) == 2
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=30)
    assert "Booting worker" in out  # gunicorn's own log is visible
    assert "Running upgrade" not in out  # workers never migrate: that was the deploy step


def _source_copy(dest: Path) -> Path:
    """The sources a wheel is built from, without any .mo a running app may have compiled."""
    src = dest / "src"
    shutil.copytree(ROOT / "webapp", src / "webapp",
                    ignore=shutil.ignore_patterns("*.mo", "__pycache__", "*.pyc"))
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(ROOT / name, src / name)
    return src


def test_wheel_carries_compiled_translations_and_a_read_only_install_shows_slovak(tmp_path):
    from babel.messages.pofile import read_po

    src = _source_copy(tmp_path)
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                            "-w", str(tmp_path / "dist"), str(src)], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    wheel = next((tmp_path / "dist").glob("listok-*.whl"))
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        for lang in ("sk", "cs"):
            mo = f"webapp/translations/{lang}/LC_MESSAGES/messages.mo"
            assert mo in names, f"{lang}: no compiled catalogue in the wheel"
            with (ROOT / "webapp" / "translations" / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
                catalog = read_po(f, locale=lang)
            with z.open(mo) as f:
                compiled = gettext.GNUTranslations(f)
            assert compiled.gettext("Standings") == catalog["Standings"].string != "Standings"
        z.extractall(tmp_path / "site")
    # installed without the .po files: nothing can be compiled at start-up, the wheel's .mo must do
    for po in (tmp_path / "site" / "webapp" / "translations").glob("*/LC_MESSAGES/*.po"):
        po.unlink()
    script = ("from webapp import create_app\n"
              f"app = create_app({{'SQLALCHEMY_DATABASE_URI': 'sqlite:///{tmp_path / 'ro.db'}', "
              "'SECRET_KEY': 'x'})\n"
              "import webapp; print(webapp.__file__)\n"
              "from webapp.extensions import db\n"
              "with app.app_context(): db.create_all()\n"
              "print(app.test_client().get('/?lang=sk').get_data(as_text=True))\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LISTOK_") and k != "DATABASE_URL"}
    run = subprocess.run([sys.executable, "-c", script], env={**env, "PYTHONPATH": str(tmp_path / "site")},
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[0].startswith(str(tmp_path / "site"))
    with (ROOT / "webapp" / "translations" / "sk" / "LC_MESSAGES" / "messages.po").open("rb") as f:
        sk = read_po(f, locale="sk")
    assert sk["Sign in"].string in run.stdout and ">Sign in<" not in run.stdout  # from the wheel's catalogue


# --------------------------------------------------------------------------- the schema behind a WSGI server

def _wait_status(url: str, proc, seconds: float = 60.0) -> tuple[int, bytes]:
    deadline = time.monotonic() + seconds
    while True:
        try:
            return _get(url)
        except OSError:
            assert proc.poll() is None, proc.communicate()[0]
            assert time.monotonic() < deadline, f"{url} did not answer"
            time.sleep(0.2)


def test_fresh_database_behind_waitress_wsgi_app_says_run_db_upgrade(tmp_path):
    """`waitress-serve wsgi:app` (README) on a database without tables: every page a 503
    in the visitor's language naming `listok db upgrade`, /healthz fails; after the
    upgrade the same process serves, and never migrated by itself."""
    url = f"sqlite:///{tmp_path / 'fresh.db'}"
    env = {**os.environ, **_env(url), "PYTHONPATH": str(ROOT)}
    port = _free_port()
    proc = subprocess.Popen([str(Path(sys.executable).with_name("waitress-serve")), "--listen",
                             f"127.0.0.1:{port}", "wsgi:app"], env=env, cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        status, body = _wait_status(f"http://127.0.0.1:{port}/healthz", proc)
        assert status == 503 and b"listok db upgrade" in body
        request = urllib.request.Request(f"http://127.0.0.1:{port}/", headers={"Accept-Language": "sk"})
        try:
            urllib.request.urlopen(request, timeout=10)
            raise AssertionError("a page answered without a schema")
        except urllib.error.HTTPError as e:
            page = e.read().decode()
            assert e.code == 503 and e.headers["Retry-After"] and e.headers["Cache-Control"] == "no-store"
        assert "listok db upgrade" in page and 'lang="sk"' in page and "Internal Server Error" not in page
        assert "Databáza" in page  # the Slovak text, not the English source
        # the sign-in form (no database needed to show it) posted: the throttle's table is missing
        import http.cookiejar
        import re

        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        form = browser.open(f"http://127.0.0.1:{port}/login", timeout=10).read().decode()
        token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"|name="csrf_token" value="([^"]+)"', form)
        assert token, form
        data = urllib.parse.urlencode({"csrf_token": token.group(1) or token.group(2), "username": "a",
                                       "password": "b"}).encode()
        try:
            browser.open(urllib.request.Request(f"http://127.0.0.1:{port}/login", data=data,
                                                headers={"Accept-Language": "cs"}), timeout=10)
            raise AssertionError("the sign-in answered without a schema")
        except urllib.error.HTTPError as e:
            page = e.read().decode()
            assert e.code == 503 and "listok db upgrade" in page and "Databáze" in page
        engine = create_engine(url)
        try:
            assert inspect(engine).get_table_names() == []  # the worker did not migrate
        finally:
            engine.dispose()
        upgrade = subprocess.run([sys.executable, "-m", "webapp.cli", "db", "upgrade"], env=env, cwd=ROOT,
                                 capture_output=True, text=True, timeout=120)
        assert upgrade.returncode == 0, upgrade.stderr
        deadline = time.monotonic() + 10
        while _get(f"http://127.0.0.1:{port}/healthz")[0] != 200:
            assert time.monotonic() < deadline, "still 503 after the upgrade"
            time.sleep(0.2)
        status, body = _get(f"http://127.0.0.1:{port}/")
        assert status == 200 and b"Listok" in body
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def test_outdated_database_503_names_both_schemas_then_serves(database_url, monkeypatch):
    from alembic import command

    from webapp import create_app
    from webapp.db import schema

    monkeypatch.setattr(schema, "RECHECK_SECONDS", 0.0)
    app = create_app({"SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": database_url})
    migrate = app.extensions["migrate"]
    with app.app_context():
        command.upgrade(migrate.migrate.get_config(migrate.directory), "a8_rulesets")
    head = schema.heads(app)[0]
    client = app.test_client()
    answer = client.get("/", headers={"Accept-Language": "en"})
    text = answer.get_data(as_text=True)
    assert answer.status_code == 503 and "a8_rulesets" in text and head in text and "listok db upgrade" in text
    assert client.get("/t/1/standings").status_code == 503  # Tournament's new column is missing
    assert client.get("/healthz").status_code == 503
    from webapp.cli.server import upgrade_database

    assert upgrade_database(app) == f"database schema up to date ({head}; upgraded from a8_rulesets)"
    assert client.get("/healthz").status_code == 200 and client.get("/").status_code == 200
    with app.app_context():
        from webapp.extensions import db

        db.engine.dispose()


def test_migrations_at_start_are_one_line(tmp_path):
    """Alembic's INFO lines (one per revision, wrapped, citing history) are not printed."""
    env = {**os.environ, **_env(f"sqlite:///{tmp_path / 'quiet.db'}"), "PYTHONPATH": str(ROOT)}
    for _ in range(2):
        run = subprocess.run([sys.executable, "-m", "webapp.cli", "db", "upgrade"], env=env, cwd=ROOT,
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 0 and run.stderr == "", run.stderr
        assert len(run.stdout.splitlines()) == 1 and run.stdout.startswith("database schema up to date (")


def test_busy_port_is_one_line_before_the_banner(tmp_path):
    env = {**os.environ, **_env(f"sqlite:///{tmp_path / 'busy.db'}"), "PYTHONPATH": str(ROOT)}
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = subprocess.run([sys.executable, "-m", "webapp.cli", "serve", "--port", str(port)], env=env,
                             cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert run.stderr.splitlines() == [f"listok: port {port} on 127.0.0.1 is in use (another listok serve?): "
                                       "stop that server, or give another --port"]
    assert "Listok on" not in run.stdout and "Traceback" not in run.stderr


# --------------------------------------------------------------------------- the demo's published passwords

def _demo_app(url: str, instance: Path, env: str = ""):
    from types import SimpleNamespace

    return SimpleNamespace(config={"SQLALCHEMY_DATABASE_URI": url, "LISTOK_ENV": env}, instance_path=str(instance))


def test_demo_refusal_criterion(tmp_path, monkeypatch):
    from webapp.cli.server import demo_refusal

    monkeypatch.delenv("LISTOK_ENV", raising=False)
    inst = tmp_path / "instance"
    assert demo_refusal(_demo_app(f"sqlite:///{inst / 'listok.db'}", inst), None) is None
    assert demo_refusal(_demo_app("sqlite://", inst), None) is None
    pg = "postgresql://listok:secret@db.internal/listok"
    why = demo_refusal(_demo_app(pg, inst), None)
    assert "--force listok" in why and "secret" not in why and "published" in why
    assert demo_refusal(_demo_app(pg, inst), "listok") is None
    assert demo_refusal(_demo_app(pg, inst), "other") is not None
    outside = f"sqlite:///{tmp_path / 'elsewhere.db'}"
    assert "--force elsewhere.db" in demo_refusal(_demo_app(outside, inst), None)
    prod = demo_refusal(_demo_app(f"sqlite:///{inst / 'listok.db'}", inst, "production"), None)
    assert "LISTOK_ENV=production" in prod


def test_listok_demo_refuses_a_production_database_unless_forced_by_name(database_url, monkeypatch):
    from sqlalchemy.engine import make_url

    for k, v in _env(database_url).items():
        monkeypatch.setenv(k, v)
    runner = CliRunner()
    refused = runner.invoke(main, ["demo"])
    assert refused.exit_code == 2 and refused.stderr.startswith("listok: refusing the demo: ")
    assert "--force" in refused.stderr
    engine = create_engine(normalise_database_url(database_url))
    try:
        assert "user" not in inspect(engine).get_table_names()  # nothing written, not even the schema
    finally:
        engine.dispose()
    assert runner.invoke(main, ["serve", "--demo", "--port", "1"]).exit_code == 2  # the same refusal
    name = Path(make_url(database_url).database).name
    made = runner.invoke(main, ["demo", "--force", name])
    assert made.exit_code == 0, made.output
    assert "'rozhodca' / 'demo-referee'" in made.stdout and "'admin' / 'demo-admin'" in made.stdout
