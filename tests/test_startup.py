"""Safe startup: the generated secret key is written
atomically (several processes starting at once on a fresh instance folder all
read the same non-empty key), an empty key is refused, and production mode
(LISTOK_ENV=production) refuses to start without DATABASE_URL or a usable key:
one line on stderr, exit status 2."""
from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STARTER = """
import sys, time
from pathlib import Path
from webapp.config import generated_key
start = float(sys.argv[2])
while time.time() < start:
    pass
print(generated_key(Path(sys.argv[1])))
"""


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "LISTOK_SECRET_KEY", "LISTOK_SECRET_KEY_FILE", "LISTOK_ENV")}
    env["PYTHONPATH"] = str(ROOT)
    env.update(extra)
    return env


def test_secret_key_race_several_processes_one_key(tmp_path):
    for attempt in range(4):
        instance = tmp_path / f"instance{attempt}"
        start = time.time() + 1.5  # all of them import first, then go at the same moment
        procs = [subprocess.Popen([sys.executable, "-c", STARTER, str(instance), str(start)], env=_env(),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(8)]
        outs = [p.communicate(timeout=60) for p in procs]
        assert all(p.returncode == 0 for p in procs), [e for _, e in outs]
        keys = {o.strip() for o, _ in outs}
        assert len(keys) == 1 and len(keys.pop()) == 64
        key_file = instance / "keys" / "secret_key"
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        assert stat.S_IMODE(key_file.parent.stat().st_mode) == 0o700
        assert sorted(p.name for p in key_file.parent.iterdir()) == ["secret_key"]  # no temporary files left


def test_key_kept_apart_from_the_database(tmp_path, monkeypatch):
    from webapp.config import load_config

    for name in ("DATABASE_URL", "LISTOK_SECRET_KEY", "LISTOK_SECRET_KEY_FILE", "LISTOK_ENV"):
        monkeypatch.delenv(name, raising=False)
    values = load_config(str(tmp_path))
    assert values["SQLALCHEMY_DATABASE_URI"] == f"sqlite:///{tmp_path / 'listok.db'}"
    assert values["SECRET_KEY"] == (tmp_path / "keys" / "secret_key").read_text()
    assert load_config(str(tmp_path))["SECRET_KEY"] == values["SECRET_KEY"]  # the same after a restart


def test_old_key_file_moves_into_keys(tmp_path, monkeypatch):
    """A venue upgraded from instance/secret_key keeps its key (printed QR codes stay valid)."""
    from webapp.config import load_config

    for name in ("DATABASE_URL", "LISTOK_SECRET_KEY", "LISTOK_SECRET_KEY_FILE", "LISTOK_ENV"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "secret_key").write_text("an-old-key-from-before-keys-folder\n")
    assert load_config(str(tmp_path))["SECRET_KEY"] == "an-old-key-from-before-keys-folder"
    assert not (tmp_path / "secret_key").exists()
    assert (tmp_path / "keys" / "secret_key").exists()


def test_empty_key_refused_everywhere(tmp_path, monkeypatch):
    from webapp import create_app
    from webapp.config import ConfigError, load_config

    for name in ("DATABASE_URL", "LISTOK_SECRET_KEY", "LISTOK_SECRET_KEY_FILE", "LISTOK_ENV"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ConfigError, match="empty"):
        create_app({"SECRET_KEY": "", "SQLALCHEMY_DATABASE_URI": "sqlite://"})
    with pytest.raises(ConfigError, match="empty"):
        create_app({"SECRET_KEY": "   ", "SQLALCHEMY_DATABASE_URI": "sqlite://"})
    (tmp_path / "keys").mkdir()
    (tmp_path / "keys" / "secret_key").write_text("")
    with pytest.raises(ConfigError, match="empty"):
        load_config(str(tmp_path))
    empty = tmp_path / "empty_key"
    empty.write_text("\n")
    monkeypatch.setenv("LISTOK_SECRET_KEY_FILE", str(empty))
    with pytest.raises(ConfigError, match="empty"):
        load_config(str(tmp_path / "other"))


def _serve(tmp_path, **env):
    return subprocess.run([sys.executable, "-m", "webapp.cli", "serve", "--port", "1"], cwd=tmp_path,
                          env=_env(LISTOK_ENV="production", **env), capture_output=True, text=True, timeout=120)


def _wsgi(tmp_path, **env):
    return subprocess.run([sys.executable, "-c", "import wsgi"], cwd=ROOT,
                          env=_env(LISTOK_ENV="production", **env), capture_output=True, text=True, timeout=120)


GOOD_KEY = "k" * 40


@pytest.mark.parametrize("start", [_serve, _wsgi], ids=["listok-serve", "wsgi-factory"])
def test_production_refuses_to_start(tmp_path, start):
    key_file = tmp_path / "key"
    cases = [
        ({"LISTOK_SECRET_KEY": GOOD_KEY}, "DATABASE_URL"),
        ({"DATABASE_URL": "sqlite:///" + str(tmp_path / "x.db")}, "LISTOK_SECRET_KEY"),
        ({"DATABASE_URL": "sqlite:///" + str(tmp_path / "x.db"), "LISTOK_SECRET_KEY": "short"}, "too short"),
        ({"DATABASE_URL": "sqlite:///" + str(tmp_path / "x.db"), "LISTOK_SECRET_KEY_FILE": str(key_file)},
         "cannot read"),
    ]
    for env, says in cases:
        r = start(tmp_path, **env)
        assert r.returncode == 2, (env, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and says in lines[0] and lines[0].startswith("listok: "), r.stderr


def test_production_starts_with_database_and_key_file(tmp_path):
    key_file = tmp_path / "key"
    key_file.write_text(GOOD_KEY + "\n")
    code = ("from webapp import create_app; app = create_app(); "
            "print(app.config['SECRET_KEY'] == 'k' * 40, app.config['SQLALCHEMY_DATABASE_URI'])")
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                       env=_env(LISTOK_ENV="production", LISTOK_SECRET_KEY_FILE=str(key_file),
                                DATABASE_URL="sqlite:///" + str(tmp_path / "x.db")))
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["True", "sqlite:///" + str(tmp_path / "x.db")]


@pytest.mark.parametrize("name, default, good, bad", [
    ("LISTOK_DRAFT_SEND_AFTER", 120, 45, ("-5", "2m", "99999")),  # the winner's phone's head start, seconds
    ("LISTOK_PLAYER_POLL_SECONDS", 15, 30, ("1", "0", "15s", "301")),  # how often "my tournament" asks
])
def test_whole_seconds_from_the_environment(tmp_path, monkeypatch, name, default, good, bad):
    from webapp.config import ConfigError, load_config

    monkeypatch.delenv(name, raising=False)
    base = {"SECRET_KEY": GOOD_KEY, "SQLALCHEMY_DATABASE_URI": "sqlite://"}
    assert load_config(str(tmp_path), base)[name] == default
    monkeypatch.setenv(name, str(good))
    assert load_config(str(tmp_path), base)[name] == good
    for value in bad:
        monkeypatch.setenv(name, value)
        with pytest.raises(ConfigError, match=name):
            load_config(str(tmp_path), base)




def test_a_postgresql_pool_keeps_ten_connections_of_at_most_fifteen(app, backend):
    """A round's phones arrive at once: on PostgreSQL the connections they need are kept, not opened
    and closed again with each burst, and a process still opens at most 15."""
    from webapp.extensions import db

    with app.app_context():
        pool = db.engine.pool
        if backend == "postgresql":
            assert pool.size() == 10
            conns = [db.engine.connect() for _ in range(15)]
            try:
                assert pool.overflow() == 5 and pool.checkedout() == 15
            finally:
                for c in conns:
                    c.close()
            assert pool.checkedin() == 10  # the five beyond pool_size are closed, the ten kept
        else:  # SQLite: SQLAlchemy's own pool for a file, no options of ours
            assert app.config["SQLALCHEMY_ENGINE_OPTIONS"] == {}
