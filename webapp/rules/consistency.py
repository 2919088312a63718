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
from decimal import Decimal
from fractions import Fraction

from .errors import N_, Nn_, Text
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
            fail(Text(Nn_("the red card of start number %(s)d names %(num)d referee(s): a red card needs at least "
                          "two (SEM-E8)",
                          "the red card of start number %(s)d names %(num)d referee(s): a red card needs at least "
                          "two (SEM-E8)"), s=ev.start_no, num=len(set(ev.referees))),
                 where=Text(N_("event %(n)d"), n=i))

    corrected = _corrected_tables(t)
    prev_seated: set[int] = set()
    for rnd in t.rounds:
        r = rnd.number
        numbers = sorted(tr.table for tr in rnd.tables)
        missing = [k for k in range(1, len(numbers) + 1) if k not in numbers]
        if missing:
            listed = ", ".join(map(str, numbers))
            fail(Text(N_("table %(t)d is missing (the round has tables %(listed)s)"), t=missing[0], listed=listed),
                 round=r)
        status = field_status(t, r - 1)
        seated = {s: tr.table for tr in rnd.tables for s in tr.players}
        for tr in rnd.tables:
            for s in tr.players:
                if s in status.disqualified:
                    fail(Text(N_("start number %(s)d was disqualified in round %(dq)d (SEM-D2) and cannot play "
                                 "in round %(r)d"), s=s, dq=status.disqualified[s], r=r), round=r, table=tr.table)
                if s in status.withdrawn and status.withdrawn[s] < r:
                    fail(Text(N_("start number %(s)d withdrew after round %(w)d (%(rule)s) and cannot play in "
                                 "round %(r)d"), s=s, w=status.withdrawn[s], rule=rs.withdrawal_rule, r=r),
                         round=r, table=tr.table)
            _check_table(rs, t, r, tr, corrected, fail)
        kind = rs.round_kind(r)
        if kind == "cut":
            for tr in rnd.tables:
                for s in tr.players:
                    if s not in prev_seated:
                        fail(Text(N_("start number %(s)d did not play round %(prev)d and cannot advance into "
                                     "round %(r)d"), s=s, prev=r - 1, r=r), round=r, table=tr.table)
            if not any(c[0] < r for c in corrected):
                _check_cut(t, rs, r, seated, fail)
        else:
            for s in sorted(eligible_field(t, r, status)):
                p = t.player(s)
                if s not in seated and p.substitute_for is None and p.status != "substitute":
                    fail(Text(N_("start number %(s)d is in the field but sits at no table (is a table "
                                 "missing?)"), s=s), round=r, where=Text(N_("start number %(s)d"), s=s))
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
        if place is not None:
            fail(Text(N_("start number %(s)d is seated but the cut (%(rule)s) does not let them through (placed "
                         "%(place)d after round %(prev)d)"), s=s, rule=rs.cut_rule, place=place, prev=r - 1),
                 round=r, table=seated[s])
        fail(Text(N_("start number %(s)d is seated but the cut (%(rule)s) does not let them through"), s=s,
                  rule=rs.cut_rule), round=r, table=seated[s])
    for s in d.advancing:
        if s not in seated:
            fail(Text(N_("start number %(s)d advances by the cut (%(rule)s) but sits at no table (is a table "
                         "missing?)"), s=s, rule=rs.cut_rule), round=r, where=Text(N_("start number %(s)d"), s=s))


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
            fail(Text(N_("the table is frozen (TH-5) but nobody left it: no player of round %(r)d withdrew after "
                         "round %(prev)d"), r=r, prev=r - 1), round=r, table=frozen.table)
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
        fail(Text(Nn_("%(num)d players sit at tables of %(shown)s, but %(why)s (%(rule)s)",
                      "%(num)d players sit at tables of %(shown)s, but %(why)s (%(rule)s)"),
                  num=count, shown=shown, why=e.args[0], rule=rs.split_rule), round=r)
    surplus = {size: sizes.count(size) - split.count(size) for size in set(sizes)}
    tr = next((tr for tr in tables if surplus[len(tr.players)] > 0), tables[0])
    fail(Text(Nn_("%(num)d players sit at tables of %(shown)s; the rule set '%(code)s' seats them at tables of "
                  "%(split)s (%(rule)s), so this table of %(size)d (start numbers %(who)s) is one too many",
                  "%(num)d players sit at tables of %(shown)s; the rule set '%(code)s' seats them at tables of "
                  "%(split)s (%(rule)s), so this table of %(size)d (start numbers %(who)s) is one too many"),
              num=count, shown=shown, code=rs.code, split=", ".join(map(str, split)), rule=rs.split_rule,
              size=len(tr.players), who=", ".join(map(str, tr.players))), round=r, table=tr.table)


def _corrected_tables(t: Tournament) -> set[tuple[int, int]]:
    return {(c.get("round"), c.get("table")) for c in t.corrections
            if isinstance(c.get("round"), int) and isinstance(c.get("table"), int)}


def _check_table(rs: RuleSet, t: Tournament, r: int, tr, corrected, fail) -> None:
    loc = {"round": r, "table": tr.table}
    if tr.points is not None:
        if (r, tr.table) not in corrected:
            fail(Text(N_("the table has \"points\" but \"corrections\" has no SEM-C10 entry for it: points "
                         "differ from the sums only after a correction")), **loc)
        by_place = rs.place_points.get(len(tr.players))
        if by_place:
            low, high = min(by_place), max(by_place)
            for s, p in zip(tr.players, tr.points):
                if s in tr.disqualified:
                    continue
                if not (low <= p <= high and (2 * Fraction(p)).denominator == 1):
                    fail(Text(N_("%(p)s points for start number %(s)d is not a table result (a table gives "
                                 "%(low)s to %(high)s)"), p=_num(p), s=s, low=low, high=high), **loc)
    if tr.disqualified or rs.max_payment_per_game is None:
        return
    expected = rs.expected_total(len(tr.sums))
    lowest = CENT - rs.max_payment_per_game
    highest = expected - lowest * (len(tr.sums) - 1)
    for h in sheet_hints(rs, tr.sums):
        if h.rule == "SEM-C11":
            s = tr.players[h.position]
            fail(Text(N_("the sum %(sum)s of start number %(s)d is impossible: one game costs at most %(most)s, "
                         "so a sum lies between %(low)s and %(high)s (SEM-C11)"), sum=_cents(tr.sums[h.position]),
                      s=s, most=_cents(rs.max_payment_per_game), low=_cents(lowest), high=_cents(highest)), **loc)


def _cents(v) -> Decimal:
    """Money to two decimals: str() gives the English line, a page its own decimal sign."""
    return Decimal(v).quantize(CENT)


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
            raise ValueError(Text(N_("%(path)s: the rule set is '%(code)s', %(first)s is '%(first_code)s': a season "
                                     "table takes the files of one rule set"), path=path, code=t.ruleset,
                                  first=first_path, first_code=first.ruleset))
        tid = t.extra.get("id")
        name = ("name", t.name.strip().casefold(), t.date, t.ruleset)
        other = None
        if tid is not None and str(tid) in by_id:
            other, what = by_id[str(tid)], Text(N_("id %(id)s"), id=tid)
        elif name in by_name and (tid is None or not by_name[name][1]):
            other, what = by_name[name][0], Text(N_("'%(name)s' of %(date)s"), name=t.name,
                                                 date=t.date or Text(N_("no date")))
        if other is not None:
            raise ValueError(Text(N_("%(a)s and %(b)s are the same tournament (%(what)s): each tournament counts "
                                     "once"), a=other, b=path, what=what))
        if tid is not None:
            by_id[str(tid)] = path
        by_name.setdefault(name, (path, tid is not None))
