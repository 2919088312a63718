"""The sign-in throttle, kept in the database so that every server process counts the same
attempts. It slows password guessing without letting a guesser lock the rightful user out:

- **Unknown devices** (no device cookie of the account): the first FREE failed sign-ins of an
  account within WINDOW cost nothing; each further one makes the next attempt wait twice as
  long (2 s, 4 s, 8 s …); after MAX_PER_ACCOUNT failures the account refuses sign-ins from
  unknown devices until the oldest counted failure is older than WINDOW, or until the account's
  owner lifts the lock from a device where they are signed in (`unlock`), or an admin does.
- **The account's own devices**: a browser that once signed in to the account carries a signed
  device cookie for it. Its attempts are counted for that device alone (MAX_PER_DEVICE
  failures, then it counts as unknown), so neither the delay nor the lock a guesser caused
  elsewhere stops the owner at their own laptop.
- **No address is ever locked**: a venue's Wi-Fi puts every phone behind one address, and one
  guesser must not lock the desk out. The address is kept with each attempt, as evidence.

An attempt is reserved (stored as "pending", which counts like a failure) before the password
is checked, under a lock, so concurrent requests cannot check more passwords than the limits
allow. A successful sign-in ends the count of its kind: from an unknown device, the unknown
devices' count; on an own device, that device's."""
from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from flask import current_app
from itsdangerous import BadSignature, URLSafeSerializer
from sqlalchemy import delete, func, select, text, update

from ..extensions import db
from ..models import LoginAttempt, User, utcnow
from .keys import derived_key

WINDOW = timedelta(minutes=15)
FREE = 3
MAX_PER_ACCOUNT = 10
MAX_PER_DEVICE = 5
MAX_DELAY = timedelta(minutes=5)
KEEP = timedelta(days=1)
COUNTED = ("pending", "failed")
PG_LOCK = 4243  # pg_advisory_xact_lock key of the throttle (4242 is the audit chain's)
DEVICE_COOKIE = "listok_device"
DEVICE_ACCOUNTS = 8  # accounts one browser remembers as its own


class Throttled(Exception):
    def __init__(self, retry_at: datetime, locked: bool):
        super().__init__(retry_at)
        self.retry_at = retry_at  # naive UTC
        self.locked = locked  # the lock (MAX_PER_ACCOUNT), not a delay


def account_key(username: str) -> str:
    return (username or "").strip().lower()[:80]


def _limits() -> tuple[int, int, timedelta]:
    cfg = current_app.config
    return (int(cfg.get("LISTOK_LOGIN_MAX_PER_ACCOUNT", MAX_PER_ACCOUNT)),
            int(cfg.get("LISTOK_LOGIN_FREE", FREE)),
            timedelta(seconds=int(cfg.get("LISTOK_LOGIN_WINDOW_SECONDS", WINDOW.total_seconds()))))


def delay_after(failures: int, free: int = FREE) -> timedelta:
    """How long the next attempt from an unknown device waits after `failures` counted ones."""
    if failures <= free:
        return timedelta(0)
    return min(timedelta(seconds=2 ** (failures - free)), MAX_DELAY)


# --------------------------------------------------------------------------- device cookies


def _serializer() -> URLSafeSerializer:
    return URLSafeSerializer(derived_key("login-device").hex(), salt="listok-device/1")


def devices(cookie: str | None) -> dict[str, str]:
    """The accounts this browser signed in to, with its device id for each ({} if none or forged)."""
    if not cookie:
        return {}
    try:
        data = _serializer().loads(cookie)
    except BadSignature:
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def with_device(cookie: str | None, username: str) -> tuple[str, str]:
    """The cookie after a successful sign-in to `username`: (its new value, the device id)."""
    known = devices(cookie)
    name = account_key(username)
    device = known.pop(name, None) or secrets.token_urlsafe(12)
    known[name] = device  # the latest last, the oldest dropped first
    while len(known) > DEVICE_ACCOUNTS:
        known.pop(next(iter(known)))
    return _serializer().dumps(known), device


# --------------------------------------------------------------------------- counting


def _failures(name: str, since: datetime, *, device: str | None, exclude: int | None = None) -> list[datetime]:
    q = select(LoginAttempt.at).where(LoginAttempt.username == name, LoginAttempt.at > since,
                                      LoginAttempt.outcome.in_(COUNTED))
    q = q.where(LoginAttempt.device == device) if device else q.where(LoginAttempt.device.is_(None))
    if exclude is not None:
        q = q.where(LoginAttempt.id != exclude)
    return sorted(db.session.scalars(q))


def _since(name: str, window: timedelta, now: datetime, device: str | None) -> datetime:
    """Failures count from the window's start and the last success of the same kind (on this device;
    from an unknown device), and for unknown devices from the owner's or an admin's unlock."""
    ok = select(func.max(LoginAttempt.at)).where(LoginAttempt.username == name, LoginAttempt.outcome == "ok",
                                                 LoginAttempt.device == device if device
                                                 else LoginAttempt.device.is_(None))
    marks = [now - window, db.session.scalar(ok)]
    if not device:
        marks.append(db.session.scalar(select(User.signin_unlocked_at).where(func.lower(User.username) == name)))
    return max(m for m in marks if m is not None)


def unknown_device_state(username: str, now: datetime | None = None) -> tuple[int, datetime | None]:
    """(failures from unknown devices that count now, until when such sign-ins are refused or None)."""
    per_account, free, window = _limits()
    now = now or utcnow()
    name = account_key(username)
    times = _failures(name, _since(name, window, now, None), device=None)
    return len(times), _wait(times, per_account, free, window, now)


def _wait(times: list[datetime], per_account: int, free: int, window: timedelta, now: datetime) -> datetime | None:
    if len(times) >= per_account:
        return times[len(times) - per_account] + window
    delay = delay_after(len(times), free)
    return times[-1] + delay if delay and times[-1] + delay > now else None


def reserve(username: str, address: str, device: str | None = None, now: datetime | None = None) -> int:
    """Store a pending attempt and return its id, or raise Throttled (the refusal is stored too,
    as "refused", which does not count). `device`: this browser's device id for the account, from
    its cookie. Commits."""
    per_account, free, window = _limits()
    db.session.commit()  # a fresh transaction: on SQLite the insert below takes the write lock
    if db.session.get_bind().dialect.name == "postgresql":
        db.session.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": PG_LOCK})
    now = now or utcnow()
    name = account_key(username)
    if device and len(_failures(name, _since(name, window, now, device), device=device)) >= MAX_PER_DEVICE:
        device = None  # a device that failed this often is no longer vouched for
    attempt = LoginAttempt(at=now, username=name, address=(address or "")[:64], outcome="pending",
                           device=device)
    db.session.add(attempt)
    db.session.flush()
    db.session.execute(delete(LoginAttempt).where(LoginAttempt.at < now - KEEP))
    if device is None:
        times = _failures(name, _since(name, window, now, None), device=None, exclude=attempt.id)
        until = _wait(times, per_account, free, window, now)
        if until is not None:
            attempt.outcome = "refused"
            db.session.commit()
            raise Throttled(until, len(times) >= per_account)
    db.session.commit()
    return attempt.id


def finish(attempt_id: int, ok: bool) -> None:
    db.session.execute(update(LoginAttempt).where(LoginAttempt.id == attempt_id)
                       .values(outcome="ok" if ok else "failed"))
    db.session.commit()


def unlock(user: User) -> None:
    """The account's owner (signed in elsewhere: the second factor) or an admin lifts the lock on
    sign-ins from unknown devices; earlier failures no longer count. The caller commits."""
    user.signin_unlocked_at = utcnow()
