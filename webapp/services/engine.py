"""The bridge: database rows → the rules engine's objects (and back)."""
from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from ..models import Event as EventRow, Player as PlayerRow, Tournament as TournamentRow
from ..rules import model as rules

# what the database holds of a player (String and Numeric(12, 2) columns)
MAX_NAME, MAX_CLUB, MAX_ID = 200, 120, 40
MAX_START_NO = 99999
MAX_RATING = Decimal("9999999999.99")  # Numeric(12, 2)


def rules_player(p: PlayerRow) -> rules.Player:
    return rules.Player(
        start_no=p.start_no, name=p.name, club=p.club or None, status=p.status,
        rating=Decimal(p.rating) if p.rating is not None else None, nominated=bool(p.nominated),
        present=bool(p.present), id=p.reg_id or None, substitute_for=p.substitute_for, from_round=p.from_round,
    )


def rules_event(e: EventRow) -> rules.Event:
    return rules.Event(type=e.type, start_no=e.start_no, after_round=e.after_round, colour=e.colour,
                       round=e.round, referees=tuple(e.referees or ()), order=tuple(e.order or ()))


def premium_games(raw) -> tuple[rules.PremiumGame, ...]:
    """CSM-3 lines as stored ({"start_no", "game", "pb", "signed_by"})."""
    return tuple(rules.PremiumGame(int(g["start_no"]), str(g["game"]), int(g["pb"]),
                                   tuple(int(x) for x in g.get("signed_by") or ())) for g in raw or ())


def rules_table(number: int, players, sheet) -> rules.TableResult:
    """A stored sheet (or anything with its fields) as the engine's table result."""
    scores, games = getattr(sheet, "scores", None), getattr(sheet, "premium_games", None)
    return rules.TableResult(
        number, tuple(players), tuple(map(Decimal, sheet.sums)),
        tuple(map(Fraction, sheet.points)) if sheet.points else None,
        tuple(sheet.disqualified or ()), bool(sheet.early),
        tuple(map(Decimal, scores)) if scores is not None else None,
        getattr(sheet, "ended", None), bool(getattr(sheet, "frozen", None)),
        premium_games(games) if games else (),
        tuple(getattr(sheet, "late", None) or ()), getattr(sheet, "keeper_by_lot", None))


def rules_tournament(t: TournamentRow, upto: int | None = None, closed_only: bool = False) -> rules.Tournament:
    """The tournament as the engine sees it: every round up to `upto` whose tables
    all have an accepted sheet (or, with closed_only, only closed rounds)."""
    rounds = []
    for r in t.rounds:
        if upto is not None and r.number > upto:
            break
        if closed_only and r.status != "closed":
            break
        tables = []
        for tab in r.tables:
            sheet = tab.sheet
            if sheet is None:
                break
            tables.append(rules_table(tab.number, tab.players, sheet))
        else:
            if tables:
                rounds.append(rules.Round(r.number, tuple(tables)))
                continue
        break
    return rules.Tournament(
        players=[rules_player(p) for p in t.players], rounds=rounds, ruleset=t.ruleset, name=t.name,
        extra={"seed": t.seed} if t.seed is not None else {},
        date=t.date.isoformat() if t.date else None, events=[rules_event(e) for e in t.events],
        corrections=[c.record for c in t.corrections],
        nomination_duty=dict(t.nomination_duty) if t.nomination_duty is not None else None)


def score_text(v) -> str:
    """A ČSM PB or a Thousand score as stored: a whole number as a string."""
    d = Decimal(v)
    return str(int(d)) if d == d.to_integral_value() else str(d)


def points_json(points) -> list[str] | None:
    return [str(Fraction(p)) for p in points] if points is not None else None
