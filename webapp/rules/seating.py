"""The draw: who sits at which table, in which sheet position, in every round.

- round 1 by rating (SEM-B2), the round-2 shift (SEM-B6, D1a), seating by
  standings (SEM-B7) and the cuts into rounds 4-6 (SEM-B9..B11);
- the club rule (SEM-B2, B6, B7) in the rule set's `club_rule_rounds`; a table
  where two players of one club still meet is flagged "same-club" (also in
  rounds without the club rule, SEM-B11);
- the field: disqualified (SEM-D1, D2, E), withdrawn (SEM-D4) and substitute
  players (SEM-D1b, D3, D5), in `field`, which `tables` shares.

Where RULES.md is silent, the interpretation is stated in the docstring of the
function that applies it (the function `draw` gives the overview).
"""
from __future__ import annotations

from collections import Counter
from typing import Iterable, Sequence

from .errors import N_, Nn_, Text
from .field import SAME_CLUB, Draw, DrawError, SeatedTable, eligible_field, rating_order, standings_order
from .model import Player, Round, Tournament
from .ruleset import RuleSet, get_ruleset
from .standings import FieldStatus, Standing, field_status, standings

TABLE_SIZE = 3


# ---------------------------------------------------------------------------
# public helpers


def cut(standings: Sequence[Standing], threshold: int) -> tuple[list[int], list[int]]:
    """SEM-B9..B11: split the candidates (`standings`, already restricted to the
    players who may play on, in standings order) into (advancing, eliminated).

    Advance every player with `threshold` or more points (the leading run of
    the list), topped up to a multiple of 3 with the next 1 or 2 players, plus
    one more table. Interpretation (RULES.md SEM-B9): the extra table is the
    next 3 players and is added only if at least one of them has exactly
    threshold - 1 points; with fewer than 3 players left there is no extra
    table, and the top-up stops at the end of the list (the caller refuses a
    field that is then not a multiple of 3). Nobody at the threshold means
    nobody advances except, possibly, the extra table.
    """
    starts = [s.player.start_no for s in standings]
    points = [s.stats.points for s in standings]
    m = len(starts)
    k = 0
    while k < m and points[k] >= threshold:
        k += 1
    a = min(-(-k // TABLE_SIZE) * TABLE_SIZE, m)
    if m - a >= TABLE_SIZE and any(p == threshold - 1 for p in points[a:a + TABLE_SIZE]):
        a += TABLE_SIZE
    return starts[:a], starts[a:]


def seating_error(round_no: int, count: int) -> DrawError:
    """The SEM-B2 refusal: how many players to add or withdraw (SEM-D1b)."""
    r = count % TABLE_SIZE
    add, withdraw = TABLE_SIZE - r, r
    return DrawError(Text(Nn_("round %(r)d: %(count)d players cannot be seated at tables of %(size)d: add %(num)d "
                              "player or withdraw %(withdraw)d",
                              "round %(r)d: %(count)d players cannot be seated at tables of %(size)d: add %(num)d "
                              "players or withdraw %(withdraw)d"),
                          r=round_no, count=count, size=TABLE_SIZE, num=add, withdraw=withdraw),
                     code="not-divisible", round=round_no,
                     count=count, size=TABLE_SIZE, add=add, withdraw=withdraw)


def cut_seating_error(round_no: int, count: int) -> DrawError:
    """A cut (SEM-B9..B11) that does not fill tables of 3 (too few candidates to top
    up): nobody can join a cut round, so the only way is withdrawals (SEM-D4)."""
    withdraw = count % TABLE_SIZE
    return DrawError(Text(Nn_("round %(r)d: %(count)d advancing players cannot be seated at tables of %(size)d "
                              "and nobody can be added to a cut round: withdraw %(num)d advancing player (SEM-D4) "
                              "before the draw",
                              "round %(r)d: %(count)d advancing players cannot be seated at tables of %(size)d "
                              "and nobody can be added to a cut round: withdraw %(num)d advancing players (SEM-D4) "
                              "before the draw"),
                          r=round_no, count=count, size=TABLE_SIZE, num=withdraw), code="cut-not-divisible",
                     round=round_no, count=count, size=TABLE_SIZE, withdraw=withdraw)


# ---------------------------------------------------------------------------
# the draw


def _check_results_before(t: Tournament, n: int) -> None:
    have = {r.number for r in t.rounds}
    missing = [k for k in range(1, n) if k not in have]
    if missing:
        which = ", ".join(str(k) for k in missing)
        raise DrawError(Text(Nn_("round %(r)d: the results of round %(which)s are missing",
                                 "round %(r)d: the results of rounds %(which)s are missing"),
                             r=n, which=which, num=len(missing)))


def _cut_of(t: Tournament, n: int, rs: RuleSet, field, ranking: list[Standing] | None):
    rows = ranking if ranking is not None else standings(t, n - 1, rs)
    candidates = [r for r in rows if r.player.start_no in field and r.stats.last_round == n - 1]
    return cut(candidates, rs.cuts[n])


def cut_leaves_nobody(t: Tournament, round_no: int, rs: RuleSet, *,
                      ranking: list[Standing] | None = None) -> bool:
    """Whether the cut into `round_no` (SEM-B9..B11) lets nobody through, as `draw`
    would find it, without seating anyone: a tournament of tables of three is over then."""
    _check_results_before(t, round_no)
    field = eligible_field(t, round_no, field_status(t, round_no - 1))
    return not _cut_of(t, round_no, rs, field, ranking)[0]


def draw(t: Tournament, round_no: int, rs: RuleSet | None = None, *,
         ranking: list[Standing] | None = None) -> Draw:
    """The seating for `round_no` from the results of rounds 1..round_no-1 in
    `t` (results of later rounds in `t` are ignored).

    Field (who is seated), see `eligible_field`. By `rs.round_kind(n)`:

    - 'rating' (SEM-B2): groups of the rating list L at positions 1, 2
      (reversed) and 3;
    - 'shift' (SEM-B6, D1a): the round n-1 sheets shifted, see `_shift`;
    - 'standings' (SEM-B7): tables of three down the standings after round
      n-1; substitutes for withdrawn players (SEM-D5, not ranked) and players
      without any result are placed by their own results as if ranked;
    - 'cut' (SEM-B9..B11): `cut` of the players who played round n-1, seated
      as 'standings'. D5 substitutes are not ranked and never advance.
      Interpretation: `eliminated` holds only the players who could have
      played on (withdrawn and disqualified players are in neither list); a
      cut that leaves nobody returns a Draw with no tables and
      `advancing=()` (the tournament is over).

    The club rule (`rs.club_rule_rounds`) is applied as in `_position_club_rule`
    (rating and shift rounds) or `_standings_club_rule` (standings and cut
    rounds); any table where two players of one club sit is flagged
    "same-club". Guests and licensed players have no club (Player.club_key).

    `ranking`, if given, is `standings(t, round_no - 1)` already computed by
    the caller (who publishes the standings and draws the next round at once).
    """
    rs = rs or get_ruleset(t.ruleset)
    n = round_no
    if not 1 <= n <= rs.rounds:
        raise DrawError(Text(N_("round %(r)d: the rule set '%(code)s' has rounds 1 to %(rounds)d"), r=n, code=rs.code,
                             rounds=rs.rounds))
    if TABLE_SIZE not in rs.table_sizes:
        raise DrawError(Text(N_("round %(r)d: the draw seats tables of %(size)d, the rule set '%(code)s' plays tables "
                                "of %(sizes)s"), r=n, size=TABLE_SIZE, code=rs.code,
                             sizes=" or ".join(str(k) for k in rs.table_sizes)))
    _check_results_before(t, n)
    if rs.tables_of_four:
        from .tables import draw_tables  # tables of 3 and 4 (SMU-1, CSM-1, TH-1)

        return draw_tables(t, n, rs, ranking=ranking)

    kind = rs.round_kind(n)
    status = field_status(t, n - 1)
    by_no = t.by_start_no()
    field = eligible_field(t, n, status)
    clubs = {p.start_no: p.club_key for p in t.players}
    club_rule = n in rs.club_rule_rounds

    if kind == "cut":
        advancing, eliminated = _cut_of(t, n, rs, field, ranking)
        if len(advancing) % TABLE_SIZE:
            raise cut_seating_error(n, len(advancing))
        tables = _tables_by_standings(advancing, clubs, club_rule)
        return Draw(n, _seated(tables, clubs), tuple(advancing), tuple(eliminated))

    if not field:
        raise DrawError(Text(N_("round %(r)d: there are no players to seat"), r=n), code="no-players", round=n)
    if len(field) % TABLE_SIZE:
        raise seating_error(n, len(field))
    if kind == "rating":
        seats = _round1(by_no[s] for s in field)
        if club_rule:
            _position_club_rule(seats, clubs)
        tables = seats
    elif kind == "shift":
        previous = next(r for r in t.rounds if r.number == n - 1)
        seats = _shift(t, n, previous, field, status, by_no)
        if club_rule:
            _position_club_rule(seats, clubs)
        tables = seats
    elif kind == "standings":
        order = standings_order(t, rs, n, field, ranking)
        tables = _tables_by_standings(order, clubs, club_rule)
    else:
        raise DrawError(Text(N_("round %(r)d: unknown kind of round '%(kind)s'"), r=n, kind=kind))
    return Draw(n, _seated(tables, clubs))


# ---------------------------------------------------------------------------
# round 1 and the shift: seats by position


def _round1(players: Iterable[Player]) -> list[list[int]]:
    """SEM-B2: T = N/3; group 1 = L[0:T] at position 1 of tables 1..T, group 2 =
    L[T:2T] at position 2 reversed (the worst of G2 at table 1), group 3 =
    L[2T:3T] at position 3 in order."""
    order = [p.start_no for p in rating_order(players)]
    n_tables = len(order) // TABLE_SIZE
    g1 = order[:n_tables]
    g2 = order[n_tables:2 * n_tables][::-1]
    g3 = order[2 * n_tables:]
    return [[g1[i], g2[i], g3[i]] for i in range(n_tables)]


def _shift(t: Tournament, n: int, previous: Round, field: set[int], status: FieldStatus,
           by_no: dict[int, Player]) -> list[list[int]]:
    """SEM-B6 with SEM-D1a and the substitutes of SEM-D1b/D3/D5.

    - A table of round n-1 where every player is disqualified is cancelled
      (SEM-D1a). The remaining tables form a ring in table order; on it the
      position-1 player moves one table lower, the position-3 player one table
      higher (cyclic), position 2 stays, each keeps their position. The
      players who were to come to a cancelled table thus take positions 1 and
      3 at the tables where its disqualified players would have played.
      Tables are renumbered 1..T' in ring order.
    - The seat of a player who left the field (disqualified, withdrawn) goes
      to their substitute (`substitute_for`, seated from this round); with
      several, the lowest start number.
    - Interpretation (docs/RULES.md, SEM-D1b): a seat that stays empty is
      taken by an eligible player not seated yet (substitutes of cancelled
      tables, late entries; SEM-B2 rating order), at their own position where
      one is free. Seats still empty are filled by dissolving incomplete
      tables one at a time (see `_fill_empty_seats`), so that the players who
      move keep their position number wherever a seat of that position is
      free (SEM-B6): with two players disqualified at a table and the
      organiser withdrawing one of its players, the remaining player takes a
      freed seat instead of the tables being regrouped at the end.
    """
    sheets = sorted(previous.tables, key=lambda tr: tr.table)
    for tr in sheets:
        if len(tr.players) != TABLE_SIZE:
            raise DrawError(Text(Nn_("round %(r)d: the shift (SEM-B6) needs tables of %(size)d, round %(prev)d table "
                                     "%(t)d has %(num)d player",
                                     "round %(r)d: the shift (SEM-B6) needs tables of %(size)d, round %(prev)d table "
                                     "%(t)d has %(num)d players"),
                                 r=n, size=TABLE_SIZE, prev=previous.number, t=tr.table, num=len(tr.players)))
        for s in tr.players:
            if s not in by_no:
                raise DrawError(Text(N_("round %(r)d: round %(prev)d table %(t)d has unknown start number %(s)d"),
                                     r=n, prev=previous.number, t=tr.table, s=s))
    ring = [tr.players for tr in sheets if not all(s in status.disqualified for s in tr.players)]
    size = len(ring)
    planned = [(ring[(r + 1) % size][0], ring[r][1], ring[(r - 1) % size][2]) for r in range(size)]

    seated: set[int] = set()
    seats: list[list[int | None]] = []
    for table in planned:
        seats.append([s if s in field and s not in seated else None for s in table])
        seated.update(s for s in seats[-1] if s is not None)
    substitutes: dict[int, list[int]] = {}
    for p in sorted(t.players, key=lambda p: p.start_no):
        if p.substitute_for is not None and p.start_no in field and p.start_no not in seated:
            substitutes.setdefault(p.substitute_for, []).append(p.start_no)
    for table, old in zip(seats, planned):
        for pos, s in enumerate(table):
            if s is None:
                queue = [q for q in substitutes.get(old[pos], ()) if q not in seated]
                if queue:
                    table[pos] = queue[0]
                    seated.add(queue[0])

    late = [p.start_no for p in rating_order(by_no[s] for s in field if s not in seated)]
    return _fill_empty_seats(seats, late)


def _fill_empty_seats(seats: list[list[int | None]], late: list[int]) -> list[list[int]]:
    """SEM-D1b/B6 interpretation: complete the shifted tables with the fewest moves.

    1. `late` players (not seated yet) take empty seats: each the nearest
       empty seat of the position they would have had by rating (their index
       in `late` modulo 3 + 1), else the first empty seat; what is left of
       them forms new tables at the end.
    2. While a table is incomplete, one incomplete table is dissolved and its
       players fill the empty seats of the others: the table chosen is the one
       whose players can keep the most position numbers, then the one with
       the most empty seats, then the highest table number; each of its
       players takes the empty seat of their own position at the nearest
       table, else the nearest empty seat (lowest position first).
    Tables left without players are dropped; the order of the others stays.
    """
    seats = [list(t) for t in seats]
    queue = list(late)

    def empties():
        return [(ti, pi) for ti, t in enumerate(seats) for pi, s in enumerate(t) if s is None]

    while queue and empties():
        k = len(late) - len(queue)
        s = queue.pop(0)
        free = empties()
        own = [e for e in free if e[1] == k % TABLE_SIZE]
        ti, pi = (own or free)[0]
        seats[ti][pi] = s
    while True:
        incomplete = [ti for ti, t in enumerate(seats) if None in t and any(x is not None for x in t)]
        if not incomplete or len(empties()) < TABLE_SIZE:
            break

        def plan(d):
            free = [e for e in empties() if e[0] != d]
            moves, left = [], []
            for pi, s in enumerate(seats[d]):  # own positions first, then the rest
                own = [e for e in free if e[1] == pi]
                if s is not None and own:
                    e = min(own, key=lambda e: (abs(e[0] - d), e[0]))
                    free.remove(e)
                    moves.append((s, pi, e))
                elif s is not None:
                    left.append((pi, s))
            for pi, s in left:
                e = min(free, key=lambda e: (abs(e[0] - d), e[0], e[1]))
                free.remove(e)
                moves.append((s, pi, e))
            return moves

        def score(d):
            moves = plan(d)
            return (sum(1 for _s, pi, e in moves if e[1] == pi), seats[d].count(None), d)

        d = max(incomplete, key=score)
        for s, _pi, (ti, pi) in plan(d):
            seats[ti][pi] = s
        seats[d] = [None] * TABLE_SIZE
    tables = [t for t in seats if all(x is not None for x in t)]
    rest = [s for t in seats if None in t for s in t if s is not None] + queue
    return tables + [rest[i:i + TABLE_SIZE] for i in range(0, len(rest), TABLE_SIZE)]  # type: ignore[misc]


def _pairs(c0, c1, c2) -> int:
    """Same-club pairs among three clubs (None = no club)."""
    return ((c0 is not None and c0 == c1) + (c0 is not None and c0 == c2)
            + (c1 is not None and c1 == c2))


def _position_club_rule(seats: list[list[int]], clubs: dict[int, str | None]) -> None:
    """SEM-B2/B6 club rule, in place. Position 1 (group 1) never moves;
    players move only within their position group.

    Tables are resolved in order from table 1. At a conflicted table, every
    conflicting position-2/3 player is considered for a swap with the player
    at the same position of another table; the swap must leave both tables
    conflict-free. The chosen swap has the smallest table distance, then the
    lower table, then position 2 before position 3. Interpretation: when no
    swap makes the table conflict-free (three players of one club), a swap
    that removes same-club pairs there while leaving the other table
    conflict-free is made and the search repeats; when nothing helps the
    seating stays (flagged "same-club").
    """
    n_tables = len(seats)
    groups = [Counter(clubs[seats[i][p]] for i in range(n_tables)) for p in range(TABLE_SIZE)]

    def find(i: int, movers: list[int], strict: bool, before: int) -> tuple[int, int] | None:
        table = seats[i]
        live = []
        for p in movers:
            rest = {clubs[table[q]] for q in range(TABLE_SIZE) if q != p} - {None}
            # no player of group p outside the remaining clubs: nothing to find
            if sum(groups[p][c] for c in rest) < n_tables:
                live.append(p)
        if not live:
            return None
        for d in range(1, n_tables):
            for j in (i - d, i + d):
                if not 0 <= j < n_tables:
                    continue
                other = seats[j]
                for p in live:
                    ci = [clubs[s] for s in table]
                    cj = [clubs[s] for s in other]
                    ci[p], cj[p] = cj[p], ci[p]
                    if _pairs(*cj):
                        continue
                    after = _pairs(*ci)
                    if after == 0 or (not strict and after < before):
                        return j, p
        return None

    for i in range(n_tables):
        while True:
            c = [clubs[s] for s in seats[i]]
            before = _pairs(*c)
            if not before:
                break
            movers = [p for p in (1, 2) if c[p] is not None and c.count(c[p]) > 1]
            swap = find(i, movers, True, before)
            if swap is None and before > 1:
                swap = find(i, movers, False, before)
            if swap is None:
                break
            j, p = swap
            seats[i][p], seats[j][p] = seats[j][p], seats[i][p]
    if any(_pairs(*(clubs[s] for s in table)) for table in seats):
        found = _club_free_positions(seats, clubs)
        if found is not None:
            seats[:] = found


def _club_free_positions(seats: list[list[int]], clubs: dict[int, str | None],
                         limit: int = 20000) -> list[list[int]] | None:
    """SEM-B2/B6 club rule when the swaps leave a conflict: a search for seats
    where no two players of a club meet, position 1 unchanged and positions 2
    and 3 taken by players of the same position group.

    Interpretation (docs/RULES.md, SEM-B2): tables are filled from table 1,
    each trying the players of the group nearest to their seat first, so the
    first seating found keeps players as close to their seats as it can. The
    search gives up after `limit` steps (then the swaps' seating stays and is
    flagged); fields where a conflict-free seating exists are solved well
    within it."""
    n = len(seats)
    first = [t[0] for t in seats]
    groups = [[t[p] for t in seats] for p in (1, 2)]
    home = {s: i for i, t in enumerate(seats) for s in t}
    c1 = [clubs[s] for s in first]
    # tables j >= i whose position-1 club is c: needed for the counting bound
    suffix: list[Counter] = [Counter() for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        suffix[i] = suffix[i + 1].copy()
        if c1[i] is not None:
            suffix[i][c1[i]] += 1
    left = [Counter(clubs[s] for s in g if clubs[s] is not None) for g in groups]
    used = [set(), set()]
    chosen: list[tuple[int, int]] = []
    steps = 0

    def bound(i: int) -> bool:
        free = n - i
        for c in set(left[0]) | set(left[1]):
            room = free - suffix[i][c]
            if left[0][c] > room or left[1][c] > room or left[0][c] + left[1][c] > room:
                return False
        return True

    def ordered(g: int, i: int):
        return sorted((s for s in groups[g] if s not in used[g]), key=lambda s: (abs(home[s] - i), home[s]))

    def place(i: int) -> bool:
        nonlocal steps
        if i == n:
            return True
        for a in ordered(0, i):
            ca = clubs[a]
            if ca is not None and ca == c1[i]:
                continue
            for b in ordered(1, i):
                steps += 1
                if steps > limit:
                    return False
                cb = clubs[b]
                if cb is not None and (cb == c1[i] or cb == ca):
                    continue
                for g, s in ((0, a), (1, b)):
                    used[g].add(s)
                    if clubs[s] is not None:
                        left[g][clubs[s]] -= 1
                if bound(i + 1):
                    chosen.append((a, b))
                    if place(i + 1):
                        return True
                    chosen.pop()
                for g, s in ((0, a), (1, b)):
                    used[g].discard(s)
                    if clubs[s] is not None:
                        left[g][clubs[s]] += 1
                if steps > limit:
                    return False
        return False

    if not bound(0) or not place(0):
        return None
    return [[first[i], a, b] for i, (a, b) in enumerate(chosen)]


# ---------------------------------------------------------------------------
# standings and cut rounds


def _tables_by_standings(order: Sequence[int], clubs: dict[int, str | None], club_rule: bool) -> list[list[int]]:
    """SEM-B7: table 1 = places 1-3, table 2 = places 4-6, ...; each table lists
    its players in standings order. With the club rule see `_standings_club_rule`."""
    rank = {s: i for i, s in enumerate(order)}
    order = list(order)
    if club_rule:
        _standings_club_rule(order, clubs, rank)
        tables = [order[i:i + TABLE_SIZE] for i in range(0, len(order), TABLE_SIZE)]
        if any(_pairs(*(clubs[s] for s in table)) for table in tables):
            tables = _club_free_tables(sorted(order, key=rank.__getitem__), clubs) or tables
        return tables
    return [order[i:i + TABLE_SIZE] for i in range(0, len(order), TABLE_SIZE)]


def _club_free_tables(order: Sequence[int], clubs: dict[int, str | None]) -> list[list[int]] | None:
    """SEM-B7 club rule when the swaps of `_standings_club_rule` leave a conflict.

    Interpretation (docs/RULES.md, SEM-B7): the club rule is kept whenever the
    field allows it, i.e. whenever no club has more players than there are
    tables. Tables are then filled from the top, each with the highest-placed
    players left whose club is not at the table yet, skipping a player only
    when taking them would leave too few tables for a club that needs one at
    every remaining table. None when the field does not allow it.
    """
    left = list(order)
    counts = Counter(clubs[s] for s in left if clubs[s] is not None)
    tables: list[list[int]] = []
    while left:
        remaining_tables = len(left) // TABLE_SIZE
        if counts and max(counts.values()) > remaining_tables:
            return None
        critical = {c for c, k in counts.items() if k == remaining_tables}
        table: list[int] = []
        at: set = set()
        for s in left:
            if len(table) == TABLE_SIZE:
                break
            c = clubs[s]
            if c is not None and c in at:
                continue
            if len(critical - at - {c}) > TABLE_SIZE - len(table) - 1:
                continue
            table.append(s)
            if c is not None:
                at.add(c)
        if len(table) < TABLE_SIZE:
            return None
        for s in table:
            left.remove(s)
            if clubs[s] is not None:
                counts[clubs[s]] -= 1
                if not counts[clubs[s]]:
                    del counts[clubs[s]]
        tables.append(table)
    return tables


def _standings_club_rule(order: list[int], clubs: dict[int, str | None], rank: dict[int, int]) -> None:
    """SEM-B7 club rule, in place on the list cut into tables of three.

    Interpretation (RULES.md): tables are walked from the top. On a conflict
    the lower-placed player of the same-club pair (pairs taken from the best
    placed down; with three of one club, the second then the third) swaps with
    the highest-placed player further down the list (at a later table) whose
    swap creates no new conflict: the incoming player shares no club with
    the two who stay, and the outgoing player shares no club with the two
    players of the table they join. A conflict already present at that later
    table is resolved when its turn comes. When no such player exists, the
    table stays as it is (flagged "same-club"). After a swap both tables are
    kept in standings order, so "lower-placed" and "highest-placed" always
    mean the standings place.
    """
    size = len(order)
    below = Counter(clubs[s] for s in order[TABLE_SIZE:])  # clubs of the list after the current table
    below_size = size - TABLE_SIZE
    for base in range(0, size, TABLE_SIZE):
        if base:
            for s in order[base:base + TABLE_SIZE]:
                below[clubs[s]] -= 1
            below_size -= TABLE_SIZE
        while True:
            c = [clubs[s] for s in order[base:base + TABLE_SIZE]]
            movers = [b for b in (1, 2) if c[b] is not None and c[b] in c[:b]]
            moved = False
            for b in movers:
                rest = {c[q] for q in range(TABLE_SIZE) if q != b} - {None}
                if sum(below[x] for x in rest) >= below_size:
                    continue
                cx = c[b]
                for idx in range(base + TABLE_SIZE, size):
                    y = order[idx]
                    cy = clubs[y]
                    if cy is not None and cy in rest:
                        continue
                    start = idx - idx % TABLE_SIZE
                    if any(clubs[order[q]] == cx for q in range(start, start + TABLE_SIZE) if q != idx):
                        continue
                    order[base + b], order[idx] = y, order[base + b]
                    for first in (base, start):
                        order[first:first + TABLE_SIZE] = sorted(order[first:first + TABLE_SIZE],
                                                                 key=rank.__getitem__)
                    below[cx] += 1
                    below[cy] -= 1
                    moved = True
                    break
                if moved:
                    break
            if not moved:
                break


def _seated(tables: list[list[int]], clubs: dict[int, str | None]) -> tuple[SeatedTable, ...]:
    return tuple(
        SeatedTable(i + 1, tuple(table), (SAME_CLUB,) if _pairs(*(clubs[s] for s in table)) else ())
        for i, table in enumerate(tables)
    )
