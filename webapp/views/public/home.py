"""The public start page: the venue's tournaments."""
from __future__ import annotations

from flask import render_template
from sqlalchemy import select

from ...extensions import db
from ...models import Tournament
from . import bp


@bp.get("/")
def index():
    tournaments = db.session.scalars(select(Tournament).order_by(Tournament.date.desc(), Tournament.id.desc())).all()
    return render_template("public/index.html", tournaments=tournaments)
