"""A player checks their receipt: the sums that count for their table, and that
the sheet is in the tournament's hash chain under a published head. No login."""
from __future__ import annotations

from flask import render_template, request

from ...services import chain
from ...services.common import get_tournament
from ..table import players_by_no
from . import bp


@bp.get("/t/<int:tid>/receipt")
def receipt(tid: int):
    t = get_tournament(tid)
    typed = (request.args.get("code") or "").strip()
    check = chain.check_receipt(t, typed) if typed else None
    return render_template("public/receipt.html", t=t, typed=typed, check=check, by_no=players_by_no(t),
                           head_label=chain.head_label, signed_view=chain.signed_view), 404 if check is not None and not check.found else 200
