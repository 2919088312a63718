"""Signed links to a table's sheet (the QR code printed on the paper sheet).

The token carries (tournament, round, table) signed with the app's SECRET_KEY,
so a player cannot edit it to open another table or another tournament's sheet.
Whether the round is still the one being played is checked by the view, not here.
"""
from __future__ import annotations

import time
from functools import lru_cache

from flask import current_app
from flask_babel import gettext as _
from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

from .common import ServiceError

SALT = "table-sheet"
# a long tournament day; the current-round check is the real limit
DEFAULT_MAX_AGE = 36 * 3600


# tokens found genuine, with what they say and when they were signed: every phone request (a poll, a
# sheet, a PIN) reads its table's token, and checking its signature again was a large part of a poll
_GENUINE: dict[tuple, tuple[list, int]] = {}
GENUINE_KEPT = 4096  # a venue's tables of a few rounds


class TokenError(ServiceError):
    """A forged or altered link (HTTP 404)."""


class TokenExpired(TokenError):
    """A genuine link too old to use (HTTP 410)."""


def _serializer() -> URLSafeTimedSerializer:
    return _serializer_for(current_app.config["SECRET_KEY"])


@lru_cache(maxsize=8)
def _serializer_for(secret) -> URLSafeTimedSerializer:
    # built once per key: every phone request reads its token (its key derivation is the cost)
    return URLSafeTimedSerializer(secret, salt=SALT)


def table_token(tournament_id: int, round_no: int, table_no: int) -> str:
    return _serializer().dumps([int(tournament_id), int(round_no), int(table_no)])


def read_table_token(token: str, max_age: int | None = None,
                     tournament_id: int | None = None) -> tuple[int, int, int]:
    """(tournament id, round, table) of a genuine token, else TokenError.
    With `tournament_id`, a token of another tournament is refused too."""
    if max_age is None:
        max_age = current_app.config.get("LISTOK_TABLE_TOKEN_MAX_AGE", DEFAULT_MAX_AGE)
    secret = current_app.config["SECRET_KEY"]
    known = _GENUINE.get((secret, token))
    try:
        if known is None:
            data, signed = _serializer_for(secret).loads(token, max_age=max_age, return_timestamp=True)
            if len(_GENUINE) >= GENUINE_KEPT:
                _GENUINE.clear()
            _GENUINE[(secret, token)] = known = (data, int(signed.timestamp()))
        data, signed = known
        if not 0 <= int(time.time()) - signed <= max_age:  # as itsdangerous checks it
            raise SignatureExpired("expired")
    except SignatureExpired as e:
        raise TokenExpired(_("This table link has expired. Ask the operator for a new sheet.")) from e
    except BadSignature as e:
        raise TokenError(_("This table link is not valid. Scan the QR code on the sheet again.")) from e
    if (not isinstance(data, list) or len(data) != 3
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in data)):
        raise TokenError(_("This table link is not valid. Scan the QR code on the sheet again."))
    tid, round_no, table_no = data
    if tournament_id is not None and tid != tournament_id:
        raise TokenError(_("This table link belongs to another tournament."))
    return tid, round_no, table_no
