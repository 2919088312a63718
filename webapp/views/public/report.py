"""SEM-C9: a player reports a discrepancy at their table within 10 minutes of
the standings' publication; it lands in the referees' queue. No login."""
from __future__ import annotations

from flask import render_template, request
from flask_babel import gettext as _, lazy_gettext as _l
from flask_login import current_user
from flask_wtf import FlaskForm
from wtforms import PasswordField, StringField, TextAreaField

from ...extensions import db, htmx
from ...services import cases as case_service, loaders, pins as pin_service
from ...services.common import ServiceError, get_tournament
from . import bp
from ..shared import hhmm


class ReportForm(FlaskForm):
    start_no = StringField(_l("Your start number"), render_kw={"inputmode": "numeric", "autocomplete": "off"})
    table = StringField(_l("Table"), render_kw={"inputmode": "numeric", "autocomplete": "off"})
    round = StringField(_l("Round"), render_kw={"inputmode": "numeric", "autocomplete": "off"})
    pin = PasswordField(_l("Your PIN"), render_kw={"inputmode": "numeric", "autocomplete": "off",
                                                   "maxlength": case_service.MAX_PIN_CHARS})
    text = TextAreaField(_l("What is wrong?"), render_kw={"maxlength": case_service.REPORT_MAX_CHARS, "rows": 4})


def referee_label() -> str | None:
    """A signed-in referee (or operator) files a report for a player without the player's PIN."""
    if current_user.is_authenticated and current_user.role in ("referee", "operator", "admin"):
        return current_user.label
    return None


def _render(t, form, window, *, sent=None, error=None, status=200):
    template = "public/_report_form.html" if htmx else "public/report.html"
    return render_template(template, t=t, form=form, window=window, sent=sent, error=error, hhmm=hhmm,
                           referee=referee_label()), status


@bp.route("/t/<int:tid>/discrepancy", methods=["GET", "POST"])
def report(tid: int):
    t = get_tournament(tid)
    form = ReportForm()
    if request.method == "GET":
        form.round.data = str(request.args.get("round", type=int) or loaders.last_closed(t) or "")
        start_no = request.args.get("start_no", type=int)
        if start_no:
            form.start_no.data = str(start_no)
    # a report is for the latest published round; an older round typed in is refused next to its field
    window = case_service.report_window(t, request.args.get("round", type=int) if request.method == "GET" else None)
    if request.method == "GET" or not form.validate_on_submit():
        if request.method == "POST":  # only a bad CSRF token fails validation here
            return _render(t, form, window, error=next(iter(form.errors.values()))[0], status=400)
        return _render(t, form, window)
    try:
        c = case_service.report_discrepancy(t, form.start_no.data, form.table.data, form.round.data, form.text.data,
                                            pin=form.pin.data, referee=referee_label())
    except pin_service.PinError as e:
        # the failed attempt counts towards the lockout although nothing is sent
        db.session.commit()
        message = str(e)
        if e.attempts_left and not isinstance(e, pin_service.PinLocked):
            message = _("Wrong PIN for start number %(start_no)s. Attempts left: %(left)s.",
                        start_no=e.start_no, left=e.attempts_left)
        form.pin.errors = [message + " " + _("Nothing was sent.")]
        return _render(t, form, window, status=422)
    except ServiceError as e:
        db.session.rollback()
        field = getattr(form, e.field, None) if e.field else None
        if field is not None and window is not None and window["open"]:
            field.errors = [str(e)]
            return _render(t, form, window, status=422)
        return _render(t, form, window, error=str(e), status=422)
    db.session.commit()
    return _render(t, form, window, sent=c)
