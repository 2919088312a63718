"""A player's own tournament on their phone ("my tournament"), with no account.

The player signs on once with their start number and the PIN of their PIN
slip, or scans the personal QR code printed on the slip; the phone keeps the
key (never the PIN) and shows the player's page from then on. The key is a MAC
of the player's stored PIN verifier under a key derived from the instance's
secret: it reveals nothing of the PIN, and a new PIN (or a cleared one) makes
the old key, and the old slip's QR code, stop working. What the page shows is
public anyway (the player's page, the standings); the key is what lets the
phone call a referee to the player's table.
"""
from __future__ import annotations

import base64
import hashlib
import hmac


from flask_babel import gettext as _
from sqlalchemy import select

from ..extensions import db
from ..models import Player, Round, RoundTable, Tournament
from . import pins as pin_service
from .common import ServiceError
from .keys import derived_key

KEY_LENGTH = 22  # base64url characters: 132 bits


def _mac(tid: int, start_no: int, pin_hash: str, issued_at) -> str:
    issued = issued_at.replace(tzinfo=None).isoformat(timespec="microseconds") if issued_at is not None else ""
    message = f"listok-player-key/1:{tid}:{start_no}:{pin_hash}:{issued}".encode()
    digest = hmac.new(derived_key("player-key"), message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode()[:KEY_LENGTH]


def _pin_of(tid: int, start_no: int) -> tuple:
    row = db.session.execute(select(Player.pin_hash, Player.pin_issued_at)
                             .where(Player.tournament_id == tid, Player.start_no == start_no)).first()
    return tuple(row) if row is not None else (None, None)


def player_key(tid: int, start_no: int, player: Player | None = None) -> str:
    """The phone's key of start number `start_no`: bound to their PIN as it is now (its verifier
    and when it was issued, so even the same digits issued anew void it)."""
    pin_hash, issued_at = (player.pin_hash, player.pin_issued_at) if player is not None else _pin_of(tid, start_no)
    if not pin_hash:
        raise ServiceError(_("Start number %(s)d has no PIN yet: the operator prints a PIN slip at the desk.",
                             s=start_no), field="pin")
    return f"{start_no}.{_mac(tid, start_no, pin_hash, issued_at)}"


def read_player_key(key: str | None, tid: int) -> int | None:
    """The start number a genuine key of tournament `tid` names while that player's PIN is
    the one it was made with, else None."""
    no, _dot, mac = (key or "").partition(".")
    if not (no.isascii() and no.isdigit() and len(no) <= 6 and len(mac) == KEY_LENGTH):
        return None
    start_no = int(no)
    pin_hash, issued_at = _pin_of(tid, start_no)
    if not pin_hash or not hmac.compare_digest(mac, _mac(tid, start_no, pin_hash, issued_at)):
        return None
    return start_no


def sign_on(t: Tournament, start_no, pin) -> str:
    """The phone's key for start number `start_no` once `pin` is theirs
    (pins.check_pin: a wrong one raises PinError, whose attempt the caller commits)."""
    try:
        no = int(str(start_no).strip().lstrip("#"))
    except (TypeError, ValueError):
        raise ServiceError(_("Enter your start number."), field="start_no") from None
    player = db.session.scalar(select(Player).where(Player.tournament_id == t.id, Player.start_no == no))
    if player is None:
        raise ServiceError(_("There is no player with start number %(s)d.", s=no), field="start_no")
    pin = str(pin or "").strip()
    if not pin or len(pin) > 32:
        raise ServiceError(_("Enter your PIN."), field="pin")
    pin_service.check_pin(t, player, pin)
    return player_key(t.id, no, player)


def current_seat(tid: int, start_no: int) -> tuple[Round, RoundTable] | None:
    """The player's table in the round being played (the newest round, published)."""
    r = db.session.scalar(select(Round).where(Round.tournament_id == tid).order_by(Round.number.desc()).limit(1))
    if r is None or r.status != "published":
        return None
    tab = next((x for x in r.tables if start_no in (x.players or ())), None)
    return (r, tab) if tab is not None else None


def clock_stamp(tid: int) -> tuple:
    """What of the newest round the page's clock shows: it started, or not yet."""
    row = db.session.execute(select(Round.number, Round.status, Round.started_at)
                             .where(Round.tournament_id == tid).order_by(Round.number.desc()).limit(1)).first()
    return tuple(row) if row else ()
