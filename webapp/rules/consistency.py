"""What a tournament file must not say, beyond its shape, in every rule set.

`exchange` checks the shape of every field; this module checks that the
results fit together as the rules require, so that nothing inconsistent is
ranked silently. Each problem is one `ExchangeError` naming the file, round,
table and start number:

- every table of a round is there: table numbers 1..T, every player of the
  field of a round without a cut seated (SEM-B2, B6, B7), and in a cut round
  the players the cut lets through (SEM-B9..B11, the final of TH-2) unless a
  correction of an earlier round may have swapped places (SEM-C10c);
- the tables of a round are the rule set's split of its players
  (`RuleSet.table_split`: SEM-B2, SMU-1, CSM-1, TH-1); a frozen table (TH-5)
  has a withdrawal behind it;
- nobody plays after leaving the field: a disqualified player (SEM-D1, D2, E),
  a withdrawn player (SEM-D4), a player who did not play the round before a
  cut round;
- a red card names at least two referees (SEM-E8); a card that disqualifies
  is applied at the player's table before this check
  (`standings.with_card_disqualifications`, SEM-D1c);
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
    from .errors import ExchangeError
    from .seating import eligible_field
    from .standings import field_status

    def fail(detail: str, round=None, table=None, where=None):
        raise ExchangeError(detail, source, round, table, where)

    for i, ev in enumerate(t.events, 1):
        if ev.type == "card" and ev.colour == "red" and len(set(ev.referees)) < 2:
            fail(f"the red card of start number {ev.start_no} names {len(set(ev.referees))} referee(s): "
                 f"a red card needs at least two (SEM-E8)", where=f"event {i}")

    corrected = _corrected_tables(t)
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
                    fail(f"start number {s} withdrew after round {status.withdrawn[s]} ({rs.withdrawal_rule}) "
                         f"and cannot play in round {r}", round=r, table=tr.table)
            _check_table(rs, t, r, tr, corrected, fail)
        kind = rs.round_kind(r)
        if kind == "cut":
            for tr in rnd.tables:
                for s in tr.players:
                    if s not in prev_seated:
                        fail(f"start number {s} did not play round {r - 1} and cannot advance into "
                             f"round {r}", round=r, table=tr.table)
            if not any(c[0] < r for c in corrected):
                _check_cut(t, rs, r, seated, fail)
        else:
            for s in sorted(eligible_field(t, r, status)):
                p = t.player(s)
                if s not in seated and p.substitute_for is None and p.status != "substitute":
                    fail(f"start number {s} is in the field but sits at no table (is a table missing?)",
                         round=r, where=f"start number {s}")
        if not (kind == "cut" and rs.final_size):
            _check_split(t, rs, rnd, status, fail)
        prev_seated = set(seated)


def _check_cut(t: Tournament, rs: RuleSet, r: int, seated: dict[int, int], fail) -> None:
    """A cut round seats exactly the players its cut lets through (SEM-B9..B11, TH-2)."""
    from .seating import DrawError, draw
    from .standings import standings

    before = replace(t, rounds=t.rounds_upto(r - 1))
    try:
        d = draw(before, r, rs)
    except DrawError:
        return
    if d.advancing is None:
        return
    extra = [s for s in seated if s not in d.advancing]
    if extra:
        s = min(extra)
        place = next((row.place for row in standings(before, r - 1, rs) if row.player.start_no == s), None)
        placed = f" (placed {place} after round {r - 1})" if place is not None else ""
        fail(f"start number {s} is seated but the cut ({rs.cut_rule}) does not let them "
             f"through{placed}", round=r, table=seated[s])
    for s in d.advancing:
        if s not in seated:
            fail(f"start number {s} advances by the cut ({rs.cut_rule}) but sits at no "
                 f"table (is a table missing?)", round=r, where=f"start number {s}")


def _check_split(t: Tournament, rs: RuleSet, rnd, status, fail) -> None:
    """The tables of a round are the rule set's split of its players (`table_split`:
    SEM-B2, SMU-1, CSM-1, TH-1), in any table order. Where a player may leave a
    table during a round (TH-5), a table may have lost players who withdrew after
    the round before: the split is then that of the players seated plus some of
    those leavers, each table at most its size in that split; a frozen table
    needs such a leaver."""
    from .ruleset import NoSplit
    from .field import entry_round

    r = rnd.number
    tables = sorted(rnd.tables, key=lambda tr: tr.table)
    sizes = [len(tr.players) for tr in tables]
    count = sum(sizes)
    leavers = 0
    if rs.withdraw_during_round:
        seated = {s for tr in tables for s in tr.players}
        by_no = t.by_start_no()
        leavers = sum(1 for s, w in status.withdrawn.items()
                      if w == r - 1 and s not in seated and s not in status.disqualified and by_no[s].present
                      and (entry_round(by_no[s], status, by_no) or r + 1) <= r)
        frozen = next((tr for tr in tables if tr.frozen), None)
        if frozen is not None and not leavers:
            fail(f"the table is frozen (TH-5) but nobody left it: no player of round {r} withdrew after "
                 f"round {r - 1}", round=r, table=frozen.table)
    have = sorted(sizes, reverse=True)
    for k in range(leavers + 1):
        try:
            split = sorted(rs.table_split(count + k), reverse=True)
        except NoSplit:
            continue
        if len(split) == len(have) and all(a <= b for a, b in zip(have, split)):
            return
    shown = ", ".join(map(str, sizes))
    try:
        split = list(rs.table_split(count))
    except NoSplit as e:
        fail(f"{count} players sit at tables of {shown}, but {e} ({rs.split_rule})", round=r)
    surplus = {size: sizes.count(size) - split.count(size) for size in set(sizes)}
    tr = next((tr for tr in tables if surplus[len(tr.players)] > 0), tables[0])
    fail(f"{count} players sit at tables of {shown}; the rule set '{rs.code}' seats them at tables of "
         f"{', '.join(map(str, split))} ({rs.split_rule}), so this table of {len(tr.players)} "
         f"(start numbers {', '.join(map(str, tr.players))}) is one too many", round=r, table=tr.table)


def _corrected_tables(t: Tournament) -> set[tuple[int, int]]:
    return {(c.get("round"), c.get("table")) for c in t.corrections
            if isinstance(c.get("round"), int) and isinstance(c.get("table"), int)}


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
