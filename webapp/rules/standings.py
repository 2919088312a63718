"""Tournament standings (SEM-B12) with stages, disqualifications and substitutes
(SEM-D2..D5). One function serves the published standings, the draws and the
final results."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from decimal import Decimal
from fractions import Fraction

from .model import Player, Tournament
from .points import table_outcome
from .ruleset import RuleSet, get_ruleset


@dataclass
class PlayerStats:
    start_no: int
    points: Fraction | int = 0
    money: Decimal = Decimal("0.00")
    records: dict[int, int] = field(default_factory=dict)
    sums: list[Decimal] = field(default_factory=list)
    round_points: list[Fraction | int] = field(default_factory=list)
    rounds: list[int] = field(default_factory=list)

    @property
    def last_round(self) -> int:
        return self.rounds[-1] if self.rounds else 0


@dataclass(frozen=True)
class Standing:
    place: int
    player: Player
    stats: PlayerStats
    stage: int
    tie: str | None


@dataclass(frozen=True)
class FieldStatus:
    """Who is out of the ranking or the field after a given round."""

    disqualified: dict[int, int]  # start_no -> round of the disqualification
    withdrawn: dict[int, int]  # start_no -> last round played (SEM-D4)
    unranked_substitutes: frozenset[int]  # SEM-D5


def field_status(t: Tournament, upto: int | None = None) -> FieldStatus:
    """Disqualifications come from sheets (`disqualified`) and cards: a red card,
    or a second yellow in the tournament, disqualifies (SEM-E6, E8)."""
    upto = t.last_round if upto is None else upto
    dq: dict[int, int] = {}
    for rnd in t.rounds_upto(upto):
        for table in rnd.tables:
            for s in table.disqualified:
                dq.setdefault(s, rnd.number)
    for s, r in card_disqualifications(t, upto).items():
        dq.setdefault(s, r)
    withdrawn: dict[int, int] = {}
    for ev in t.events:
        if ev.type == "withdrawn" and ev.after_round is not None:
            withdrawn[ev.start_no] = ev.after_round
    unranked = frozenset(
        p.start_no for p in t.players
        if p.substitute_for is not None and p.substitute_for in withdrawn
        and p.substitute_for not in dq
    )
    return FieldStatus(dq, withdrawn, unranked)


def card_disqualifications(t: Tournament, upto: int | None = None) -> dict[int, int]:
    """start_no -> the round of the card that disqualifies: a red card, or the
    second yellow in the tournament (SEM-E6, E8); cards of rounds 1..upto."""
    out: dict[int, int] = {}
    yellows: dict[int, int] = {}
    for ev in t.events:
        if ev.type != "card" or ev.round is None or (upto is not None and ev.round > upto):
            continue
        if ev.colour == "red":
            out.setdefault(ev.start_no, ev.round)
        elif ev.colour == "yellow":
            yellows[ev.start_no] = yellows.get(ev.start_no, 0) + 1
            if yellows[ev.start_no] == 2:
                out.setdefault(ev.start_no, ev.round)
    return out


def with_card_disqualifications(t: Tournament) -> Tournament:
    """SEM-D1 from a card, as the server applies it where the card happens: a
    card that disqualifies in round r while the player sits at a table of round r
    disqualifies them at that table. The sums stay as signed (the moment of the
    disqualification is the end of the sheet) and `early` as the sheet says, so
    the table-mates get SEM-D1c (or D1b, D1a) at once. `t` itself when no card
    changes a table."""
    cards = card_disqualifications(t)
    if not cards:
        return t
    rounds, changed = [], False
    for rnd in t.rounds:
        tables = []
        for table in rnd.tables:
            new = [s for s in table.players if s not in table.disqualified and cards.get(s) == rnd.number]
            if new:
                dq = tuple(s for s in table.players if s in table.disqualified or s in new)
                table = replace(table, disqualified=dq)
                changed = True
            tables.append(table)
        rounds.append(replace(rnd, tables=tuple(tables)))
    return replace(t, rounds=rounds) if changed else t


def collect_stats(rs: RuleSet, t: Tournament, upto: int) -> dict[int, PlayerStats]:
    """Points, money and records of everybody who sat at a table in rounds 1..upto
    (or the rule set's own statistics, `RuleSet.collect_stats`)."""
    own = rs.collect_stats(t, upto)
    if own is not None:
        return own
    stats: dict[int, PlayerStats] = {}
    records = set(rs.record_points)
    for rnd in t.rounds_upto(upto):
        for table in rnd.tables:
            outcome = table_outcome(rs, table)
            for s, m, p in zip(outcome.players, outcome.money, outcome.points):
                if p is None:
                    continue
                st = stats.get(s)
                if st is None:
                    st = stats[s] = PlayerStats(s)
                st.points += p
                st.money += m
                st.sums.append(m)
                st.round_points.append(p)
                st.rounds.append(rnd.number)
                if p in records:
                    st.records[int(p)] = st.records.get(int(p), 0) + 1
    return stats


def standings(t: Tournament, after_round: int | None = None, rs: RuleSet | None = None) -> list[Standing]:
    """SEM-B12: order by stage, then a) points, b) money, c) 5-, 4-, 3-point
    records (lexicographic), d) e) the largest, second largest … single-round
    sum; a tie that survives all of these goes to the lower start number and is
    marked "start number".

    A player's stage is the last round they played, but never less than the
    last qualification round played so far; a later stage places above an
    earlier one. Disqualified players (SEM-D2) and substitutes for withdrawn
    players (SEM-D5) are not ranked; substitutes for disqualified players are
    (SEM-D3); withdrawn players keep the rounds they played (SEM-D4).
    """
    rs = rs or get_ruleset(t.ruleset)
    k = t.last_round if after_round is None else after_round
    status = field_status(t, k)
    stats = collect_stats(rs, t, k)
    players = t.by_start_no()
    floor = min(k, rs.qualification_rounds)
    rows = []
    for s, st in stats.items():
        if s in status.disqualified or s in status.unranked_substitutes:
            continue
        stage = max(st.last_round, floor)
        rows.append((-stage, rs.ranking_key(st), s, stage, st))
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    result: list[Standing] = []
    for i, (neg_stage, key, s, stage, st) in enumerate(rows):
        tied = any(
            0 <= j < len(rows) and rows[j][0] == neg_stage and rows[j][1] == key
            for j in (i - 1, i + 1)
        )
        result.append(Standing(i + 1, players[s], st, stage, "start number" if tied else None))
    return rs.settle_ties(t, result)


def shared_ranks(keys: list[tuple]) -> list[int]:
    """Places 1, 2, 2, 4 …: equal keys share the place, the next place is skipped."""
    order = sorted(range(len(keys)), key=lambda i: keys[i])
    places = [0] * len(keys)
    for pos, i in enumerate(order):
        if pos and keys[order[pos - 1]] == keys[i]:
            places[i] = places[order[pos - 1]]
        else:
            places[i] = pos + 1
    return places
