"""A table calls the referee: JSON for the call button on the table's sheet
(static/js/call.js). No login and no CSRF token: the table's signed token in
the path is the credential, as for the phones' API."""
from __future__ import annotations

from flask import Blueprint, jsonify, request
from flask_babel import gettext as _

from ..extensions import csrf, db
from ..models import Tournament
from ..services import calls as svc
from ..services.common import ServiceError
from ..services.tokens import TokenError, read_table_token

bp = Blueprint("calls", __name__)
csrf.exempt(bp)


@bp.app_template_global()
def call_strings() -> dict:
    """What static/js/call.js shows, in the page's language (the script translates nothing)."""
    return {
        "sent": _("The referee has been called to table %(t)s. Stay at the table."),
        "taken": _("Referee %(name)s is coming."),
        "closed": _("The referee closed the call: %(note)s"),
        "offline": _("No Wi-Fi: the call did not go out. Raise your hand for a referee, or try again."),
        "refused": _("The call did not go out."),
    }


def _answer(body: dict, status: int = 200):
    response = jsonify(body)
    response.status_code = status
    response.headers["Cache-Control"] = "no-store"
    return response


def _table(token: str):
    tid, round_no, table_no = read_table_token(token)
    t = db.session.get(Tournament, tid)
    if t is None:
        raise TokenError(_("This table link is not valid. Scan the QR code on the sheet again."))
    return t, round_no, table_no


@bp.get("/s/<token>/call")
def call_state(token: str):
    try:
        t, round_no, table_no = _table(token)
    except TokenError as e:
        return _answer({"status": "forbidden", "message": str(e)}, 404)
    return _answer(svc.state(svc.last_call(t.id, round_no, table_no)))


@bp.post("/s/<token>/call")
def place_call(token: str):
    try:
        t, round_no, table_no = _table(token)
    except TokenError as e:
        return _answer({"status": "forbidden", "message": str(e)}, 404)
    data = request.get_json(silent=True) if request.is_json else request.form.to_dict()
    reason = data.get("reason") if isinstance(data, dict) else None
    try:
        call = svc.place_call(t, round_no, table_no, reason if isinstance(reason, str) else None)
    except ServiceError as e:
        db.session.rollback()
        return _answer({"status": "refused", "message": str(e)}, 422)
    db.session.commit()
    return _answer(svc.state(call))
