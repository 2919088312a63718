"""A round at the operator's desk: draw, swap seats, publish, print the sheets, start the clock."""
from __future__ import annotations

from urllib.parse import urlparse

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import force_locale, gettext as _, lazy_gettext as _l, ngettext
from flask_login import current_user
from flask_wtf import FlaskForm
from markupsafe import Markup
from sqlalchemy import select
from sqlalchemy.orm import selectinload
from wtforms import HiddenField, IntegerField
from wtforms.validators import InputRequired, NumberRange

from ...extensions import db, htmx
from ...models import Round, RoundTable, Tournament
from ...rules.ruleset import get_ruleset
from ...services import rounds
from ...services.table_codes import table_code
from ...services.common import ServiceError, check_version, get_tournament
from ...services.paper import paper_language
from ..auth import operator_required
from ..shared import cards_seat, clock_context, players_by_no, seats, sheet_url
from . import bp
from .qr import qr_svg


class VersionForm(FlaskForm):
    version = HiddenField()


class SwapForm(VersionForm):
    a = IntegerField(_l("Start number"), validators=[InputRequired(), NumberRange(min=1)])
    b = IntegerField(_l("Swap with start number"), validators=[InputRequired(), NumberRange(min=1)])


def _load(tid: int, n: int) -> tuple[Tournament, Round | None]:
    t = get_tournament(tid)
    return t, next((r for r in t.rounds if r.number == n), None)


def _reload(tid: int, n: int) -> tuple[Tournament, Round | None]:
    db.session.rollback()
    return _load(tid, n)


def _render(t: Tournament, n: int, r: Round | None, *, status: int = 200, error: str | None = None,
            notice: str | None = None, warnings=(), swap_form: SwapForm | None = None):
    """The round page, or only its draw fragment for an htmx request."""
    rs = get_ruleset(t.ruleset)
    by_no = players_by_no(t)
    swap_form = swap_form or SwapForm(formdata=None)
    # the page now shows the current state, so its forms carry the current version
    swap_form.version.data = t.version
    tables = []
    if r is not None:
        for tab in r.tables:
            tables.append({"tab": tab, "seats": seats(tab, by_no), "in": tab.sheet is not None,
                           "link": sheet_url(t.id, r.number, tab.number) if r.status == "published" else None})
    ctx = dict(t=t, rs=rs, n=n, r=r, tables=tables, by_no=by_no, error=error, notice=notice,
               warnings=list(warnings), swap_form=swap_form,
               can_draw=r is None and n == rounds.next_round_number(t) and n <= rs.rounds,
               progress=rounds.tables_in(r) if r is not None else (0, 0), clock=clock_context(r),
               kind=rs.round_kind(n), seated=sum(len(x["seats"]) for x in tables),
               d1b_note=_freed_seats(t, n) if rs.round_kind(n) == "shift" else False)
    template = "operator/rounds/_draw.html" if htmx else "operator/rounds/round.html"
    return render_template(template, **ctx), status


def _freed_seats(t: Tournament, n: int) -> bool:
    """Whether the shift into round n has seats freed by a disqualification or a
    withdrawal, so the draw page states how they are filled (SEM-D1b)."""
    prev = next((x for x in t.rounds if x.number == n - 1), None)
    if prev is None:
        return False
    return (any(tab.sheet is not None and tab.sheet.disqualified for tab in prev.tables)
            or any(e.type == "withdrawn" and e.after_round == n - 1 for e in t.events)
            or any(e.type == "card" and e.round == n - 1 for e in t.events))


def _confirm_window(t: Tournament, n: int, window: dict, action: str, version):
    """SEM-C9: the objection window of round n-1 is open; the operator confirms
    (a form that repeats the action) or waits. Nothing has changed yet."""
    return render_template("operator/rounds/confirm_window.html", t=t, n=n, window=window, action=action,
                           version=version)


def _window_unconfirmed(t: Tournament, n: int) -> dict | None:
    if request.form.get("confirm_window"):
        return None
    return rounds.objection_window(t, n)


def _done(tid: int, n: int, message: str, warnings=()):
    flash(message, "success")
    for w in warnings:
        flash(w, "warning")
    return redirect(url_for("operator.round", tid=tid, n=n))


@bp.get("/t/<int:tid>/round/<int:n>", endpoint="round")
@operator_required
def round_page(tid: int, n: int):
    t, r = _load(tid, n)
    rs = get_ruleset(t.ruleset)
    if r is None and not (n == rounds.next_round_number(t) and n <= rs.rounds):
        abort(404)
    return _render(t, n, r)


@bp.post("/t/<int:tid>/round/draw")
@bp.post("/t/<int:tid>/round/<int:n>/draw")
@operator_required
def start_round(tid: int, n: int | None = None):
    """Draw the next round (a draft until published)."""
    t = get_tournament(tid)
    expected = rounds.next_round_number(t)
    if n is None:
        n = expected
    form = VersionForm()
    if n != expected:
        t, r = _load(tid, n)
        return _render(t, n, r, status=422,
                       error=_("Round %(n)d cannot be drawn now: the next round is %(next)d.", n=n, next=expected))
    window = _window_unconfirmed(t, n)
    if window is not None:
        return _confirm_window(t, n, window, "draw", form.version.data or "")
    try:
        r = rounds.draw_round(t, current_user.label, version=form.version.data or "")
    except ServiceError as e:
        t, r = _reload(tid, n)
        return _render(t, n, r, status=422, error=_("Round %(n)d cannot be drawn: %(reason)s", n=n, reason=str(e)))
    db.session.commit()
    return _done(tid, r.number, _("Round %(n)d is drawn. Check the draw, then publish it.", n=r.number))


@bp.post("/t/<int:tid>/round/<int:n>/swap")
@operator_required
def swap_seats(tid: int, n: int):
    t, r = _load(tid, n)
    if r is None:
        abort(404)
    form = SwapForm()
    if not form.validate():
        return _render(t, n, r, status=422, swap_form=form)
    try:
        warnings = rounds.swap_seats(t, r, form.a.data, form.b.data, current_user.label, form.version.data)
    except ServiceError as e:
        t, r = _reload(tid, n)
        return _render(t, n, r, status=422, error=str(e), swap_form=form)
    db.session.commit()
    message = _("Start numbers %(a)d and %(b)d have swapped seats.", a=form.a.data, b=form.b.data)
    if htmx:
        return _render(t, n, r, notice=message, warnings=warnings)
    return _done(tid, n, message, warnings)


def _round_action(tid: int, n: int, action, message: str):
    """Run one versioned action on the round; refused → the page with the message, nothing stored."""
    t, r = _load(tid, n)
    if r is None:
        abort(404)
    form = VersionForm()
    try:
        action(t, r, form.version.data)
    except ServiceError as e:
        t, r = _reload(tid, n)
        return _render(t, n, r, status=422, error=str(e))
    db.session.commit()
    return _done(tid, n, message)


@bp.post("/t/<int:tid>/round/<int:n>/discard")
@operator_required
def discard_draft(tid: int, n: int):
    return _round_action(tid, n, lambda t, r, v: rounds.discard_draft(t, r, current_user.label, v),
                         _("The draw of round %(n)d is discarded.", n=n))


@bp.post("/t/<int:tid>/round/<int:n>/publish")
@operator_required
def publish_round(tid: int, n: int):
    t, r = _load(tid, n)
    window = _window_unconfirmed(t, n) if r is not None and r.status == "draft" else None
    if window is not None:
        return _confirm_window(t, n, window, "publish", VersionForm().version.data or "")
    return _round_action(tid, n, lambda t, r, v: rounds.publish_round(t, r, current_user.label, v),
                         _("Round %(n)d is published. Print the sheets, then start the round.", n=n))


def _start_clock(t: Tournament, r: Round, version) -> None:
    check_version(t, version)
    if r.status == "closed":
        raise ServiceError(_("Round %(n)d is closed.", n=r.number))
    rounds.start_clock(t, r, current_user.label)


@bp.post("/t/<int:tid>/round/<int:n>/clock")
@operator_required
def start_clock(tid: int, n: int):
    """The start signal: the round's minutes (SEM-B4, TH-2; the rule set's) run from now."""
    minutes = get_ruleset(get_tournament(tid).ruleset).round_minutes(n)
    started = (ngettext("Round %(n)d has started: %(num)d minute from now.",
                        "Round %(n)d has started: %(num)d minutes from now.", minutes, n=n) if minutes
               else _("Round %(n)d has started: it has no time limit.", n=n))
    return _round_action(tid, n, _start_clock, started)


@bp.get("/t/<int:tid>/round/<int:n>/sheets")
@operator_required
def print_sheets(tid: int, n: int):
    """Print-ready paper sheets (SEM-B5), four to an A4 page, each with its table's QR code."""
    t = get_tournament(tid)
    # the tables with their sheets in two queries, not one query per table (SEM-C4 red marks)
    r = db.session.scalar(select(Round).where(Round.tournament_id == tid, Round.number == n)
                          .options(selectinload(Round.tables).selectinload(RoundTable.sheets)))
    if r is None:
        abort(404)
    if r.status == "draft":
        flash(_("Publish the draw before printing the sheets: seats may still change."), "error")
        return redirect(url_for("operator.round", tid=tid, n=n))
    rs = get_ruleset(t.ruleset)
    by_no = players_by_no(t)
    sheets = []
    for tab in r.tables:
        table_seats = seats(tab, by_no)
        url = sheet_url(t.id, r.number, tab.number)
        sheets.append({"tab": tab, "seats": table_seats, "cards": cards_seat(t, r, table_seats),
                       "names": {x.start_no: x.name for x in table_seats},
                       "total": rs.expected_total(len(table_seats)), "url": url, "qr": qr_svg(url),
                       "code": table_code(t.id, r.number, tab.number)})
    host = urlparse(sheets[0]["url"]).hostname if sheets else None
    local = bool(host) and (host == "localhost" or host == "::1" or host.startswith("127."))
    with force_locale(paper_language(t)):  # the players' paper speaks their language, whoever prints it
        paper = Markup(render_template("operator/rounds/_paper_sheets.html", t=t, r=r, sheets=sheets, rs=rs))
    return render_template("operator/rounds/sheets.html", t=t, r=r, sheets=sheets, local_host=host if local else None,
                           rs=rs, paper=paper)
