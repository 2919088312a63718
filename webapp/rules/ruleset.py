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

from .errors import N_, Text


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
    title: str = ""  # the rule set's own name, in its own language
    title_en: str = ""  # in English: the msgid the pages show it by, in the reader's language
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
    split_rule: str = N_("SEM-B2: tables of 3")
    cut_rule: str = "SEM-B9..B11"
    withdrawal_rule: str = "SEM-D4"  # a player who withdrew is not seated again
    # who keeps the sheet (RULES.md §2: every rule set uses the table flow of SEM-B5/C4): "winner" (the
    # table winner), "seat" (a fixed seat, `sheet_keeper(None)`) or "best" (the best-placed player);
    # `keeper_rule` is the rule that says so, cited wherever the phone speaks of the sheet's flow
    keeper_kind: str = "winner"
    keeper_rule: str = "SEM-C4"
    # what one player's round result is made of, in the order a page shows it (RULES.md §2): "sum"
    # (money in `currency`), "zb"/"pb"/"sb" (CSM-2), "score" (a game score in points, TH-3);
    # "points" is the rule set's own points of the round (table points, CSM-4's BP)
    result_fields: tuple[str, ...] = ("sum",)
    points_field: str = "points"

    def round_results(self, stats) -> dict[int, dict]:
        """A player's results by round, as `result_fields` (+ `points_field`) name them."""
        return {r: {"sum": m, "points": p} for r, m, p in zip(stats.rounds, stats.sums, stats.round_points)}

    def total_results(self, stats) -> dict:
        """A player's tournament totals, keyed as `round_results`."""
        return {"sum": stats.money, "points": stats.points}

    def table_results(self, table) -> list[dict]:
        """Each seat's result of a table (a TableResult), keyed as `round_results` (without points)."""
        return [{"sum": m} for m in table.sums]
    # the language of the players' paper (PIN slips, printed sheets) unless the tournament sets its own
    paper_language: str = "sk"
    # SEM-C9: the public sees the standings from this round on, with this many minutes to report a
    # discrepancy (None: no window), under this rule (None: the rule set has no publication rule)
    public_from_round: int = 2
    objection_minutes: int | None = 10
    publication_rule: str | None = "SEM-C9"
    # the rule IDs the pages cite for the steps every rule set shares (a missing key: no rule ID shown)
    cites: dict[str, str] = {
        "seat-rating": "SEM-B2", "seat-shift": "SEM-B6", "seat-standings": "SEM-B7", "seat-cut": "SEM-B9 to B11",
        "club-rule-rating": "SEM-B2", "club-rule-standings": "SEM-B7", "seat-replace": "SEM-D1b",
        "disqualify": "SEM-D1", "card": "SEM-E", "withdraw": "SEM-D4", "substitute": "SEM-D1b, D3, D5",
        "dq-case": "SEM-", "order": "SEM-B12", "records": "SEM-B12 c)",
    }
    # what the discipline page offers, in order (SEM-D, SEM-E; other rule sets name their own)
    discipline_options: tuple[str, ...] = ("disqualify", "card", "withdraw", "substitute")

    def cite(self, step: str) -> str:
        """The rule ID a page cites for `step`, or "" when the rule set names none."""
        return self.cites.get(step, "")
    # BB-1: what a player more than a minute late pays each other player of the table (None: no such fee)
    late_fee: Decimal | None = None
    late_rule: str = ""
    # CSM-3: the table may choose its scorekeeper by lot (recorded on the sheet, which names the keeper)
    keeper_by_lot: bool = False
    # BB-2 / SMU-4: the officials the operator names per tournament (None: referees by assignment only)
    officials: Officials | None = None
    # round 1 seated by the first of these the tournament has (CSM-5): "season" (the current season
    # table), "rating", "start" (start number)
    seeding: tuple[str, ...] = ("rating", "start")

    def late_fees(self, players: Sequence[int], late: Sequence[int]) -> tuple[Decimal, ...]:
        """BB-1: each player's net late fee (a late player pays `late_fee` to each other player);
        the fees total 0, so the table total stays what it was."""
        fee = self.late_fee or Decimal(0)
        k = len(players)
        return tuple(fee * (sum(1 for x in late if x != s) - ((k - 1) if s in late else 0)) for s in players)

    def check_late(self, players: Sequence[int], late: Sequence[int]) -> str | None:
        """Why the late players of a sheet cannot stand (one line), or None."""
        if not late:
            return None
        if self.late_fee is None:
            return Problem("this rule set has no late fee", "late-none")
        for s in late:
            if s not in players:
                return Problem(f"late player: start number {s} does not sit at this table ({self.late_rule})",
                               "late-player", start_no=s, rule=self.late_rule)
        if len(set(late)) != len(late):
            dup = next(s for s in late if list(late).count(s) > 1)
            return Problem(f"late player: start number {dup} is named twice", "late-twice", start_no=dup)
        return None

    def check_keeper(self, players: Sequence[int], keeper: int | None) -> str | None:
        """CSM-3: a keeper chosen by lot sits at the table."""
        if keeper is None:
            return None
        if not self.keeper_by_lot:
            return Problem("this rule set has no scorekeeper chosen by lot", "keeper-none")
        if keeper not in players:
            return Problem(f"the scorekeeper chosen by lot, start number {keeper}, does not sit at this table (CSM-3)",
                           "keeper-player", start_no=keeper)
        return None
    time_called_rule: str | None = None  # what the table does once the round's time is called
    # minutes a round lasts from the start signal (SEM-B4, TH-2); None: the rules name no length and
    # an official calls time. `round_rule` says so with the rule ID, in English: the pages show it
    # translated (it is a msgid, like `title_en`)
    round_length: int | None = None
    round_rule: str = "These rules name no round length: the referee calls time."

    def round_minutes(self, round_no: int) -> int | None:
        """How many minutes round `round_no` lasts from its start signal, or None when it is untimed."""
        return self.round_length

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

    def season_report(self, tournaments, best: int | None = None, strike: int | None = None) -> dict | None:
        """The `listok season` answer where the rule set has a season table of its own; None:
        the placement table (`season.placement_season_report`, which `report.season_report` makes)."""
        return None

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

    @property
    def tables_of_four(self) -> bool:
        """Whether tables of 4 are seated too (SMU-1, CSM-1, TH-1): the draw is
        then `tables.py`'s, with its own fallback for conflicts, not SEM's."""
        return tuple(self.table_sizes) != (3,)

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


@dataclass(frozen=True)
class Officials:
    """Who decides disputes at a tournament (BB-2, SMU-4): `count` officials named by the operator,
    each of another club (`distinct_clubs`), or each a player of the tournament (`from_players`).
    `kind` is "jury" or "referees"; `rule` the rule ID the refusals cite. An official who plays at
    the table of a case does not decide it (`not_at_own_table`)."""

    count: int
    kind: str
    rule: str
    distinct_clubs: bool = False
    from_players: bool = False
    not_at_own_table: bool = True

    def check(self, named: Sequence[tuple[str | None, int | None]]) -> str | None:
        """Why these officials ((club, start number or None) each) cannot stand, or None. Fewer than
        `count` stand: the operator names them one by one."""
        if len(named) > self.count:
            return Problem(f"the {self.kind} has {self.count} members, not {len(named)} ({self.rule})",
                           "officials-count", count=self.count, named=len(named), rule=self.rule)
        seen: dict[str, str] = {}
        for i, (club, start_no) in enumerate(named):
            if self.from_players and start_no is None:
                return Problem(f"official {i + 1}: the {self.kind} are named from the players; give a start "
                               f"number ({self.rule})", "officials-player", rule=self.rule)
            if self.distinct_clubs:
                if not club:
                    return Problem(f"official {i + 1}: each member of the {self.kind} must be of a club ({self.rule})",
                                   "officials-club", rule=self.rule)
                key = club.strip().casefold()
                if key in seen:
                    return Problem(f"two members of the {self.kind} are of the club {seen[key]}: each must be of "
                                   f"another club ({self.rule})", "officials-same-club", club=seen[key], rule=self.rule)
                seen[key] = club.strip()
        starts = [s for _, s in named if s is not None]
        if len(set(starts)) != len(starts):
            dup = next(s for s in starts if starts.count(s) > 1)
            return Problem(f"start number {dup} is named twice ({self.rule})", "officials-twice",
                           start_no=dup, rule=self.rule)
        return None

    def may_decide(self, start_no: int | None, table_players: Sequence[int]) -> bool:
        """Whether an official (their start number, None when not a player) decides a case at a
        table of these players."""
        return not (self.not_at_own_table and start_no is not None and start_no in table_players)


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
        return str(self.text())

    def text(self):
        known = ", ".join(sorted(REGISTRY))
        if self.code in PLANNED:
            return Text(N_("rule set '%(code)s' is not implemented yet (available: %(known)s)"), code=self.code,
                        known=known)
        return Text(N_("unknown rule set '%(code)s' (available: %(known)s)"), code=self.code, known=known)


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
