"""Plain data the rules engine works on: players, table results, rounds, events.

Money is `Decimal` quantised to cents; points are `Fraction` (halves occur in
4-player rule sets). Nothing here knows about files, Flask or a database.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

CENT = Decimal("0.01")

STATUSES = ("registered", "licensed", "guest", "substitute")


def money(value) -> Decimal:
    """Exact money from str/int/Decimal, quantised to cents (never from float)."""
    if isinstance(value, float):
        raise TypeError("money must not be a binary float")
    return Decimal(value).quantize(CENT)


@dataclass(frozen=True)
class Player:
    start_no: int
    name: str
    club: str | None = None
    status: str = "registered"
    rating: Decimal | None = None
    nominated: bool = False
    present: bool = True
    id: str | None = None
    substitute_for: int | None = None
    from_round: int | None = None

    @property
    def key(self) -> str:
        """Stable identity across tournaments (EXCHANGE.md: the name when no id)."""
        return self.id if self.id is not None else self.name

    @property
    def club_key(self) -> str | None:
        """The club for the club rule (SEM-B2): guests and licensed players have none."""
        if self.status in ("guest", "licensed"):
            return None
        return self.club or None


@dataclass(frozen=True)
class PremiumGame:
    """CSM-3: one game worth 50 PB or more, with the signatures of its players."""

    start_no: int
    game: str
    pb: int
    signed_by: tuple[int, ...] = ()


@dataclass(frozen=True)
class TableResult:
    table: int
    players: tuple[int, ...]
    sums: tuple[Decimal, ...]
    points: tuple[Fraction, ...] | None = None
    disqualified: tuple[int, ...] = ()
    early: bool = False
    scores: tuple[Decimal, ...] | None = None
    ended: str | None = None  # thousand (TH-3): "win" or "time"
    frozen: bool = False  # thousand (TH-5): a withdrawal left two players
    premium_games: tuple[PremiumGame, ...] = ()  # csm (CSM-3)
    late: tuple[int, ...] = ()  # bbliga (BB-1): start numbers more than a minute late
    keeper_by_lot: int | None = None  # csm (CSM-3): the scorekeeper a lot chose


@dataclass(frozen=True)
class Round:
    number: int
    tables: tuple[TableResult, ...]


@dataclass(frozen=True)
class Event:
    """`withdrawn` (SEM-D4), `card` (SEM-E) or `lot` (TH-4, start_no 0); unknown keys are kept in `extra`."""

    type: str
    start_no: int
    after_round: int | None = None
    colour: str | None = None
    round: int | None = None
    referees: tuple[str, ...] = ()
    extra: tuple[tuple[str, object], ...] = ()
    order: tuple[int, ...] = ()  # `lot` (TH-4): start numbers, best first


@dataclass
class Tournament:
    players: list[Player]
    rounds: list[Round] = field(default_factory=list)
    ruleset: str = "sem"
    name: str = ""
    date: str | None = None
    events: list[Event] = field(default_factory=list)
    corrections: list[dict] = field(default_factory=list)
    extra: dict = field(default_factory=dict)
    # SEM-B3a: club -> players present when round 1 started, as a server stored it
    # (not part of the file: the engine recomputes it from the round-1 field)
    nomination_duty: dict[str, int] | None = None
    # CSM-5: the current season table as player key -> place, where the server has one
    # (not part of the file)
    season_places: dict[str, int] | None = None

    def player(self, start_no: int) -> Player:
        return self.by_start_no()[start_no]

    def by_start_no(self) -> dict[int, Player]:
        return {p.start_no: p for p in self.players}

    @property
    def last_round(self) -> int:
        return self.rounds[-1].number if self.rounds else 0

    def rounds_upto(self, k: int) -> list[Round]:
        return [r for r in self.rounds if r.number <= k]


def money_text(value: Decimal) -> str:
    return f"{Decimal(value).quantize(CENT):.2f}"


def json_number(value) -> int | float:
    """An exact number as a JSON number: int when integral, else the shortest float."""
    if isinstance(value, bool):
        raise TypeError("not a number")
    if isinstance(value, int):
        return value
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return int(value)
        return float(value)
    if isinstance(value, Decimal):
        if value == value.to_integral_value():
            return int(value)
        return float(value)
    return value
