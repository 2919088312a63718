"""My tournament: a player's own page on their phone (services/companion.py).

/t/<tid>/me is the same shell for everyone; its script (static/js/me.js) keeps
the player's start number and key on the phone, polls the player's part
(/t/<tid>/me/<start_no>/now, revalidated by ETag: a 304 while nothing changed)
and keeps the last one, so the page works offline with its age shown. The
player calls a referee to their table with the key (services/calls.py).
"""
from __future__ import annotations

from flask import current_app, jsonify, render_template, request, url_for
from flask_babel import gettext as _

from ...http import caching
from ...extensions import csrf, db
from ...rules.ruleset import get_ruleset
from ...services import calls as call_service, companion as svc, pins as pin_service, player_page
from ...services.common import ServiceError, get_tournament
from ..shared import cards_seat, clock_context, hhmm, iso_utc, player_receipts, players_by_no, public_view, seats
from . import bp
from .standings import CLOSED, running_table_state


@bp.get("/t/<int:tid>/me")
def me(tid: int):
    t = get_tournament(tid)
    poll = current_app.config["LISTOK_PLAYER_POLL_SECONDS"]
    return caching.public_page("me-shell", (t.id, t.name, poll), lambda: render_template(
        "public/me.html", t=t, poll_seconds=poll, strings=me_strings()), max_age=60)


def me_strings() -> dict:
    """What static/js/me.js shows, in the page's language."""
    return {
        "updated": _("Updated at %(time)s."),
        "offline": _("Offline: shown as loaded at %(time)s (%(age)s)."),
        "never": _("Offline: this phone has not loaded your page yet."),
        "failed": _("The server cannot be reached: try again when the Wi-Fi works."),
    }


@bp.get("/t/<int:tid>/me/<int:start_no>/now")
def me_now(tid: int, start_no: int):
    early = caching.not_modified("me", tid)
    if early is not None:
        return early
    t = get_tournament(tid)
    key = (t.id, t.public_version, start_no, running_table_state(t, start_no), svc.clock_stamp(t.id))
    return caching.public_page("me", key, lambda: _me_now(t, start_no), max_age=5, stale=0)


def _me_now(row, start_no: int):
    t = public_view(row)
    closed = CLOSED.get_or_make((current_app.config["SQLALCHEMY_DATABASE_URI"], t.id, t.public_version),
                                lambda: player_page.closed_rounds(t))
    page = player_page.player_page(t, start_no, closed)
    rs = get_ruleset(row.ruleset)
    seat = svc.current_seat(row.id, start_no)
    table = None
    if seat is not None:
        r, tab = seat
        table_seats = seats(tab, players_by_no(row))
        table = {"round": r, "tab": tab, "seats": table_seats, "cards": cards_seat(row, r, table_seats),
                 "me": next(s for s in table_seats if s.start_no == start_no),
                 "started_iso": iso_utc(r.started_at), "clock": clock_context(r)}
    return render_template("public/_me.html", t=row, page=page, rs=rs, table=table, hhmm=hhmm,
                           receipts=player_receipts(t, start_no))


def _json(body: dict, status: int = 200):
    response = jsonify(body)
    response.status_code = status
    response.headers["Cache-Control"] = "no-store"
    return response


@csrf.exempt
@bp.post("/t/<int:tid>/me")
def me_sign_on(tid: int):
    t = get_tournament(tid)
    data = request.get_json(silent=True) if request.is_json else request.form.to_dict()
    data = data if isinstance(data, dict) else {}
    try:
        key = svc.sign_on(t, data.get("start_no"), data.get("pin"))
    except pin_service.PinError as e:
        db.session.commit()  # the wrong attempt counts towards the lockout
        message = str(e)
        if e.attempts_left and not isinstance(e, pin_service.PinLocked):
            message = _("Wrong PIN for start number %(start_no)s. Attempts left: %(left)s.",
                        start_no=e.start_no, left=e.attempts_left)
        return _json({"status": "refused", "field": "pin", "message": message}, 422)
    except ServiceError as e:
        db.session.rollback()
        return _json({"status": "refused", "field": e.field, "message": str(e)}, 422)
    db.session.commit()
    start_no = svc.read_player_key(key, t.id)
    return _json({"status": "ok", "start_no": start_no, "key": key,
                  "now": url_for("public.me_now", tid=t.id, start_no=start_no)})


@csrf.exempt
@bp.post("/t/<int:tid>/me/key")
def me_key(tid: int):
    """Is the phone's key (kept, or from the PIN slip's QR code) still good? A new PIN voids it.
    A POST: the key stays out of the access log."""
    t = get_tournament(tid)
    data = request.get_json(silent=True)
    key = data.get("key") if isinstance(data, dict) else None
    start_no = svc.read_player_key(key if isinstance(key, str) else None, t.id)
    if start_no is None:
        return _json({"status": "forbidden", "message": _(
            "This phone's key or the QR code no longer works: your PIN was issued anew. Open your page with "
            "your start number and the PIN from your new PIN slip.")}, 403)
    return _json({"status": "ok", "start_no": start_no})


@csrf.exempt
@bp.route("/t/<int:tid>/me/call", methods=["GET", "POST"])
def me_call(tid: int):
    """The player's call to the referee, at their table of the round being played. The key comes in
    the X-Listok-Player-Key header (static/js/call.js), out of the access log; `?k=` also works."""
    t = get_tournament(tid)
    start_no = svc.read_player_key(request.headers.get("X-Listok-Player-Key") or request.args.get("k"), t.id)
    if start_no is None:
        return _json({"status": "forbidden", "message": _("Sign on again with your start number and PIN.")}, 403)
    seat = svc.current_seat(t.id, start_no)
    if request.method == "GET":
        if seat is None:
            return _json({"status": "none"})
        return _json(call_service.state(call_service.last_call(t.id, seat[0].number, seat[1].number)))
    if seat is None:
        return _json({"status": "refused", "message": _("You have no table in the round being played.")}, 422)
    data = request.get_json(silent=True) if request.is_json else request.form.to_dict()
    reason = data.get("reason") if isinstance(data, dict) else None
    try:
        call = call_service.place_call(t, seat[0].number, seat[1].number,
                                       reason if isinstance(reason, str) else None, caller=f"#{start_no}")
    except ServiceError as e:
        db.session.rollback()
        return _json({"status": "refused", "message": str(e)}, 422)
    db.session.commit()
    return _json(call_service.state(call))
