"""Results at the operator's desk: paper-sheet entry, standings, discipline and
corrections after publication."""
from __future__ import annotations

from types import SimpleNamespace

from flask import abort, flash, jsonify, make_response, redirect, render_template, request, url_for
from flask_babel import format_time, gettext as _, lazy_gettext as _l
from flask_login import current_user
from flask_wtf import FlaskForm
from sqlalchemy import select
from wtforms import BooleanField, HiddenField, IntegerField, SelectField, StringField
from wtforms.validators import Optional

from ...extensions import db, htmx
from ...rules.corrections import KINDS
from ...rules.ruleset import get_ruleset
from ...models import Round, Tournament
from ...services import (access, corrections as corrections_service, desk, desk_live, discipline as dsvc,
                         final_report as final_report_service, loaders, rounds as round_service,
                         standings as standings_service)
from ...services.common import ServiceError, get_tournament
from ..auth import operator_required, role_required
from ..shared import KIND_LABELS, standings_table
from . import bp

def _actor() -> str:
    return current_user.label


def hhmm(dt) -> str:
    return format_time(dt, "HH:mm") if dt else ""


# --------------------------------------------------------------------------- the results desk


def _desk_sums(form) -> list[str]:
    return [form.get(f"sum{i}", "") for i in range(8)]


def _table_ctx(t, r, tab, *, editing=False, preview=None, error=None, error_field=None, saved=False, focus=False,
               refused=False, sent=None, waiting_by_table=None, live=None):
    """`refused`: a save for a table whose sheet counts was refused; the card
    shows that sheet and offers the typed sums to the referee (SEM-C4).
    `waiting_by_table`: the round's open corrections, read once for a whole page."""
    if waiting_by_table is None:
        waiting = desk.open_correction(tab) if tab.sheet is not None else None
    else:
        waiting = waiting_by_table.get(tab.number)
    return dict(t=t, r=r, tab=tab, editing=editing and waiting is None, preview=preview, error=error,
                error_field=error_field, saved=saved, focus=focus, players={p.start_no: p for p in t.players},
                rs=get_ruleset(t.ruleset), dq=desk.table_dq(tab), case=desk.dq_case(tab, desk.table_dq(tab)[0]),
                outcome=desk.sheet_outcome(t, tab), refused=refused, sent=sent, waiting=waiting,
                waiting_sheet=next((s for s in tab.sheets if s.id == waiting.sheet_id), None) if waiting else None,
                source_label=desk.source_label, hhmm=hhmm, frozen=desk.frozen_table(get_ruleset(t.ruleset), tab),
                form_values=request.values, cards=get_ruleset(t.ruleset).cards_position(r.number),
                live=live if live is not None else desk_live.round_states(r, only=tab.number).get(tab.number))


def _desk_page(t, r, *, status=200, error=None, table_errors=None, editing=None):
    done, total = round_service.tables_in(r)
    missing_only = request.args.get("missing") == "1"
    table_errors = table_errors or {}
    waiting = desk.open_corrections(r)
    states = desk_live.round_states(r)
    rows = []
    for tab in r.tables:
        if missing_only and tab.sheet is not None and tab.number not in table_errors:
            continue
        ctx = _table_ctx(t, r, tab, editing=(editing == tab.number) or tab.number in table_errors,
                         waiting_by_table=waiting, live=states.get(tab.number), **table_errors.get(tab.number, {}))
        rows.append(ctx)
    first_missing = next((tab.number for tab in r.tables if tab.sheet is None), None)
    return render_template(
        "operator/results/desk.html", t=t, r=r, rows=rows, done=done, total=total, missing_only=missing_only,
        error=error, first_missing=first_missing, rs=get_ruleset(t.ruleset), live_counts=desk_live.counts(states),
        live_etag=desk_live.round_etag(r, states, _live_extra(t, r))), status


def _live_extra(t, r) -> str:
    """What else a card shows that moves: the tournament's version (a disqualification, a close)."""
    return f"{t.version}:{r.status}"


@bp.get("/t/<int:tid>/round/<int:n>/results/live")
@operator_required
def desk_live_state(tid: int, n: int):
    """The live desk's poll: one small answer for the whole round, 304 while nothing
    changed; when something did, the round header and each table's digest (the page fetches the
    cards whose digest moved)."""
    r = db.session.scalar(select(Round).where(Round.tournament_id == tid, Round.number == n))
    if r is None:
        abort(404)
    version = db.session.scalar(select(Tournament.version).where(Tournament.id == tid))
    states = desk_live.round_states(r)
    etag = desk_live.round_etag(r, states, f"{version}:{r.status}")
    if etag in request.if_none_match:
        response = make_response("", 304)
    else:
        done = sum(1 for st in states.values() if st.counted)
        header = render_template("operator/results/_desk_counts.html", live_counts=desk_live.counts(states))
        progress = render_template("operator/results/_desk_progress.html", t=SimpleNamespace(id=tid, version=version),
                                   r=r, done=done, total=len(states), oob=False,
                                   missing_only=request.args.get("missing") == "1")
        response = jsonify({"etag": etag, "status": r.status, "done": done, "total": len(states),
                            "header": header, "progress": progress,
                            "tables": {str(k): {"digest": v.digest, "state": v.key, "label": v.label}
                                       for k, v in states.items()}})
    response.set_etag(etag)
    response.headers["Cache-Control"] = "private, no-cache"
    return response


@bp.post("/t/<int:tid>/round/<int:n>/results/<int:table>/draft")
@operator_required
def desk_take_draft(tid: int, n: int, table: int):
    """The desk takes in a draft every player signed on their own phone, after the
    operator checked its sums against the paper sheet."""
    t, r, tab = _desk_table_of(tid, n, table)
    try:
        answer = desk_live.take_in_draft(t, r, tab, request.form.get("content_hash", ""), _actor())
    except ServiceError as e:
        db.session.rollback()
        t, r, tab = _desk_table_of(tid, n, table)
        if htmx:
            return render_template("operator/results/_desk_table.html", **_table_ctx(t, r, tab, error=str(e))), 422
        flash(str(e), "error")
        return redirect(url_for(".results_desk", tid=tid, n=n, _anchor=f"table-{table}"))
    db.session.commit()
    message = _("Table %(t)d: the signed draft is in (receipt %(receipt)s).", t=table,
                receipt=answer.body.get("receipt") or "–")
    t, r, tab = _desk_table_of(tid, n, table)
    if htmx:
        return render_template("operator/results/_desk_table.html", **_table_ctx(t, r, tab, sent=message))
    flash(message, "success")
    return redirect(url_for(".results_desk", tid=tid, n=n, _anchor=f"table-{table}"))


@bp.get("/t/<int:tid>/round/<int:n>/results")
@operator_required
def results_desk(tid: int, n: int):
    t = loaders.load_tournament(tid)
    r = loaders.get_round(t, n)
    return _desk_page(t, r, editing=request.args.get("edit", type=int))


def _desk_table_of(tid: int, n: int, table: int):
    t = loaders.load_tournament(tid)
    r = loaders.get_round(t, n)
    return t, r, loaders.get_table(r, table)


@bp.get("/t/<int:tid>/round/<int:n>/results/<int:table>")
@operator_required
def desk_table(tid: int, n: int, table: int):
    """One table of the desk (the fragment htmx swaps in); `edit=1` opens a sheet that is in."""
    t, r, tab = _desk_table_of(tid, n, table)
    editing = request.args.get("edit") == "1" and r.status == "published"
    if not htmx:
        return redirect(url_for(".results_desk", tid=tid, n=n, edit=table if editing else None,
                                _anchor=f"table-{table}"))
    return render_template("operator/results/_desk_table.html", **_table_ctx(t, r, tab, editing=editing, focus=editing))


@bp.get("/t/<int:tid>/round/<int:n>/results/<int:table>/preview")
@operator_required
def desk_preview(tid: int, n: int, table: int):
    """The running total and points while the operator types (htmx, on input)."""
    t, r, tab = _desk_table_of(tid, n, table)
    preview = desk.preview_sheet(t, tab, _desk_sums(request.args), early=request.args.get("early") == "1",
                                form=request.args)
    return render_template("operator/results/_desk_preview.html", **_table_ctx(t, r, tab, editing=True,
                                                                              preview=preview))


@bp.post("/t/<int:tid>/round/<int:n>/results/<int:table>")
@operator_required
def desk_save(tid: int, n: int, table: int):
    t, r, tab = _desk_table_of(tid, n, table)
    f = request.form
    try:
        sheet = desk.record_desk_sheet(
            t, tab, _desk_sums(f), _actor(), sheet_version=f.get("sheet_version"),
            correct_total=f.get("correct_total") == "1", note=f.get("note", ""), early=f.get("early") == "1",
            form=f)
    except ServiceError as e:
        return _desk_refused(tid, n, table, e)
    db.session.commit()
    if htmx:
        done, total = round_service.tables_in(r)
        return render_template("operator/results/_desk_saved.html", done=done, total=total,
                               missing_only=request.args.get("missing") == "1",
                               live_counts=desk_live.counts(desk_live.round_states(r)),
                               **_table_ctx(t, r, tab, saved=True))
    flash(_("Table %(t)d saved (version %(v)d).", t=tab.number, v=sheet.version), "success")
    nxt = next((x.number for x in r.tables if x.sheet is None and x.number > tab.number),
               next((x.number for x in r.tables if x.sheet is None), None))
    return redirect(url_for(".results_desk", tid=tid, n=n, missing=request.args.get("missing"),
                            _anchor=f"table-{nxt}" if nxt else "progress"))


def _desk_refused(tid: int, n: int, table: int, e: ServiceError):
    """Nothing was stored: the card again, with the typed sums and the message;
    when the table's sheet counts, with that sheet and the choice to send the
    sums to the referee or to discard them."""
    db.session.rollback()
    f = request.form
    t, r, tab = _desk_table_of(tid, n, table)
    preview = desk.preview_sheet(t, tab, _desk_sums(f), early=f.get("early") == "1", form=f)
    errors = dict(error=str(e), error_field=e.field, preview=preview, refused=isinstance(e, desk.SheetCounts))
    if htmx:
        return render_template("operator/results/_desk_table.html",
                               **_table_ctx(t, r, tab, editing=True, focus=True, **errors)), 422
    return _desk_page(t, r, status=422, table_errors={table: errors})


@bp.post("/t/<int:tid>/round/<int:n>/results/<int:table>/correction")
@operator_required
def desk_propose(tid: int, n: int, table: int):
    """SEM-C4 from the desk: the typed sums go to the referee as a correction of
    the version the form was made against (`base_version`)."""
    t, r, tab = _desk_table_of(tid, n, table)
    f = request.form
    try:
        case = desk.propose_desk_correction(
            t, tab, _desk_sums(f), _actor(), base_version=f.get("base_version"),
            correct_total=f.get("correct_total") == "1", note=f.get("note", ""), early=f.get("early") == "1",
            reason=f.get("reason") or _("The paper sheet typed at the desk differs from the sheet that counts."),
            form=f)
    except ServiceError as e:
        return _desk_refused(tid, n, table, e)
    db.session.commit()
    message = _("Table %(t)d: the correction went to the referee (case %(id)d). The sheet shown keeps counting "
                "until the referee approves it.", t=tab.number, id=case.id)
    if htmx:
        return render_template("operator/results/_desk_table.html", **_table_ctx(t, r, tab, sent=message))
    flash(message, "success")
    return redirect(url_for(".results_desk", tid=tid, n=n, _anchor=f"table-{table}"))


@bp.post("/t/<int:tid>/round/<int:n>/close")
@operator_required
def desk_close(tid: int, n: int):
    t = loaders.load_tournament(tid)
    r = loaders.get_round(t, n)
    try:
        round_service.close_round(t, r, _actor(), request.form.get("version"))
    except ServiceError as e:
        db.session.rollback()
        t = loaders.load_tournament(tid)
        return _desk_page(t, loaders.get_round(t, n), status=422, error=str(e))
    db.session.commit()
    flash(_("Round %(n)d is closed and its standings are published.", n=n), "success")
    return redirect(url_for(".standings", tid=tid, after=n))


# --------------------------------------------------------------------------- standings


@bp.get("/t/<int:tid>/standings")
@operator_required
def standings(tid: int):
    t = get_tournament(tid)
    after = request.args.get("after", type=int)
    try:
        page, table = standings_table(t, after if after is not None else loaders.last_closed(t))
    except ServiceError as e:
        return render_template("operator/results/standings.html", t=t, page=None, error=str(e),
                               hhmm=hhmm), 404 if after else 200
    page = {**page, "publication": round_service.publication(next((r for r in t.rounds if r.number == page["after"]),
                                                                  None))}
    return render_template("operator/results/standings.html", t=t, page=page, table=table, error=None, hhmm=hhmm,
                           ties=standings_service.tie_groups(t, page["after"]), lot_error=None)


@bp.post("/t/<int:tid>/lot")
@operator_required
def record_lot(tid: int):
    """TH-4: the operator records the order a lot gave tied players; the standings use it."""
    t = get_tournament(tid)
    after = request.form.get("after", type=int)
    if not VersionForm().validate_on_submit():
        abort(400)
    try:
        standings_service.record_lot(t, after, request.form.get("order", ""), _actor(), request.form.get("version"))
    except ServiceError as e:
        db.session.rollback()
        t = get_tournament(tid)
        try:
            page, table = standings_table(t, after if after else loaders.last_closed(t))
        except ServiceError as e2:
            return render_template("operator/results/standings.html", t=t, page=None, error=str(e2),
                                   hhmm=hhmm), 422
        page = {**page, "publication": round_service.publication(next((r for r in t.rounds
                                                                       if r.number == page["after"]), None))}
        return render_template("operator/results/standings.html", t=t, page=page, table=table, error=None,
                               hhmm=hhmm, ties=standings_service.tie_groups(t, page["after"]), lot_error=str(e)), 422
    db.session.commit()
    flash(_("The lot is recorded: the standings place these players in its order (TH-4)."), "success")
    return redirect(url_for(".standings", tid=tid, after=after, _anchor="ties"))


@bp.get("/t/<int:tid>/report")
@operator_required
def final_report(tid: int):
    """The final results for the record and the notice board, in the rule set's own columns; printable."""
    t = loaders.load_tournament(tid)
    try:
        report = final_report_service.final_report(t)
    except ServiceError as e:
        return render_template("operator/results/report.html", t=t, report=None, error=str(e)), 200
    return render_template("operator/results/report.html", t=t, report=report, error=None)


# --------------------------------------------------------------------------- discipline


class VersionForm(FlaskForm):
    version = HiddenField()


class DisqualifyForm(VersionForm):
    start_no = IntegerField(_l("Start number"), validators=[Optional()])
    round = SelectField(_l("Round"), coerce=str)
    early = BooleanField(_l("During the first three games (annulled: 4 + 4, SEM-D1c)"))
    reason = StringField(_l("Reason"))


class CardForm(VersionForm):
    start_no = IntegerField(_l("Start number"), validators=[Optional()])
    colour = SelectField(_l("Card"))
    round = SelectField(_l("Round"), coerce=str)
    referee1 = StringField(_l("Referee"))
    referee2 = StringField(_l("Second referee (required for a red card)"))
    reason = StringField(_l("Reason"))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.colour.choices = [("yellow", _("yellow card")), ("red", _("red card"))]


class WithdrawForm(VersionForm):
    start_no = IntegerField(_l("Start number"), validators=[Optional()])
    after_round = IntegerField(_l("Withdraws after round"), validators=[Optional()])
    reason = StringField(_l("Reason"))


class SubstituteForm(VersionForm):
    name = StringField(_l("Name of the substitute"))
    club = StringField(_l("Club"))
    substitute_for = IntegerField(_l("Replaces start number"), validators=[Optional()])
    from_round = IntegerField(_l("From round (empty: when the replaced player leaves)"), validators=[Optional()])


DISCIPLINE_FORMS = {"disqualify": DisqualifyForm, "card": CardForm, "withdraw": WithdrawForm,
                    "substitute": SubstituteForm}


def _is_referee(t) -> bool:
    """A referee's own account, assigned to this tournament, applies a change of a
    counted result at once; anyone else's (an operator, an admin) waits for one."""
    return current_user.role == "referee" and access.can_access(current_user, t.id)


def _discipline_page(t, forms=None, status=200, error=None):
    forms = dict(forms or {})
    round_choices = [(str(r.number), _("Round %(n)d", n=r.number)) for r in t.rounds if r.status != "draft"]
    open_round = next((r for r in reversed(t.rounds) if r.status == "published"), None)
    for name, cls in DISCIPLINE_FORMS.items():
        if name not in forms:
            forms[name] = cls(formdata=None)
            if hasattr(forms[name], "round") and open_round is not None:
                forms[name].round.data = str(open_round.number)
            if name == "withdraw" and t.rounds:
                last_done = max((r.number for r in t.rounds if r.status == "closed"), default=0)
                forms[name].after_round.data = last_done
        forms[name].version.data = t.version
        if hasattr(forms[name], "round"):
            forms[name].round.choices = round_choices
    return render_template("operator/results/discipline.html", t=t, forms=forms, info=dsvc.discipline_page(t),
                           error=error, is_referee=_is_referee(t), waiting=dsvc.open_proposals(t)), status


@bp.get("/t/<int:tid>/discipline")
@role_required("operator", "referee")
def discipline(tid: int):
    return _discipline_page(loaders.load_tournament(tid))


@bp.post("/t/<int:tid>/discipline/<action>")
@role_required("operator", "referee")
def discipline_action(tid: int, action: str):
    if action not in DISCIPLINE_FORMS:
        return redirect(url_for(".discipline", tid=tid))
    t = loaders.load_tournament(tid)
    if action not in get_ruleset(t.ruleset).discipline_options:  # the rule set has no such step
        return redirect(url_for(".discipline", tid=tid))
    form = DISCIPLINE_FORMS[action]()
    rounds_choices = [(str(r.number), str(r.number)) for r in t.rounds]
    if hasattr(form, "round"):
        form.round.choices = rounds_choices
    f = request.form
    referee = _is_referee(t)
    try:
        if action == "disqualify":
            res = dsvc.disqualify(t, f.get("round"), f.get("start_no"), _actor(), f.get("version"),
                                  early=bool(form.early.data), reason=f.get("reason", ""), referee=referee)
            sem = bool(get_ruleset(t.ruleset).cite("dq-case"))  # SEM-D1's cases, or the rule set's own
            if res.get("proposal"):
                msg = _waiting_message(res, sem=sem)
            elif res["sheet_in"]:
                msg = (_("Disqualification recorded at table %(t)d (SEM-%(rule)s): a new sheet version.",
                         t=res["table"], rule=res["case"]) if sem else
                       _("Disqualification recorded at table %(t)d: a new sheet version.", t=res["table"]))
            else:
                msg = (_("Disqualification noted at table %(t)d (SEM-%(rule)s): enter the table's sheet at the "
                         "results desk.", t=res["table"], rule=res["case"]) if sem else
                       _("Disqualification noted at table %(t)d: enter the table's sheet at the results desk.",
                         t=res["table"]))
        elif action == "card":
            res = dsvc.add_card(t, f.get("start_no"), f.get("colour"), f.get("round"),
                                [f.get("referee1"), f.get("referee2")], _actor(), f.get("version"),
                                reason=f.get("reason", ""), referee=referee)
            msg = _("Card recorded.")
            if res.get("proposal"):
                msg = _waiting_message(res, card=True)
            elif res["second_yellow"]:
                msg = _("Second yellow card in this tournament: it counts as a red card (disqualification).")
            elif res["disqualified"]:
                msg = _("Red card recorded: the player is disqualified (not ranked, not seated again).")
            if res.get("case") and not res.get("proposal"):
                msg += " " + _("Table %(t)d marked (SEM-%(rule)s).", t=res["table"], rule=res["case"])
        elif action == "withdraw":
            dsvc.withdraw(t, f.get("start_no"), f.get("after_round"), _actor(), f.get("version"),
                          reason=f.get("reason", ""))
            rule = get_ruleset(t.ruleset).cite("withdraw")  # SEM-D4, TH-5; none in ČSM, SMU
            msg = (_("Withdrawal recorded: the player keeps the rounds played (%(rule)s).", rule=rule) if rule else
                   _("Withdrawal recorded: the player keeps the rounds played."))
        else:
            p = dsvc.add_substitute(t, f.get("name"), f.get("club"), f.get("substitute_for"),
                                    f.get("from_round"), _actor(), f.get("version"))
            msg = _("Substitute added with start number %(s)d.", s=p.start_no)
    except ServiceError as e:
        db.session.rollback()
        t = loaders.load_tournament(tid)
        field = getattr(form, e.field, None) if e.field else None
        if field is not None and e.field != "version":
            field.errors = list(field.errors or []) + [str(e)]
            return _discipline_page(t, {action: form}, status=422)
        return _discipline_page(t, {action: form}, status=422, error=str(e))
    db.session.commit()
    flash(msg, "success")
    return redirect(url_for(".discipline", tid=tid))


def _waiting_message(res, card: bool = False, sem: bool = True) -> str:
    if card:
        return _("Table %(t)d's sheet already counts: the card and the disqualification it means (SEM-%(rule)s) "
                 "wait for a referee as case %(id)d. Nothing has changed until a referee approves it.",
                 t=res["table"], rule=res["case"], id=res["proposal"].id)
    if not sem:
        return _("Table %(t)d's sheet already counts: the disqualification waits for a referee as case %(id)d. "
                 "Nothing has changed until a referee approves it.", t=res["table"], id=res["proposal"].id)
    return _("Table %(t)d's sheet already counts: the disqualification (SEM-%(rule)s) waits for a referee as case "
             "%(id)d. Nothing has changed until a referee approves it.", t=res["table"], rule=res["case"],
             id=res["proposal"].id)


# --------------------------------------------------------------------------- corrections (SEM-C10)


class CorrectionForm(VersionForm):
    round = SelectField(_l("Round"), coerce=str)
    table = IntegerField(_l("Table"), validators=[Optional()])
    sum0 = StringField(_l("Real sum, position 1"))
    sum1 = StringField(_l("Real sum, position 2"))
    sum2 = StringField(_l("Real sum, position 3"))
    kind = SelectField(_l("Kind of correction"))
    asked_by = StringField(_l("Asked by (player)"))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.kind.choices = [(k, str(KIND_LABELS[k])) for k in KINDS]


def _correction_form(t, formdata=None):
    form = CorrectionForm(formdata=formdata)
    form.round.choices = [(str(r.number), _("Round %(n)d", n=r.number)) for r in t.rounds if r.status == "closed"]
    return form


def _corrections_page(t, form, *, preview=None, status=200, error=None, table=None, fragment=False):
    if corrections_service.no_published_corrections(t):  # no SEM-C10 in these rules: the message, no table to correct
        form, preview, table = _correction_form(t), None, None
    form.version.data = t.version
    rnd = _closed_round(t, form.round.data)
    if table is None and rnd is not None and form.table.data:
        table = next((x for x in rnd.tables if x.number == form.table.data), None)
    ctx = dict(t=t, form=form, preview=preview, error=error, table=table, rnd=rnd,
               players={p.start_no: p for p in t.players}, kinds=KIND_LABELS,
               corrections=list(reversed(t.corrections)), proposals=corrections_service.c10_proposals(t))
    if fragment:
        return render_template("operator/results/_correction_preview.html", **ctx), status
    return render_template("operator/results/corrections.html", **ctx), status


@bp.get("/t/<int:tid>/corrections")
@operator_required
def corrections(tid: int):
    """Choose a closed round and a table (GET), then enter the real sums."""
    t = loaders.load_tournament(tid)
    form = _correction_form(t, request.args if request.args.get("round") else None)
    refusal = corrections_service.no_published_corrections(t)
    if refusal:
        return _corrections_page(t, _correction_form(t), error=refusal)
    if not request.args.get("round"):
        last = loaders.last_closed(t)
        form.round.data = str(last) if last else None
    r = _closed_round(t, form.round.data)
    tab = next((x for x in r.tables if x.number == form.table.data), None) if r and form.table.data else None
    if tab is not None and not request.args.get("sum0"):
        # start from the recorded sums: the operator changes only what was wrong
        for i, s in enumerate(tab.sheet.sums):
            getattr(form, f"sum{i}").data = s
    return _corrections_page(t, form)


def _closed_round(t, number):
    return next((x for x in t.rounds if str(x.number) == str(number) and x.status == "closed"), None)


@bp.post("/t/<int:tid>/corrections/preview")
@operator_required
def correction_preview(tid: int):
    t = loaders.load_tournament(tid)
    form = _correction_form(t, request.form)
    f = request.form
    try:
        preview = corrections_service.preview_correction(t, f.get("round"), f.get("table"), _desk_sums(f),
                                                         f.get("kind"))
    except ServiceError as e:
        return _field_error(t, form, e, fragment=bool(htmx))
    return _corrections_page(t, form, preview=preview, fragment=bool(htmx))


@bp.post("/t/<int:tid>/corrections")
@operator_required
def correction_confirm(tid: int):
    t = loaders.load_tournament(tid)
    form = _correction_form(t, request.form)
    f = request.form
    try:
        case = corrections_service.propose_correction(t, f.get("round"), f.get("table"), _desk_sums(f), f.get("kind"),
                                      f.get("asked_by"), _actor(), f.get("version"))
    except ServiceError as e:
        db.session.rollback()
        t = loaders.load_tournament(tid)
        form = _correction_form(t, request.form)
        return _field_error(t, form, e)
    db.session.commit()
    flash(_("Round %(r)d, table %(t)d: the correction went to the referee (case %(id)d). Nothing changes "
            "until a referee approves it (SEM-C10).", r=case.round, t=case.table, id=case.id), "success")
    return redirect(url_for(".corrections", tid=tid))


def _field_error(t, form, e: ServiceError, fragment=False):
    field = getattr(form, e.field, None) if e.field and e.field not in ("version", "total") else None
    if field is not None:
        field.errors = list(field.errors or []) + [str(e)]
        return _corrections_page(t, form, status=422, fragment=fragment)
    return _corrections_page(t, form, status=422, error=str(e), fragment=fragment)
