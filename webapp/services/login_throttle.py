"""The sign-in throttle, kept in the database so that every server process
counts the same attempts: at most MAX_PER_ACCOUNT failed sign-ins per account
name and MAX_PER_ADDRESS per client address within WINDOW. Past that even the
right password is refused until the oldest counted failure is older than WINDOW.

An attempt is reserved (stored as "pending", which counts like a failure)
before the password is checked, under a lock, so concurrent requests cannot
check more passwords than the limit allows. A successful sign-in ends the
account's count, never the address's."""
from __future__ import annotations

from datetime import datetime, timedelta

from flask import current_app
from sqlalchemy import delete, func, select, text, update

from ..extensions import db
from ..models import LoginAttempt, utcnow

WINDOW = timedelta(minutes=15)
MAX_PER_ACCOUNT = 5
MAX_PER_ADDRESS = 20
KEEP = timedelta(days=1)
COUNTED = ("pending", "failed")
PG_LOCK = 4243  # pg_advisory_xact_lock key of the throttle (4242 is the audit chain's)


class Throttled(Exception):
    def __init__(self, retry_at: datetime):
        super().__init__(retry_at)
        self.retry_at = retry_at  # naive UTC


def account_key(username: str) -> str:
    return (username or "").strip().lower()[:80]


def _limits() -> tuple[int, int, timedelta]:
    cfg = current_app.config
    return (int(cfg.get("LISTOK_LOGIN_MAX_PER_ACCOUNT", MAX_PER_ACCOUNT)),
            int(cfg.get("LISTOK_LOGIN_MAX_PER_ADDRESS", MAX_PER_ADDRESS)),
            timedelta(seconds=int(cfg.get("LISTOK_LOGIN_WINDOW_SECONDS", WINDOW.total_seconds()))))


def _retry_at(times: list[datetime], limit: int, window: timedelta) -> datetime | None:
    """When the count drops below `limit` again, or None if it is below already."""
    if len(times) < limit:
        return None
    return sorted(times)[len(times) - limit] + window


def reserve(username: str, address: str, now: datetime | None = None) -> int:
    """Store a pending attempt and return its id, or raise Throttled (the refusal
    is stored too, as "refused", which does not count). Commits."""
    per_account, per_address, window = _limits()
    db.session.commit()  # a fresh transaction: on SQLite the insert below takes the write lock
    if db.session.get_bind().dialect.name == "postgresql":
        db.session.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": PG_LOCK})
    now = now or utcnow()
    name = account_key(username)
    address = (address or "")[:64]
    attempt = LoginAttempt(at=now, username=name, address=address, outcome="pending")
    db.session.add(attempt)
    db.session.flush()
    db.session.execute(delete(LoginAttempt).where(LoginAttempt.at < now - KEEP))
    since = now - window
    last_ok = db.session.scalar(select(func.max(LoginAttempt.at)).where(
        LoginAttempt.username == name, LoginAttempt.outcome == "ok"))
    others = (LoginAttempt.id != attempt.id, LoginAttempt.outcome.in_(COUNTED))
    account = list(db.session.scalars(select(LoginAttempt.at).where(
        LoginAttempt.username == name, LoginAttempt.at > max(since, last_ok or since), *others)))
    by_address = list(db.session.scalars(select(LoginAttempt.at).where(
        LoginAttempt.address == address, LoginAttempt.at > since, *others)))
    waits = [w for w in (_retry_at(account, per_account, window), _retry_at(by_address, per_address, window)) if w]
    if waits:
        attempt.outcome = "refused"
        db.session.commit()
        raise Throttled(max(waits))
    db.session.commit()
    return attempt.id


def finish(attempt_id: int, ok: bool) -> None:
    db.session.execute(update(LoginAttempt).where(LoginAttempt.id == attempt_id)
                       .values(outcome="ok" if ok else "failed"))
    db.session.commit()
