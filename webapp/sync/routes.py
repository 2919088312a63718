"""The JSON API phones talk to (docs/SYNC.md), under /api/v1.

No login and no CSRF token: the table's signed token in the body (or query)
authorises a request for that table, and the players' PINs authorise their
signatures. Every answer is JSON with a `status`, errors included.
"""
from __future__ import annotations

from flask import Blueprint, jsonify, request
from flask_babel import gettext as _
from sqlalchemy.exc import IntegrityError
from werkzeug.exceptions import HTTPException

from ..serve import admission, together
from ..http import jsonbody
from ..extensions import csrf, db
from ..services import own_phone, sheet_state, sheet_submit, sheets
from . import protocol

bp = Blueprint("sync", __name__, url_prefix="/api/v1")
csrf.exempt(bp)

# a sheet with every drawing at its 64 KB limit is well below this
MAX_BODY = 1024 * 1024


def _json(answer: sheets.Answer):
    return jsonify(answer.body), answer.http_status


def _too_large() -> sheets.SyncRefusal:
    return sheets.SyncRefusal(413, {"status": "bad-request", "message": _("The sheet is too large to send.")})


def _body() -> dict:
    if request.content_length is not None and request.content_length > MAX_BODY:
        raise _too_large()
    try:
        data = jsonbody.loads(request.get_data(cache=True), MAX_BODY)
    except jsonbody.BodyError as e:
        if e.reason == "too-large":  # sent without a length (chunked)
            raise _too_large() from None
        if e.reason == "too-deep":
            raise sheets.bad_request(_("The request nests more than %(n)d levels deep.", n=e.limit)) from None
        data = None
    if not isinstance(data, dict):
        raise sheets.bad_request(_("The request is not a JSON object."))
    return data


def _refusal(e: sheets.SyncRefusal):
    if e.commit:
        db.session.commit()
    else:
        db.session.rollback()
    return _json(e.answer)


@bp.post("/sheets")
def submit_sheet():
    with together.current().coming() as coming:
        return _submit_sheet(coming)


def _submit_sheet(coming):
    try:
        sub = protocol.parse_submission(_body())
    except protocol.ProtocolError as e:
        return _refusal(sheets.from_protocol(e))
    except sheets.SyncRefusal as e:
        return _refusal(e)
    try:
        answer, place = sheet_submit.early_answer(sub)
        if answer is not None:
            return _json(answer)
        with admission.current().slot():
            # with the sheets waiting beside it, committed
            answer = together.current().submit(sub, place, coming)
    except admission.Busy as e:
        return admission.busy_answer(e)
    except sheets.SyncRefusal as e:
        return _refusal(e)
    except IntegrityError:
        # the same key stored by a concurrent request first: answer what it stored
        db.session.rollback()
        try:
            answer = sheets.stored_answer(sub)
        except sheets.SyncRefusal as e:
            return _refusal(e)
        if answer is None:
            raise
    return _json(answer)


@bp.post("/pin")
def check_pin():
    try:
        token, start_no, pin, content_hash = protocol.parse_pin_check(_body())
        answer = sheet_state.check_table_pin(token, start_no, pin, content_hash)
    except protocol.ProtocolError as e:
        return _refusal(sheets.from_protocol(e))
    except sheets.SyncRefusal as e:
        return _refusal(e)
    db.session.commit()
    return _json(answer)


@bp.get("/table")
def table():
    token = request.args.get("token", "")
    if not token or len(token) > protocol.MAX_TOKEN:
        return _json(sheets.bad_request(_("The table link is missing."), "token").answer)
    draft = request.args.get("draft") or None
    if draft is not None and not protocol.HASH_RE.fullmatch(draft):
        return _json(sheets.bad_request("draft must be 64 lowercase hex digits.", "draft").answer)
    receipt = request.args.get("receipt") or None
    if receipt is not None and not protocol.RECEIPT_RE.fullmatch(receipt):
        return _json(sheets.bad_request("receipt must be a receipt code (ABCD-EFGH).", "receipt").answer)
    try:
        return jsonify(sheet_state.table_state(token, draft, receipt))
    except sheets.SyncRefusal as e:
        return _refusal(e)


@bp.post("/preview")
def preview():
    """The server's points and checks for results being entered (nothing stored)."""
    try:
        token, content = protocol.parse_preview(_body())
        answer = sheet_state.preview(token, content)
    except protocol.ProtocolError as e:
        return _refusal(sheets.from_protocol(e))
    except sheets.SyncRefusal as e:
        return _refusal(e)
    db.session.rollback()
    return _json(answer)


def _store_once(parse, service):
    """Publishing a draft and signing it are idempotent: a request that lost a
    race to insert the same row answers what the winner stored."""
    try:
        message = parse(_body())
        with admission.current().slot():
            answer = service(message)
            db.session.commit()
    except admission.Busy as e:
        return admission.busy_answer(e)
    except protocol.ProtocolError as e:
        return _refusal(sheets.from_protocol(e))
    except sheets.SyncRefusal as e:
        return _refusal(e)
    except IntegrityError:
        db.session.rollback()
        try:
            answer = service(message)
            db.session.commit()
        except sheets.SyncRefusal as e:
            return _refusal(e)
    return _json(answer)


@bp.post("/drafts")
def publish_draft():
    return _store_once(protocol.parse_draft, own_phone.publish_draft)


@bp.post("/signatures")
def sign_draft():
    return _store_once(protocol.parse_own_signature, own_phone.sign_draft)


@bp.errorhandler(HTTPException)
def http_error(e: HTTPException):
    db.session.rollback()
    status = "error" if e.code >= 500 else "bad-request"
    return jsonify({"status": status, "error": e.name.lower().replace(" ", "-"), "message": e.description}), e.code


@bp.app_errorhandler(404)
@bp.app_errorhandler(405)
def routing_error(e: HTTPException):
    """An unknown URL or method under /api/v1 never reaches this blueprint's own
    handler (routing fails first): answer JSON there too, and leave every other
    page's error as it was."""
    if request.path.startswith(bp.url_prefix + "/"):
        return http_error(e)
    return e


@bp.after_request
def no_store(response):
    # answers about one moment of one table: never from a cache
    response.headers["Cache-Control"] = "no-store"
    return response
