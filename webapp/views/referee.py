"""The referee's phone: the queue of open cases (polled by htmx) and one case
with its decision (SEM-C4 corrections, SEM-C8 negative sums, disputes, SEM-C9
discrepancy reports, SEM-C10 corrections and SEM-D1 disqualifications at a
counted table proposed at the desk). Operators may
look; only referees decide (docs/SECURITY.md, "What an operator cannot do alone")."""
from __future__ import annotations

from datetime import datetime, timedelta

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask_babel import format_datetime, format_time, format_timedelta, gettext as _, lazy_gettext as _l
from flask_login import current_user

from ..extensions import db, htmx
from ..rules.ruleset import get_ruleset
from ..services import access, calls as call_service, cases as svc, officials, referees
from ..services.common import ServiceError
from ..services.standings import c4_old_by_seat
from .auth import role_required

bp = Blueprint("referee", __name__, url_prefix="/referee")
referee_required = role_required("referee", "operator")
decide_required = role_required("referee", admin_passes=False)

KIND_LABELS = {
    "dispute": _l("Two different sheets"),
    "correction": _l("Correction before hand-in (SEM-C4)"),
    "negative-sum": _l("Negative sum (SEM-C8)"),
    "pin-reissued": _l("Signed with a PIN issued during the round"),
    "pin-mismatch": _l("A PIN did not match (signed offline)"),
    "discrepancy": _l("Discrepancy reported (SEM-C9)"),
    "c10": _l("Correction after publication (SEM-C10)"),
    "discipline": _l("Disqualification at a counted table (SEM-D1)"),
}
# the same kinds in a rule set whose own rules say it (every rule set but SEM and BB liga, which follow
# SEM's C4, C8, C9, C10 and D1): no SEM rule ID
OWN_RULES_LABELS = {
    "correction": _l("Correction before hand-in"),
    "negative-sum": _l("Negative sum"),
    "discrepancy": _l("Discrepancy reported"),
    "c10": _l("Correction after publication"),
    "discipline": _l("Disqualification at a counted table"),
}


def kind_label(kind: str, rulesets=()) -> str:
    """A case kind's name, citing SEM's rule only when every tournament of the cases plays by SEM's
    discipline (RuleSet.cite("dq-case"): SEM, BB liga); `rulesets` are rule-set codes."""
    codes = {rulesets} if isinstance(rulesets, str) else set(rulesets)
    if codes and not all(get_ruleset(c).cite("dq-case") for c in codes):
        return OWN_RULES_LABELS.get(kind, KIND_LABELS.get(kind, kind))
    return KIND_LABELS.get(kind, kind)


VERSION_LABELS = {
    "before": _l("Before"),
    "after": _l("New"),
    "first": _l("Sheet 1"),
    "second": _l("Sheet 2"),
    "sheet": _l("Sheet"),
    "counted": _l("Counted sheet"),
    "proposed": _l("Proposed"),
}


def age(seconds: int) -> str:
    if seconds < 60:
        return _("just now")
    return format_timedelta(timedelta(seconds=-seconds), granularity="minute", threshold=2, add_direction=True)


def hhmm(dt) -> str:
    return format_time(dt, "HH:mm") if dt else ""


def when(iso) -> str:
    """A stored ISO time (naive UTC) as the day and time."""
    if not iso:
        return "?"
    return format_datetime(datetime.fromisoformat(iso) if isinstance(iso, str) else iso, "d.M. HH:mm")


def _ctx() -> dict:
    from .shared import KIND_LABELS as C10_KINDS

    return {"kind_labels": KIND_LABELS, "kind_label": kind_label, "version_labels": VERSION_LABELS, "age": age,
            "hhmm": hhmm,
            "c10_kinds": C10_KINDS, "may_decide": current_user.role != "operator", "when": when}


# SEM-C4 red marks on every page that shows a sheet's sums (desk, print, table page)
bp.app_template_global("sem_c4_old")(c4_old_by_seat)


@bp.get("/")
@referee_required
def queue():
    tids = access.tournament_ids(current_user)
    q = svc.queue(tournament_ids=tids)
    if current_user.role == "referee":  # BB-2, SMU-4: a case another official decides
        q["not_mine"] = {it.case.id: officials.refusal(current_user, it.case) for _k, items in q["groups"]
                         for it in items}
    calls = call_service.active_calls(tids)  # a table calling a referee: above the cases
    q["fingerprint"] += calls["fingerprint"]
    if htmx:
        if request.args.get("seen") == q["fingerprint"]:
            return "", 204  # unchanged: htmx keeps the list as it is
        return render_template("referee/_queue.html", q=q, calls=calls, **_ctx())
    ids = tids
    if ids is None:  # the server's admin: the tournaments in the queue
        ids = {it.tournament.id for _kind, items in q["groups"] for it in items} | {it.tournament.id
                                                                                  for it in q["recent"]}
    fresh = referees.new_referees(ids)
    return render_template("referee/queue.html", q=q, calls=calls, new_referees=[p.as_dict() for _tid, p in fresh],
                           **_ctx())


def _own_case(cid: int):
    """A case of a tournament the user works at; any other does not exist for them."""
    c = svc.get_case(cid)
    if not access.can_access(current_user, c.tournament_id):
        abort(404)
    return c


def _case_page(cid: int, *, error: ServiceError | None = None, status: int = 200):
    c = _own_case(cid)
    page = svc.case_page(c)
    not_mine = officials.refusal(current_user, c) if current_user.role == "referee" else None
    return render_template("referee/case.html", **page, not_mine=not_mine, error=str(error) if error else None,
                           error_field=error.field if error else None, form=request.form, **_ctx()), status


@bp.get("/case/<int:cid>")
@referee_required
def case(cid: int):
    return _case_page(cid)


def _decide(cid: int, decide, done: str):
    c = _own_case(cid)
    try:
        officials.check_may_decide(current_user, c)  # BB-2 jury, SMU-4: not at one's own table
        decide(c)
        referees.record_decider(c, current_user._get_current_object())
    except ServiceError as e:
        db.session.rollback()
        return _case_page(cid, error=e, status=422)
    db.session.commit()
    flash(done % {"id": cid, "table": c.table or 0, "round": c.round}, "success")
    return redirect(url_for(".queue"))


@bp.post("/case/<int:cid>/approve")
@decide_required
def approve(cid: int):
    f = request.form
    return _decide(cid, lambda c: svc.approve(c, current_user.label, choose=f.get("choose"), note=f.get("note")),
                   _("Case %(id)d approved (round %(round)d, table %(table)d)."))


@bp.post("/case/<int:cid>/reject")
@decide_required
def reject(cid: int):
    f = request.form
    return _decide(cid, lambda c: svc.reject(c, current_user.label, f.get("reason")),
                   _("Case %(id)d rejected (round %(round)d, table %(table)d)."))


# --------------------------------------------------------------------------- a table calls a referee


def _own_call(call_id: int):
    call = call_service.get_call(call_id)
    if call is None or not access.can_access(current_user, call.tournament_id):
        abort(404)
    return call


@bp.get("/call/<int:call_id>")
@referee_required
def call(call_id: int):
    return render_template("referee/call.html", call=_own_call(call_id), error=None, **_ctx())


def _call_step(call_id: int, step, done: str):
    c = _own_call(call_id)
    try:
        step(c)
    except ServiceError as e:
        db.session.rollback()
        return render_template("referee/call.html", call=_own_call(call_id), error=str(e), **_ctx()), 422
    db.session.commit()
    flash(done % {"table": c.table, "round": c.round}, "success")
    return redirect(url_for(".call", call_id=c.id) if c.status == "taken" else url_for(".queue"))


@bp.post("/call/<int:call_id>/take")
@decide_required
def take_call(call_id: int):
    return _call_step(call_id, lambda c: call_service.take(c, current_user.label),
                      _("You are going to table %(table)d (round %(round)d): the table sees that you are coming."))


@bp.post("/call/<int:call_id>/close")
@decide_required
def close_call(call_id: int):
    return _call_step(call_id, lambda c: call_service.close(c, current_user.label, request.form.get("note")),
                      _("The call from table %(table)d (round %(round)d) is closed."))
