"""A table's short code, printed under its QR code: typed by hand on a phone
with no camera, it opens the same sheet as the QR code.

`<table>-<5 letters>`: the letters are a keyed hash of (tournament, round,
table), so a code cannot be made up from the number alone; it is found among
the tables of the rounds being played now.
"""
from __future__ import annotations

import hashlib
import hmac
import re

from sqlalchemy import select

from ..extensions import db
from ..models import Round
from .keys import derived_key

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read off paper without doubt
LETTERS = 5


def table_code(tid: int, round_no: int, table_no: int) -> str:
    digest = hmac.new(derived_key("table-code"), f"{tid}:{round_no}:{table_no}".encode(), hashlib.sha256).digest()
    return f"{table_no}-" + "".join(ALPHABET[b % len(ALPHABET)] for b in digest[:LETTERS])


def normalise(typed: str | None) -> str | None:
    """'12 abcde', '12-ABCDE', '12abcde' → '12-ABCDE'; None when it cannot be a code."""
    m = re.fullmatch(r"\s*(\d{1,3})\s*[-–\s]?\s*([A-Za-z0-9]{%d})\s*" % LETTERS, typed or "")
    return f"{int(m.group(1))}-{m.group(2).upper()}" if m else None


def find_table(typed: str | None) -> tuple[int, int, int] | None:
    """(tournament, round, table) of the code among the rounds being played now, else None."""
    code = normalise(typed)
    if code is None:
        return None
    table_no = int(code.split("-", 1)[0])
    rows = db.session.execute(select(Round.tournament_id, Round.number).where(Round.status == "published")).all()
    found = [(tid, n, table_no) for tid, n in rows
             if hmac.compare_digest(table_code(tid, n, table_no), code)]
    return found[0] if len(found) == 1 else None
