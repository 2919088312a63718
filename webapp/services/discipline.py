"""Discipline (SEM-D, SEM-E): disqualifications, cards, withdrawals, substitutes.

The engine decides what they mean for points and the ranking (table_outcome,
field_status); this module only stores them, each with an audit entry that
says who did what, when, and the value before and after.
"""
from __future__ import annotations

from decimal import Decimal

from flask_babel import gettext as _

from ..extensions import db
from ..models import Event, Player, Round, Sheet, Tournament, utcnow
from ..rules.ruleset import get_ruleset
from ..rules.standings import field_status
from . import rounds as round_service
from .common import ServiceError, audit, bump, check_version
from .engine import rules_tournament
from .results import dq_case, table_dq

COLOURS = ("yellow", "red")


def _player(t: Tournament, start_no, field: str = "start_no") -> Player:
    try:
        s = int(start_no)
    except (TypeError, ValueError):
        raise ServiceError(_("Enter a start number."), field=field) from None
    p = next((x for x in t.players if x.start_no == s), None)
    if p is None:
        raise ServiceError(_("There is no player with start number %(s)d.", s=s), field=field)
    return p


def _round(t: Tournament, round_no, field: str = "round") -> Round:
    try:
        n = int(round_no)
    except (TypeError, ValueError):
        raise ServiceError(_("Choose a round."), field=field) from None
    r = next((x for x in t.rounds if x.number == n), None)
    if r is None:
        raise ServiceError(_("Round %(n)d has not been drawn.", n=n), field=field)
    return r


def mark_disqualified(t: Tournament, r: Round, start_no: int, actor: str, *, early: bool = False,
                      reason: str = "") -> dict:
    """SEM-D1 at the player's table of round r: a sheet already in gets a new
    version with the disqualification; otherwise it is noted on the table and
    the desk records the sheet with it."""
    if r.status == "draft":
        raise ServiceError(_("Round %(n)d is not published yet.", n=r.number), field="round")
    if r.status == "closed":
        raise ServiceError(_("Round %(n)d is closed: a disqualification is recorded during the round. "
                             "A red card still takes the player out of the ranking and later rounds.",
                             n=r.number), field="round")
    seat = round_service.seat_of(r, start_no)
    if seat is None:
        raise ServiceError(_("Start number %(s)d does not play in round %(n)d.", s=start_no, n=r.number),
                           field="start_no")
    tab, _i = seat
    old, old_early = table_dq(tab)
    if start_no in old:
        raise ServiceError(_("Start number %(s)d is already disqualified at table %(t)d.",
                             s=start_no, t=tab.number), field="start_no")
    new = [s for s in tab.players if s in old or s == start_no]
    early = early or old_early
    sheet = tab.sheet
    if sheet is not None:
        round_service.record_sheet(
            t, tab, [Decimal(s) for s in sheet.sums], actor, source=sheet.source, disqualified=new,
            early=early, note=sheet.note, replace_version=sheet.version, entered_sums=sheet.entered_sums)
    else:
        tab.pending_dq = {"players": new, "early": early}
        bump(t)
    case = dq_case(tab, new)
    audit("discipline.disqualify", actor, {
        "round": r.number, "table": tab.number, "start_no": start_no, "reason": reason, "rule": f"SEM-{case}",
        "old": {"disqualified": old, "early": old_early}, "new": {"disqualified": new, "early": early},
        "sheet": "new version" if sheet is not None else "noted, sheet not in"}, t.id)
    return {"table": tab.number, "case": case, "sheet_in": sheet is not None}


def disqualify(t: Tournament, round_no, start_no, actor: str, version, *, early: bool = False,
               reason: str = "") -> dict:
    check_version(t, version)
    p = _player(t, start_no)
    r = _round(t, round_no)
    return mark_disqualified(t, r, p.start_no, actor, early=early, reason=reason)


def add_card(t: Tournament, start_no, colour: str, round_no, referees, actor: str, version,
             reason: str = "") -> dict:
    """SEM-E: a yellow or red card. A red card needs two referees; a red card or
    a second yellow in the tournament disqualifies (SEM-E6, E8, D1): in an open
    round the player's table is marked at once."""
    check_version(t, version)
    p = _player(t, start_no)
    if colour not in COLOURS:
        raise ServiceError(_("Choose the colour of the card."), field="colour")
    r = _round(t, round_no)
    refs = []
    for name in referees:
        name = (name or "").strip()
        if name and name.casefold() not in (x.casefold() for x in refs):
            refs.append(name)
    if not refs:
        raise ServiceError(_("Name the referee who gives the card."), field="referee1")
    if colour == "red" and len(refs) < 2:
        raise ServiceError(_("A red card needs at least two referees (SEM-E): name the second referee."),
                           field="referee2")
    yellows_before = sum(1 for e in t.events if e.type == "card" and e.colour == "yellow" and e.start_no == p.start_no)
    if colour == "red" or yellows_before == 1:
        _check_later_rounds(t, r, p.start_no)
    ev = Event(tournament=t, type="card", start_no=p.start_no, colour=colour, round=r.number,
               referees=refs, reason=(reason or "").strip(), created_by=actor)
    db.session.add(ev)
    db.session.flush()
    yellows = sum(1 for e in t.events if e.type == "card" and e.colour == "yellow" and e.start_no == p.start_no)
    out = colour == "red" or (colour == "yellow" and yellows == 2)
    bump(t)
    audit("discipline.card", actor, {
        "start_no": p.start_no, "colour": colour, "round": r.number, "referees": refs, "reason": ev.reason,
        "old": {"yellow_cards": yellows - (colour == "yellow")}, "new": {"disqualified": out}}, t.id)
    result = {"event": ev, "disqualified": out, "second_yellow": colour == "yellow" and yellows == 2,
              "table": None}
    if out and r.status == "published" and round_service.seat_of(r, p.start_no) is not None:
        tab, _i = round_service.seat_of(r, p.start_no)
        if p.start_no not in table_dq(tab)[0]:
            result.update(mark_disqualified(t, r, p.start_no, actor, reason=_("card")))
    elif out and r.status == "closed" and round_service.seat_of(r, p.start_no) is not None:
        tab, _i = round_service.seat_of(r, p.start_no)
        if p.start_no not in table_dq(tab)[0] and tab.sheet is not None:
            result.update(_disqualify_after_close(t, r, tab, p.start_no, actor))
    return result


def _check_later_rounds(t: Tournament, r: Round, start_no: int) -> None:
    """A card that disqualifies in round r (SEM-E6, E8) takes the player out from
    round r on: refused while the player sits in a later round already drawn."""
    for later in t.rounds:
        if later.number > r.number and round_service.seat_of(later, start_no) is not None:
            if later.status == "draft":
                raise ServiceError(_("Round %(n)d is drawn with start number %(s)d: discard that draw first, "
                                     "give the card, then draw again.", n=later.number, s=start_no), field="round")
            raise ServiceError(_("Start number %(s)d plays in round %(n)d: a card that disqualifies is given in "
                                 "that round.", s=start_no, n=later.number), field="round")


def _disqualify_after_close(t: Tournament, r: Round, tab, start_no: int, actor: str) -> dict:
    """SEM-D1c (or D1b, D1a) where the card happens: a red card given after round r
    closed disqualifies the player at that round's table. The sums stay as signed; a
    new sheet version adds the disqualification (the old one is kept, superseded),
    so the table-mates get their SEM-D1 points and money at once."""
    old = tab.sheet
    dq = [s for s in tab.players if s in (old.disqualified or ()) or s == start_no]
    old.status = "superseded"
    sheet = Sheet(table=tab, version=max(x.version for x in tab.sheets) + 1, status="accepted",
                  sums=list(old.sums), entered_sums=old.entered_sums, points=None, disqualified=dq,
                  early=bool(old.early), source=old.source, note=old.note, created_by=actor)
    db.session.add(sheet)
    bump(t)
    db.session.flush()
    case = dq_case(tab, dq)
    audit("discipline.disqualify", actor, {
        "round": r.number, "table": tab.number, "start_no": start_no, "reason": "card after the round closed",
        "rule": f"SEM-{case}", "old": {"disqualified": list(old.disqualified or ()), "points": old.points,
                                       "version": old.version},
        "new": {"disqualified": dq, "version": sheet.version}, "sheet": "new version"}, t.id)
    return {"table": tab.number, "case": case, "sheet_in": True}


def withdraw(t: Tournament, start_no, after_round, actor: str, version, reason: str = "") -> Event:
    """SEM-D4: the player keeps the rounds played and is not seated after `after_round`."""
    check_version(t, version)
    p = _player(t, start_no)
    if any(e.type == "withdrawn" and e.start_no == p.start_no for e in t.events):
        raise ServiceError(_("Start number %(s)d has already withdrawn.", s=p.start_no), field="start_no")
    try:
        k = int(after_round)
    except (TypeError, ValueError):
        raise ServiceError(_("Say after which round the player withdraws."), field="after_round") from None
    last = t.rounds[-1].number if t.rounds else 0
    if not 0 <= k <= last:
        raise ServiceError(_("After round %(k)d? Give 0 for a withdrawal before round 1, or a round up to %(last)d.", k=k, last=last),
                           field="after_round")
    for r in t.rounds:
        if r.number > k and round_service.seat_of(r, p.start_no) is not None:
            if r.status == "draft":
                raise ServiceError(_("Round %(n)d is drawn with start number %(s)d: discard that draw first, "
                                     "record the withdrawal, then draw again.", n=r.number, s=p.start_no),
                                   field="after_round")
            raise ServiceError(_("Start number %(s)d plays in round %(n)d: the withdrawal can be after round "
                                 "%(n)d at the earliest.", s=p.start_no, n=r.number), field="after_round")
    ev = Event(tournament=t, type="withdrawn", start_no=p.start_no, after_round=k, reason=(reason or "").strip(),
               created_by=actor)
    db.session.add(ev)
    bump(t)
    db.session.flush()
    audit("discipline.withdraw", actor, {"start_no": p.start_no, "reason": ev.reason,
                                         "old": {"withdrawn": None}, "new": {"withdrawn_after_round": k}}, t.id)
    return ev


def add_substitute(t: Tournament, name: str, club: str, substitute_for, from_round, actor: str, version) -> Player:
    """SEM-D1b, D3, D5: a substitute named by the organiser. Whether they are
    ranked is the engine's decision (see `substitute_rule`)."""
    check_version(t, version)
    name = (name or "").strip()
    if not name:
        raise ServiceError(_("Enter the substitute's name."), field="name")
    replaced = _player(t, substitute_for, field="substitute_for")
    if any(p.substitute_for == replaced.start_no for p in t.players):
        raise ServiceError(_("Start number %(s)d already has a substitute.", s=replaced.start_no),
                           field="substitute_for")
    n = None
    if from_round not in (None, ""):
        try:
            n = int(from_round)
        except (TypeError, ValueError):
            raise ServiceError(_("Enter a round number."), field="from_round") from None
        rs = get_ruleset(t.ruleset)
        if not 1 <= n <= rs.rounds:
            raise ServiceError(_("The tournament has rounds 1 to %(n)d.", n=rs.rounds), field="from_round")
        drawn = [r.number for r in t.rounds if r.number >= n]
        if drawn:
            raise ServiceError(_("Round %(n)d is already drawn: the substitute can start in round %(next)d.",
                                 n=drawn[0], next=t.rounds[-1].number + 1), field="from_round")
    start_no = max((p.start_no for p in t.players), default=0) + 1
    p = Player(tournament=t, start_no=start_no, name=name, club=(club or "").strip() or None, status="substitute",
               present=True, checked_in_at=utcnow(), substitute_for=replaced.start_no, from_round=n)
    db.session.add(p)
    bump(t)
    db.session.flush()
    audit("discipline.substitute", actor, {"start_no": start_no, "name": name, "club": p.club,
                                           "substitute_for": replaced.start_no, "from_round": n,
                                           "old": None, "new": {"status": "substitute"}}, t.id)
    return p


def substitute_rule(status, p: Player, disqualified=frozenset()) -> str:
    """How the engine treats a substitute: 'D3' ranked (replaces a disqualified
    player), 'D5' not ranked (replaces a withdrawn player), 'pending' (the replaced
    player has not left the field yet: ranked). `disqualified` adds the
    disqualifications of the round in play, which the engine sees once it is complete."""
    if p.substitute_for in status.disqualified or p.substitute_for in disqualified:
        return "D3"
    if p.start_no in status.unranked_substitutes:
        return "D5"
    return "pending"


def discipline_page(t: Tournament) -> dict:
    rt = rules_tournament(t)
    # cards and withdrawals of the round in play count too, not only complete rounds
    status = field_status(rt, t.rounds[-1].number if t.rounds else 0)
    players = {p.start_no: p for p in t.players}
    open_round = next((r for r in reversed(t.rounds) if r.status == "published"), None)
    dq_tables, at_tables = [], set()
    for r in t.rounds:
        for tab in r.tables:
            dq, early = table_dq(tab)
            if dq:
                at_tables.update(dq)
                dq_tables.append({"round": r.number, "table": tab.number, "players": dq, "early": early,
                                  "case": dq_case(tab, dq), "sheet_in": tab.sheet is not None})
    subs = [{"player": p, "rule": substitute_rule(status, p, at_tables), "replaced": players.get(p.substitute_for)}
            for p in t.players if p.substitute_for is not None]
    return {
        "players": players, "open_round": open_round, "dq_tables": dq_tables,
        "cards": [e for e in t.events if e.type == "card"],
        "withdrawals": [e for e in t.events if e.type == "withdrawn"],
        "substitutes": subs, "disqualified": status.disqualified,
    }
