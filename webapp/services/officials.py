"""A tournament's officials (BB-2 jury of 3, SMU-4 referees named from the players): the operator
names them on the setup page, each a referee account of the venue; naming one assigns the account
to the tournament (referee rights there). Once officials are named, only they decide the
tournament's cases, and an official who plays at the table of a case does not decide it."""
from __future__ import annotations

from flask_babel import gettext as _
from sqlalchemy import select

from ..extensions import db
from ..models import Case, Official, Player, Round, RoundTable, Tournament, User
from ..rules.ruleset import get_ruleset
from . import access, rule_texts
from .common import ServiceError, audit


def officials_of(t: Tournament) -> list[Official]:
    return list(db.session.scalars(select(Official).where(Official.tournament_id == t.id).order_by(Official.id)))


def candidates(t: Tournament) -> list[User]:
    """Referee accounts of the tournament's venue that are not named yet."""
    named = {o.user_id for o in officials_of(t)}
    venue = User.venue_id.is_(None) if t.venue_id is None else User.venue_id == t.venue_id
    users = db.session.scalars(select(User).where(User.role == "referee", User.active.is_(True), venue)
                               .order_by(User.username))
    return [u for u in users if u.id not in named]


def _int(value, field: str) -> int | None:
    text = str(value or "").strip()
    if not text:
        return None
    if not text.isdigit():
        raise ServiceError(_("Enter a whole number."), field=field)
    return int(text)


def name_official(t: Tournament, user_id, start_no, club: str | None, actor: str) -> Official:
    """Name one official (BB-2, SMU-4). Refused with a message naming what is wrong: another club's
    member twice (BB-2), a referee who is not a player (SMU-4), more than the rule set's number."""
    rs = get_ruleset(t.ruleset)
    spec = rs.officials
    if spec is None:
        raise ServiceError(_("These rules name no officials per tournament: referees are assigned to it."))
    uid = _int(user_id, "user")
    user = db.session.get(User, uid) if uid is not None else None
    if user is None or user.role != "referee" or user.venue_id != t.venue_id:
        raise ServiceError(_("Choose a referee account of this venue."), field="user")
    named = officials_of(t)
    if any(o.user_id == user.id for o in named):
        raise ServiceError(_("%(name)s is named already.", name=user.label), field="user")
    number = _int(start_no, "start_no")
    player = None
    if number is not None:
        player = db.session.scalar(select(Player).where(Player.tournament_id == t.id, Player.start_no == number))
        if player is None:
            raise ServiceError(_("Start number %(s)d is not a player of this tournament.", s=number), field="start_no")
    club = (club or "").strip()[:120] or (player.club if player is not None else None) or None
    problem = spec.check([(o.club, o.start_no) for o in named] + [(club, number)])
    if problem is not None:
        field = {"officials-same-club": "club", "officials-club": "club", "officials-player": "start_no",
                 "officials-twice": "start_no"}.get(problem.code)
        raise ServiceError(rule_texts.problem_text(problem), field=field)
    o = Official(tournament_id=t.id, user_id=user.id, club=club, start_no=number, created_by=actor)
    db.session.add(o)
    access.assign(user, t.id)
    db.session.flush()
    audit("official.name", actor, {"user": user.username, "club": club, "start_no": number,
                                   "rule": spec.rule}, t.id)
    return o


def remove_official(t: Tournament, oid, actor: str) -> None:
    o = db.session.get(Official, _int(oid, "official") or 0)
    if o is None or o.tournament_id != t.id:
        raise ServiceError(_("No such official."))
    audit("official.remove", actor, {"user": o.user.username, "club": o.club, "start_no": o.start_no}, t.id)
    db.session.delete(o)
    db.session.flush()


def refusal(user, c: Case) -> str | None:
    """Why `user` may not decide case `c`, or None. Where the rule set names officials and the
    operator has named them, only they decide (BB-2: the jury; SMU-4: the referees), and one who
    plays at the table of the case leaves it to the others."""
    t = db.session.get(Tournament, c.tournament_id)
    spec = get_ruleset(t.ruleset).officials
    if spec is None:
        return None
    named = officials_of(t)
    if not named:
        return None
    mine = next((o for o in named if o.user_id == user.id), None)
    if mine is None:
        return (_("In this tournament the jury decides (%(rule)s): you are not one of its members.", rule=spec.rule)
                if spec.kind == "jury" else
                _("In this tournament the named referees decide (%(rule)s): you are not one of them.", rule=spec.rule))
    players = table_players(c)
    if players and not spec.may_decide(mine.start_no, players):
        if spec.kind == "jury":
            return _("You play at table %(t)d of round %(r)d (start number %(s)d): the other members of the jury "
                     "decide this case (%(rule)s).", t=c.table, r=c.round, s=mine.start_no, rule=spec.rule)
        return _("You play at table %(t)d of round %(r)d (start number %(s)d): another referee decides this case "
                 "(%(rule)s).", t=c.table, r=c.round, s=mine.start_no, rule=spec.rule)
    return None


def table_players(c: Case) -> list[int]:
    if c.table is None:
        return []
    tab = db.session.scalar(select(RoundTable).join(Round).where(
        Round.tournament_id == c.tournament_id, Round.number == c.round, RoundTable.number == c.table))
    return list(tab.players) if tab is not None else []


def check_may_decide(user, c: Case) -> None:
    why = refusal(user, c)
    if why:
        raise ServiceError(why)
