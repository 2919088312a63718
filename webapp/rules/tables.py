"""The draw for rule sets that seat tables of 3 and 4 (SMU-1/4, CSM-1/5, TH-1/2).

`seating.draw` hands over to `draw_tables` whenever a rule set's tables are not
all of three; the field (who may be seated), the standings order and the
`Draw` it returns are the `field` module's, which both share. By `rs.round_kind(n)`:

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
from itertools import combinations
from typing import Callable, Sequence

from .errors import N_, Text
from .model import Tournament
from .ruleset import NoSplit, RuleSet
from .field import SAME_CLUB, Draw, DrawError, SeatedTable, eligible_field, rating_order, standings_order
from .standings import field_status, standings

REPEAT = "repeat"
_TRIALS = 60  # swaps tried at table 1 for one set of leaving players (`_clear`)
Step = tuple[tuple[int, int], ...]  # the swaps (start number out, start number in) that cleared one table


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
            raise DrawError(Text(N_("round %(r)d: the final needs %(size)s players, %(count)d can play"), r=n,
                                 size=size, count=len(order)),
                            code="final-size", round=n, count=len(order), size=size)
        return Draw(n, seated([order[:size]], rs, clubs, {}), tuple(order[:size]), tuple(order[size:]))

    if not field:
        raise DrawError(Text(N_("round %(r)d: there are no players to seat"), r=n), code="no-players", round=n)
    try:
        sizes = rs.table_split(len(field))
    except NoSplit as e:
        raise DrawError(Text(N_("round %(r)d: %(why)s"), r=n, why=e), code=e.code, round=n, **e.details) from None

    if kind == "lot" and any(by_no[s].rating is not None for s in field):
        kind = "rating"
    steps: tuple[Step, ...] = ()
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
        order = standings_order(t, rs, n, field, ranking)
        rank = {s: i for i, s in enumerate(order)}
        tables = consecutive(order, sizes)
        if club_rule or met:
            steps = _resolve(tables, bad, rank, order[0])
    else:
        raise DrawError(Text(N_("round %(r)d: unknown kind of round '%(kind)s'"), r=n, kind=kind))
    return Draw(n, seated(tables, rs, clubs, met), steps=steps, seeding=how, seeded_by_season=in_season)


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
        raise DrawError(Text(N_('the lot needs a whole number as "seed", not %(seed)s'), seed=repr(seed)), code="seed",
                        seed=repr(seed))
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


def _resolve(tables: list[list[int]], bad, rank: dict[int, int], leader: int) -> tuple[Step, ...]:
    """CSM-5 / SEM-B7 for any table size, in place; returns the steps made.

    Tables are walked from the top, and a table with a conflict is cleared in
    one step (`_clear`) or left as it is, flagged: a swap that leaves as many
    flagged tables buys nothing. A step brings no conflict to a table free of
    them, so each step leaves fewer flagged tables.

    Interpretation: the leader leaves table 1 only for their own conflict
    there, when their table-mates cannot leave it, and only when the draw with
    the leader kept at table 1 flags more tables."""
    moved = [list(t) for t in tables]
    steps = _steps(moved, bad, rank, leader, None)
    if leader not in moved[0]:
        kept = [list(t) for t in tables]
        kept_steps = _steps(kept, bad, rank, leader, leader)
        if _flagged(kept, bad) <= _flagged(moved, bad):
            moved, steps = kept, kept_steps
    tables[:] = moved
    return steps


def _flagged(tables: list[list[int]], bad) -> int:
    return sum(1 for table in tables if _conflicts(table, bad))


def _steps(tables: list[list[int]], bad, rank: dict[int, int], leader: int, pinned: int | None) -> tuple[Step, ...]:
    steps = []
    for i in range(len(tables)):
        swaps = _clear(tables, i, bad, rank, leader, pinned) if _conflicts(tables[i], bad) else None
        if swaps is not None:
            steps.append(swaps)
    return tuple(steps)


def _clear(tables: list[list[int]], i: int, bad, rank: dict[int, int], leader: int,
           pinned: int | None) -> Step | None:
    """The swaps that clear table i (in place), or None when it cannot be cleared.

    Who leaves: a set of its players with at least one of every conflicting
    pair, never `pinned`; the sets that keep the best-placed players are tried
    first, so the lower-placed player of a pair leaves before the
    higher-placed one, and a player without a conflict leaves only so that a
    better-placed player with one can stay. Each leaving player, best-placed
    first, swaps with the first player `_fits` finds for the players who stay.
    Interpretation: at table 1 (the leader's) the choices of swaps are
    searched, a later leaver that finds nobody sending the earlier ones to
    their next choice, up to `_TRIALS` swaps per set of leavers."""
    table = tables[i]
    pairs = _conflicts(table, bad)
    paired = {k for pair in pairs for k in pair}
    covers = [c for r in range(1, len(table) + 1) for c in combinations(range(len(table)), r)
              if all(a in c or b in c for a, b in pairs) and not any(table[k] == pinned for k in c)
              and all(k in paired or any(p < k and p not in c for p in paired) for k in c)]
    covers.sort(key=lambda c: tuple(k in c for k in range(len(table))))
    for cover in covers:
        away = {table[k] for k in cover}
        found = _place(tables, i, [table[k] for k in cover], [x for x in table if x not in away],
                       away, bad, rank, leader, [_TRIALS if i == 0 else len(cover)])
        if found is not None:
            tables[:], swaps = found
            return swaps
    return None


def _place(tables, i, movers, keep, away, bad, rank, leader, budget):
    """(tables, swaps) with `movers` swapped out of table i, in the order `_fits`
    offers their seats; when a later mover finds none, the earlier ones try
    their next, while `budget` (swaps tried) lasts. None when none is found."""
    if not movers:
        done = [list(t) for t in tables]
        done[i] = sorted(keep, key=rank.__getitem__)
        return done, ()
    mover = movers[0]
    for j, q in _fits(tables, mover, keep, bad, away, leader, i):
        budget[0] -= 1
        if budget[0] < 0:
            return None
        y = tables[j][q]
        trial = list(tables)
        trial[j] = sorted([z for k, z in enumerate(tables[j]) if k != q] + [mover], key=rank.__getitem__)
        found = _place(trial, i, movers[1:], keep + [y], away, bad, rank, leader, budget)
        if found is not None:
            return found[0], ((mover, y),) + found[1]
    return None


def _fits(tables, mover, stay, bad, away, leader, i):
    """(table, seat) of the players who can take the mover's seat at table i,
    best first. They fit `stay` and are not leaving table i (`away`). First
    those whose table the mover joins without a new conflict: further down,
    the highest-placed first (SEM-B7); then (interpretation: nobody further
    down fits) further up, the nearest table and its lowest-placed player,
    never the leader, when that table is then free of conflicts. Last those
    at a table flagged already, further down, then further up."""
    flagged_already = []
    for where in (range(i + 1, len(tables)), range(i - 1, -1, -1)):
        for j in where:
            other = tables[j]
            down = j > i
            flagged = None
            for q in (range(len(other)) if down else range(len(other) - 1, -1, -1)):
                y = other[q]
                if y in away or (not down and y == leader) or any(bad(y, z) for z in stay):
                    continue
                rest = [z for k, z in enumerate(other) if k != q]
                if not any(bad(mover, z) for z in rest) and (down or not _conflicts(rest, bad)):
                    yield j, q
                    continue
                if flagged is None:
                    flagged = bool(_conflicts(other, bad))
                if flagged:
                    flagged_already.append((j, q))
    yield from flagged_already


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
