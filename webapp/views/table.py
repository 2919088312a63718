"""The table's page, opened from the QR code on the paper sheet: /s/<token>.

For now read-only (round, table, players, whose cards, the sums once a sheet is
in); the phone score sheet grows from here.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from flask import Blueprint, current_app, render_template, url_for
from flask_babel import gettext as _

from ..extensions import db
from ..models import Player, Round, RoundTable, Tournament, utcnow
from ..rules.ruleset import get_ruleset
from ..services.rounds import ROUND_MINUTES, current_round, round_ends_at
from ..services.tokens import TokenError, TokenExpired, read_table_token, table_token

bp = Blueprint("table", __name__)


@dataclass(frozen=True)
class Seat:
    position: int
    start_no: int
    name: str
    surname: str
    first_name: str
    club: str


def split_name(name: str) -> tuple[str, str]:
    """Names are stored "Surname Firstname": split at the first space."""
    surname, _sep, first = (name or "").strip().partition(" ")
    return surname, first.strip()


def players_by_no(t: Tournament) -> dict[int, Player]:
    return {p.start_no: p for p in t.players}


def seats(tab: RoundTable, by_no: dict[int, Player]) -> list[Seat]:
    out = []
    for i, s in enumerate(tab.players, start=1):
        p = by_no.get(s)
        name = p.name if p else "?"
        surname, first = split_name(name)
        out.append(Seat(i, s, name, surname, first, (p.club or "") if p else ""))
    return out


def cards_seat(t: Tournament, r: Round, table_seats: list[Seat]) -> Seat | None:
    """Whose cards are played at this table (SEM-C3), if the rule set says."""
    pos = get_ruleset(t.ruleset).cards_position(r.number)
    return table_seats[pos - 1] if pos and pos <= len(table_seats) else None


def sheet_url(tid: int, round_no: int, table_no: int) -> str:
    """The absolute link printed as the table's QR code; LISTOK_PUBLIC_URL, when
    set, is the address phones reach the server at (a proxy, a real hostname)."""
    token = table_token(tid, round_no, table_no)
    base = current_app.config.get("LISTOK_PUBLIC_URL")
    if base:
        return base.rstrip("/") + url_for("table.sheet", token=token)
    return url_for("table.sheet", token=token, _external=True)


def clock_context(r: Round | None) -> dict:
    """The server's start time and its clock now (ISO UTC), so the browser's
    countdown does not depend on the client's clock being right."""
    started = r.started_at if r is not None else None
    now = utcnow()
    return {"started_at": started, "ends_at": round_ends_at(r) if r is not None else None,
            "started_iso": iso_utc(started), "now_iso": iso_utc(now), "minutes": ROUND_MINUTES}


def iso_utc(dt: datetime | None) -> str:
    """Stored times are naive UTC."""
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ") if dt else ""


def _refuse(message: str, status: int):
    return render_template("table/error.html", message=message, status=status), status


@bp.get("/s/<token>")
def sheet(token: str):
    try:
        tid, round_no, table_no = read_table_token(token)
    except TokenExpired as e:
        return _refuse(str(e), 410)
    except TokenError as e:
        return _refuse(str(e), 404)
    t = db.session.get(Tournament, tid)
    r = next((x for x in t.rounds if x.number == round_no), None) if t else None
    tab = next((x for x in r.tables if x.number == table_no), None) if r else None
    if tab is None:
        return _refuse(_("This table link is not valid. Scan the QR code on the sheet again."), 404)
    cur = current_round(t)
    if r.status == "closed":
        return _refuse(_("Round %(n)d is over: its sheets can no longer be opened.", n=r.number), 410)
    if r is not cur or r.status != "published":
        return _refuse(_("This sheet is for round %(n)d, which is not the round being played now.",
                         n=r.number), 410)
    table_seats = seats(tab, players_by_no(t))
    sheet = tab.sheet
    return render_template("table/sheet.html", t=t, r=r, tab=tab, seats=table_seats,
                           cards=cards_seat(t, r, table_seats), sheet=sheet,
                           rows=list(zip(table_seats, sheet.sums)) if sheet else None)
