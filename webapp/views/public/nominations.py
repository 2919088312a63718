"""SEM-B3b: the nominations for the club championship, published during round 1."""
from __future__ import annotations

from flask import render_template

from ...services.common import ServiceError, get_tournament
from ...services.players import published_nominations
from . import bp


@bp.get("/t/<int:tid>/nominations")
def nominations(tid: int):
    t = get_tournament(tid)
    try:
        clubs, error = published_nominations(t), None
    except ServiceError as e:
        clubs, error = [], str(e)
    return render_template("public/nominations.html", t=t, clubs=clubs, error=error)
