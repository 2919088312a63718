"""Public standings (from the rule set's first public round on, SEM-C9) and a player's own page."""
from __future__ import annotations

from flask import abort, current_app, render_template, request
from markupsafe import Markup

from sqlalchemy import select

from ...http import caching
from ...extensions import db, htmx
from ...models import Round, RoundTable, Sheet, Tournament
from ...services import player_page, rounds as round_service, standings as standings_service
from ...http.cache import VersionedCache
from ...services.common import ServiceError, get_tournament
from ..shared import hhmm, player_receipts, public_view, standings_table
from . import bp


CLOSED = VersionedCache(8)  # services.player_page.closed_rounds per public version, for the players' pages


def _standings(t: Tournament, after: int | None) -> tuple[int | None, dict | None, Markup | None]:
    """(latest public round, page, rendered table)."""
    latest = standings_service.public_standings_round(t)
    if latest is None or (after is not None and not standings_service.public_from_round(t) <= after <= latest):
        return latest, None, None
    try:
        page, table = standings_table(t, after or latest)
    except ServiceError:
        return latest, None, None
    return latest, page, table


@bp.get("/t/<int:tid>/standings")
def standings(tid: int):
    early = caching.not_modified("standings", tid)
    if early is not None:
        return early
    after = request.args.get("after", type=int)
    t = get_tournament(tid)
    latest = standings_service.public_standings_round(t)
    shown = after or latest
    rnd = next((r for r in t.rounds if r.number == shown), None)
    window = round_service.publication(rnd) if rnd is not None else None
    # the SEM-C9 window's minutes move with the clock: part of what the page shows
    moving = (window["open"], window["minutes_left"]) if window else None
    return caching.public_page("standings", (t.id, t.public_version, latest, moving),
                               lambda: _standings_response(t, after), max_age=10 if not moving or not moving[0]
                               else 5)


def _standings_response(t: Tournament, after: int | None):
    latest, page, table = _standings(t, after)
    if latest is None:
        return render_template("public/standings.html", t=t, page=None, hhmm=hhmm, hidden=True)
    if page is None:
        abort(404)
    # the 10-minute window moves with the clock: never cached
    rnd = next((r for r in t.rounds if r.number == page["after"]), None)
    page = {**page, "publication": round_service.publication(rnd)}
    if htmx and request.args.get("part") == "window":
        return render_template("public/_standings_window.html", t=t, page=page, hhmm=hhmm,
                               poll_url=request.full_path)  # keeps polling while the window is open
    return render_template("public/standings.html", t=t, page=page, table=table, hhmm=hhmm, hidden=False)


@bp.get("/t/<int:tid>/player/<int:start_no>")
def player(tid: int, start_no: int):
    early = caching.not_modified("player", tid)
    if early is not None:
        return early
    t = get_tournament(tid)
    return caching.public_page("player", (t.id, t.public_version, start_no, running_table_state(t, start_no)),
                               lambda: _player(t, start_no), max_age=15)


def _player(row: Tournament, start_no: int):
    t = public_view(row)
    # the closed rounds' standings after each round, once per public version for all the players
    closed = CLOSED.get_or_make((current_app.config["SQLALCHEMY_DATABASE_URI"], t.id, t.public_version),
                                lambda: player_page.closed_rounds(t))
    page = player_page.player_page(t, start_no, closed)
    return render_template("public/player.html", t=t, page=page, hhmm=hhmm, receipts=player_receipts(t, start_no))


def running_table_state(t: Tournament, start_no: int) -> tuple:
    """The sheets (id, status) of the player's table in the round being played: the
    one part of their page the public version does not cover (their receipts)."""
    r = db.session.scalar(select(Round).where(Round.tournament_id == t.id).order_by(Round.number.desc()).limit(1))
    if r is None or r.status != "published":
        return ()
    for table_id, players in db.session.execute(select(RoundTable.id, RoundTable.players)
                                                .where(RoundTable.round_id == r.id)):
        if start_no in (players or ()):
            return (r.id, table_id, tuple(db.session.execute(
                select(Sheet.id, Sheet.status).where(Sheet.table_id == table_id).order_by(Sheet.id)).all()))
    return (r.id,)
