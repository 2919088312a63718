"""The public start page: the venue's tournaments."""
from __future__ import annotations

from flask import abort, redirect, render_template, request, url_for
from sqlalchemy import select

from ...extensions import db
from ...models import Tournament
from . import bp


@bp.get("/")
def index():
    tournaments = db.session.scalars(select(Tournament).order_by(Tournament.date.desc(), Tournament.id.desc())).all()
    return render_template("public/index.html", tournaments=tournaments)


@bp.get("/healthz")
def healthz():
    """For a reverse proxy's or a load balancer's health check: the process answers (touches no database)."""
    return "ok\n", 200, {"Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store"}


@bp.get("/t/<int:tid>/find")
def find_player(tid: int):
    """The start-number form on the start page: go to that player's page."""
    start_no = request.args.get("start_no", type=int)
    if not start_no:
        abort(404)
    return redirect(url_for("public.player", tid=tid, start_no=start_no))
