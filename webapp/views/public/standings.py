"""Public standings (from the rule set's first public round on, SEM-C9) and a player's own page."""
from __future__ import annotations

import hashlib

from flask import abort, current_app, render_template, request
from flask_babel import format_time, get_locale
from markupsafe import Markup

from sqlalchemy import select

from ... import caching
from ...extensions import db, htmx
from ...models import Round, RoundTable, Sheet, Tournament
from ...services import chain, results as svc
from ...services.cache import VersionedCache
from ...services.common import ServiceError, get_tournament
from ..table import player_receipts
from . import bp


def hhmm(dt) -> str:
    return format_time(dt, "HH:mm") if dt else ""


STANDINGS = VersionedCache(32)
TABLES = VersionedCache(32)
CLOSED = VersionedCache(8)  # services.results.closed_rounds per public version, for the players' pages
VIEWS = VersionedCache(4)  # services.results.engine_view per stamp (read-only), for every public page
# what the pages around the table read: the cache keeps no rows (fewer objects for the GC to walk)
SUMMARY = ("after", "last_closed", "final", "unranked", "disqualified", "unranked_substitutes")


def standings_table(t: Tournament, after: int) -> tuple[dict, Markup]:
    """(page summary, rendered table) of the standings after round `after`,
    computed once per tournament version and shared by the public and the
    operator's pages; ServiceError as standings_page raises it. The page's
    `publication` moves with the clock: callers add it per request."""
    # the database URL keeps apps of one process apart (tests: a fresh database per test, ids repeat)
    db_url, locale = current_app.config["SQLALCHEMY_DATABASE_URI"], str(get_locale())
    # standings of closed rounds move only with the public version (a running round's phone sheets do not
    # bump it, services/common.bump); anything later with every change
    basis = t.public_version if after <= (svc.last_closed(t) or 0) else ("all", t.version)
    key = (db_url, t.id, basis, after, locale)

    def make():
        full = public_view(t)
        page = svc.standings_page(full, after)
        # most changes (every sheet of the round being played) leave these standings as
        # they were: the table is rendered again only when what it shows has changed
        shown = repr({k: v for k, v in page.items() if k != "publication"})
        table_key = (db_url, t.id, after, locale, hashlib.blake2b(shown.encode()).digest())
        table = TABLES.get_or_make(
            table_key, lambda: Markup(render_template("public/_standings_table.html", t=full, page=page)))
        # the chain head these standings were computed under, kept as published (services/chain.py)
        return {**{k: page[k] for k in SUMMARY}, "head": chain.publish_head(t.id, "standings")}, table

    return STANDINGS.get_or_make(key, make)


def _standings(t: Tournament, after: int | None) -> tuple[int | None, dict | None, Markup | None]:
    """(latest public round, page, rendered table)."""
    latest = svc.public_standings_round(t)
    if latest is None or (after is not None and not svc.public_from_round(t) <= after <= latest):
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
    latest = svc.public_standings_round(t)
    shown = after or latest
    rnd = next((r for r in t.rounds if r.number == shown), None)
    window = svc.publication(rnd) if rnd is not None else None
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
    page = {**page, "publication": svc.publication(rnd)}
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


def public_view(t: Tournament):
    """services.results.engine_view of `t`, read once per (version, chain_seq), the stamp a 304
    trusts (every change moves the version, every sheet or record that counts the chain: a referee's
    rejection, the running round's phone sheets): after a round closed, the standings, the projector
    and every player's page of this process share one read."""
    return VIEWS.get_or_make((current_app.config["SQLALCHEMY_DATABASE_URI"], t.id, t.version, t.chain_seq),
                             lambda: svc.engine_view(t.id))


def _player(row: Tournament, start_no: int):
    t = public_view(row)
    # the closed rounds' standings after each round, once per public version for all the players
    closed = CLOSED.get_or_make((current_app.config["SQLALCHEMY_DATABASE_URI"], t.id, t.public_version),
                                lambda: svc.closed_rounds(t))
    page = svc.player_page(t, start_no, closed)
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
