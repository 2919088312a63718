"""Players' personal PINs: what they sign score sheets with on the phone.

A PIN is stored only as a slow hash. Four or six digits are few, so the real
protection is the lockout: 5 wrong PINs lock the player for 15 minutes. The
failures are counted in the database with single UPDATE statements, so
concurrent requests (two phones, three signatures) cannot lose a count.

Like every service this changes the caller's session and leaves the commit to
the caller — with one deliberate exception for the caller to honour: a wrong
PIN must be committed even though the request that carried it is refused
(see `PinError`).
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import datetime, timedelta

from flask import current_app
from flask_babel import gettext as _
from sqlalchemy import or_, select, update
from sqlalchemy.orm.attributes import set_committed_value
from werkzeug.security import check_password_hash, generate_password_hash

from ..extensions import db
from ..models import Player, Tournament, utcnow
from .common import ServiceError, audit

MAX_FAILURES = 5
LOCK_TIME = timedelta(minutes=15)
# scrypt with N=2^14 (16 MB): about 50 ms per check, and a sheet checks three PINs
HASH_METHOD = "scrypt:16384:8:1"
RANDOM_DIGITS = 4
CHOSEN_LENGTHS = range(4, 7)


class PinError(ServiceError):
    """A wrong (or missing) PIN. The failure count is already in the session:
    the caller rolls back everything else it did and commits the count."""

    def __init__(self, message: str, start_no: int, attempts_left: int | None = None, code: str = "wrong-pin"):
        super().__init__(message, field="pin")
        self.start_no = start_no
        self.attempts_left = attempts_left
        self.code = code


class PinLocked(PinError):
    def __init__(self, message: str, start_no: int, until: datetime):
        super().__init__(message, start_no, 0, code="locked")
        self.until = until


def _method() -> str:
    return current_app.config.get("LISTOK_PIN_HASH_METHOD", HASH_METHOD)


def valid_chosen_pin(pin: str) -> bool:
    return pin.isascii() and pin.isdigit() and len(pin) in CHOSEN_LENGTHS


def random_pin() -> str:
    return "".join(secrets.choice("0123456789") for _i in range(RANDOM_DIGITS))


def issue_pin(player: Player, pin: str | None = None, actor: str = "") -> str:
    """A new PIN for the player: 4 random digits, or the 4–6 digits they chose.
    Replaces any earlier PIN and clears a lockout. Returns the PIN (shown once,
    on the slip; only its hash is stored)."""
    if pin is None:
        pin = random_pin()
        chosen = False
    else:
        pin = pin.strip()
        if not valid_chosen_pin(pin):
            raise ServiceError(_("A PIN is 4 to 6 digits."), field="pin")
        chosen = True
    player.pin_hash = generate_password_hash(pin, method=_method())
    player.pin_failures = 0
    player.pin_locked_until = None
    audit("pin.issue", actor, {"start_no": player.start_no, "chosen": chosen}, player.tournament_id)
    return pin


def reset_pin(player: Player, actor: str) -> None:
    """A referee or operator clears the PIN and any lockout; the player needs a new slip."""
    had = player.pin_hash is not None
    player.pin_hash = None
    player.pin_failures = 0
    player.pin_locked_until = None
    audit("pin.reset", actor, {"start_no": player.start_no, "had_pin": had}, player.tournament_id)


def locked_until(player: Player, now: datetime | None = None) -> datetime | None:
    now = now or utcnow()
    return player.pin_locked_until if player.pin_locked_until and player.pin_locked_until > now else None


def _locked(player: Player, until: datetime) -> PinLocked:
    return PinLocked(_("Start number %(s)d has entered a wrong PIN 5 times: PINs are locked for 15 minutes.",
                       s=player.start_no), player.start_no, until)


def pin_proof(tid: int, start_no: int, content_hash: str, pin_hash: str) -> str:
    """What the server answers a right PIN given for a sheet's content: the phone
    sends it back with the sheet, and the PIN needs no second slow check. Bound
    to the content and to the stored hash, so a reset PIN voids it."""
    message = f"listok-pin-proof/1:{tid}:{start_no}:{content_hash}:{pin_hash}".encode()
    return hmac.new(str(current_app.secret_key).encode(), message, hashlib.sha256).hexdigest()


def verify_pins(tid: int, pins: dict[int, str],
                proofs: dict[int, tuple[str, str]] | None = None) -> dict[int, tuple[str, bool]]:
    """The slow part of checking PINs, done before a submission takes the write
    lock: {start_no: (the PIN hash checked, whether the PIN matched)}. It reads on
    a connection of its own that never takes SQLite's write lock, so phones hash
    their PINs in parallel instead of one after another behind the lock. A valid
    proof ({start_no: (content_hash, proof)}, from `pin_proof`) stands for a right
    PIN; an invalid one is ignored and the PIN is checked."""
    proofs = proofs or {}
    with db.engine.connect().execution_options(read_only=True) as conn:
        rows = conn.execute(select(Player.start_no, Player.pin_hash).where(
            Player.tournament_id == tid, Player.start_no.in_(list(pins)))).all()
    out = {}
    for s, h in rows:
        if not h:
            continue
        proof = proofs.get(s)
        if proof and hmac.compare_digest(proof[1], pin_proof(tid, s, proof[0], h)):
            out[s] = (h, True)
        else:
            out[s] = (h, check_password_hash(h, pins[s] or ""))
    return out


def check_pin(t: Tournament, player: Player, pin: str, now: datetime | None = None,
              verified: tuple[str, bool] | None = None) -> None:
    """Nothing if `pin` is the player's PIN (a failure count is reset); else
    PinError with the attempts left, or PinLocked once 5 wrong PINs in a row
    lock the player for 15 minutes (also while locked, right PIN or not).
    `verified` is verify_pins' answer for this player, used while the stored
    hash is still the one it checked."""
    now = now or utcnow()
    until = locked_until(player, now)
    if until is not None:
        raise _locked(player, until)
    if player.pin_hash is None:
        raise PinError(_("Start number %(s)d has no PIN yet: the operator prints a PIN slip at the desk.",
                         s=player.start_no), player.start_no, code="no-pin")
    if verified is not None and verified[0] == player.pin_hash:
        matches = verified[1]
    else:
        matches = check_password_hash(player.pin_hash, pin or "")
    if matches:
        if player.pin_failures:
            db.session.execute(update(Player).where(Player.id == player.id).values(pin_failures=0)
                               .execution_options(synchronize_session=False))
            set_committed_value(player, "pin_failures", 0)
        return
    # counted by the database, and only while not locked: a concurrent request that
    # locked the player meanwhile makes this match nothing (PostgreSQL re-checks the row)
    row = db.session.execute(
        update(Player).where(Player.id == player.id,
                             or_(Player.pin_locked_until.is_(None), Player.pin_locked_until <= now))
        .values(pin_failures=Player.pin_failures + 1)
        .returning(Player.pin_failures).execution_options(synchronize_session=False)).first()
    if row is None:
        db.session.refresh(player, ["pin_failures", "pin_locked_until"])
        raise _locked(player, player.pin_locked_until or now + LOCK_TIME)
    failures = row[0]
    set_committed_value(player, "pin_failures", failures)
    if failures >= MAX_FAILURES:
        until = now + LOCK_TIME
        # the next lock-free period starts with a clean count
        db.session.execute(update(Player).where(Player.id == player.id)
                           .values(pin_failures=0, pin_locked_until=until)
                           .execution_options(synchronize_session=False))
        set_committed_value(player, "pin_failures", 0)
        set_committed_value(player, "pin_locked_until", until)
        audit("pin.locked", "phone", {"start_no": player.start_no, "until": until.isoformat()}, t.id)
        raise _locked(player, until)
    left = MAX_FAILURES - failures
    raise PinError(_("Wrong PIN for start number %(s)d.", s=player.start_no), player.start_no, left)


def players_without_pin(t: Tournament) -> list[Player]:
    """Checked-in players who have no PIN yet."""
    return [p for p in t.players if p.present and p.pin_hash is None]


def issue_missing_pins(t: Tournament, start_nos, actor: str) -> list[tuple[Player, str]]:
    """A random PIN for each of these players who is checked in and still has none.
    Each row is written only if it still has no PIN, so two desks printing at once
    never hand out two slips for one player (the second skips them)."""
    wanted = {int(s) for s in start_nos}
    issued = []
    for p in players_without_pin(t):
        if p.start_no not in wanted:
            continue
        pin = random_pin()
        pin_hash = generate_password_hash(pin, method=_method())
        result = db.session.execute(
            update(Player).where(Player.id == p.id, Player.pin_hash.is_(None))
            .values(pin_hash=pin_hash, pin_failures=0, pin_locked_until=None)
            .execution_options(synchronize_session=False))
        if result.rowcount == 1:
            for key, value in (("pin_hash", pin_hash), ("pin_failures", 0), ("pin_locked_until", None)):
                set_committed_value(p, key, value)
            issued.append((p, pin))
    if issued:
        audit("pin.issue_all", actor, {"start_nos": [p.start_no for p, _pin in issued]}, t.id)
    return issued
