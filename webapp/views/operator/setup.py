"""Preparing the tournament: players (by hand, from CSV, from a tournament file),
check-in, SEM-B3 nominations, and the exports."""
from __future__ import annotations

import re
import unicodedata

from flask import Response, abort, current_app, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _, lazy_gettext as _l
from flask_login import current_user
from flask_wtf import FlaskForm
from flask_wtf.file import FileField
from itsdangerous import BadSignature, URLSafeSerializer
from wtforms import HiddenField, SelectField, StringField

from ...extensions import db, htmx
from ...models import Player
from ...rules.ruleset import get_ruleset
from ...rules.season import NOMINATED
from ...services import access, officials as off_svc, players as svc
from ...services import pins as pin_svc
from ...services.paper import slip_texts
from ...services.common import ServiceError, StaleError, get_tournament
from ...services.tournament_file import export_results_csv, export_tournament, import_tournament
from ...services.venue_season import for_tournament
from ..shared import personal_link
from ..auth import operator_required
from .qr import qr_svg
from . import bp


class PlayerForm(FlaskForm):
    start_no = StringField(_l("Start number"), render_kw={"inputmode": "numeric", "autocomplete": "off"})
    surname = StringField(_l("Surname"), render_kw={"autocomplete": "off"})
    first_name = StringField(_l("First name"), render_kw={"autocomplete": "off"})
    club = StringField(_l("Club"), render_kw={"autocomplete": "off"})
    status = SelectField(_l("Status"), default="registered")
    rating = StringField(_l("Rating"), render_kw={"inputmode": "decimal", "autocomplete": "off"},
                         description=_l("Empty for an unrated player."))
    reg_id = StringField(_l("Registration id"), render_kw={"autocomplete": "off"},
                         description=_l("The player's id across tournaments (needed for season tables)."))
    version = HiddenField()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.status.choices = [(code, label) for code, label in svc.STATUS_LABELS.items()]

    def values(self) -> dict:
        values = {f: getattr(self, f).data for f in ("start_no", "reg_id", "club", "status", "rating")}
        # names are kept "Surname First name" (the sheets split them there): two fields, no guessing the order
        values["name"] = svc.join_name(self.surname.data, self.first_name.data)
        if not values["name"]:  # a client that posts the stored form, "Surname First name", in one field
            values["name"] = request.form.get("name", "")
            self.surname.data, self.first_name.data = svc.split_name(values["name"])
        return values

    def show(self, e: ServiceError) -> None:
        errors = getattr(e, "errors", None) or {e.field or "": str(e)}
        for name, message in errors.items():
            name = "surname" if name == "name" else name
            if name in self._fields and name != "version":
                self[name].errors = [message]
            else:
                flash(message, "error")


class UploadForm(FlaskForm):
    file = FileField(_l("CSV file"))
    version = HiddenField()


class ConfirmForm(FlaskForm):
    payload = HiddenField()
    version = HiddenField()


class TournamentFileForm(FlaskForm):
    file = FileField(_l("Tournament file (.json)"))


def _actor() -> str:
    return current_user.label


def _player(t, pid: int) -> Player:
    p = db.session.get(Player, pid)
    if p is None or p.tournament_id != t.id:
        abort(404)
    return p


# --------------------------------------------------------------------------- players by hand

def _players_page(t, form, status=200):
    return render_template("operator/setup/players.html", t=t, form=form, closed=svc.field_closed(t),
                           late_from=svc.late_entry_round(t),
                           summary=svc.checkin_summary(t), short_statuses=svc.STATUS_SHORT), status


@bp.route("/t/<int:tid>/players", methods=["GET", "POST"])
@operator_required
def players(tid: int):
    t = get_tournament(tid)
    form = PlayerForm()
    if request.method == "GET":
        form.start_no.data = str(svc.next_start_no(t))
        form.version.data = t.version
        return _players_page(t, form)
    form.validate_on_submit()
    try:
        p = svc.add_player(t, form.values(), _actor(), form.version.data)
    except ServiceError as e:
        db.session.rollback()
        form.show(e)
        if isinstance(e, StaleError):
            # check-ins bump the version all the time: the page now shows the current list
            # and keeps what was typed, so adding again is one click, never a silent overwrite
            form.version.data = t.version
        return _players_page(t, form, 422)
    db.session.commit()
    flash(_("%(name)s entered with start number %(n)d.", name=p.name, n=p.start_no), "success")
    return redirect(url_for("operator.players", tid=t.id, added=1) + "#add-player")


@bp.route("/t/<int:tid>/players/<int:pid>", methods=["GET", "POST"])
@operator_required
def player_edit(tid: int, pid: int):
    t = get_tournament(tid)
    p = _player(t, pid)
    if request.method == "GET":
        return render_template("operator/setup/player_edit.html", t=t, p=p, form=_edit_form(t, p),
                               closed=svc.field_closed(t))
    form = PlayerForm()
    form.validate_on_submit()
    try:
        svc.edit_player(t, p, form.values(), _actor(), form.version.data)
    except ServiceError as e:
        db.session.rollback()
        form.show(e)
        stale = isinstance(e, StaleError)
        if stale:  # saving again is possible once the page has shown what is stored now
            form.version.data = t.version
        return render_template("operator/setup/player_edit.html", t=t, p=p, form=form, stale=stale,
                               closed=svc.field_closed(t), statuses=svc.STATUS_LABELS), 422
    db.session.commit()
    flash(_("%(name)s saved.", name=p.name), "success")
    return redirect(url_for("operator.players", tid=t.id))


@bp.post("/t/<int:tid>/players/<int:pid>/delete")
@operator_required
def player_delete(tid: int, pid: int):
    t = get_tournament(tid)
    p = _player(t, pid)
    try:
        svc.delete_player(t, p, _actor(), request.form.get("version"))
    except ServiceError as e:
        db.session.rollback()
        flash(str(e), "error")
        return render_template("operator/setup/player_edit.html", t=t, p=p, form=_edit_form(t, p),
                               closed=svc.field_closed(t)), 422
    name = p.name
    db.session.commit()
    flash(_("%(name)s removed from the tournament.", name=name), "success")
    return redirect(url_for("operator.players", tid=t.id))


def _edit_form(t, p) -> PlayerForm:
    form = PlayerForm(formdata=None)
    form.start_no.data, form.club.data = str(p.start_no), p.club or ""
    form.surname.data, form.first_name.data = svc.split_name(p.name)
    form.status.data, form.reg_id.data = p.status, p.reg_id or ""
    form.rating.data = "" if p.rating is None else _rating_text(p.rating)
    form.version.data = t.version
    return form


def _rating_text(value) -> str:
    text = f"{value:f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


# --------------------------------------------------------------------------- players from CSV

def _signer() -> URLSafeSerializer:
    return URLSafeSerializer(current_app.config["SECRET_KEY"], salt="listok.players-csv")


def _csv_page(t, form=None, preview=None, confirm=None, status=200):
    return render_template("operator/setup/import_csv.html", t=t, form=form or UploadForm(version=t.version),
                           preview=preview, confirm=confirm, statuses=svc.STATUS_SHORT), status


@bp.route("/t/<int:tid>/players/import", methods=["GET", "POST"])
@operator_required
def import_csv(tid: int):
    """Upload → preview of every row; nothing is stored until the clean file is confirmed."""
    t = get_tournament(tid)
    if request.method == "GET":
        return _csv_page(t)
    form = UploadForm()
    form.validate_on_submit()
    upload = form.file.data
    if not upload or not getattr(upload, "filename", ""):
        form.file.errors = [_("Choose a CSV file.")]
        return _csv_page(t, form, status=422)
    try:
        text = svc.decode_csv(upload.read())
    except ServiceError as e:
        form.file.errors = [str(e)]
        return _csv_page(t, form, status=422)
    preview = svc.preview_csv(t, text)
    # the file travels with the page, signed for this tournament: no temp file, no mixing between tabs
    confirm = ConfirmForm(payload=_signer().dumps({"t": t.id, "csv": text}), version=t.version)
    return _csv_page(t, form, preview, confirm)


@bp.post("/t/<int:tid>/players/import/confirm")
@operator_required
def import_csv_confirm(tid: int):
    t = get_tournament(tid)
    form = ConfirmForm()
    form.validate_on_submit()
    try:
        data = _signer().loads(form.payload.data or "")
        if data.get("t") != t.id:
            raise BadSignature("another tournament")
    except BadSignature:
        flash(_("The uploaded file could not be recovered from the page: upload it again."), "error")
        return _csv_page(t, status=422)
    try:
        added = svc.import_csv(t, data["csv"], _actor(), form.version.data)
    except ServiceError as e:
        db.session.rollback()
        flash(str(e), "error")
        preview = svc.preview_csv(t, data["csv"])
        confirm = ConfirmForm(payload=form.payload.data, version=t.version)
        return _csv_page(t, preview=preview, confirm=confirm, status=422)
    db.session.commit()
    flash(_("%(n)d players imported.", n=len(added)), "success")
    return redirect(url_for("operator.players", tid=t.id))


# --------------------------------------------------------------------------- whole tournament file

@bp.route("/import", methods=["GET", "POST"])
@operator_required
def import_file():
    form = TournamentFileForm()
    if request.method == "GET":
        return render_template("operator/setup/import_file.html", form=form)
    form.validate_on_submit()
    upload = form.file.data
    if not upload or not getattr(upload, "filename", ""):
        form.file.errors = [_("Choose a tournament file.")]
        return render_template("operator/setup/import_file.html", form=form), 422
    try:
        t = import_tournament(upload.read(), upload.filename, _actor())
    except ServiceError as e:
        db.session.rollback()
        form.file.errors = [str(e)]
        return render_template("operator/setup/import_file.html", form=form), 422
    t.venue_id = current_user.venue_id  # owned by the importer's venue
    access.assign(current_user, t.id)
    db.session.commit()
    flash(_("Tournament %(name)s imported with %(players)d players and %(rounds)d rounds.",
            name=t.name, players=len(t.players), rounds=len(t.rounds)), "success")
    return redirect(url_for("operator.tournament", tid=t.id))


def _filename(t, ext: str) -> str:
    ascii_name = unicodedata.normalize("NFKD", t.name).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^A-Za-z0-9]+", "-", ascii_name).strip("-").lower() or f"tournament-{t.id}"
    return f"{slug}-{t.date.isoformat()}.{ext}" if t.date else f"{slug}.{ext}"


@bp.get("/t/<int:tid>/export.json")
@operator_required
def export_file(tid: int):
    t = get_tournament(tid)
    return Response(export_tournament(t), mimetype="application/json",
                    headers={"Content-Disposition": f'attachment; filename="{_filename(t, "json")}"'})


@bp.get("/t/<int:tid>/results.csv")
@operator_required
def export_csv(tid: int):
    t = get_tournament(tid)
    # with a BOM, spreadsheets read the file as UTF-8 (names with diacritics)
    return Response("\ufeff" + export_results_csv(t), mimetype="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="{_filename(t, "csv")}"'})


# --------------------------------------------------------------------------- check-in

def _checkin_args() -> tuple[str, str]:
    show = request.values.get("show", "all")
    return (request.values.get("q", "") or "").strip(), show if show in ("all", "present", "absent") else "all"


def _checkin_context(t, error: str | None = None) -> dict:
    q, show = _checkin_args()
    return {"t": t, "q": q, "show": show, "players": svc.search_players(t, q, show),
            "summary": svc.checkin_summary(t), "closed_reason": svc.checkin_closed_reason(t), "error": error,
            "statuses": svc.STATUS_SHORT, "season": for_tournament(t)}


@bp.get("/t/<int:tid>/checkin")
@operator_required
def checkin(tid: int):
    t = get_tournament(tid)
    if htmx:
        return render_template("operator/setup/_checkin_list.html", **_checkin_context(t))
    return render_template("operator/setup/checkin.html", **_checkin_context(t))


@bp.post("/t/<int:tid>/checkin/<int:pid>")
@operator_required
def checkin_set(tid: int, pid: int):
    t = get_tournament(tid)
    p = _player(t, pid)
    present = request.form.get("present") == "1"
    try:
        svc.set_present(t, p, present, _actor())
    except ServiceError as e:
        db.session.rollback()
        if htmx:
            return render_template("operator/setup/_checkin_row.html", p=p, t=t, error=str(e),
                                   summary=svc.checkin_summary(t), closed_reason=svc.checkin_closed_reason(t),
                                   statuses=svc.STATUS_SHORT, oob=True, season=for_tournament(t),
                                   **_keep()), 422
        return render_template("operator/setup/checkin.html", **_checkin_context(t, str(e))), 422
    db.session.commit()
    if htmx:
        return render_template("operator/setup/_checkin_row.html", p=p, t=t, summary=svc.checkin_summary(t),
                               closed_reason=svc.checkin_closed_reason(t), statuses=svc.STATUS_SHORT, oob=True,
                               season=for_tournament(t), **_keep())
    return redirect(url_for("operator.checkin", tid=t.id, **_keep()))


def _keep() -> dict:
    q, show = _checkin_args()
    return {k: v for k, v in (("q", q), ("show", show)) if v and v != "all"}


@bp.post("/t/<int:tid>/checkin/all")
@operator_required
def checkin_all(tid: int):
    t = get_tournament(tid)
    try:
        n = svc.check_in_all(t, _actor(), request.form.get("version"))
    except ServiceError as e:
        db.session.rollback()
        return render_template("operator/setup/checkin.html", **_checkin_context(t, str(e))), 422
    db.session.commit()
    flash(_("%(n)d players checked in.", n=n), "success")
    return redirect(url_for("operator.checkin", tid=t.id))


# --------------------------------------------------------------------------- SEM-B3 nominations

def _club_anchor(clubs, club: str) -> str:
    for i, c in enumerate(clubs, 1):
        if c.club == club:
            return f"club-{i}"
    return "club-0"


@bp.route("/t/<int:tid>/nominations", methods=["GET", "POST"])
@operator_required
def nominations(tid: int):
    t = get_tournament(tid)
    if request.method == "GET":
        return render_template("operator/setup/nominations.html", t=t, clubs=svc.club_nominations(t),
                               frozen=svc.field_closed(t), quota=NOMINATED)
    club = request.form.get("club", "")
    action = request.form.get("action", "save")
    error = None
    try:
        if action == "auto":
            svc.nominate_automatically(t, club, _actor(), request.form.get("version"))
        else:
            svc.save_nominations(t, club, request.form.getlist("nominated"), _actor(), request.form.get("version"))
    except ServiceError as e:
        db.session.rollback()
        error = str(e)
    else:
        db.session.commit()
    clubs = svc.club_nominations(t)
    if htmx:
        c = next((c for c in clubs if c.club == club), None)
        if c is None:  # the club has nobody present any more: the whole page is out of date
            flash(error or _("Nominations of %(club)s saved.", club=club), "error" if error else "success")
            return Response(status=204, headers={"HX-Refresh": "true"})
        chosen = None
        if error and action != "auto":
            # keep the operator's ticks: only the message is new
            chosen = {int(s) for s in request.form.getlist("nominated") if s.isdigit()}
        return render_template("operator/setup/_nomination_club.html", t=t, c=c, anchor=_club_anchor(clubs, club),
                               frozen=svc.field_closed(t), quota=NOMINATED, error=error, chosen=chosen,
                               saved=error is None, oob_version=True), 422 if error else 200
    if error:
        flash(error, "error")
        return render_template("operator/setup/nominations.html", t=t, clubs=clubs, frozen=svc.field_closed(t),
                               quota=NOMINATED), 422
    flash(_("Nominations of %(club)s saved.", club=club), "success")
    return redirect(url_for("operator.nominations", tid=t.id) + "#" + _club_anchor(clubs, club))


# --------------------------------------------------------------------------- PIN slips (signing sheets on the phone)

class PinForm(FlaskForm):
    pin = StringField(_l("PIN chosen by the player"),
                      render_kw={"inputmode": "numeric", "autocomplete": "off", "maxlength": 6},
                      description=_l("4 to 6 digits. Leave it empty for a random PIN of 4 digits."))


def _no_store(body, status=200):
    # the page shows a PIN: no cache may keep it
    return body, status, {"Cache-Control": "no-store"}


def _pin_page(t, p, form, pin=None, status=200):
    return _no_store(render_template("operator/setup/pin_slip.html", t=t, p=p, form=form, pin=pin,
                                     locked=pin_svc.locked_until(p), slip_texts=slip_texts(t) if pin else None,
                                     **_slip_qr(t)), status)


def _slip_qr(t) -> dict:
    """The personal QR code of a PIN slip (views/shared.personal_link)."""
    return {"me_link": lambda p: personal_link(t, p), "qr_svg": qr_svg}


@bp.route("/t/<int:tid>/players/<int:pid>/pin", methods=["GET", "POST"])
@operator_required
def pin_slip(tid: int, pid: int):
    """GET: the player's PIN state and the form; POST: a new PIN (random, or the
    one the player chose) shown once on a printable slip — only its hash is kept."""
    t = get_tournament(tid)
    p = _player(t, pid)
    if request.method == "GET":
        return _pin_page(t, p, PinForm(formdata=None))
    form = PinForm()
    form.validate_on_submit()
    try:
        pin = pin_svc.issue_pin(p, (form.pin.data or "").strip() or None, actor=_actor())
    except ServiceError as e:
        db.session.rollback()
        form.pin.errors = [str(e)]
        return _pin_page(t, p, form, status=422)
    db.session.commit()
    return _pin_page(t, p, PinForm(formdata=None), pin=pin)


@bp.post("/t/<int:tid>/players/<int:pid>/pin/reset")
@operator_required
def pin_reset(tid: int, pid: int):
    t = get_tournament(tid)
    p = _player(t, pid)
    pin_svc.reset_pin(p, _actor())
    db.session.commit()
    flash(_("The PIN of %(name)s is cleared and unlocked: issue a new PIN slip.", name=p.name), "success")
    return redirect(url_for("operator.pin_slip", tid=t.id, pid=p.id))


@bp.route("/t/<int:tid>/pins", methods=["GET", "POST"])
@operator_required
def pin_slips(tid: int):
    """PIN slips for everyone checked in without a PIN, many to an A4 page. The
    form names the players the page showed: only those get a PIN, and only if
    they still have none."""
    t = get_tournament(tid)
    if request.method == "GET":
        return _no_store(render_template("operator/setup/pin_slips.html", t=t, missing=pin_svc.players_without_pin(t),
                                         slips=None))
    start_nos = [s for s in request.form.getlist("start_no") if s.isdigit() and len(s) <= 9]
    slips = pin_svc.issue_missing_pins_in_batches(t, start_nos, _actor())  # commits per batch
    return _no_store(render_template("operator/setup/pin_slips.html", t=t, missing=pin_svc.players_without_pin(t),
                                     slips=slips, slip_texts=slip_texts(t), **_slip_qr(t)))


# --------------------------------------------------------------------------- officials (BB-2, SMU-4)


def _officials_page(t, *, error=None, error_field=None, status=200):
    rs = get_ruleset(t.ruleset)
    return render_template("operator/setup/officials.html", t=t, spec=rs.officials,
                           officials=off_svc.officials_of(t), candidates=off_svc.candidates(t),
                           players={p.start_no: p for p in t.players},
                           error=error, error_field=error_field, form=request.form), status


@bp.route("/t/<int:tid>/officials", methods=["GET", "POST"])
@operator_required
def officials(tid: int):
    """BB-2 / SMU-4: the operator names the tournament's jury or referees."""
    t = get_tournament(tid)
    if request.method == "GET":
        return _officials_page(t)
    try:
        if request.form.get("remove"):
            off_svc.remove_official(t, request.form.get("remove"), _actor())
        else:
            off_svc.name_official(t, request.form.get("user"), request.form.get("start_no"),
                                  request.form.get("club"), _actor())
    except ServiceError as e:
        db.session.rollback()
        return _officials_page(t, error=str(e), error_field=e.field, status=422)
    db.session.commit()
    flash(_("Officials saved."), "success")
    return redirect(url_for("operator.officials", tid=t.id))
