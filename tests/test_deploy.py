"""Issue 11: a real deployment — `listok db upgrade` as a deploy step, gunicorn
with several workers (webapp/gunicorn_conf.py), `listok serve --threads`, and
translations compiled into the wheel at build time (setup.py)."""
from __future__ import annotations

import gettext
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import create_engine, inspect

from webapp.cli import main
from webapp.config import normalise_database_url

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
    head = result.output.strip().rsplit(" ", 1)[-1]
    engine = create_engine(normalise_database_url(database_url))
    try:
        tables = set(inspect(engine).get_table_names())
    finally:
        engine.dispose()
    assert {"tournament", "player", "sheet", HEAD} <= tables
    assert runner.invoke(main, ["db", "current"]).output.strip() == head
    again = runner.invoke(main, ["db", "upgrade"])  # a second deploy of the same version: nothing to do
    assert again.exit_code == 0 and again.output.strip().endswith(head)


def test_listok_serve_threads_sets_waitress_lanes_and_write_admission(monkeypatch, tmp_path):
    from webapp import lanes

    for k, v in _env(f"sqlite:///{tmp_path / 'serve.db'}").items():
        monkeypatch.setenv(k, v)
    seen = {}

    class FakeServer:
        def print_listen(self, _fmt):
            pass

        def run(self):
            pass

    def fake_create_server(app, **kw):
        seen.update(kw, max_writes=app.extensions["admission"].max_writes, lanes=app.extensions["admission"].lanes)
        return FakeServer()

    monkeypatch.setattr(lanes, "create_server", fake_create_server)
    result = CliRunner().invoke(main, ["serve", "--threads", "12", "--port", "8123"])
    assert result.exit_code == 0, result.output
    assert seen["threads"] == 12 and seen["port"] == 8123
    dispatcher = seen["_dispatcher"]
    assert isinstance(dispatcher, lanes.Lanes) and len(dispatcher.threads) == 12
    assert dispatcher.reserved == 2 and seen["max_writes"] == 10 and seen["lanes"]  # 2 kept for readers
    dispatcher.shutdown()
    assert CliRunner().invoke(main, ["serve", "--threads", "1"]).exit_code == 2  # at least 2


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
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", "python:webapp.gunicorn_conf",
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
