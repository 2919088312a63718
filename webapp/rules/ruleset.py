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
    # what a player's round result is: "money" (sums), "zb+pb" (sums = ZB, score =
    # PB, CSM-2) or "score" (a game score and how the game ended, TH-3)
    result_kind: str = "money"
    currency: str | None = "EUR"  # the unit of `sums` (None: no money)
    total_rule: str = "SEM-C5"  # the rule a wrong table total breaks
    # SEM-only behaviour, behind the interface (RULES.md §2)
    negative_sum_note: bool = False  # SEM-C8: a negative sum needs the last-game note
    winner_bears_total: bool = False  # SEM-C5: an operator's correction of a wrong total
    dq_compensation: Decimal = Decimal("0.00")  # SEM-D1c: from a disqualified player to each other
    club_championship: bool = False  # SEM-B3
    season_register: bool = False  # SEM-A2 guest limit and roster checks, SEM-E4 yellow-card ban
    # seating beyond SEM: seats repeat opponents only where unavoidable (CSM-5, TH-2)
    avoid_repeats: bool = False
    final_size: int | None = None  # a final at one table after the Swiss rounds (TH-2)
    # SEM-C10: a closed round's sheet corrected after publication (kinds a/b/c, fee)
    published_corrections: bool = False
    # TH-5: a player may leave a table during a round (it plays on; two left: a frozen table),
    # join after round 1 (from round `late_entry_round`), and ties are settled by a recorded lot (TH-4)
    withdraw_during_round: bool = False
    late_entry_round: int | None = None
    lot_ties: bool = False
    # CSM-3: games worth this many points or more get a line of their own on the sheet (None: no such lines)
    premium_line: int | None = None
    # the rule a round's tables break when they are not the rule set's split of its players
    # (`table_split`), and the rule of its cut rounds (who may play on)
    split_rule: str = "SEM-B2: tables of 3"
    cut_rule: str = "SEM-B9..B11"
    withdrawal_rule: str = "SEM-D4"  # a player who withdrew is not seated again
    time_called_rule: str | None = None  # what the table does once the round's time is called

    def sheet_keeper(self, values: Sequence[Decimal] | None = None) -> int | None:
        """Position (0-based) of the player who fills in and submits the sheet:
        the table winner, the first listed among equals (SEM-C4, TH-6: the best
        result); None while the results are not known."""
        if not values:
            return None
        return max(range(len(values)), key=lambda i: (values[i], -i))

    def table_split(self, count: int) -> tuple[int, ...]:
        """The sizes of the tables a field of `count` players sits at, in table
        order; NoSplit (a ValueError) when the rule set has none."""
        size = self.table_sizes[0]
        if count <= 0 or count % size or len(self.table_sizes) > 1:
            return split_field(count, self.table_sizes, {}, self.code)
        return (size,) * (count // size)

    def allows_sheet_size(self, size: int, raw: dict) -> bool:
        """Whether a sheet of `size` players can stand in a file (`raw` is the table entry)."""
        return size in self.table_sizes

    def read_table(self, reader, raw: dict, players: tuple[int, ...], loc: dict) -> dict:
        """Rule-set fields of a table entry as TableResult keyword arguments."""
        return {}

    def write_table(self, table, d: dict) -> dict:
        """The table entry `d` as this rule set writes it (EXCHANGE.md)."""
        return d

    def check_table(self, table) -> str | None:
        """Why a sheet cannot stand (one line), or None."""
        return None

    def check_tournament(self, t) -> tuple[str, dict] | None:
        """Why a whole file cannot stand: (message, location keywords), or None."""
        return None

    def outcome(self, table):
        """The rule set's own TableOutcome of a sheet, or None for SEM-C6/D1 (points.table_outcome)."""
        return None

    def collect_stats(self, t, upto: int):
        """The rule set's own PlayerStats by start number, or None for the table-points sum."""
        return None

    def settle_ties(self, t, rows: list) -> list:
        """The standings after the ranking keys; a rule set may settle ties its own way (TH-4)."""
        return rows

    def tournament_points(self, ranking) -> dict | None:
        """SEM-A3 tournament points by start number, or None where the rule set has none."""
        return None

    def standings_report(self, t, after_round: int) -> dict | None:
        """The `listok standings` answer where its shape is the rule set's own (EXCHANGE.md)."""
        return None

    def season_report(self, tournaments, best: int | None = None, strike: int | None = None) -> dict:
        """The `listok season` answer for final tournaments of this rule set."""
        from .season import placement_season_report

        if strike is not None:
            raise ValueError(f"--strike applies to the rule set 'csm', not '{self.code}'")
        return placement_season_report(tournaments, best if best is not None else 11)

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

    def equal_runs(self, rows) -> list[tuple[int, int]]:
        """(first, last) index of each run of two or more standings rows, in order, that are
        equal in stage and on every ranking key (what TH-4's lot settles)."""
        runs, i = [], 0
        while i < len(rows):
            j = i
            key = (rows[i].stage, self.ranking_key(rows[i].stats))
            while j + 1 < len(rows) and (rows[j + 1].stage, self.ranking_key(rows[j + 1].stats)) == key:
                j += 1
            if j > i:
                runs.append((i, j))
            i = j + 1
        return runs


class NoSplit(ValueError):
    """A field that cannot be split into the rule set's tables; `details` for a UI."""

    def __init__(self, message: str, code: str = "no-split", **details):
        super().__init__(message)
        self.code = code
        self.details = details


class Problem(str):
    """Why a sheet cannot stand: the one English line, with `code` and `details`
    so that a user interface can say the same in its own language."""

    code: str
    details: dict

    def __new__(cls, message: str, code: str, **details):
        self = super().__new__(cls, message)
        self.code, self.details = code, details
        return self


def split_field(count: int, sizes: Sequence[int], limits: dict[int, int], code: str,
                first: int | None = None) -> tuple[int, ...]:
    """Split `count` players into tables of the given `sizes`: as many tables of
    the main size (`first`, default the first of `sizes`) as possible, the
    other size for the rest, at most `limits[size]` tables of a size.

    Sizes are in table order: the main size first (SMU-1, CSM-1, TH-1 put the
    exceptional tables last). NoSplit names the count and what would work."""
    main = first if first is not None else sizes[0]
    found = _try_split(count, sizes, limits, main)
    if found is not None:
        return found
    names = " and ".join(f"{k}" for k in sizes)
    near = [k for k in range(max(1, count - 3), count + 4) if k != count and _try_split(k, sizes, limits, main)]
    lower = [k for k in near if k < count]
    higher = [k for k in near if k > count]
    hint = []
    if higher:
        add = higher[0] - count
        hint.append(f"add {add} player" + ("" if add == 1 else "s"))
    if lower:
        hint.append(f"withdraw {count - lower[-1]}")
    extra = "; " + " or ".join(hint) if hint else ""
    limit = "".join(f" (at most {limits[k]} tables of {k})" for k in sizes if k in limits)
    raise NoSplit(f"{count} player{'' if count == 1 else 's'} cannot be seated at tables of {names}{limit} under the rule set "
                  f"'{code}'{extra}", code="no-split", count=count, sizes=tuple(sizes),
                  add=(higher[0] - count) if higher else None,
                  withdraw=(count - lower[-1]) if lower else None)


def _try_split(count: int, sizes: Sequence[int], limits: dict[int, int], main: int) -> tuple[int, ...] | None:
    other = next((k for k in sizes if k != main), None)
    if count <= 0:
        return None
    most = 0 if other is None else min(count // other, limits.get(other, count))
    for n_other in range(most + 1):
        rest = count - n_other * (other or 0)
        if rest % main == 0:
            return (main,) * (rest // main) + (other,) * n_other  # type: ignore[operator]
    return None


@dataclass(frozen=True)
class UnknownRuleSet(Exception):
    code: str

    def __str__(self) -> str:
        known = ", ".join(sorted(REGISTRY))
        if self.code in PLANNED:
            return f"rule set '{self.code}' is not implemented yet (available: {known})"
        return f"unknown rule set '{self.code}' (available: {known})"


REGISTRY: dict[str, RuleSet] = {}
PLANNED: tuple[str, ...] = ()


def register(ruleset: RuleSet) -> RuleSet:
    REGISTRY[ruleset.code] = ruleset
    return ruleset


def get_ruleset(code: str) -> RuleSet:
    try:
        return REGISTRY[code]
    except KeyError:
        raise UnknownRuleSet(code) from None
