"""The draw for rule sets that seat tables of 3 and 4 (SMU-1/4, CSM-1/5, TH-1/2).

`seating.draw` hands over to `draw_tables` whenever a rule set's tables are not
all of three; the field (who may be seated), the standings order and the
`Draw` it returns are seating's own. By `rs.round_kind(n)`:

- 'rating': the field split by `rs.table_split` (SMU-1, CSM-1, TH-1; refused
  with the rule set's message when no split exists), and the rating list L
  (SEM-B2) cut into one group per sheet position: group g has as many players
  as there are tables with a position g and sits at position g of those
  tables in table order, groups 2 and 4 reversed (CSM-5, SEM-B2 generalised);
- 'lot': a shuffle of the field with the file's recorded `seed` (default 0),
  seated in table order (TH-2); when any player of the field has a rating the
  round is seated by rating instead;
- 'standings': the standings after round n-1 (SEM-B7: places 1.. at table 1,
  each table in standings order);
- 'cut': the final of `rs.final_size` players at one table: the best of the
  standings among the field (TH-2).

Conflicts: two players of one club in the rule set's `club_rule_rounds`, and
two players who already met at a table where `rs.avoid_repeats` (CSM-5,
TH-2). Round 1 by rating resolves them by swapping players of one position
group (position 1 never moves), 'standings' rounds as `_resolve` says. A
table where a conflict stays is flagged "same-club" or "repeat".
"""
from __future__ import annotations

import random
from typing import Callable, Sequence

from .model import Tournament
from .ruleset import NoSplit, RuleSet
from .seating import (SAME_CLUB, Draw, DrawError, SeatedTable, _standings_order, eligible_field,
                      rating_order)
from .standings import field_status, standings

REPEAT = "repeat"


def opponents(t: Tournament, upto: int) -> dict[int, set[int]]:
    """Who sat at a table with whom in rounds 1..upto."""
    met: dict[int, set[int]] = {}
    for rnd in t.rounds_upto(upto):
        for table in rnd.tables:
            for s in table.players:
                met.setdefault(s, set()).update(x for x in table.players if x != s)
    return met


def draw_tables(t: Tournament, n: int, rs: RuleSet, *, ranking=None) -> Draw:
    kind = rs.round_kind(n)
    status = field_status(t, n - 1)
    field = eligible_field(t, n, status)
    by_no = t.by_start_no()
    clubs = {p.start_no: p.club_key for p in t.players}
    club_rule = n in rs.club_rule_rounds
    met = opponents(t, n - 1) if rs.avoid_repeats else {}

    def bad(a: int, b: int) -> bool:
        if club_rule and clubs[a] is not None and clubs[a] == clubs[b]:
            return True
        return b in met.get(a, ())

    if kind == "cut":
        size = rs.final_size
        rows = ranking if ranking is not None else standings(t, n - 1, rs)
        order = [r.player.start_no for r in rows if r.player.start_no in field]
        if not size or len(order) < size:
            raise DrawError(f"round {n}: the final needs {size} players, {len(order)} can play",
                            code="final-size", round=n, count=len(order), size=size)
        return Draw(n, seated([order[:size]], rs, clubs, {}), tuple(order[:size]), tuple(order[size:]))

    if not field:
        raise DrawError(f"round {n}: there are no players to seat", code="no-players", round=n)
    try:
        sizes = rs.table_split(len(field))
    except NoSplit as e:
        raise DrawError(f"round {n}: {e}", code=e.code, round=n, **e.details) from None

    if kind == "lot" and any(by_no[s].rating is not None for s in field):
        kind = "rating"
    how, in_season = None, 0
    if kind == "rating":
        order, how, in_season = seeding_order(t, rs, [by_no[s] for s in field])
        tables = by_position(order, sizes)
        if club_rule or met:
            _position_swaps(tables, bad)
    elif kind == "lot":
        order = sorted(field)
        random.Random(_seed(t)).shuffle(order)
        tables = consecutive(order, sizes)
    elif kind == "standings":
        order = _standings_order(t, rs, n, field, ranking)
        rank = {s: i for i, s in enumerate(order)}
        tables = consecutive(order, sizes)
        if club_rule or met:
            _resolve(tables, bad, rank)
    else:
        raise DrawError(f"round {n}: unknown kind of round '{kind}'")
    return Draw(n, seated(tables, rs, clubs, met), seeding=how, seeded_by_season=in_season)


def seeding_order(t: Tournament, rs: RuleSet, players: Sequence) -> tuple[list[int], str, int]:
    """Round 1's list L by the first of `rs.seeding` the tournament has (CSM-5): the current season
    table (its players by place, then the others as below), the rating (SEM-B2's list), else the start
    number. Returns (start numbers in order, what seeded it, how many the season table placed)."""
    places = t.season_places or {}
    for source in rs.seeding:
        if source == "season" and places:
            placed = sorted((p for p in players if p.key in places), key=lambda p: (places[p.key], p.start_no))
            if placed:
                rest = rating_order(p for p in players if p.key not in places)
                return [p.start_no for p in placed + rest], "season", len(placed)
        elif source == "rating" and any(p.rating is not None for p in players):
            return [p.start_no for p in rating_order(players)], "rating", 0
        elif source == "start":
            break
    return sorted(p.start_no for p in players), "start", 0


def _seed(t: Tournament) -> int:
    seed = t.extra.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise DrawError(f'the lot needs a whole number as "seed", not {seed!r}', code="seed", seed=repr(seed))
    return seed


def consecutive(order: Sequence[int], sizes: Sequence[int]) -> list[list[int]]:
    tables, i = [], 0
    for k in sizes:
        tables.append(list(order[i:i + k]))
        i += k
    return tables


def by_position(order: Sequence[int], sizes: Sequence[int]) -> list[list[int]]:
    """Group g of L sits at position g of every table that has one, groups 2, 4 reversed."""
    tables: list[list[int]] = [[] for _ in sizes]
    i = 0
    for pos in range(max(sizes)):
        having = [k for k, size in enumerate(sizes) if size > pos]
        group = list(order[i:i + len(having)])
        i += len(having)
        if pos % 2 == 1:
            group.reverse()
        for k, s in zip(having, group):
            tables[k].append(s)
    return tables


def _conflicts(table: Sequence[int], bad: Callable[[int, int], bool]) -> list[tuple[int, int]]:
    return [(a, b) for b in range(1, len(table)) for a in range(b) if bad(table[a], table[b])]


def _position_swaps(tables: list[list[int]], bad) -> None:
    """SEM-B2 club rule for any table size: table by table from table 1, a
    conflicting player at position 2 or later swaps with the player at the same
    position of the nearest table (the lower first) where the swap leaves both
    tables conflict-free; when none does, the table stays (flagged)."""
    count = len(tables)
    for i in range(count):
        while True:
            pairs = _conflicts(tables[i], bad)
            if not pairs:
                break
            movers = sorted({b for _, b in pairs} | {a for a, _ in pairs if a > 0}, reverse=True)
            done = False
            for d in range(1, count):
                for j in (i - d, i + d):
                    if not 0 <= j < count:
                        continue
                    for p in movers:
                        if p >= len(tables[j]):
                            continue
                        a, b = list(tables[i]), list(tables[j])
                        a[p], b[p] = b[p], a[p]
                        if not _conflicts(a, bad) and not _conflicts(b, bad):
                            tables[i], tables[j] = a, b
                            done = True
                            break
                    if done:
                        break
                if done:
                    break
            if not done:
                break


def _resolve(tables: list[list[int]], bad, rank: dict[int, int]) -> None:
    """CSM-5 / SEM-B7 for any table size, in place. Tables are walked from the
    top; at a conflict the lower-placed player of the pair (then the other)
    swaps with the highest-placed player further down the list whose swap
    creates no conflict at either table. Interpretation: when nobody further
    down fits (the last tables), the nearest player further up whose swap keeps
    both tables conflict-free is taken; when nobody fits, the table stays
    (flagged). Both tables are kept in standings order."""
    count = len(tables)
    for i in range(count):
        while True:
            table = tables[i]
            pairs = _conflicts(table, bad)
            if not pairs:
                break
            a, b = pairs[0]
            done = False
            for m in (b, a):
                mover = table[m]
                stay = [x for k, x in enumerate(table) if k != m]
                for j in list(range(i + 1, count)) + list(range(i - 1, -1, -1)):
                    other = tables[j]
                    for q in (range(len(other)) if j > i else range(len(other) - 1, -1, -1)):
                        y = other[q]
                        if any(bad(y, z) for z in stay):
                            continue
                        if any(bad(mover, z) for k, z in enumerate(other) if k != q):
                            continue
                        tables[i] = sorted(stay + [y], key=rank.__getitem__)
                        tables[j] = sorted([z for k, z in enumerate(other) if k != q] + [mover],
                                           key=rank.__getitem__)
                        done = True
                        break
                    if done:
                        break
                if done:
                    break
            if not done:
                break


def seated(tables: list[list[int]], rs: RuleSet, clubs: dict, met: dict) -> tuple[SeatedTable, ...]:
    result = []
    for i, table in enumerate(tables):
        flags = []
        if rs.club_rule_rounds:
            named = [clubs[s] for s in table if clubs[s] is not None]
            if len(named) != len(set(named)):
                flags.append(SAME_CLUB)
        if any(b in met.get(a, ()) for k, a in enumerate(table) for b in table[k + 1:]):
            flags.append(REPEAT)
        result.append(SeatedTable(i + 1, tuple(table), tuple(flags)))
    return tuple(result)
