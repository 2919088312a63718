"""SEM-C10: correcting a sheet after it was handed in and the results published.

Given the recorded and the real sums of one table and the delegate's decision
(`operator-error`, `no-fee`, `fee`), work out who was harmed and who was
advantaged, the values that take effect, and — for a draw already published
for a cut round (SEM rounds 4-6) — the swap of places in that draw.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction
from typing import Mapping, Sequence

from .errors import N_, Nn_, Text
from .model import CENT, TableResult
from .points import DQ_COMPENSATION, table_outcome
from .ruleset import RuleSet

KINDS = ("operator-error", "no-fee", "fee")
FEE = Decimal("20.00")


class CorrectionError(ValueError):
    pass


@dataclass(frozen=True)
class PlayerChange:
    start_no: int
    role: str  # "harmed" | "advantaged" | "unchanged"
    recorded: tuple[Fraction, Decimal]
    real: tuple[Fraction, Decimal]
    effective: tuple[Fraction, Decimal]


@dataclass(frozen=True)
class Correction:
    kind: str
    round: int
    table: TableResult  # the sheet as it takes effect (sums + points override)
    changes: tuple[PlayerChange, ...]
    swapped_draw: object | None = None  # seating.Draw with places swapped, when one applies

    @property
    def harmed(self) -> tuple[int, ...]:
        return tuple(c.start_no for c in self.changes if c.role == "harmed")

    @property
    def advantaged(self) -> tuple[int, ...]:
        return tuple(c.start_no for c in self.changes if c.role == "advantaged")

    @property
    def fee(self) -> Decimal:
        return FEE if self.kind == "fee" else Decimal("0.00")


def correct_published_sheet(
    rs: RuleSet,
    round_no: int,
    recorded: TableResult,
    real_sums: Sequence[Decimal],
    kind: str,
    next_draw=None,
    clubs: Mapping[int, str | None] | None = None,
) -> Correction:
    """SEM-C10 a) operator error: real values for everyone, free of charge;
    b) no fee: only the advantaged players get their real values, the harmed
    stay as recorded; c) fee (20 EUR): real values for everyone, and if the
    draw published for the next round is a cut round (SEM rounds 4, 5, 6) it
    stays, only the harmed and advantaged players swap places there; a
    round-3 draw (after round 2) stays as it is.

    Interpretation: an operator error also swaps places like c), since the
    real values apply to everyone; after b) the draw stays untouched. The
    swap gives the seat that the k-th best recorded result earned to the k-th
    best real result among the harmed and advantaged players (better = more
    points, then more money, then the earlier position on the sheet); a
    player who had no seat (eliminated by the cut) can so gain one and the
    advantaged player loses it. Two players of one club who meet after the
    swap are flagged "same-club" (allowed by SEM-C10c).
    """
    if kind not in KINDS:
        raise CorrectionError(Text(N_("round %(r)d, table %(t)d: unknown correction kind '%(kind)s' (use one of "
                                      "%(kinds)s)"), r=round_no, t=recorded.table, kind=kind, kinds=", ".join(KINDS)))
    real_sums = tuple(Decimal(s) for s in real_sums)
    if len(real_sums) != len(recorded.players):
        raise CorrectionError(Text(Nn_("round %(r)d, table %(t)d: %(num)d real sums for %(players)d players",
                                       "round %(r)d, table %(t)d: %(num)d real sums for %(players)d players"),
                                   r=round_no, t=recorded.table, num=len(real_sums), players=len(recorded.players)))
    expected = rs.expected_total(len(real_sums))
    dq = set(recorded.disqualified)
    if not dq and expected is not None and sum(real_sums) != expected:
        raise CorrectionError(Text(N_("round %(r)d, table %(t)d: the real sums total %(total)s, not %(expected)s"),
                                   r=round_no, t=recorded.table, total=Decimal(sum(real_sums)).quantize(CENT),
                                   expected=Decimal(expected).quantize(CENT)))

    # a table with a disqualification (SEM-D1) keeps it: the real sums are those at the
    # moment of the disqualification, and the table's values follow SEM-D1 from them
    before = table_outcome(rs, recorded)
    after = table_outcome(rs, replace(recorded, sums=real_sums, points=None))
    changes = []
    for i, s in enumerate(recorded.players):
        if s in dq:
            continue
        rec = (before.points[i], before.money[i])
        real = (after.points[i], after.money[i])
        role = "harmed" if real > rec else "advantaged" if real < rec else "unchanged"
        effective = rec if (kind == "no-fee" and role == "harmed") else real
        changes.append(PlayerChange(s, role, rec, real, effective))
    if dq and all(c.role == "unchanged" for c in changes):
        raise CorrectionError(Text(N_("round %(r)d, table %(t)d: with this disqualification (SEM-D1) these sums "
                                      "give everybody the values already recorded"), r=round_no, t=recorded.table))

    effective = {c.start_no: c.effective for c in changes}
    if dq:
        credit = getattr(rs, "dq_compensation", DQ_COMPENSATION) * len(dq)
        # not early: every change came from the sums, so the sum is the money less the credit
        sums = tuple(real_sums[i] if s in dq else effective[s][1] - credit
                     for i, s in enumerate(recorded.players))
        counted = table_outcome(rs, replace(recorded, sums=sums, points=None)).points
        points = tuple(Fraction(0) if s in dq else effective[s][0] for s in recorded.players)
        same = all(s in dq or counted[i] == points[i] for i, s in enumerate(recorded.players))
        table = replace(recorded, sums=sums, points=None if same else points)
    else:
        sums = tuple(effective[s][1] for s in recorded.players)
        points = tuple(effective[s][0] for s in recorded.players)
        table = replace(recorded, sums=sums,
                        points=None if points == rs.table_points(sums) else points)

    swapped = None
    if kind != "no-fee" and next_draw is not None and rs.round_kind(next_draw.round) == "cut":
        swapped = _swap_places(next_draw, changes, clubs or {})
    return Correction(kind, round_no, table, tuple(changes), swapped)


def _swap_places(draw, changes: Sequence[PlayerChange], clubs: Mapping[int, str | None]):
    from .seating import Draw, SeatedTable  # seating imports standings; keep this module light

    affected = [(i, c) for i, c in enumerate(changes) if c.role != "unchanged"]
    if not affected:
        return draw
    seat_of: dict[int, tuple[int, int]] = {}
    for ti, t in enumerate(draw.tables):
        for pi, s in enumerate(t.players):
            seat_of[s] = (ti, pi)
    by_recorded = sorted(affected, key=lambda ic: (ic[1].recorded, -ic[0]), reverse=True)
    by_real = sorted(affected, key=lambda ic: (ic[1].real, -ic[0]), reverse=True)
    seats = [seat_of.get(c.start_no) for _, c in by_recorded]
    tables = [list(t.players) for t in draw.tables]
    for seat, (_, c) in zip(seats, by_real):
        if seat is not None:
            tables[seat[0]][seat[1]] = c.start_no

    def flags(players, old):
        keys = [clubs.get(s) for s in players]
        named = [k for k in keys if k]
        clash = len(named) != len(set(named))
        rest = tuple(f for f in old if f != "same-club")
        return rest + ("same-club",) if clash else rest

    new_tables = tuple(
        SeatedTable(t.table, tuple(p), flags(p, t.flags)) for t, p in zip(draw.tables, tables)
    )
    seated = {s for p in tables for s in p}
    advancing = eliminated = None
    if draw.advancing is not None:
        pool = list(draw.advancing) + list(draw.eliminated or ())
        advancing = tuple(s for s in pool if s in seated)
        eliminated = tuple(s for s in pool if s not in seated)
    return Draw(draw.round, new_tables, advancing, eliminated)


def audit_entry(c: Correction, asked_by: str, approved_by: str, when: str) -> dict:
    """The `corrections[]` record of the tournament file (EXCHANGE.md)."""
    return {
        "round": c.round,
        "table": c.table.table,
        "kind": c.kind,
        "fee": f"{c.fee:.2f}",
        "asked_by": asked_by,
        "approved_by": approved_by,
        "when": when,
        "harmed": list(c.harmed),
        "advantaged": list(c.advantaged),
        "old": {str(ch.start_no): {"points": _num(ch.recorded[0]), "sum": f"{ch.recorded[1]:.2f}"}
                for ch in c.changes},
        "new": {str(ch.start_no): {"points": _num(ch.effective[0]), "sum": f"{ch.effective[1]:.2f}"}
                for ch in c.changes},
    }


def _num(p: Fraction) -> int | float:
    return int(p) if p.denominator == 1 else float(p)
