"""A player's own tournament on their phone ("my tournament"), with no account.

The player signs on once with their start number and the PIN of their PIN
slip; the phone keeps the key this returns (a signed (tournament, start
number), not the PIN) and shows the player's page from then on. What the page
shows is public anyway (the player's page, the standings); the key is what
lets the phone call a referee to the player's table.
"""
from __future__ import annotations

from itsdangerous import BadSignature, URLSafeSerializer
from flask_babel import gettext as _
from sqlalchemy import select

from ..extensions import db
from ..models import Player, Round, RoundTable, Tournament
from . import pins as pin_service
from .common import ServiceError
from .keys import derived_key

KEY_SALT = "listok-player-key"


def _serializer() -> URLSafeSerializer:
    return URLSafeSerializer(derived_key("player-key").hex(), salt=KEY_SALT)


def player_key(tid: int, start_no: int) -> str:
    return _serializer().dumps([tid, start_no])


def read_player_key(key: str | None, tid: int) -> int | None:
    """The start number a genuine key of tournament `tid` names, else None."""
    try:
        data = _serializer().loads(key or "")
    except BadSignature:
        return None
    if (not isinstance(data, list) or len(data) != 2 or data[0] != tid
            or not isinstance(data[1], int) or isinstance(data[1], bool)):
        return None
    return data[1]


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
    return player_key(t.id, no)


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
