"""The small interface every rule set implements (RULES.md §2), and the registry.

A rule set says: how many players sit at a table, the stake and the expected
table total, how sums become table points, how players are ranked, and how the
rounds are structured (how each round is seated, where the cuts are, in which
rounds the club rule applies, whose cards are played). Everything else in the
engine (standings, seating, season) asks the rule set instead of assuming SEM.
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Sequence


def shared_place_points(sums: Sequence[Decimal], by_place: Sequence[int]) -> tuple[Fraction | int, ...]:
    """Points by place, equal sums sharing the points of the places they span (SEM-C6).

    Whole shares are plain ints (the common case, and much faster to add up
    than Fractions); only a share that is not whole is a Fraction.
    """
    if len(sums) == 3:
        # the points depend only on how the three sums compare: memoise by that
        a, b, c = sums
        key = (tuple(by_place), (a > b) - (a < b), (a > c) - (a < c), (b > c) - (b < c))
        cached = _BY_COMPARISON.get(key)
        if cached is None:
            cached = _BY_COMPARISON[key] = _shared(sums, by_place)
        return cached
    return _shared(sums, by_place)


_BY_COMPARISON: dict[tuple, tuple] = {}


def _shared(sums: Sequence[Decimal], by_place: Sequence[int]) -> tuple[Fraction | int, ...]:
    order = sorted(range(len(sums)), key=lambda i: sums[i], reverse=True)
    points: list[Fraction | int] = [0] * len(sums)
    place = 0
    while place < len(order):
        end = place
        while end + 1 < len(order) and sums[order[end + 1]] == sums[order[place]]:
            end += 1
        total, count = sum(by_place[place:end + 1]), end - place + 1
        share = total // count if total % count == 0 else Fraction(total, count)
        for k in range(place, end + 1):
            points[order[k]] = share
        place = end + 1
    return tuple(points)


_NO_SUM = Decimal("Infinity")


class RuleSet:
    """Base class; subclasses set the class attributes and override what differs."""

    code: str = ""
    title: str = ""
    table_sizes: tuple[int, ...] = (3,)
    stake: Decimal = Decimal("10.00")
    place_points: dict[int, tuple[int, ...]] = {3: (5, 3, 1)}
    # which table-point values count as "better point records" (SEM-B12c), best first
    record_points: tuple[int, ...] = (5, 4, 3)
    rounds: int = 6
    qualification_rounds: int = 3
    # round number -> points threshold for the cut into that round (SEM-B9..B11)
    cuts: dict[int, int] = {}
    club_rule_rounds: frozenset[int] = frozenset()
    max_payment_per_game: Decimal | None = None

    def expected_total(self, n_players: int) -> Decimal | None:
        """The exact table total a sheet must show, or None if the rule set has none."""
        return self.stake * n_players

    def table_points(self, sums: Sequence[Decimal]) -> tuple[Fraction, ...]:
        return shared_place_points(sums, self.place_points[len(sums)])

    def round_kind(self, round_no: int) -> str:
        """How round `round_no` is seated: 'rating', 'shift', 'standings' or 'cut'."""
        if round_no == 1:
            return "rating"
        if round_no in self.cuts:
            return "cut"
        return "standings"

    def cards_position(self, round_no: int) -> int | None:
        """Position (1-based) of the player whose cards are played, if the rules say."""
        return None

    def ranking_key(self, stats) -> tuple:
        """Sort key within a stage, best first; start number is appended by the caller."""
        sums = sorted(stats.sums, reverse=True)
        return (
            -stats.points,
            -stats.money,
            tuple(-stats.records.get(p, 0) for p in self.record_points),
            # a missing round ranks below any played sum (withdrawals, substitutes)
            tuple(-s for s in sums) + (_NO_SUM,),
        )


@dataclass(frozen=True)
class UnknownRuleSet(Exception):
    code: str

    def __str__(self) -> str:
        known = ", ".join(sorted(REGISTRY))
        if self.code in PLANNED:
            return f"rule set '{self.code}' is not implemented yet (available: {known})"
        return f"unknown rule set '{self.code}' (available: {known})"


REGISTRY: dict[str, RuleSet] = {}
PLANNED = ("smu", "csm", "thousand")


def register(ruleset: RuleSet) -> RuleSet:
    REGISTRY[ruleset.code] = ruleset
    return ruleset


def get_ruleset(code: str) -> RuleSet:
    from . import sem  # noqa: F401  (importing it registers the built-in rule sets)

    try:
        return REGISTRY[code]
    except KeyError:
        raise UnknownRuleSet(code) from None
