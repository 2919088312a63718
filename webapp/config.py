"""Configuration from the environment (DATABASE_URL, LISTOK_SECRET_KEY …)."""
from __future__ import annotations

import os
import secrets
from pathlib import Path


MIN_KEY_LENGTH = 32  # characters; a generated key is 64 hex digits
ROLES = ("venue", "federation")  # LISTOK_ROLE


class ConfigError(RuntimeError):
    """The server must not start: the message is one line saying what to fix."""


def production(values: dict | None = None) -> bool:
    env = (values or {}).get("LISTOK_ENV") or os.environ.get("LISTOK_ENV", "")
    return env.strip().lower() == "production"


def instance_override() -> str | None:
    """LISTOK_INSTANCE: the instance folder (database, keys, replica state) somewhere else than
    Flask's default beside the code: a standby restored into a folder of its own, a drill's servers."""
    value = os.environ.get("LISTOK_INSTANCE", "").strip()
    return str(Path(value).expanduser().resolve()) if value else None


def default_instance() -> Path:
    """The instance folder the app will use, found without making the app."""
    found = instance_override()
    if found:
        return Path(found)
    from flask import Flask

    return Path(Flask("webapp", instance_relative_config=True).instance_path)


def key_path(instance: Path) -> Path:
    """Where the embedded default keeps its generated key: apart from the
    database file (instance/listok.db), in a folder only the server's user may open."""
    return instance / "keys" / "secret_key"


def _read_key(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError as e:
        raise ConfigError(f"cannot read the secret key file {path}: {e.strerror or e}") from e


def generated_key(instance: Path) -> str:
    """The key kept in instance/keys/secret_key, written once. Concurrent starters
    (several server processes on a fresh instance folder) race only for an
    os.link of a complete file: exactly one link wins and everyone reads that
    file, so they all end up with the same key, never an empty one."""
    path = key_path(instance)
    if path.exists():
        key = _read_key(path)
        if key:
            return key
        raise ConfigError(f"the secret key file {path} is empty: delete it to generate a new key")
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path.parent, 0o700)
    legacy = instance / "secret_key"  # before keys/ existed: keep its key so printed QR codes still work
    if legacy.exists() and legacy.read_text().strip():
        source = legacy
    else:
        source = path.parent / f".secret_key.{os.getpid()}.{secrets.token_hex(8)}"
        fd = os.open(source, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, secrets.token_hex(32).encode())
            os.fsync(fd)
        finally:
            os.close(fd)
    try:
        os.link(source, path)
    except (FileExistsError, FileNotFoundError):
        pass  # another process was first (and may have moved the old key already): use its key
    finally:
        source.unlink(missing_ok=True)
    os.chmod(path, 0o600)
    return _read_key(path)


def _secret_key(instance: Path, prod: bool = False) -> str:
    """LISTOK_SECRET_KEY, else the file named by LISTOK_SECRET_KEY_FILE, else (not
    in production) a random key generated once into instance/keys/secret_key,
    so that sessions and signed sheet tokens survive a restart."""
    key = os.environ.get("LISTOK_SECRET_KEY", "").strip()
    if key:
        return key
    file = os.environ.get("LISTOK_SECRET_KEY_FILE", "").strip()
    if file:
        key = _read_key(Path(file))
        if not key:
            raise ConfigError(f"the secret key file {file} (LISTOK_SECRET_KEY_FILE) is empty")
        return key
    if prod:
        raise ConfigError("LISTOK_ENV=production needs LISTOK_SECRET_KEY or LISTOK_SECRET_KEY_FILE "
                          "(a file outside the data directory)")
    return generated_key(instance)


def normalise_database_url(url: str) -> str:
    """postgres:// and postgresql:// URLs use the psycopg 3 driver."""
    if url.startswith(("postgres://", "postgresql://")):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


def _database_url(instance: Path, prod: bool = False) -> str:
    url = os.environ.get("DATABASE_URL", "").strip()
    if not url:
        if prod:
            raise ConfigError("LISTOK_ENV=production needs DATABASE_URL (refusing to serve an empty SQLite database)")
        instance.mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{instance / 'listok.db'}"
    return normalise_database_url(url)


class Config:
    LANGUAGES = ("sk", "cs", "en", "ru")
    BABEL_DEFAULT_LOCALE = "sk"
    BABEL_DEFAULT_TIMEZONE = os.environ.get("LISTOK_TIMEZONE", "Europe/Bratislava")
    # the address phones reach the server at, for the QR codes on printed sheets (empty: this request's host)
    LISTOK_PUBLIC_URL = os.environ.get("LISTOK_PUBLIC_URL", "")
    # PostgreSQL: at most SQLAlchemy's 15 connections a process, but 10 of them kept (its default keeps 5): a
    # round's phones arriving at once opened and closed the others over and over, each a new server backend.
    # They are pinged after a rest (webapp/db/connections.py)
    SQLALCHEMY_ENGINE_OPTIONS: dict = {"pool_size": 10, "max_overflow": 5}
    WTF_CSRF_TIME_LIMIT = None
    SESSION_COOKIE_SAMESITE = "Lax"
    REMEMBER_COOKIE_SAMESITE = "Lax"
    MAX_CONTENT_LENGTH = 8 * 1024 * 1024
    SESSION_COOKIE_HTTPONLY = True
    REMEMBER_COOKIE_HTTPONLY = True



def _seconds(name: str, default: int, low: int, high: int) -> int:
    value = os.environ.get(name, "").strip()
    if value and not (value.isdigit() and low <= int(value) <= high):
        raise ConfigError(f"{name} is '{value}': use whole seconds from {low} to {high}")
    return int(value or default)


def load_config(instance_path: str, overrides: dict | None = None) -> dict:
    """Config values: class defaults, then the environment, then `overrides`
    (tests pass their database URL and key, so nothing is written to disk)."""
    values = {k: getattr(Config, k) for k in dir(Config) if k.isupper()}
    overrides = dict(overrides or {})
    instance = Path(instance_path)
    # only these peers may say, with X-Forwarded-For/-Proto, who the client is and that it used HTTPS
    values["LISTOK_TRUSTED_PROXIES"] = os.environ.get("LISTOK_TRUSTED_PROXIES", "127.0.0.1,::1")
    values["LISTOK_ENV"] = os.environ.get("LISTOK_ENV", "")
    # admission control of the phones' writes (webapp/serve/admission.py): at most this many in flight per process,
    # and none that would wait longer than the budget (seconds) at the recent pace
    values["LISTOK_MAX_WRITES"] = int(os.environ.get("LISTOK_MAX_WRITES") or 0) or None
    values["LISTOK_WRITE_BUDGET"] = float(os.environ.get("LISTOK_WRITE_BUDGET") or 5.0)
    # the most phone sheets of one tournament written in one transaction (webapp/serve/together.py)
    values["LISTOK_MAX_TOGETHER"] = int(os.environ.get("LISTOK_MAX_TOGETHER") or 0) or None
    # one codebase, two roles: a venue server, or the federation server (seasons, rosters, cards)
    values["LISTOK_ROLE"] = os.environ.get("LISTOK_ROLE", "venue").strip().lower() or "venue"
    # a venue server's federation: where `listok push` and the hub's button send finished tournaments
    values["LISTOK_FEDERATION_URL"] = os.environ.get("LISTOK_FEDERATION_URL", "").strip()
    values["LISTOK_FEDERATION_TOKEN"] = os.environ.get("LISTOK_FEDERATION_TOKEN", "").strip()
    # the token goes to https:// only, unless the venue says plain http:// is acceptable (a closed network)
    values["LISTOK_FEDERATION_INSECURE"] = os.environ.get("LISTOK_FEDERATION_INSECURE", "").strip() in ("1", "true", "yes")
    # The winner's phone's head start (seconds after the last own-phone signature of a draft
    # everybody signed) before any phone of the table may send that sheet (docs/SYNC.md)
    values["LISTOK_DRAFT_SEND_AFTER"] = _seconds("LISTOK_DRAFT_SEND_AFTER", 120, 0, 3600)
    # how often a player's "my tournament" page asks for news (static/js/me.js)
    values["LISTOK_PLAYER_POLL_SECONDS"] = _seconds("LISTOK_PLAYER_POLL_SECONDS", 15, 2, 300)
    prod = production(overrides)
    if "SQLALCHEMY_DATABASE_URI" not in overrides:
        values["SQLALCHEMY_DATABASE_URI"] = _database_url(instance, prod)
    if "SECRET_KEY" not in overrides:
        values["SECRET_KEY"] = _secret_key(instance, prod)
    values.update(overrides)
    if values["LISTOK_ROLE"] not in ROLES:
        raise ConfigError(f"LISTOK_ROLE is '{values['LISTOK_ROLE']}': use venue or federation")
    key = str(values.get("SECRET_KEY") or "").strip()
    if not key:
        raise ConfigError("the secret key is empty: set LISTOK_SECRET_KEY or LISTOK_SECRET_KEY_FILE")
    if prod and len(key) < MIN_KEY_LENGTH:
        raise ConfigError(f"the secret key is too short for production ({len(key)} characters, "
                          f"at least {MIN_KEY_LENGTH})")
    if values["SQLALCHEMY_DATABASE_URI"].startswith("sqlite"):
        values["SQLALCHEMY_ENGINE_OPTIONS"] = {}
    return values

