"""The tournament's record checked as `listok verify` checks it (services/chain_verify.py)."""
from __future__ import annotations

from flask import render_template
from sqlalchemy import select

from ...extensions import db
from ...models import PublishedHead
from ...services import chain, chain_verify
from ...services.common import get_tournament
from ..auth import role_required
from . import bp


@bp.get("/t/<int:tid>/verify")
@role_required("operator", "referee")
def verify(tid: int):
    t = get_tournament(tid)
    verdict = chain_verify.verify(t)
    heads = db.session.scalars(select(PublishedHead).where(PublishedHead.tournament_id == t.id)
                               .order_by(PublishedHead.seq.desc(), PublishedHead.id.desc())).all()
    return render_template("operator/verify.html", t=t, verdict=verdict, heads=heads, head_label=chain.head_label,
                           place_label=place_label)


def place_label(place: str) -> str:
    """Where a head was shown (services/chain_heads.publish_head's `place`), in the page's language."""
    return chain_verify.place_text(place)
