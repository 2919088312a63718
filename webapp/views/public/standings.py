"""Public standings (from round 2 on, SEM-C9) and a player's own page."""
from __future__ import annotations

from flask import abort, current_app, render_template, request
from flask_babel import format_time, get_locale
from markupsafe import Markup

from ...extensions import htmx
from ...services import results as svc
from ...services.common import ServiceError, get_tournament
from ..render_cache import VersionedCache
from ..table import player_receipts
from . import bp


def hhmm(dt) -> str:
    return format_time(dt, "HH:mm") if dt else ""


STANDINGS = VersionedCache(32)


def _standings(tid: int, after: int | None) -> tuple[int | None, dict | None, Markup | None]:
    """(latest public round, page, rendered table), computed once per tournament version."""
    t = get_tournament(tid)
    # the database URL keeps apps of one process apart (tests: a fresh database per test, ids repeat)
    key = (current_app.config["SQLALCHEMY_DATABASE_URI"], tid, t.version, after, str(get_locale()))
    hit = STANDINGS.get(key)
    if hit is None:
        t = svc.load_tournament(tid)
        latest = svc.public_standings_round(t)
        page = table = None
        if latest is not None and (after is None or svc.PUBLIC_FROM_ROUND <= after <= latest):
            try:
                page = svc.standings_page(t, after or latest)
            except ServiceError:
                page = None
            if page is not None:
                table = Markup(render_template("public/_standings_table.html", t=t, page=page))
        hit = (latest, page, table)
        STANDINGS.put(key, hit)
    return hit


@bp.get("/t/<int:tid>/standings")
def standings(tid: int):
    after = request.args.get("after", type=int)
    latest, page, table = _standings(tid, after)
    t = get_tournament(tid)
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
    t = svc.load_tournament(tid)
    page = svc.player_page(t, start_no)
    return render_template("public/player.html", t=t, page=page, hhmm=hhmm, receipts=player_receipts(t, start_no))
