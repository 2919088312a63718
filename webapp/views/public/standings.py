"""Public standings (from round 2 on, SEM-C9) and a player's own page."""
from __future__ import annotations

from flask import abort, render_template, request
from flask_babel import format_time

from ...extensions import htmx
from ...services import results as svc
from ...services.common import ServiceError
from . import bp


def hhmm(dt) -> str:
    return format_time(dt, "HH:mm") if dt else ""


@bp.get("/t/<int:tid>/standings")
def standings(tid: int):
    t = svc.load_tournament(tid)
    latest = svc.public_standings_round(t)
    after = request.args.get("after", type=int)
    if latest is None:
        return render_template("public/standings.html", t=t, page=None, hhmm=hhmm, hidden=True)
    if after is not None and not svc.PUBLIC_FROM_ROUND <= after <= latest:
        abort(404)
    try:
        page = svc.standings_page(t, after or latest)
    except ServiceError:
        abort(404)
    if htmx and request.args.get("part") == "window":
        return render_template("public/_standings_window.html", t=t, page=page, hhmm=hhmm)
    return render_template("public/standings.html", t=t, page=page, hhmm=hhmm, hidden=False)


@bp.get("/t/<int:tid>/player/<int:start_no>")
def player(tid: int, start_no: int):
    t = svc.load_tournament(tid)
    page = svc.player_page(t, start_no)
    return render_template("public/player.html", t=t, page=page, hhmm=hhmm)
