"""The federation server's staff pages and its API for venues (LISTOK_ROLE=federation)."""
from __future__ import annotations

from datetime import date
from functools import wraps

from flask import Blueprint, abort, flash, jsonify, redirect, render_template, request, url_for
from flask_babel import gettext as _, lazy_gettext as _l, ngettext
from flask_login import current_user, login_required
from sqlalchemy import select

from ..http import jsonbody
from ..extensions import csrf, db
from ..models import Card, Federation, RosterEntry, Season, SeasonTournament, Venue
from ..rules.ruleset import REGISTRY
from ..services import access, federation as svc
from ..services.common import ServiceError, audit

bp = Blueprint("federation", __name__, url_prefix="/federation")
api = Blueprint("federation_api", __name__, url_prefix="/federation/api")
ROSTER_STATUSES = {"registered": _l("registered"), "licensed": _l("licensed"), "guest": _l("guest"),
                   "rejected": _l("rejected")}  # the roster's own words (CSV `status`), shown in the page's language
SOURCES = {"push": _l("sent by the venue"), "import": _l("imported by hand")}  # SeasonTournament.source
csrf.exempt(api)


# --------------------------------------------------------------------------- who may

def staff_required(view):
    """Federation staff (their own federation's objects only) and the server's admin."""
    @wraps(view)
    @login_required
    def wrapped(*args, **kwargs):
        if not (current_user.role == "federation" and current_user.federation_id) and \
                not access.is_server_admin(current_user):
            abort(403)
        return view(*args, **kwargs)
    return wrapped


def _mine(federation_id: int | None) -> bool:
    return access.is_server_admin(current_user) or federation_id == current_user.federation_id


def _season(sid: int) -> Season:
    s = db.session.get(Season, sid)
    if s is None or not _mine(s.federation_id):
        abort(404)
    return s


def _actor() -> str:
    return current_user.label


def _federations() -> list[Federation]:
    q = select(Federation).order_by(Federation.name)
    if not access.is_server_admin(current_user):
        q = q.where(Federation.id == current_user.federation_id)
    return db.session.scalars(q).all()


# --------------------------------------------------------------------------- staff pages

@bp.get("/")
@staff_required
def index():
    feds = _federations()
    ids = [f.id for f in feds]
    seasons = db.session.scalars(select(Season).where(Season.federation_id.in_(ids))
                                 .order_by(Season.starts.desc(), Season.name)).all()
    venues = db.session.scalars(select(Venue).where(Venue.federation_id.in_(ids)).order_by(Venue.name)).all()
    counts = {s.id: svc.count_received(s.id) for s in seasons}
    return render_template("federation/index.html", federations=feds, seasons=seasons, venues=venues,
                           counts=counts, rulesets=sorted(REGISTRY))


def _form_date(name: str):
    value = request.form.get(name, "").strip()
    if not value:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ServiceError(_("%(value)s is not a date (YYYY-MM-DD).", value=value)) from None


def _form_int(name: str):
    value = request.form.get(name, "").strip()
    if not value:
        return None
    if not value.isdigit():
        raise ServiceError(_("%(value)s is not a whole number.", value=value))
    return int(value)


@bp.post("/seasons")
@staff_required
def create_season():
    feds = _federations()
    fid = request.form.get("federation", type=int) or (feds[0].id if feds else None)
    if fid is None or not _mine(fid) or db.session.get(Federation, fid) is None:
        abort(404)
    name, ruleset = request.form.get("name", "").strip()[:120], request.form.get("ruleset", "sem")
    try:
        if not name:
            raise ServiceError(_("Give the season a name (e.g. 2026/27)."))
        if ruleset not in REGISTRY:
            raise ServiceError(_("Choose a rule set."))
        if db.session.scalar(select(Season).where(Season.federation_id == fid, Season.ruleset == ruleset,
                                                  Season.name == name)) is not None:
            raise ServiceError(_("This season exists already."))
        s = Season(federation_id=fid, ruleset=ruleset, name=name, starts=_form_date("starts"),
                   ends=_form_date("ends"), best=_form_int("best"), strike=_form_int("strike"),
                   rating_window=_form_int("window") or 12)
    except ServiceError as e:
        flash(str(e), "error")
        return redirect(url_for(".index"))
    db.session.add(s)
    db.session.flush()
    audit("federation.season", _actor(), {"season": s.id, "name": name, "ruleset": ruleset})
    db.session.commit()
    flash(_("Season %(name)s created.", name=name), "success")
    return redirect(url_for(".season", sid=s.id))


@bp.post("/venues")
@staff_required
def create_venue():
    feds = _federations()
    fid = request.form.get("federation", type=int) or (feds[0].id if feds else None)
    if fid is None or not _mine(fid):
        abort(404)
    name = request.form.get("name", "").strip()[:200]
    if not name or db.session.scalar(select(Venue).where(Venue.name == name)) is not None:
        flash(_("Give the venue a name that no other venue has."), "error")
        return redirect(url_for(".index"))
    v = Venue(name=name, federation_id=fid)
    token = svc.new_venue_token(v)
    db.session.add(v)
    db.session.flush()
    audit("federation.venue", _actor(), {"venue": name})
    db.session.commit()
    flash(_("Venue %(name)s created. Its token (shown only now): %(token)s", name=name, token=token), "success")
    return redirect(url_for(".index"))


@bp.post("/venues/<int:vid>/token")
@staff_required
def venue_token(vid: int):
    v = db.session.get(Venue, vid)
    if v is None or not _mine(v.federation_id):
        abort(404)
    token = svc.new_venue_token(v)
    audit("federation.venue_token", _actor(), {"venue": v.name})
    db.session.commit()
    flash(_("New token of %(name)s (shown only now; the old one no longer works): %(token)s",
            name=v.name, token=token), "success")
    return redirect(url_for(".index"))


@bp.get("/seasons/<int:sid>")
@staff_required
def season(sid: int):
    s = _season(sid)
    tournaments = db.session.scalars(select(SeasonTournament).where(SeasonTournament.season_id == s.id)
                                     .order_by(SeasonTournament.date, SeasonTournament.id)).all()
    roster = db.session.scalars(select(RosterEntry).where(RosterEntry.season_id == s.id)
                                .order_by(RosterEntry.status, RosterEntry.name)).all()
    cards = db.session.scalars(select(Card).where(Card.season_id == s.id).order_by(Card.id)).all()
    names = {st.id: st.name for st in tournaments}
    return render_template("federation/season.html", s=s, tournaments=tournaments, roster=roster, cards=cards,
                           names=names, statuses=ROSTER_STATUSES, sources=SOURCES)


@bp.post("/seasons/<int:sid>/roster")
@staff_required
def roster_import(sid: int):
    s = _season(sid)
    upload = request.files.get("file")
    try:
        if not upload or not upload.filename:
            raise ServiceError(_("Choose a CSV file."))
        from ..services.players import decode_csv

        n = svc.import_roster_csv(s, decode_csv(upload.read()), _actor())
    except ServiceError as e:
        db.session.rollback()
        flash(str(e), "error")
        return redirect(url_for(".season", sid=sid))
    db.session.commit()
    flash(_("%(n)d roster rows imported.", n=n), "success")
    return redirect(url_for(".season", sid=sid))


@bp.post("/seasons/<int:sid>/roster/entry")
@staff_required
def roster_entry(sid: int):
    s = _season(sid)
    f = request.form
    reg_id, name, status = f.get("id", "").strip()[:40], f.get("name", "").strip()[:200], f.get("status", "")
    if not reg_id or not name or status not in ("registered", "licensed", "guest", "rejected"):
        flash(_("A roster entry needs an id, a name and a status."), "error")
        return redirect(url_for(".season", sid=sid))
    svc.set_roster_entry(s, reg_id, name, (f.get("club") or "").strip()[:120] or None, status)
    svc.bump_season(s)
    audit("federation.roster_entry", _actor(), {"season": s.id, "id": reg_id, "status": status})
    db.session.commit()
    flash(_("Roster entry %(id)s saved.", id=reg_id), "success")
    return redirect(url_for(".season", sid=sid))


@bp.post("/seasons/<int:sid>/import")
@staff_required
def import_tournament(sid: int):
    s = _season(sid)
    upload = request.files.get("file")
    try:
        if not upload or not upload.filename:
            raise ServiceError(_("Choose a tournament file."))
        st = svc.receive(upload.read().decode("utf-8", "replace"), season=s, venue=None, source="import",
                         actor=_actor(), replace=request.form.get("replace") == "1", name=upload.filename)
    except ServiceError as e:
        db.session.rollback()
        flash(str(e), "error")
        return redirect(url_for(".season", sid=sid))
    db.session.commit()
    flash(_("Tournament %(name)s added to the season.", name=st.name), "success")
    return redirect(url_for(".season", sid=sid))


@bp.post("/cards/<int:cid>/fine")
@staff_required
def card_fine(cid: int):
    c = db.session.get(Card, cid)
    if c is None:
        abort(404)
    s = _season(c.season_id)
    c.fine_paid = request.form.get("paid") == "1"
    svc.bump_season(s)
    audit("federation.card_fine", _actor(), {"card": c.id, "id": c.reg_id, "paid": c.fine_paid})
    db.session.commit()
    flash(_("Card register saved."), "success")
    return redirect(url_for(".season", sid=s.id))


@bp.get("/seasons/<int:sid>/season.json")
@staff_required
def season_file(sid: int):
    """The season document as a file, for a venue that imports it by hand."""
    s = _season(sid)
    response = jsonify(svc.season_document(s))
    response.headers["Content-Disposition"] = f'attachment; filename="season-{s.id}.json"'
    return response


# --------------------------------------------------------------------------- the venues' API (token)

def _refuse(status: int, code: str, message: str, **extra):
    return jsonify({"error": code, "message": message, **extra}), status


@api.post("/tournaments")
def push():
    v = svc.venue_for_token(svc.bearer(request.headers))
    if v is None:
        return _refuse(401, "token", _("no venue has this token: ask the federation for the venue's token"))
    try:
        body = jsonbody.loads(request.get_data(cache=False), svc.MAX_PUSH_BYTES, 64)
    except jsonbody.BodyError as e:
        return _refuse(413 if e.reason == "too-large" else 400, e.reason,
                       {"too-large": _("the body is too large"), "too-deep": _("the body is nested too deeply"),
                        }.get(e.reason, _("the body is not JSON")))
    if not isinstance(body, dict) or body.get("format") != svc.PUSH_FORMAT or not isinstance(body.get("file"), str):
        return _refuse(400, "format", _("the body is not a %(format)s document", format=svc.PUSH_FORMAT))
    chain = body.get("chain") if isinstance(body.get("chain"), dict) else {}
    try:
        st = svc.receive(body["file"], season=None, venue=v, source="push", actor=f"venue {v.name}", chain=chain)
    except svc.Duplicate as e:
        db.session.rollback()
        return _refuse(409, "duplicate", str(e), tournament=e.existing.uid)
    except ServiceError as e:
        db.session.rollback()
        return _refuse(422, e.field or "refused", str(e))
    db.session.commit()
    verdict = dict(st.verdict, problems=[str(p) for p in getattr(st, "problems_shown", [])])
    if verdict.get("ok"):
        message = _("received '%(name)s' into season %(season)s: the chain holds", name=st.name, season=st.season_id)
    else:
        message = ngettext("received '%(name)s' into season %(season)s, but the chain check found %(num)d problem",
                           "received '%(name)s' into season %(season)s, but the chain check found %(num)d problems",
                           len(verdict["problems"]), name=st.name, season=st.season_id)
    return jsonify({"message": message, "tournament": st.uid, "season": st.season_id, "verdict": verdict}), 201


@api.get("/seasons/<int:sid>/download")
def download(sid: int):
    v = svc.venue_for_token(svc.bearer(request.headers))
    if v is None:
        return _refuse(401, "token", _("no venue has this token: ask the federation for the venue's token"))
    s = db.session.get(Season, sid)
    if s is None or s.federation_id != v.federation_id:
        return _refuse(404, "season", _("season %(sid)s is not one of the venue's federation", sid=sid))
    response = jsonify(svc.season_document(s))
    response.headers["Cache-Control"] = "no-store"
    return response
