"""Tournament list, creation and the tournament's dashboard."""
from __future__ import annotations

from flask import flash, redirect, render_template, url_for
from flask_babel import gettext as _, lazy_gettext as _l
from flask_login import current_user
from flask_wtf import FlaskForm
from wtforms import DateField, SelectField, StringField
from wtforms.validators import DataRequired, Length, Optional

from ...extensions import db
from ...i18n import ruleset_title
from ...models import Tournament
from ...rules.ruleset import REGISTRY, get_ruleset
from ...services import access, rounds
from ...services.common import audit, get_tournament
from ...services.paper import LANGUAGE_NAMES, language_choices, paper_language
from ...services.players import checkin_summary
from ...http.venue import offline_mode, qr_base_url
from ..auth import operator_required
from . import bp


class TournamentForm(FlaskForm):
    name = StringField(_l("Tournament name"), validators=[DataRequired(), Length(max=200)])
    date = DateField(_l("Date"), validators=[Optional()])
    venue = StringField(_l("Venue"), validators=[Length(max=200)])
    ruleset = SelectField(_l("Rule set"), default="sem")
    paper_language = SelectField(_l("Language of the players' paper (PIN slips, sheets)"), default="")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        get_ruleset("sem")  # loads the registry
        self.ruleset.choices = [(code, ruleset_title(rs)) for code, rs in REGISTRY.items()]
        self.paper_language.choices = language_choices()


class PaperLanguageForm(FlaskForm):
    paper_language = SelectField(_l("Language of the players' paper (PIN slips, sheets)"), default="")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.paper_language.choices = language_choices()


@bp.get("/")
@operator_required
def index():
    return _index_page(TournamentForm())


def _index_page(form: TournamentForm, status: int = 200):
    """The tournaments this user works at (an admin: all of them)."""
    tournaments = db.session.scalars(access.visible_tournaments(current_user)
                                     .order_by(Tournament.date.desc(), Tournament.id.desc())).all()
    return render_template("operator/index.html", tournaments=tournaments, form=form,
                           replica=replica_view()), status


def replica_view():
    """What the dashboard says about the replica (operator/_replica.html), or None without one."""
    from pathlib import Path

    from flask import current_app
    from flask_babel import format_time

    from ...serve import replica

    st = replica.state(Path(current_app.instance_path))
    if st is None:
        return None
    return {"dest": st.dest, "at": format_time(st.last_at, "HH:mm:ss") if st.last_at else "",
            "lag": int(st.lag or 0), "stopped": not st.running or st.stale, "behind": st.behind,
            "waiting": st.last is None}


@bp.get("/replica")
@operator_required
def replica_state():
    return render_template("operator/_replica.html", replica=replica_view())


@bp.post("/tournaments")
@operator_required
def create_tournament():
    form = TournamentForm()
    if not form.validate_on_submit():
        return _index_page(form, 422)
    t = Tournament(name=form.name.data.strip(), date=form.date.data, venue=(form.venue.data or "").strip(),
                   ruleset=form.ruleset.data, venue_id=current_user.venue_id,  # owned by the creator's venue
                   paper_language=form.paper_language.data or None)
    db.session.add(t)
    db.session.flush()
    access.assign(current_user, t.id)
    audit("tournament.create", current_user.label, {"name": t.name}, t.id)
    db.session.commit()
    flash(_("Tournament created."), "success")
    return redirect(url_for("operator.tournament", tid=t.id))


@bp.get("/t/<int:tid>")
@operator_required
def tournament(tid: int):
    """The tournament's hub: what has been done, what to do next, links to every desk."""
    t = get_tournament(tid)
    cur = rounds.current_round(t)
    progress = rounds.tables_in(cur) if cur is not None else (0, 0)
    rs = get_ruleset(t.ruleset)
    return render_template("operator/tournament.html", t=t, rs=rs, cur=cur, progress=progress,
                           checkin=checkin_summary(t), next_n=rounds.next_round_number(t),
                           offline=offline_mode(qr_base_url()), title=ruleset_title(rs),
                           paper=paper_language(t), paper_names=LANGUAGE_NAMES, paper_form=PaperLanguageForm(paper_language=t.paper_language or ""),
                           replica=replica_view())


@bp.post("/t/<int:tid>/paper-language")
@operator_required
def set_paper_language(tid: int):
    """The language PIN slips and printed sheets speak from now on."""
    t = get_tournament(tid)
    form = PaperLanguageForm()
    if not form.validate_on_submit():
        flash(_("Choose one of the offered languages."), "error")
        return redirect(url_for("operator.tournament", tid=t.id))
    before, t.paper_language = t.paper_language, form.paper_language.data or None
    audit("tournament.paper_language", current_user.label, {"before": before, "after": t.paper_language}, t.id)
    db.session.commit()
    flash(_("The PIN slips and sheets are now printed in %(language)s.",
            language=LANGUAGE_NAMES[paper_language(t)]), "success")
    return redirect(url_for("operator.tournament", tid=t.id))
