"""A player checks their receipt: the sums that count for their table, and that
the sheet is in the tournament's hash chain under a published head. No login."""
from __future__ import annotations

from flask import render_template, request

from ...rules.ruleset import get_ruleset
from ...services import chain, receipts
from ...services.final_report import sheet_shape
from ...services.common import get_tournament
from ..shared import players_by_no
from . import bp


@bp.get("/t/<int:tid>/receipt")
def receipt(tid: int):
    t = get_tournament(tid)
    typed = (request.args.get("code") or "").strip()
    check = receipts.check_receipt(t, typed) if typed else None
    rs = get_ruleset(t.ruleset)
    shapes = {}
    if check is not None and check.found:
        shapes = {k: sheet_shape(rs, check.table, s) for k, s in (("sheet", check.sheet), ("counting", check.counting))
                  if s is not None}
    return render_template("public/receipt.html", t=t, typed=typed, check=check, by_no=players_by_no(t),
                           head_label=chain.head_label, rs=rs, shapes=shapes, signed_view=chain.signed_view), \
        404 if check is not None and not check.found else 200
