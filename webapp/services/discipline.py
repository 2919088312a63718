"""Discipline (SEM-D, SEM-E): disqualifications, cards, withdrawals, substitutes.

The engine decides what they mean for points and the ranking (table_outcome,
field_status); this module only stores them, each with an audit entry that
says who did what, when, and the value before and after.

What would change a counted result (a new version of a table's sheet with a
disqualification) is applied only by a referee of the tournament (`referee`):
from anyone else it becomes a "discipline" case the referee approves, which
then runs the same code (`apply_proposal`).
"""
from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace

from flask_babel import gettext as _
from sqlalchemy import select

from ..extensions import db
from ..models import Case, Event, Player, Round, RoundTable, Sheet, Tournament, utcnow
from ..rules.points import table_outcome
from ..rules.ruleset import get_ruleset
from ..rules.standings import field_status
from . import rounds as round_service
from .common import ServiceError, StaleError, audit, bump, check_version
from .engine import rules_table, rules_tournament
from .corrections import case_table
from .desk import dq_case, sheet_outcome, table_dq

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
                      reason: str = "", referee: bool = False) -> dict:
    """SEM-D1 at the player's table of round r: a sheet already in gets a new
    version with the disqualification (from a referee; from anyone else it is
    a case, see `propose`); otherwise it is noted on the table and the desk
    records the sheet with it."""
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
        _refuse_if_waiting(t, r, tab)
    if sheet is not None and not referee:
        return propose(t, r, tab, start_no, actor, {
            "action": "disqualify", "round": r.number, "start_no": start_no, "early": early,
            "reason": (reason or "").strip()}, dq=new, early=early)
    if sheet is not None:
        round_service.record_sheet(
            t, tab, [Decimal(s) for s in sheet.sums], actor, source=sheet.source, disqualified=new,
            early=early, note=sheet.note, replace_version=sheet.version, entered_sums=sheet.entered_sums,
            late=sheet.late, keeper_by_lot=sheet.keeper_by_lot)
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
               reason: str = "", referee: bool = False) -> dict:
    """`referee`: the actor is a referee of the tournament (a new sheet version
    is applied at once); otherwise such a change becomes a case. The result has
    "case" (the Case) when it was proposed."""
    check_version(t, version)
    p = _player(t, start_no)
    r = _round(t, round_no)
    return mark_disqualified(t, r, p.start_no, actor, early=early, reason=reason, referee=referee)


def add_card(t: Tournament, start_no, colour: str, round_no, referees, actor: str, version,
             reason: str = "", referee: bool = False) -> dict:
    """SEM-E: a yellow or red card. A red card needs two referees; a red card or
    a second yellow in the tournament disqualifies (SEM-E6, E8, D1): in an open
    round the player's table is marked at once. When that means a new version
    of a counted sheet and the actor is no referee (`referee`), nothing is
    stored but a case: the card is given when a referee approves it."""
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
        seat = round_service.seat_of(r, p.start_no) if r.status in ("published", "closed") else None
        tab = seat[0] if seat is not None else None
        if tab is not None and tab.sheet is not None and p.start_no not in table_dq(tab)[0]:
            _refuse_if_waiting(t, r, tab)
        if not referee and tab is not None and tab.sheet is not None and p.start_no not in table_dq(tab)[0]:
            old, old_early = table_dq(tab)
            early = old_early if r.status == "published" else bool(tab.sheet.early)
            res = propose(t, r, tab, p.start_no, actor, {
                "action": "card", "round": r.number, "start_no": p.start_no, "colour": colour, "referees": refs,
                "reason": (reason or "").strip()}, dq=[s for s in tab.players if s in old or s == p.start_no],
                early=early)
            return {**res, "event": None, "disqualified": True, "second_yellow": colour == "yellow"}
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
            result.update(mark_disqualified(t, r, p.start_no, actor, reason=_("card"), referee=referee))
    elif out and r.status == "closed" and round_service.seat_of(r, p.start_no) is not None:
        tab, _i = round_service.seat_of(r, p.start_no)
        if p.start_no not in table_dq(tab)[0] and tab.sheet is not None and referee:
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


def _disqualify_after_close(t: Tournament, r: Round, tab, start_no: int, actor: str, *, early: bool = False,
                            reason: str = "card after the round closed") -> dict:
    """SEM-D1c (or D1b, D1a) where the card happens: a red card given after round r
    closed disqualifies the player at that round's table. The sums stay as signed; a
    new sheet version adds the disqualification (the old one is kept, superseded),
    so the table-mates get their SEM-D1 points and money at once."""
    old = tab.sheet
    dq = [s for s in tab.players if s in (old.disqualified or ()) or s == start_no]
    old.status = "superseded"
    sheet = Sheet(table=tab, version=max(x.version for x in tab.sheets) + 1, status="accepted",
                  sums=list(old.sums), entered_sums=old.entered_sums, points=None, disqualified=dq,
                  early=bool(old.early) or early, source=old.source, note=old.note, created_by=actor)
    db.session.add(sheet)
    bump(t)
    db.session.flush()
    case = dq_case(tab, dq)
    audit("discipline.disqualify", actor, {
        "round": r.number, "table": tab.number, "start_no": start_no, "reason": reason,
        "rule": f"SEM-{case}", "old": {"disqualified": list(old.disqualified or ()), "points": old.points,
                                       "version": old.version},
        "new": {"disqualified": dq, "version": sheet.version}, "sheet": "new version"}, t.id)
    return {"table": tab.number, "case": case, "sheet_in": True}


# --------------------------------------------------------------------------- proposals a referee approves


def _points(x) -> str | None:
    return None if x is None else str(x)


def _money(x) -> str | None:
    return None if x is None else f"{x:.2f}"


def proposal_preview(t: Tournament, tab: RoundTable, dq: list[int], early: bool) -> dict:
    """What a new version of the table's counted sheet with these
    disqualifications changes: the engine's points and money before and after
    (the sums stay as they count)."""
    sheet = tab.sheet
    before = sheet_outcome(t, tab)
    after = table_outcome(get_ruleset(t.ruleset), rules_table(tab.number, tab.players, SimpleNamespace(
        sums=list(sheet.sums), points=None, disqualified=list(dq), early=early)))
    return {"seats": list(tab.players), "sums": list(sheet.sums), "rule": dq_case(tab, dq),
            "old": {"disqualified": list(sheet.disqualified or ()), "early": bool(sheet.early),
                    "points": [_points(x) for x in before.points], "money": [_money(x) for x in before.money]},
            "new": {"disqualified": list(dq), "early": bool(early),
                    "points": [_points(x) for x in after.points], "money": [_money(x) for x in after.money]}}


def open_proposal(t: Tournament, round_no: int, table: int) -> Case | None:
    return db.session.scalar(select(Case).where(
        Case.tournament_id == t.id, Case.round == round_no, Case.table == table, Case.kind == "discipline",
        Case.status == "open").order_by(Case.id).limit(1))


def open_proposals(t: Tournament) -> list[Case]:
    return list(db.session.scalars(select(Case).where(
        Case.tournament_id == t.id, Case.kind == "discipline", Case.status == "open").order_by(Case.id)))


def _refuse_if_waiting(t: Tournament, r: Round, tab: RoundTable) -> None:
    """One proposal per table at a time: a second one (or a referee's own entry)
    would change the version the waiting one shows."""
    waiting = open_proposal(t, r.number, tab.number)
    if waiting is not None:
        raise ServiceError(_("A disqualification at table %(t)d of round %(r)d is already waiting for a referee "
                             "(case %(id)d): the referee decides it first.", t=tab.number, r=r.number,
                             id=waiting.id), field="start_no")


def propose(t: Tournament, r: Round, tab: RoundTable, start_no: int, actor: str, action: dict, *,
            dq: list[int], early: bool) -> dict:
    """A change of a counted result from someone who is no referee of the
    tournament: nothing but a case is stored (promise 1). `action` is what
    `apply_proposal` runs once a referee approves."""
    _refuse_if_waiting(t, r, tab)
    preview = proposal_preview(t, tab, dq, early)
    c = Case(tournament_id=t.id, round=r.number, table=tab.number, kind="discipline", status="open",
             other_sheet_id=tab.sheet.id, created_by=(actor or "")[:120],
             payload={**action, "base_version": tab.sheet.version, "preview": preview})
    db.session.add(c)
    db.session.flush()
    audit("discipline.propose", actor, {"case": c.id, "round": r.number, "table": tab.number, "start_no": start_no,
                                        "rule": f"SEM-{preview['rule']}", "action": action.get("action"),
                                        "old": preview["old"], "new": preview["new"],
                                        "sheet": "waits for a referee"}, t.id)
    return {"table": tab.number, "case": preview["rule"], "sheet_in": True, "proposal": c}


def apply_proposal(c: Case, t: Tournament, actor: str) -> dict:
    """A referee approves a discipline case: the same code as a referee's own
    entry, on the sheet version the case was proposed for, and only if the
    engine's result is still what the case shows."""
    p = c.payload or {}
    r, tab, current = case_table(c, t)
    if current is None or current.version != p.get("base_version"):
        raise StaleError(_("The sheet of round %(r)d, table %(t)d changed since this was proposed (version %(v)d "
                           "then, version %(cur)d now). Reject it: the operator proposes it again.", r=c.round,
                           t=c.table or 0, v=p.get("base_version") or 0, cur=current.version if current else 0))
    if p.get("action") == "card":
        res = add_card(t, p["start_no"], p["colour"], p["round"], p.get("referees") or [], actor, t.version,
                       reason=p.get("reason") or "", referee=True)
    elif r.status == "closed":  # the round was closed while the case waited: the sums stay as they count
        _check_later_rounds(t, r, p["start_no"])
        res = _disqualify_after_close(t, r, tab, p["start_no"], actor, early=bool(p.get("early")),
                                      reason=p.get("reason") or "")
    else:
        res = disqualify(t, p["round"], p["start_no"], actor, t.version, early=bool(p.get("early")),
                         reason=p.get("reason") or "", referee=True)
    new = tab.sheet
    expected = (p.get("preview") or {}).get("new") or {}
    if new is None or new.version == current.version or \
            proposal_preview(t, tab, list(new.disqualified or ()), bool(new.early))["new"] != expected:
        raise StaleError(_("What this disqualification changes is no longer what was proposed. Reject it: the "
                           "operator proposes it again."))
    return {**{k: v for k, v in res.items() if k != "event"}, "version": new.version, "sheet": new.id}


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
    rs = get_ruleset(t.ruleset)
    left_table = None
    for r in t.rounds:
        if r.number > k and round_service.seat_of(r, p.start_no) is not None:
            if (rs.withdraw_during_round and r.number == k + 1 and r.status == "published"
                    and r.number <= rs.qualification_rounds):
                left_table = _leave_table(t, r, p.start_no)
                continue
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
    record = {"start_no": p.start_no, "reason": ev.reason,
              "old": {"withdrawn": None}, "new": {"withdrawn_after_round": k}}
    if left_table is not None:
        record["left_table"] = left_table
    audit("discipline.withdraw", actor, record, t.id)
    return ev


def _leave_table(t: Tournament, r: Round, start_no: int) -> dict:
    """TH-5: a player withdraws during round r, before the table's sheet is in: they leave
    the table, which plays on without them; two left make a frozen table (results.frozen_table)."""
    tab, _pos = round_service.seat_of(r, start_no)
    if any(s.status in ("accepted", "pending", "dispute") for s in tab.sheets):
        raise ServiceError(_("Table %(t)d of round %(n)d has a sheet: the withdrawal can be after round %(n)d "
                             "at the earliest.", t=tab.number, n=r.number), field="after_round")
    if len(tab.players) <= 2:
        raise ServiceError(_("Table %(t)d of round %(n)d has only two players: a withdrawal there can be after "
                             "round %(n)d at the earliest.", t=tab.number, n=r.number), field="after_round")
    before = list(tab.players)
    tab.players = [s for s in before if s != start_no]
    tab.flags = list(tab.flags or ()) + ["withdrawal"]
    return {"round": r.number, "table": tab.number, "old": before, "new": list(tab.players)}


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
