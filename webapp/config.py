"""Configuration from the environment (DATABASE_URL, LISTOK_SECRET_KEY …)."""
from __future__ import annotations

import os
import secrets
from pathlib import Path


def _secret_key(instance: Path) -> str:
    """LISTOK_SECRET_KEY, or a random key kept in the instance folder so that
    sessions and signed sheet tokens survive a restart."""
    key = os.environ.get("LISTOK_SECRET_KEY")
    if key:
        return key
    path = instance / "secret_key"
    if not path.exists():
        instance.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_hex(32))
        path.chmod(0o600)
    return path.read_text().strip()


def normalise_database_url(url: str) -> str:
    """postgres:// and postgresql:// URLs use the psycopg 3 driver."""
    if url.startswith(("postgres://", "postgresql://")):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


def _database_url(instance: Path) -> str:
    url = os.environ.get("DATABASE_URL")
    if not url:
        instance.mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{instance / 'listok.db'}"
    return normalise_database_url(url)


class Config:
    LANGUAGES = ("sk", "cs", "en")
    BABEL_DEFAULT_LOCALE = "sk"
    BABEL_DEFAULT_TIMEZONE = os.environ.get("LISTOK_TIMEZONE", "Europe/Bratislava")
    # the address phones reach the server at, for the QR codes on printed sheets (empty: this request's host)
    LISTOK_PUBLIC_URL = os.environ.get("LISTOK_PUBLIC_URL", "")
    SQLALCHEMY_ENGINE_OPTIONS = {"pool_pre_ping": True}
    WTF_CSRF_TIME_LIMIT = None
    SESSION_COOKIE_SAMESITE = "Lax"
    REMEMBER_COOKIE_SAMESITE = "Lax"
    MAX_CONTENT_LENGTH = 8 * 1024 * 1024



def load_config(instance_path: str, overrides: dict | None = None) -> dict:
    """Config values: class defaults, then the environment, then `overrides`
    (tests pass their database URL and key, so nothing is written to disk)."""
    values = {k: getattr(Config, k) for k in dir(Config) if k.isupper()}
    overrides = dict(overrides or {})
    instance = Path(instance_path)
    if "SQLALCHEMY_DATABASE_URI" not in overrides:
        values["SQLALCHEMY_DATABASE_URI"] = _database_url(instance)
    if "SECRET_KEY" not in overrides:
        values["SECRET_KEY"] = _secret_key(instance)
    values.update(overrides)
    if values["SQLALCHEMY_DATABASE_URI"].startswith("sqlite"):
        values["SQLALCHEMY_ENGINE_OPTIONS"] = {}
    return values

