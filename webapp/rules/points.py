"""What one table's sheet is worth: table points with disqualifications (SEM-C6,
SEM-D1), the administrative correction of a wrong total (SEM-C5) and the hints
a sheet form shows before it can be confirmed (SEM-C7, C8, C11)."""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Sequence

from .model import CENT, TableResult
from .ruleset import RuleSet, shared_place_points

# SEM-D1c: each remaining player gets this much from a disqualified player (SEM's
# `dq_compensation`; other rule sets have none).
DQ_COMPENSATION = Decimal("1.00")


@dataclass(frozen=True)
class TableOutcome:
    """Per seat, in sheet order: the money and points that count.

    `None` marks a disqualified player, and every player of a cancelled table
    (all disqualified, SEM-D1a).
    """

    players: tuple[int, ...]
    money: tuple[Decimal | None, ...]
    points: tuple[Fraction | None, ...]

    @property
    def cancelled(self) -> bool:
        return all(p is None for p in self.points)


def table_outcome(rs: RuleSet, table: TableResult) -> TableOutcome:
    """Money and points of one table (SEM-C6), honouring disqualifications (SEM-D1).

    - nobody disqualified: the rule set's table points, or the sheet's `points`
      override (written after an SEM-C10 correction);
    - one disqualified (SEM-D1c): every remaining player gets +1 EUR and the
      remaining players are placed by their sums at the moment of
      disqualification (5 + 3, equal sums 4 + 4); within the first three games
      (`early`) those games are annulled: everybody is back at the stake, so
      4 + 4 and stake + 1 EUR each;
    - all but one disqualified (SEM-D1b): the remaining player gets the first
      place's points and the stake (5 points and 10 EUR);
    - all disqualified (SEM-D1a): the table is cancelled, nobody scores.
    """
    own = rs.outcome(table)
    if own is not None:
        return own
    n = len(table.players)
    dq = set(table.disqualified)
    if not dq:
        points = table.points if table.points is not None else rs.table_points(table.sums)
        return TableOutcome(table.players, tuple(table.sums), tuple(points))

    remaining = [i for i, s in enumerate(table.players) if s not in dq]
    money: list[Decimal | None] = [None] * n
    points: list[Fraction | None] = [None] * n
    by_place = rs.place_points.get(n)
    if by_place is None:  # no points by place at the table (CSM-4): the others keep their results
        kept = rs.table_points([table.sums[i] for i in remaining])
        for k, i in enumerate(remaining):
            money[i], points[i] = table.sums[i], kept[k]
    elif len(remaining) == 1:
        money[remaining[0]] = rs.stake
        points[remaining[0]] = by_place[0]
    elif remaining:
        base = [rs.stake if table.early else table.sums[i] for i in remaining]
        shared = shared_place_points(base, by_place[: len(remaining)])
        for k, i in enumerate(remaining):
            money[i] = base[k] + rs.dq_compensation * (n - len(remaining))
            points[i] = shared[k]
        if table.points is not None:
            for i in remaining:
                points[i] = table.points[i]
    return TableOutcome(table.players, tuple(money), tuple(points))


def winner_index(sums: Sequence[Decimal]) -> int:
    """The table winner: the highest sum, the first listed among equals."""
    return max(range(len(sums)), key=lambda i: (sums[i], -i))


def administrative_correction(rs: RuleSet, sums: Sequence[Decimal]) -> tuple[Decimal, ...]:
    """SEM-C5: a wrong table total is borne by the winner.

    An excess is taken from the winner; a shortfall is added in equal parts to
    the other players. Examples: 15 / 10 / 6 → 14 / 10 / 6; 14 / 9 / 6 → 14 /
    9.50 / 6.50.

    Interpretation (docs/RULES.md, SEM-C5): with equal highest sums every
    player on that sum is a winner (SEM-C6 shares the places), so an excess is
    taken from them in equal parts (15 / 15 / 1 → 14.50 / 14.50 / 1) and a
    shortfall goes to the players below them; when all sums are equal the
    difference is shared by everybody. Odd cents go in sheet order.
    """
    expected = rs.expected_total(len(sums))
    result = [Decimal(s) for s in sums]
    if expected is None or not rs.winner_bears_total:
        return tuple(result)
    diff = sum(result, Decimal(0)) - expected
    top = max(result)
    winners = [i for i, s in enumerate(result) if s == top]
    others = [i for i in range(len(result)) if i not in winners] or winners
    if diff:
        bearers, sign = (winners, -1) if diff > 0 else (others, 1)
        share, odd = divmod(int(abs(diff) / CENT), len(bearers))
        for k, i in enumerate(bearers):
            result[i] += sign * (share + (1 if k < odd else 0)) * CENT
    return tuple(r.quantize(CENT) for r in result)


def tied_winners(sums: Sequence[Decimal]) -> bool:
    """Whether more than one player has the highest sum (SEM-C5 interpretation applies)."""
    top = max(sums)
    return sum(1 for s in sums if s == top) > 1


@dataclass(frozen=True)
class Hint:
    rule: str
    code: str
    position: int | None
    message: str
    blocking: bool


def sheet_hints(rs: RuleSet, sums: Sequence[Decimal]) -> list[Hint]:
    """What a sheet form tells the winner before the sums can be confirmed.

    Blocking: the total is not the rule set's total (SEM-C5), a sum is below
    what one last game can cost (SEM-C7 + C11: a player still in the game has
    at least 0.01 and pays at most 10 EUR, so -9.99 is the lowest sum), or
    above what the others can lose. Not blocking: a negative sum needs the
    last-game note and a referee (SEM-C8).
    """
    hints: list[Hint] = []
    expected = rs.expected_total(len(sums))
    total = sum(sums, Decimal(0))
    if expected is not None and total != expected:
        hints.append(Hint(rs.total_rule, "total", None,
                          f"the sums total {total:.2f}, the table total must be {expected:.2f}", True))
    if rs.max_payment_per_game is not None and expected is not None:
        lowest = CENT - rs.max_payment_per_game
        highest = expected - lowest * (len(sums) - 1)
        for i, s in enumerate(sums):
            if s < lowest:
                hints.append(Hint("SEM-C11", "below-lowest", i,
                                  f"sum {s:.2f} at position {i + 1} is impossible: the lowest is {lowest:.2f}", True))
            elif s > highest:
                hints.append(Hint("SEM-C11", "above-highest", i,
                                  f"sum {s:.2f} at position {i + 1} is impossible: the highest is {highest:.2f}", True))
    for i, s in enumerate(sums):
        if s < 0 and rs.negative_sum_note:
            hints.append(Hint("SEM-C8", "negative", i,
                              f"sum {s:.2f} at position {i + 1} is negative: write the last game and call the referee", False))
    return hints
