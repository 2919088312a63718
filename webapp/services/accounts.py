"""The integrity of sign-in accounts: every `user` row carries a MAC, made with a key derived
from the server's secret key, over what decides who may sign in as what (name, password hash,
role, active, session token, venue, federation). A row written outside the app (a known password
hash, a role raised to admin, another session's token) no longer matches: it cannot sign in nor
load a session, and `listok verify` names it (docs/SECURITY.md). The app recomputes the MAC on
every insert and update through the ORM of a row that was sound; an admin's password reset
repairs one that was not."""
from __future__ import annotations

import hashlib
import hmac
import json

from sqlalchemy import bindparam, event, select

from ..extensions import db
from ..models import User
from .keys import derived_key

FORMAT = "listok-account/1"
SEALED = ("username", "password_hash", "role", "active", "session_token", "venue_id", "federation_id")
_USER = User.__table__
_STORED = select(*(_USER.c[k] for k in SEALED + ("account_mac",))).where(_USER.c.id == bindparam("id"))


def account_mac(username, password_hash, role, active, session_token, venue_id, federation_id) -> str:
    message = json.dumps([FORMAT, username, password_hash, role, bool(active), session_token, venue_id,
                          federation_id], separators=(",", ":"), ensure_ascii=False).encode()
    return hmac.new(derived_key("account"), message, hashlib.sha256).hexdigest()


def _mac_of(u: User) -> str:
    return account_mac(*(getattr(u, k) for k in SEALED))


def intact(u: User) -> bool:
    return bool(u.account_mac) and hmac.compare_digest(u.account_mac, _mac_of(u))


def tampered() -> list[User]:
    """The accounts whose row does not match its MAC, by name."""
    return [u for u in db.session.scalars(select(User).order_by(User.username)) if not intact(u)]


def repair(u: User) -> None:
    """An admin's password reset seals the row again, as it stands when flushed (its role and venue
    included): the one way an account changed outside the app signs in again."""
    u.__dict__["_listok_repair"] = True


def _seal_new(_mapper, _connection, target: User) -> None:
    # the columns' defaults are applied by the INSERT, after this: the MAC needs them now
    for key in ("role", "active"):
        if getattr(target, key) is None:
            setattr(target, key, _USER.c[key].default.arg)
    if target.session_token is None:
        target.end_sessions()
    target.account_mac = _mac_of(target)


def _seal_change(_mapper, connection, target: User) -> None:
    """A change through the app keeps a sound row sealed; a row that is not sound as stored stays
    refused (signing out must not launder a password hash written outside), unless `repair` ran."""
    if target.__dict__.pop("_listok_repair", False):
        target.account_mac = _mac_of(target)
        return
    row = connection.execute(_STORED, {"id": target.id}).one()
    if row.account_mac and hmac.compare_digest(row.account_mac, account_mac(*row[:len(SEALED)])):
        target.account_mac = _mac_of(target)


def init() -> None:
    if not event.contains(User, "before_insert", _seal_new):
        event.listen(User, "before_insert", _seal_new)
        event.listen(User, "before_update", _seal_change)
