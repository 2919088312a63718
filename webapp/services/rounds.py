"""The round cycle: draw → (swap) → publish → clock → sheets in → close → standings.

Every function changes the database in the caller's session and leaves the
commit to the caller, so a refused action (ServiceError) changes nothing.
"""
from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from itertools import combinations
from types import SimpleNamespace
from decimal import Decimal, InvalidOperation

from flask_babel import gettext as _, ngettext

from ..extensions import db
from ..i18n import in_unit
from ..models import Round, RoundTable, Sheet, Tournament, utcnow
from ..rules.model import CENT
from ..rules.points import administrative_correction, sheet_hints
from ..rules.ruleset import get_ruleset
from ..rules.seating import DrawError, draw
from ..rules.season import NOMINATE_ABOVE, NominationError, nomination_duty, nominations
from ..rules.tables import opponents
from . import chain_heads, rule_texts
from .common import ServiceError, audit, bump, check_version
from .engine import rules_table, rules_tournament, score_text
from .venue_season import season_places


def current_round(t: Tournament) -> Round | None:
    return t.rounds[-1] if t.rounds else None


def next_round_number(t: Tournament) -> int:
    r = current_round(t)
    return 1 if r is None else r.number + 1


def apply_auto_nominations(t: Tournament, actor: str) -> list[str]:
    """SEM-B3b: clubs that had to nominate and did not are nominated automatically
    at the start of round 1. Returns the clubs nominated that way.

    SEM-B3a: the duty (who must nominate) is fixed here, between the end of
    check-in and round 1, and stored: a substitute who joins later does not
    change it (`rules.season.nomination_duty`)."""
    rt = rules_tournament(t)
    rt.nomination_duty = None  # a redraw of round 1 fixes it again from the players present now
    duty = nomination_duty(rt)
    if duty != t.nomination_duty:
        audit("nominations.duty", actor, {"old": t.nomination_duty, "new": duty,
                                          "must_nominate": sorted(c for c, k in duty.items() if k > NOMINATE_ABOVE)},
              t.id)
    t.nomination_duty = duty
    rt.nomination_duty = duty
    try:
        noms = nominations(rt)
    except NominationError as e:
        raise ServiceError(rule_texts.engine_text(e)) from e
    auto = []
    by_no = {p.start_no: p for p in t.players}
    for club, nom in noms.items():
        if nom.required and nom.automatic:
            for s in nom.players:
                by_no[s].nominated = True
            auto.append(club)
    if auto:
        audit("nominations.auto", actor, {"clubs": auto}, t.id)
    t.nominations_published_at = t.nominations_published_at or utcnow()
    return auto


def draw_error_text(e: DrawError) -> str:
    """The engine's refusal in the user's language where we know its shape."""
    if e.code == "not-divisible":
        return ngettext("Round %(r)d: %(count)d players cannot be seated at tables of %(size)d: "
                        "add %(num)d player or withdraw %(withdraw)d.",
                        "Round %(r)d: %(count)d players cannot be seated at tables of %(size)d: "
                        "add %(num)d players or withdraw %(withdraw)d.",
                        e.details["add"], r=e.details["round"], count=e.details["count"],
                        size=e.details["size"], withdraw=e.details["withdraw"])
    if e.code == "cut-not-divisible":
        return ngettext("Round %(r)d: %(count)d advancing players cannot be seated at tables of %(size)d, and "
                        "nobody can join a cut round: withdraw %(num)d advancing player (SEM-D4), then draw again.",
                        "Round %(r)d: %(count)d advancing players cannot be seated at tables of %(size)d, and "
                        "nobody can join a cut round: withdraw %(num)d advancing players (SEM-D4), then draw "
                        "again.", e.details["withdraw"], r=e.details["round"], count=e.details["count"],
                        size=e.details["size"])
    if e.code == "no-split":
        sizes = " / ".join(str(k) for k in e.details.get("sizes", ()))
        hint = []
        if e.details.get("add"):
            hint.append(ngettext("add %(num)d player", "add %(num)d players", e.details["add"]))
        if e.details.get("withdraw"):
            hint.append(_("withdraw %(num)d", num=e.details["withdraw"]))
        return _("Round %(r)d: %(count)d players cannot be seated at tables of %(sizes)s under these rules: "
                 "%(hint)s.", r=e.details["round"], count=e.details["count"], sizes=sizes,
                 hint=_(" or ").join(hint) if hint else _("no number of tables fits"))
    if e.code == "no-players":
        return _("Round %(r)d: there are no players to seat. Check the players in first.", r=e.details["round"])
    return rule_texts.draw_text(e) or rule_texts.engine_text(e)


def draw_round(t: Tournament, actor: str, version=None) -> Round:
    """Draw the next round with the engine and store it as a draft (SEM-B2..B11)."""
    if version is not None:
        check_version(t, version)
    cur = current_round(t)
    if cur is not None and cur.status != "closed":
        raise ServiceError(_("Round %(n)d is not closed yet.", n=cur.number))
    rs = get_ruleset(t.ruleset)
    n = next_round_number(t)
    if n > rs.rounds:
        raise ServiceError(_("The tournament has no more rounds."))
    if n == 1:
        apply_auto_nominations(t, actor)
        if rs.round_kind(1) == "lot" and t.seed is None:
            # TH-2: the lot's seed is drawn once and kept, so that the draw can be repeated and checked
            t.seed = secrets.randbelow(2 ** 31)
            audit("tournament.seed", actor, {"seed": t.seed}, t.id)
    rt = rules_tournament(t, closed_only=True)
    season_name = None
    if n == 1 and "season" in rs.seeding:  # CSM-5: round 1 by the current season table
        rt.season_places, season_name = season_places(t)
    try:
        d = draw(rt, n, rs)
    except DrawError as e:
        raise ServiceError(draw_error_text(e)) from e
    if not d.tables:
        raise ServiceError(_("Nobody advances to round %(n)d: the tournament is over.", n=n))
    r = Round(tournament=t, number=n, status="draft",
              advancing=list(d.advancing) if d.advancing is not None else None,
              eliminated=list(d.eliminated) if d.eliminated is not None else None)
    r.tables = [RoundTable(number=st.table, players=list(st.players), flags=list(st.flags)) for st in d.tables]
    if d.seeding is not None:
        r.seeding = {"by": d.seeding, "season": season_name if d.seeding == "season" else None,
                     "placed": d.seeded_by_season}
    db.session.add(r)
    if t.status == "setup":
        t.status = "running"
    bump(t)
    db.session.flush()
    audit("round.draw", actor, {"round": n, "tables": len(d.tables)}, t.id)
    return r


def objection_window(t: Tournament, n: int, now: datetime | None = None) -> dict | None:
    """SEM-C9: while the 10 minutes for reporting a discrepancy after round n-1
    run, drawing or publishing round n asks the operator first. The window
    (rounds.publication) with the discrepancy reports still waiting, or None
    when it is closed."""
    from sqlalchemy import func, select

    from ..models import Case

    prev = next((x for x in t.rounds if x.number == n - 1), None)
    pub = publication(prev, now)
    if pub is None or not pub["open"]:
        return None
    pending = db.session.scalar(select(func.count()).select_from(Case).where(
        Case.tournament_id == t.id, Case.kind == "discrepancy", Case.round == n - 1, Case.status == "open"))
    return {**pub, "pending_reports": pending or 0}


def discard_draft(t: Tournament, r: Round, actor: str, version) -> None:
    check_version(t, version)
    if r.status != "draft":
        raise ServiceError(_("Only a draw that is not published can be discarded."))
    db.session.delete(r)
    bump(t)
    audit("round.discard", actor, {"round": r.number}, t.id)


def seat_of(r: Round, start_no: int) -> tuple[RoundTable, int] | None:
    for tab in r.tables:
        if start_no in tab.players:
            return tab, tab.players.index(start_no)
    return None


def swap_warnings(t: Tournament, r: Round, tables: list[RoundTable]) -> dict[int, str]:
    """What a manual swap breaks, by table number: the club rule where it applies (SEM-B2/B7)."""
    rs = get_ruleset(t.ruleset)
    if r.number not in rs.club_rule_rounds:
        return {}
    players = {p.start_no: p for p in t.players}
    out = {}
    for tab in tables:
        clubs = [players[s].club for s in tab.players
                 if players[s].status not in ("guest", "licensed") and players[s].club]
        if len(clubs) != len(set(clubs)):
            out[tab.number] = _("Table %(t)d: two players of one club now sit together "
                                "(club rule, round %(r)d).", t=tab.number, r=r.number)
    return out


def repeat_warnings(t: Tournament, r: Round, tables: list[RoundTable]) -> dict[int, str]:
    """What a manual swap breaks where opponents must not meet again (CSM-5,
    TH-2), by table number: the tables the draw would flag "repeat"."""
    rs = get_ruleset(t.ruleset)
    if not rs.avoid_repeats or rs.round_kind(r.number) == "cut":
        return {}
    met = opponents(rules_tournament(t, closed_only=True), r.number - 1)
    return {tab.number: _("Table %(t)d: two players who already met now sit together (round %(r)d).",
                          t=tab.number, r=r.number)
            for tab in tables if any(b in met.get(a, ()) for a, b in combinations(tab.players, 2))}


def swap_seats(t: Tournament, r: Round, a: int, b: int, actor: str, version) -> list[str]:
    """Swap two players' seats in a draft draw; returns the warnings it causes."""
    check_version(t, version)
    if r.status != "draft":
        raise ServiceError(_("The draw is published: seats can no longer be swapped."))
    sa, sb = seat_of(r, a), seat_of(r, b)
    for s, seat in ((a, sa), (b, sb)):
        if seat is None:
            raise ServiceError(_("Start number %(s)d is not seated in round %(r)d.", s=s, r=r.number))
    if a == b:
        raise ServiceError(_("Choose two different players."))
    (ta, ia), (tb, ib) = sa, sb
    pa, pb = list(ta.players), list(tb.players) if tb is not ta else None
    if pb is None:
        pa[ia], pa[ib] = pa[ib], pa[ia]
        ta.players = pa
    else:
        pa[ia], pb[ib] = b, a
        ta.players, tb.players = pa, pb
    changed = [ta] if tb is ta else [ta, tb]
    warnings, repeats = swap_warnings(t, r, changed), repeat_warnings(t, r, changed)
    for tab in changed:
        flags = [f for f in tab.flags if f not in ("same-club", "repeat", "manual")] + ["manual"]
        if tab.number in warnings:
            flags.append("same-club")
        if tab.number in repeats:
            flags.append("repeat")
        tab.flags = flags
    said = list(warnings.values()) + list(repeats.values())
    bump(t)
    audit("round.swap", actor, {"round": r.number, "a": a, "b": b, "warnings": said}, t.id)
    return said


def publish_round(t: Tournament, r: Round, actor: str, version) -> None:
    check_version(t, version)
    if r.status != "draft":
        raise ServiceError(_("Round %(n)d is already published.", n=r.number))
    r.status = "published"
    r.published_at = utcnow()
    bump(t)
    audit("round.publish", actor, {"round": r.number}, t.id)


def start_clock(t: Tournament, r: Round, actor: str) -> None:
    """The start signal: the round's minutes run from now (SEM-B4, TH-2; `RuleSet.round_minutes`)."""
    if r.status == "draft":
        raise ServiceError(_("Publish the draw before starting the round."))
    if r.started_at is None:
        r.started_at = utcnow()
        audit("round.start", actor, {"round": r.number}, t.id)


def round_minutes(r: Round) -> int | None:
    """How long the round lasts by its tournament's rule set (SEM-B4: 50 minutes; TH-2: 60, the final
    untimed), or None when the rules name no length."""
    return get_ruleset(r.tournament.ruleset).round_minutes(r.number)


def round_ends_at(r: Round) -> datetime | None:
    """When time is called: the round's minutes after the start signal (None: not started, or untimed);
    what the table does then is the rule set's `time_called_rule` (SEM-C2, TH-3)."""
    minutes = round_minutes(r)
    return r.started_at + timedelta(minutes=minutes) if r.started_at and minutes else None


def parse_sums(values, n: int) -> list[Decimal]:
    """Sums typed by a person: '14,50', '14.5', '-1' … → exact cents, or a message per field."""
    if len(values) != n:
        raise ServiceError(_("Enter %(n)d sums.", n=n))
    sums, errors = [], []
    for i, v in enumerate(values):
        text = str(v or "").strip().replace(" ", "").replace("€", "").replace(",", ".")
        try:
            d = Decimal(text)
            if not d.is_finite() or d != d.quantize(CENT):
                raise InvalidOperation
            sums.append(d.quantize(CENT))
        except InvalidOperation:
            errors.append(i)
    if errors:
        raise ServiceError(_("Sum %(i)d is not an amount in euros and cents.", i=errors[0] + 1),
                           field=f"sum{errors[0]}")
    return sums


def counted_sums(rs, tab: RoundTable, sums: list[Decimal], correct_total: bool
                 ) -> tuple[list[Decimal], list[str] | None]:
    """The sums of a sheet without a disqualification as they count, and the sums
    as written when the SEM-C5 administrative correction changed them (else None).
    A wrong total is refused unless `correct_total`; SEM-C11 holds for the sums
    as they count: 60 / -20 / -5 is not stored as 55 / -20 / -5."""
    entered = None
    blocking = [h for h in sheet_hints(rs, sums) if h.blocking]
    if blocking and blocking[0].code == "total":
        if not correct_total:
            raise ServiceError(_("Table %(t)d: the sums total %(total)s, the table total must be %(exp)s.",
                                 t=tab.number, total=in_unit(sum(sums), rs.currency),
                                 exp=in_unit(rs.expected_total(len(sums)), rs.currency)), field="total")
        entered = [f"{s:.2f}" for s in sums]
        sums = list(administrative_correction(rs, sums))
        blocking = [h for h in sheet_hints(rs, sums) if h.blocking]
    if blocking:
        h = blocking[0]
        raise ServiceError(_("Table %(t)d: a sum of %(sum)s at position %(p)d is impossible: one game costs "
                             "at most %(max)s (SEM-C11).", t=tab.number, sum=in_unit(sums[h.position], rs.currency),
                             p=h.position + 1, max=in_unit(rs.max_payment_per_game, rs.currency)), field=f"sum{h.position}")
    return sums, entered


def record_sheet(t: Tournament, tab: RoundTable, sums: list[Decimal], actor: str, *, source: str = "paper",
                 correct_total: bool = False, disqualified=(), early: bool = False, note: str = "",
                 replace_version: int | None = None, entered_sums: list | None = None,
                 scores: list | None = None, ended: str | None = None, premium_games: list | None = None,
                 frozen: bool = False, late: list | None = None, keeper_by_lot: int | None = None) -> Sheet:
    """Store a table's sheet (SEM-B5). A wrong total is refused unless the operator
    applies the SEM-C5 administrative correction. A counted sheet is re-recorded
    only by naming its version and keeping its sums (a disqualification, SEM-D1:
    a new version; the old one is kept, superseded)."""
    r = tab.round
    if r.status == "draft":
        raise ServiceError(_("Round %(n)d is not published yet.", n=r.number))
    if r.status == "closed":
        raise ServiceError(_("Round %(n)d is closed: use a correction (SEM-C10).", n=r.number))
    rs = get_ruleset(t.ruleset)
    current = tab.sheet
    if current is not None and replace_version != current.version:
        raise ServiceError(_("Table %(t)d already has a sheet (version %(v)d). Reload the page to see it.",
                             t=tab.number, v=current.version))
    if current is not None and [f"{s:.2f}" for s in sums] != list(current.sums):
        # only a disqualification re-records a counted sheet, with its sums as they count;
        # other sums are a correction the referee decides (results.propose_desk_correction)
        raise ServiceError(_("Table %(t)d already has a sheet (version %(v)d): different sums are a correction "
                             "the referee decides.", t=tab.number, v=current.version))
    dq = [int(s) for s in disqualified]
    for s in dq:
        if s not in tab.players:
            raise ServiceError(_("Start number %(s)d does not sit at table %(t)d.", s=s, t=tab.number))
    entered = entered_sums  # kept from the version a disqualification re-records (a new row, never an edit)
    if correct_total and not rs.winner_bears_total:
        raise ServiceError(_("Table %(t)d: under these rules nobody bears a wrong total: correct the sheet "
                             "itself.", t=tab.number), field="total")
    scores_text = [score_text(v) for v in scores] if scores is not None else None
    problem = rs.check_table(rules_table(tab.number, tab.players, SimpleNamespace(
        points=None, sums=[f"{v:.2f}" for v in sums], disqualified=dq, early=early, scores=scores_text, ended=ended,
        premium_games=premium_games, frozen=frozen, late=late, keeper_by_lot=keeper_by_lot)))
    if problem:
        raise ServiceError(rule_texts.table_problem_text(tab.number, problem))
    if not dq:
        sums, corrected_from = counted_sums(rs, tab, sums, correct_total)
        entered = corrected_from or entered
    if current is not None:
        current.status = "superseded"
    # pending and disputed phone sheets hold version numbers too (services/sheets.py)
    version = max((s.version for s in tab.sheets), default=0) + 1
    sheet = Sheet(table=tab, version=version, status="accepted",
                  sums=[f"{s:.2f}" for s in sums], entered_sums=entered, disqualified=dq, early=early,
                  source=source, note=note, created_by=actor, scores=scores_text, ended=ended,
                  premium_games=premium_games or None, frozen=True if frozen else None,
                  late=list(late) if late else None, keeper_by_lot=keeper_by_lot)
    db.session.add(sheet)
    bump(t)
    db.session.flush()
    audit("sheet.record", actor, {"round": r.number, "table": tab.number, "version": sheet.version,
                                  "sums": sheet.sums, "entered": entered, "disqualified": dq, "source": source}, t.id)
    return sheet


def tables_in(r: Round) -> tuple[int, int]:
    return sum(1 for tab in r.tables if tab.sheet is not None), len(r.tables)


def close_round(t: Tournament, r: Round, actor: str, version) -> None:
    """All sheets in: the round's results count; standings are published (SEM-C9)."""
    check_version(t, version)
    done, total = tables_in(r)
    if r.status != "published":
        raise ServiceError(_("Round %(n)d cannot be closed now.", n=r.number))
    if done < total:
        missing = [str(tab.number) for tab in r.tables if tab.sheet is None]
        raise ServiceError(_("Sheets missing from tables %(tables)s.", tables=", ".join(missing[:20])))
    r.status = "closed"
    r.closed_at = r.standings_published_at = utcnow()
    rs = get_ruleset(t.ruleset)
    if r.number >= rs.rounds:
        t.status = "finished"
    else:
        try:
            d = draw(rules_tournament(t, closed_only=True), r.number + 1, rs)
            if not d.tables:
                t.status = "finished"
        except DrawError:
            pass
    bump(t)
    audit("round.close", actor, {"round": r.number}, t.id)
    chain_heads.publish_head(t.id, f"round-{r.number}", own_transaction=False)  # SEM-C9: the standings are out


def publication(r: Round | None, now: datetime | None = None, rs=None) -> dict | None:
    """SEM-C9: when the standings after round r were published and until when a
    discrepancy can be reported (the rule set's `objection_minutes`; a rule set
    without that window: `until` None, never open)."""
    if r is None or r.standings_published_at is None:
        return None
    rs = rs or get_ruleset(r.tournament.ruleset)
    if rs.objection_minutes is None:
        return {"round": r.number, "at": r.standings_published_at, "until": None, "open": False,
                "seconds_left": 0, "minutes_left": 0, "rule": rs.publication_rule}
    now = now or utcnow()
    until = r.standings_published_at + timedelta(minutes=rs.objection_minutes)
    left = max(0, int((until - now).total_seconds()))
    return {"round": r.number, "at": r.standings_published_at, "until": until, "open": left > 0,
            "seconds_left": left, "minutes_left": -(-left // 60), "rule": rs.publication_rule,
            "minutes": rs.objection_minutes}
