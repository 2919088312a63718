"""Pages anyone at the venue may open: no login."""
from __future__ import annotations

from flask import Blueprint, render_template
from sqlalchemy import select

from ..extensions import db
from ..models import Tournament

bp = Blueprint("public", __name__)


@bp.get("/")
def index():
    tournaments = db.session.scalars(select(Tournament).order_by(Tournament.date.desc(), Tournament.id.desc())).all()
    return render_template("public/index.html", tournaments=tournaments)
