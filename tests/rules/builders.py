"""Small builders for tournaments in rules tests (seating and others).

- `players(n, clubs=None, ratings=None)`: start numbers 1..n; `clubs` and
  `ratings` are sequences (index 0 = start number 1), dicts by start number or
  functions of the start number; a player without a club is a guest.
- `tournament(players, rounds=(), ruleset="sem", events=())`.
- `sheet(table, players, sums, **kw)`: one TableResult from strings/ints.
- `play_round(t, draw, sums_fn=None, seed=0)`: records the draw as a played
  Round; sums come from `sums_fn(table)` or a seeded random generator, and
  every table totals the rule set's table total (30.00 in SEM).
- `scripted_round(number, tables)`: a Round from (players, points) pairs with
  the points written as the sheet's points override (sums 10.00 each), to give
  players exact totals without playing.
- `with_totals(t, totals, rounds=3)`: rounds 1..rounds in which the players
  listed in `totals` (start number -> points) reach exactly those totals.
"""
from __future__ import annotations

import random
from decimal import Decimal as D
from fractions import Fraction
from typing import Callable, Iterable, Mapping, Sequence

from webapp.rules.model import CENT, Event, Player, Round, TableResult, Tournament
from webapp.rules.ruleset import get_ruleset


def _value(spec, start_no: int):
    if spec is None:
        return None
    if callable(spec):
        return spec(start_no)
    if isinstance(spec, Mapping):
        return spec.get(start_no)
    return spec[start_no - 1]


def players(n: int, clubs=None, ratings=None, first: int = 1) -> list[Player]:
    result = []
    for s in range(first, first + n):
        club = _value(clubs, s)
        rating = _value(ratings, s)
        result.append(Player(s, f"Hráč {s}", club=club, status="registered" if club else "guest",
                             rating=None if rating is None else D(rating)))
    return result


def tournament(ps: Iterable[Player], rounds: Iterable[Round] = (), ruleset: str = "sem",
               events: Iterable[Event] = ()) -> Tournament:
    return Tournament(list(ps), list(rounds), ruleset=ruleset, events=list(events))


def sheet(table: int, ps: Sequence[int], sums: Sequence, **kw) -> TableResult:
    return TableResult(table, tuple(ps), tuple(D(str(s)).quantize(CENT) for s in sums), **kw)


def random_sums(rng: random.Random, total: D, n: int = 3) -> tuple[D, ...]:
    cents = int(total / CENT)
    cuts = sorted(rng.randint(0, cents) for _ in range(n - 1))
    parts = [b - a for a, b in zip([0] + cuts, cuts + [cents])]
    return tuple(D(p) * CENT for p in parts)


def play_round(t: Tournament, draw, sums_fn: Callable | None = None, seed: int = 0,
               disqualified: Mapping[int, Sequence[int]] | None = None) -> Round:
    """Record `draw` as played; `disqualified` maps table number -> start numbers."""
    total = get_ruleset(t.ruleset).expected_total(3)
    rng = random.Random(seed * 1009 + draw.round)
    tables = []
    for st in draw.tables:
        sums = sums_fn(st) if sums_fn else random_sums(rng, total, len(st.players))
        dq = tuple((disqualified or {}).get(st.table, ()))
        tables.append(sheet(st.table, st.players, sums, disqualified=dq))
    rnd = Round(draw.round, tuple(tables))
    t.rounds = [r for r in t.rounds if r.number != draw.round] + [rnd]
    t.rounds.sort(key=lambda r: r.number)
    return rnd


def scripted_round(number: int, tables: Sequence[tuple[Sequence[int], Sequence]]) -> Round:
    return Round(number, tuple(
        sheet(i + 1, ps, ["10.00"] * len(ps), points=tuple(Fraction(p) for p in pts))
        for i, (ps, pts) in enumerate(tables)
    ))


def with_totals(t: Tournament, totals: Mapping[int, object], rounds: int = 3) -> Tournament:
    """Rounds 1..`rounds`: round 1 gives each listed player their total, later
    rounds 0 points (money 10.00 per round for everybody, so equal totals fall
    back to the start number). The player count must be divisible by 3."""
    order = list(totals)
    assert len(order) % 3 == 0
    tables = [order[i:i + 3] for i in range(0, len(order), 3)]
    t.rounds = [scripted_round(1, [(ps, [totals[s] for s in ps]) for ps in tables])]
    t.rounds += [scripted_round(k, [(ps, [0, 0, 0]) for ps in tables]) for k in range(2, rounds + 1)]
    return t
