"""What every draw shares, below both `seating` (tables of three) and `tables` (tables of
3 and 4): the field of a round (SEM-D1..D5, TH-5), the rating list L (SEM-B2), the
standings order of the field (SEM-B7) and the `Draw` a draw returns. `seating`
re-exports these names, so `seating.Draw` and `seating.eligible_field` stay where
callers import them from.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field as dataclass_field
from typing import Iterable

from .model import Player, Tournament
from .ruleset import RuleSet
from .standings import FieldStatus, PlayerStats, Standing, collect_stats, field_status, standings

SAME_CLUB = "same-club"


@dataclass(frozen=True)
class SeatedTable:
    table: int  # 1..T
    players: tuple[int, ...]  # start numbers in sheet order (position 1, 2, 3)
    flags: tuple[str, ...] = ()  # "same-club" where the club rule could not be kept or does not apply


@dataclass(frozen=True)
class Draw:
    round: int
    tables: tuple[SeatedTable, ...]
    advancing: tuple[int, ...] | None = None  # cut rounds: who plays on, standings order
    eliminated: tuple[int, ...] | None = None  # cut rounds: the rest of the previous round's field
    # tables of 3 and 4 by standings (tables._resolve): the steps from the standings order to
    # these tables, each the swaps (start number out, start number in) that cleared one table
    steps: tuple[tuple[tuple[int, int], ...], ...] = dataclass_field(default=(), compare=False)
    # round 1 (CSM-5): what seeded it, "season" | "rating" | "start", and how many of the field the
    # season table placed
    seeding: str | None = None
    seeded_by_season: int = 0

    @property
    def seated(self) -> list[int]:
        return [s for table in self.tables for s in table.players]


class DrawError(ValueError):
    """A draw that cannot be made; the message is one line naming the round.
    `code` and `details` let a user interface say the same in its own language."""

    def __init__(self, message: str, code: str | None = None, **details):
        super().__init__(message)
        self.code = code
        self.details = details


def rating_order(players: Iterable[Player]) -> list[Player]:
    """SEM-B2 list L: rated players by rating descending (equal ratings: start
    number ascending), then unrated players by start number ascending."""
    players = list(players)
    rated = sorted((p for p in players if p.rating is not None), key=lambda p: (-p.rating, p.start_no))
    unrated = sorted((p for p in players if p.rating is None), key=lambda p: p.start_no)
    return rated + unrated


def entry_round(p: Player, status: FieldStatus, by_no: dict[int, Player]) -> int | None:
    """The first round a player may be seated in.

    A player who is not a substitute plays from round 1 (a late entry from
    `from_round`, TH-5). A substitute
    (`substitute_for` set, or status "substitute") plays from `from_round`
    when given; otherwise (interpretation) from the round after the replaced
    player left the field (disqualified in round d -> d+1; withdrawn after
    round w -> w+1), or from round 1 when the replaced player is not present.
    A substitute whose replaced player is still playing, or a reserve with
    neither `substitute_for` nor `from_round`, is not seated (None).
    """
    if p.substitute_for is None and p.status != "substitute":
        return p.from_round or 1  # a late entry (TH-5) plays from `from_round`
    if p.from_round is not None:
        return p.from_round
    if p.substitute_for is None:
        return None
    replaced = by_no.get(p.substitute_for)
    if replaced is None or not replaced.present:
        return 1
    if p.substitute_for in status.disqualified:
        return status.disqualified[p.substitute_for] + 1
    if p.substitute_for in status.withdrawn:
        return status.withdrawn[p.substitute_for] + 1
    return None


def eligible_field(t: Tournament, n: int, status: FieldStatus | None = None) -> set[int]:
    """Players who may be seated in round n before any cut: present, not
    disqualified before round n (SEM-D1, D2, E), not withdrawn after a round
    before n (SEM-D4), and substitutes from their entry round on (see
    `entry_round`; SEM-D1b, D3, D5)."""
    status = status if status is not None else field_status(t, n - 1)
    by_no = t.by_start_no()
    field = set()
    for p in t.players:
        s = p.start_no
        if not p.present or s in status.disqualified:
            continue
        if s in status.withdrawn and status.withdrawn[s] < n:
            continue
        entry = entry_round(p, status, by_no)
        if entry is not None and entry <= n:
            field.add(s)
    return field


def standings_order(t: Tournament, rs: RuleSet, n: int, field: set[int],
                     ranking: list[Standing] | None = None) -> list[int]:
    """SEM-B7 order: the standings after round n-1 restricted to the field.

    Interpretation: players of the field who are not ranked (substitutes for
    withdrawn players, SEM-D5) or have no result yet are placed by their own
    results with the same SEM-B12 keys as if they were ranked (no result:
    zero points and money, at the bottom).
    """
    ranking = ranking if ranking is not None else standings(t, n - 1, rs)
    rows = [r for r in ranking if r.player.start_no in field]
    order = [r.player.start_no for r in rows]
    extra = field.difference(order)
    if not extra:
        return order
    floor = min(n - 1, rs.qualification_rounds)

    def key(s: int, st: PlayerStats, stage: int) -> tuple:
        return (-stage, rs.ranking_key(st), s)

    keys = [key(r.player.start_no, r.stats, r.stage) for r in rows]
    stats = collect_stats(rs, t, n - 1)
    for s in sorted(extra):
        st = stats.get(s) or PlayerStats(s)
        k = key(s, st, max(st.last_round, floor))
        i = bisect.bisect(keys, k)
        keys.insert(i, k)
        order.insert(i, s)
    return order
