"""What a tournament file must not say, beyond its shape (issue 10).

`exchange` checks the shape of every field; this module checks that the
results fit together as the rules require, so that nothing inconsistent is
ranked silently. Each problem is one `ExchangeError` naming the file, round,
table and start number:

- every table of a round is there: table numbers 1..T, every player of the
  field of a round without a cut seated (SEM-B2, B6, B7), and in a cut round
  the players the cut lets through (SEM-B9..B11) unless a correction of an
  earlier round may have swapped places (SEM-C10c);
- nobody plays after leaving the field: a disqualified player (SEM-D1, D2, E),
  a withdrawn player (SEM-D4), a player who did not play the round before a
  cut round;
- a card that disqualifies (a red card, a second yellow: SEM-E) in a round the
  player played is on that table's sheet as `disqualified` (SEM-D1c), and a
  red card names at least two referees (SEM-E8);
- no sum is impossible (SEM-C11: one game costs at most 10 EUR);
- a `points` override belongs to an SEM-C10 correction entry for that table,
  and each value is one a table can give.
"""
from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from .model import CENT, Tournament
from .points import sheet_hints
from .ruleset import RuleSet


def check(t: Tournament, rs: RuleSet, source: str) -> None:
    from .exchange import ExchangeError
    from .seating import TABLE_SIZE, DrawError, draw, eligible_field
    from .standings import field_status

    def fail(detail: str, round=None, table=None, where=None):
        raise ExchangeError(detail, source, round, table, where)

    if rs.table_sizes != (TABLE_SIZE,) or TABLE_SIZE not in rs.place_points:
        return  # the SEM rules below; other rule sets check their own (RuleSet.check_tournament)

    for i, ev in enumerate(t.events, 1):
        if ev.type == "card" and ev.colour == "red" and len(set(ev.referees)) < 2:
            fail(f"the red card of start number {ev.start_no} names {len(set(ev.referees))} referee(s): "
                 f"a red card needs at least two (SEM-E8)", where=f"event {i}")

    corrected = _corrected_tables(t)
    card_dq = _card_disqualifications(t)
    seats3 = True
    prev_seated: set[int] = set()
    for rnd in t.rounds:
        r = rnd.number
        numbers = sorted(tr.table for tr in rnd.tables)
        missing = [k for k in range(1, len(numbers) + 1) if k not in numbers]
        if missing:
            listed = ", ".join(map(str, numbers))
            fail(f"table {missing[0]} is missing (the round has tables {listed})", round=r)
        status = field_status(t, r - 1)
        seated = {s: tr.table for tr in rnd.tables for s in tr.players}
        for tr in rnd.tables:
            for s in tr.players:
                if s in status.disqualified:
                    fail(f"start number {s} was disqualified in round {status.disqualified[s]} "
                         f"(SEM-D2) and cannot play in round {r}", round=r, table=tr.table)
                if s in status.withdrawn and status.withdrawn[s] < r:
                    fail(f"start number {s} withdrew after round {status.withdrawn[s]} (SEM-D4) "
                         f"and cannot play in round {r}", round=r, table=tr.table)
            for s in tr.players:
                if card_dq.get(s) == r and s not in tr.disqualified:
                    fail(f"start number {s} has a card that disqualifies in round {r} (SEM-E) but the "
                         f"table does not list them as \"disqualified\" (SEM-D1c)", round=r, table=tr.table)
            _check_table(rs, t, r, tr, corrected, fail)
        kind = rs.round_kind(r)
        if kind == "cut":
            for tr in rnd.tables:
                for s in tr.players:
                    if s not in prev_seated:
                        fail(f"start number {s} did not play round {r - 1} and cannot advance into "
                             f"round {r}", round=r, table=tr.table)
            if seats3 and not any(c[0] < r for c in corrected):
                try:
                    d = draw(replace(t, rounds=t.rounds_upto(r - 1)), r, rs)
                except DrawError:
                    d = None
                if d is not None and d.advancing is not None:
                    for s in d.advancing:
                        if s not in seated:
                            fail(f"start number {s} advances by the cut (SEM-B9..B11) but sits at no "
                                 f"table (is a table missing?)", round=r, where=f"start number {s}")
                    extra = [s for s in seated if s not in d.advancing]
                    if extra:
                        s = min(extra)
                        fail(f"start number {s} is seated but the cut (SEM-B9..B11) does not let them "
                             f"through", round=r, table=seated[s])
        elif seats3:
            for s in sorted(eligible_field(t, r, status)):
                p = t.player(s)
                if s not in seated and p.substitute_for is None and p.status != "substitute":
                    fail(f"start number {s} is in the field but sits at no table (is a table missing?)",
                         round=r, where=f"start number {s}")
        prev_seated = set(seated)


def _corrected_tables(t: Tournament) -> set[tuple[int, int]]:
    return {(c.get("round"), c.get("table")) for c in t.corrections
            if isinstance(c.get("round"), int) and isinstance(c.get("table"), int)}


def _card_disqualifications(t: Tournament) -> dict[int, int]:
    """start_no -> round of a red card or a second yellow (SEM-E6, E8)."""
    out: dict[int, int] = {}
    yellows: dict[int, int] = {}
    for ev in t.events:
        if ev.type != "card" or ev.round is None:
            continue
        if ev.colour == "red":
            out.setdefault(ev.start_no, ev.round)
        elif ev.colour == "yellow":
            yellows[ev.start_no] = yellows.get(ev.start_no, 0) + 1
            if yellows[ev.start_no] == 2:
                out.setdefault(ev.start_no, ev.round)
    return out


def _check_table(rs: RuleSet, t: Tournament, r: int, tr, corrected, fail) -> None:
    loc = {"round": r, "table": tr.table}
    if tr.points is not None:
        if (r, tr.table) not in corrected:
            fail("the table has \"points\" but \"corrections\" has no SEM-C10 entry for it: points "
                 "differ from the sums only after a correction", **loc)
        by_place = rs.place_points.get(len(tr.players))
        if by_place:
            low, high = min(by_place), max(by_place)
            for s, p in zip(tr.players, tr.points):
                if s in tr.disqualified:
                    continue
                if not (low <= p <= high and (2 * Fraction(p)).denominator == 1):
                    fail(f"{_num(p)} points for start number {s} is not a table result "
                         f"(a table gives {low} to {high})", **loc)
    if tr.disqualified or rs.max_payment_per_game is None:
        return
    expected = rs.expected_total(len(tr.sums))
    lowest = CENT - rs.max_payment_per_game
    highest = expected - lowest * (len(tr.sums) - 1)
    for h in sheet_hints(rs, tr.sums):
        if h.rule == "SEM-C11":
            s = tr.players[h.position]
            fail(f"the sum {tr.sums[h.position]:.2f} of start number {s} is impossible: one game costs "
                 f"at most {rs.max_payment_per_game:.2f}, so a sum lies between {lowest:.2f} and "
                 f"{highest:.2f} (SEM-C11)", **loc)


def _num(p) -> str:
    p = Fraction(p)
    return str(p.numerator) if p.denominator == 1 else str(float(p))


def check_season_files(files: list[tuple[str, Tournament]]) -> None:
    """`listok season` / `rating` (SEM-A4, A5, B1): one rule set, every tournament once.

    Raises ValueError naming the file of another rule set, or both files of a
    tournament given twice: two files with the same `id`, or (when one of them
    has no `id`) the same name, date and rule set; two copies of a file are so
    caught either way."""
    if not files:
        return
    first_path, first = files[0]
    by_id: dict[str, str] = {}
    by_name: dict[tuple, tuple[str, bool]] = {}
    for path, t in files:
        if t.ruleset != first.ruleset:
            raise ValueError(f"{path}: the rule set is '{t.ruleset}', {first_path} is '{first.ruleset}': "
                             f"a season table takes the files of one rule set")
        tid = t.extra.get("id")
        name = ("name", t.name.strip().casefold(), t.date, t.ruleset)
        other = None
        if tid is not None and str(tid) in by_id:
            other, what = by_id[str(tid)], f"id {tid}"
        elif name in by_name and (tid is None or not by_name[name][1]):
            other, what = by_name[name][0], f"'{t.name}' of {t.date or 'no date'}"
        if other is not None:
            raise ValueError(f"{other} and {path} are the same tournament ({what}): each tournament counts once")
        if tid is not None:
            by_id[str(tid)] = path
        by_name.setdefault(name, (path, tid is not None))
