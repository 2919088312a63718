"""The tournament file `listok-tournament/1` (EXCHANGE.md) ⇄ rules objects.

Reading validates everything the engine relies on and turns every problem,
malformed shapes included, into one `ExchangeError` whose message is one line
naming the file and, where it applies, the round, table and start number.

Two table-total exemptions (the sums of such a table need not make the rule
set's total):
- a table with `disqualified` players: its sums are those at the moment of the
  disqualification (SEM-D1), when the money of the disqualified player is
  still on the table;
- a table with a `points` override and a `no-fee` entry for it in
  `corrections` (SEM-C10b): only the advantaged players got their real
  values, so the sums no longer add up.

Numbers are read exactly (`parse_float=Decimal`). Sums are money in cents and
are written as strings with two decimals. Points, ratings and scores are
written as JSON numbers: an int when integral, otherwise the shortest float
(exact for halves and any short decimal; a non-terminating fraction such as
10/3 cannot be written exactly). `corrections`, unknown top-level keys
(`Tournament.extra`) and unknown keys of events are kept as read and written
back exactly; unknown keys inside players and tables are ignored.

One file because reading and writing are two halves of one format that must stay
symmetrical: the shared helpers, then "reading" (the `_Reader`), then "writing".
"""
from __future__ import annotations

import json
import os
import re
from datetime import date as _date
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from .errors import N_, Nn_, ExchangeError, Text
from .model import CENT, STATUSES, Event, Player, Round, TableResult, Tournament, json_number, money_text
from .ruleset import REGISTRY, RuleSet, UnknownRuleSet, get_ruleset

FORMAT = "listok-tournament/1"
TOP_LEVEL_KEYS = ("format", "ruleset", "name", "date", "players", "rounds", "events", "corrections")
EVENT_TYPES = ("withdrawn", "card")
LOT = "lot"  # TH-4: the order of a lot; any rule set may record one
CARD_COLOURS = ("yellow", "red")

_NUMBER_TEXT = re.compile(r"\s*[+-]?(\d+(\.\d*)?|\.\d+)\s*")
_DATE_TEXT = re.compile(r"\d{4}-\d{2}-\d{2}")
_MAX_DIGITS = 15  # numbers are read exactly, but only up to 10**15 and down to 10**-15
_MAX_INT = 10**9
_MAX_VERBATIM = 100  # numbers in audit and unknown data: a wider range, still writable exactly


# --- small helpers shared with report.py ------------------------------------------

def _show(value) -> str:
    """A user value quoted for a one-line message."""
    if isinstance(value, Decimal):
        text = str(value)
    elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**40:
        return Text(N_("a very large number"))
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError, RecursionError):
            return _kind(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _kind(value):
    """What a JSON value is, in words (a Text; JSON's own names stay as they are)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float, Decimal)):
        return Text(N_("a number"))
    if isinstance(value, str):
        return Text(N_("a string"))
    if isinstance(value, list):
        return Text(N_("a list"))
    if isinstance(value, dict):
        return Text(N_("an object"))
    return type(value).__name__


def _as_decimal(value, allow_text: bool) -> Decimal | None:
    """The exact number in `value`, or None when it is not a (finite) number.

    Absurd magnitudes count as "not a number" too: they would only make
    quantize() or the writer fail later."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        d = Decimal(value)
    elif isinstance(value, Decimal):
        d = value
    elif isinstance(value, float):
        # dicts from other JSON parsers: the shortest repr is what was written
        d = Decimal(repr(value))
    elif allow_text and isinstance(value, str) and _NUMBER_TEXT.fullmatch(value):
        try:
            d = Decimal(value.strip())
        except InvalidOperation:
            return None
    else:
        return None
    if not d.is_finite() or d.adjusted() > _MAX_DIGITS or d.as_tuple().exponent < -_MAX_DIGITS:
        return None
    return d


def _plain(value):
    """Verbatim data (corrections, extra) made JSON-serialisable."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, Decimal):
        if value.is_finite() and value.as_tuple().exponent >= 0 and value.adjusted() <= _MAX_VERBATIM:
            return int(value)
        f = float(value)
        return f if Decimal(repr(f)) == value else str(value)
    if isinstance(value, Fraction):
        return json_number(value)
    return value


def _reject_constant(name: str):
    raise ValueError(Text(N_("%(name)s is not allowed in a tournament file"), name=name))


# --- reading ----------------------------------------------------------------------

def _missing(key: str) -> Text:
    return Text(N_("missing %(key)s"), key=key)


def _not_one_of(key: str, value, allowed) -> Text:
    return Text(N_("%(key)s %(value)s is not one of %(allowed)s"), key=key, value=_show(value),
                allowed=", ".join(allowed))


def load(path) -> Tournament:
    source = os.fspath(path)
    try:
        with open(source, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        raise ExchangeError(Text(N_("no such file")), source) from None
    except IsADirectoryError:
        raise ExchangeError(Text(N_("is a directory, not a tournament file")), source) from None
    except OSError as e:
        raise ExchangeError(Text(N_("cannot read the file (%(error)s)"), error=e.strerror or str(e)), source) from None
    return loads(data, source)


def loads(text: str | bytes, source: str = "<string>", *, consistent: bool = True) -> Tournament:
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise ExchangeError(Text(N_("not UTF-8 text (byte %(byte)s at offset %(offset)d)"),
                                     byte=f"0x{text[e.start]:02x}", offset=e.start), source) from None
    elif text.startswith("\ufeff"):
        text = text[1:]
    try:
        data = json.loads(text, parse_float=Decimal, parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        raise ExchangeError(Text(N_("invalid JSON at line %(line)d, column %(column)d: %(error)s"), line=e.lineno,
                                 column=e.colno, error=e.msg), source) from None
    except ValueError as e:  # NaN / Infinity, or a number too long to convert
        why = e.args[0] if e.args and isinstance(e.args[0], Text) else str(e)
        raise ExchangeError(Text(N_("invalid JSON: %(error)s"), error=why), source) from None
    except RecursionError:
        raise ExchangeError(Text(N_("invalid JSON: nested too deeply")), source) from None
    return from_dict(data, source, consistent=consistent)


def from_dict(d, source: str = "<string>", *, consistent: bool = True) -> Tournament:
    """The tournament in `d`; with `consistent` (always, except to test the
    format itself) also refused when its results do not fit together
    (rules/consistency.py)."""
    return _Reader(source, consistent).tournament(d)


class _Reader:
    def __init__(self, source: str, consistent: bool = True):
        self.source = source
        self.consistent = consistent

    def fail(self, detail, round=None, table=None, where=None):
        raise ExchangeError(detail, self.source, round, table, where)

    # typed access ------------------------------------------------------------
    # `what` names the value: a key of the file ('"start_no"', never translated) or a Text
    def obj(self, value, what, **loc) -> dict:
        if not isinstance(value, dict):
            self.fail(Text(N_("%(what)s must be an object, not %(kind)s"), what=what, kind=_kind(value)), **loc)
        return value

    def lst(self, value, what, **loc) -> list:
        if not isinstance(value, list):
            self.fail(Text(N_("%(what)s must be a list, not %(kind)s"), what=what, kind=_kind(value)), **loc)
        return value

    def integer(self, value, what, minimum: int | None = None, **loc) -> int:
        if (isinstance(value, Decimal) and value.is_finite() and value.adjusted() < 18
                and value == value.to_integral_value()):
            # adjusted() first: int(Decimal("1E+999999")) would take half a minute
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(Text(N_("%(what)s must be a whole number, not %(kind)s %(value)s"), what=what,
                           kind=_kind(value), value=_show(value)), **loc)
        if abs(value) > _MAX_INT:
            self.fail(Text(N_("%(what)s %(value)s is out of range"), what=what, value=_show(value)), **loc)
        if minimum is not None and value < minimum:
            self.fail(Text(N_("%(what)s must be at least %(least)d, not %(value)d"), what=what, least=minimum,
                           value=value), **loc)
        return value

    def text(self, value, what, nullable: bool = False, **loc) -> str | None:
        if value is None and nullable:
            return None
        if not isinstance(value, str):
            if nullable:
                self.fail(Text(N_("%(what)s must be a string or null, not %(kind)s"), what=what, kind=_kind(value)),
                          **loc)
            self.fail(Text(N_("%(what)s must be a string, not %(kind)s"), what=what, kind=_kind(value)), **loc)
        return value

    def flag(self, value, what, **loc) -> bool:
        if not isinstance(value, bool):
            self.fail(Text(N_("%(what)s must be true or false, not %(value)s"), what=what, value=_show(value)), **loc)
        return value

    def number(self, value, what, allow_text: bool = False, **loc) -> Decimal:
        d = _as_decimal(value, allow_text)
        if d is None:
            self.fail(Text(N_("%(what)s %(value)s is not a number"), what=what, value=_show(value)), **loc)
        return d

    # the file ----------------------------------------------------------------
    def tournament(self, d) -> Tournament:
        d = self.obj(d, Text(N_("the file")))
        if "format" not in d:
            self.fail(Text(N_('missing "format" (expected "%(format)s")'), format=FORMAT))
        if d["format"] != FORMAT:
            self.fail(Text(N_('unsupported format %(value)s (expected "%(format)s")'), value=_show(d["format"]),
                           format=FORMAT))
        code = self.text(d.get("ruleset", "sem"), '"ruleset"')
        try:
            rs = get_ruleset(code)
        except UnknownRuleSet as e:
            self.fail(e.text())
        name = self.text(d.get("name", ""), '"name"', nullable=True) or ""
        day = self.text(d.get("date"), '"date"', nullable=True)
        if day is not None:
            try:
                if not _DATE_TEXT.fullmatch(day):
                    raise ValueError
                _date.fromisoformat(day)
            except ValueError:
                self.fail(Text(N_('"date" %(value)s is not a date (YYYY-MM-DD)'), value=_show(day)))
        if "players" not in d:
            self.fail(_missing('"players"'))
        players = self.players(self.lst(d["players"], '"players"'))
        known = {p.start_no for p in players}
        corrections = self.corrections(d.get("corrections", []))
        rounds = self.rounds(rs, self.lst(d.get("rounds", []), '"rounds"'), known, corrections)
        events = self.events(self.lst(d.get("events", []), '"events"'), known)
        extra = {k: self.verbatim(v, _show(k)) for k, v in d.items() if k not in TOP_LEVEL_KEYS}
        t = Tournament(players=players, rounds=rounds, ruleset=code, name=name, date=day,
                       events=events, corrections=corrections, extra=extra)
        if self.consistent:
            from .consistency import check  # the results must fit together
            from .standings import with_card_disqualifications

            t = with_card_disqualifications(t)  # SEM-D1c from a card, as the server applies it
            check(t, rs, self.source)
        problem = rs.check_tournament(t)
        if problem is not None:
            self.fail(problem[0], **problem[1])
        return t

    def players(self, items: list) -> list[Player]:
        players: list[Player] = []
        seen: dict[int, int] = {}
        ids: dict[str, int] = {}
        for i, item in enumerate(items, 1):
            where = Text(N_("player %(n)d in the list"), n=i)
            item = self.obj(item, Text(N_("a player")), where=where)
            if "start_no" not in item:
                self.fail(_missing('"start_no"'), where=where)
            s = self.integer(item["start_no"], '"start_no"', minimum=1, where=where)
            where = Text(N_("start number %(s)d"), s=s)
            if s in seen:
                self.fail(Text(N_("start number %(s)d appears twice in the players list (entries %(a)d and %(b)d)"),
                               s=s, a=seen[s], b=i))
            seen[s] = i
            if "name" not in item:
                self.fail(_missing('"name"'), where=where)
            name = self.text(item["name"], '"name"', where=where)
            if not name.strip():
                self.fail(Text(N_('"name" is empty')), where=where)
            pid = item.get("id")
            if pid is not None:
                if isinstance(pid, int) and not isinstance(pid, bool):
                    pid = str(self.integer(pid, '"id"', where=where))
                pid = self.text(pid, '"id"', where=where)
                if pid in ids:
                    self.fail(Text(N_("id %(id)s is used by start numbers %(a)d and %(b)d"), id=_show(pid), a=ids[pid],
                                   b=s))
                ids[pid] = s
            club = self.text(item.get("club"), '"club"', nullable=True, where=where)
            status = item.get("status", "registered")
            if status not in STATUSES:
                self.fail(_not_one_of('"status"', status, STATUSES), where=where)
            rating = item.get("rating")
            if rating is not None:
                rating = self.number(rating, '"rating"', where=where)
            nominated = self.flag(item.get("nominated", False), '"nominated"', where=where)
            present = self.flag(item.get("present", True), '"present"', where=where)
            sub_for = item.get("substitute_for")
            if sub_for is not None:
                sub_for = self.integer(sub_for, '"substitute_for"', where=where)
            from_round = item.get("from_round")
            if from_round is not None:
                from_round = self.integer(from_round, '"from_round"', minimum=1, where=where)
            players.append(Player(start_no=s, name=name, club=club, status=status, rating=rating,
                                  nominated=nominated, present=present, id=pid,
                                  substitute_for=sub_for, from_round=from_round))
        for p in players:
            if p.substitute_for is not None and (p.substitute_for not in seen or p.substitute_for == p.start_no):
                self.fail(Text(N_('"substitute_for" names start number %(s)d, which is not another player in the '
                                  'players list'), s=p.substitute_for),
                          where=Text(N_("start number %(s)d"), s=p.start_no))
        return players

    def verbatim(self, value, what, **loc):
        """Audit and unknown data, kept as read; floats (from other parsers) made exact."""
        if isinstance(value, dict):
            return {k: self.verbatim(v, what, **loc) for k, v in value.items()}
        if isinstance(value, list):
            return [self.verbatim(v, what, **loc) for v in value]
        if value is None or isinstance(value, (str, bool)):
            return value
        if isinstance(value, (int, float, Decimal)):
            d = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
            if not d.is_finite() or abs(d.adjusted()) > _MAX_VERBATIM or d.as_tuple().exponent < -_MAX_VERBATIM:
                self.fail(Text(N_("%(what)s: the number %(value)s is out of range"), what=what, value=_show(value)),
                          **loc)
            return d if isinstance(value, float) else value
        self.fail(Text(N_("%(what)s: %(kind)s is not JSON data"), what=what, kind=_kind(value)), **loc)

    def corrections(self, items) -> list[dict]:
        items = self.lst(items, '"corrections"')
        for i, c in enumerate(items, 1):
            self.obj(c, Text(N_("correction %(n)d"), n=i))
        return self.verbatim(items, '"corrections"')

    def rounds(self, rs: RuleSet, items: list, known: set[int], corrections: list[dict]) -> list[Round]:
        numbers = []
        for i, item in enumerate(items, 1):
            item = self.obj(item, Text(N_("round entry %(n)d"), n=i))
            if "round" not in item:
                self.fail(Text(N_('missing "round" in round entry %(n)d'), n=i))
            numbers.append(self.integer(item["round"], Text(N_('"round" of round entry %(n)d'), n=i)))
        if numbers != list(range(1, len(numbers) + 1)):
            listed = ", ".join(map(str, numbers))
            dup = next((n for n in numbers if numbers.count(n) > 1), None)
            missing = next((n for n in range(1, max(numbers) + 1) if n not in numbers), None)
            if dup is not None:
                self.fail(Text(N_("round %(r)d appears twice (the file has rounds %(listed)s)"), r=dup, listed=listed))
            if missing is not None:
                self.fail(Text(N_("round %(r)d is missing (the file has rounds %(listed)s)"), r=missing,
                               listed=listed))
            self.fail(Text(N_("rounds must be in order 1, 2, 3, … (the file has rounds %(listed)s)"), listed=listed))
        no_fee = {
            (c.get("round"), c.get("table")) for c in corrections
            if c.get("kind") == "no-fee" and isinstance(c.get("round"), int) and isinstance(c.get("table"), int)
        }
        if rs.rounds and len(numbers) > rs.rounds:
            self.fail(Text(Nn_("the rule set '%(code)s' has %(num)d round, the file has %(have)d",
                               "the rule set '%(code)s' has %(num)d rounds, the file has %(have)d"),
                           code=rs.code, num=rs.rounds, have=len(numbers)))
        return [self.round(rs, r, item, known, no_fee) for r, item in zip(numbers, items)]

    def round(self, rs: RuleSet, r: int, item: dict, known: set[int], no_fee: set) -> Round:
        if "tables" not in item:
            self.fail(_missing('"tables"'), round=r)
        tables = self.lst(item["tables"], '"tables"', round=r)
        if not tables:
            self.fail(Text(N_("the round has no tables")), round=r)
        seated: dict[int, int] = {}
        result = []
        numbers: set[int] = set()
        for i, t in enumerate(tables, 1):
            t = self.obj(t, Text(N_("table entry %(n)d"), n=i), round=r)
            if "table" not in t:
                self.fail(Text(N_('missing "table" in table entry %(n)d'), n=i), round=r)
            n = self.integer(t["table"], Text(N_('"table" of table entry %(n)d'), n=i), minimum=1, round=r)
            if n in numbers:
                self.fail(Text(N_("table %(t)d appears twice in round %(r)d"), t=n, r=r), round=r)
            numbers.add(n)
            result.append(self.table(rs, r, n, t, known, seated, no_fee))
        return Round(r, tuple(result))

    def table(self, rs: RuleSet, r: int, n: int, t: dict, known: set[int], seated: dict[int, int],
              no_fee: set) -> TableResult:
        loc = {"round": r, "table": n}
        if "players" not in t:
            self.fail(_missing('"players"'), **loc)
        players = tuple(self.integer(s, Text(N_("a start number")), **loc)
                        for s in self.lst(t["players"], '"players"', **loc))
        if not rs.allows_sheet_size(len(players), t):
            sizes = " or ".join(map(str, rs.table_sizes))
            self.fail(Text(Nn_("%(num)d players at the table, the rule set '%(code)s' seats %(sizes)s",
                               "%(num)d players at the table, the rule set '%(code)s' seats %(sizes)s"),
                           num=len(players), code=rs.code, sizes=sizes), **loc)
        for s in players:
            if s not in known:
                self.fail(Text(N_("start number %(s)d is not in the players list"), s=s), **loc)
            if s in seated:
                if seated[s] == n:
                    self.fail(Text(N_("start number %(s)d is seated twice in round %(r)d (also at this table)"),
                                   s=s, r=r), **loc)
                self.fail(Text(N_("start number %(s)d is seated twice in round %(r)d (also at table %(t)d)"),
                               s=s, r=r, t=seated[s]), **loc)
            seated[s] = n

        if rs.result_kind == "score":
            if "sums" in t:
                self.fail(Text(N_('the rule set \'%(code)s\' has no "sums": the game scores go in "score"'),
                               code=rs.code), **loc)
            raw = []
        elif "sums" not in t:
            self.fail(_missing('"sums"'), **loc)
        else:
            raw = self.lst(t["sums"], '"sums"', **loc)
            if len(raw) != len(players):
                self.fail(Text(Nn_("%(num)d sums for %(players)d players", "%(num)d sums for %(players)d players"),
                               num=len(raw), players=len(players)), **loc)
        sums = []
        for s, v in zip(players, raw):
            d = self.number(v, Text(N_("the sum of start number %(s)d"), s=s), allow_text=True, **loc)
            q = d.quantize(CENT)
            if q != d:
                self.fail(Text(N_("the sum of start number %(s)d (%(v)s) has fractions of a cent"), s=s, v=_show(v)),
                          **loc)
            sums.append(q)

        points = None
        if t.get("points") is not None:
            raw = self.lst(t["points"], '"points"', **loc)
            if len(raw) != len(players):
                self.fail(Text(Nn_("%(num)d points for %(players)d players",
                                   "%(num)d points for %(players)d players"),
                               num=len(raw), players=len(players)), **loc)
            points = tuple(Fraction(self.number(v, Text(N_("the points of start number %(s)d"), s=s), **loc))
                           for s, v in zip(players, raw))

        scores = None
        if t.get("score") is not None:
            raw = self.lst(t["score"], '"score"', **loc)
            if len(raw) != len(players):
                self.fail(Text(Nn_("%(num)d scores for %(players)d players", "%(num)d scores for %(players)d players"),
                               num=len(raw), players=len(players)), **loc)
            scores = tuple(self.number(v, Text(N_("the score of start number %(s)d"), s=s), allow_text=True, **loc)
                           for s, v in zip(players, raw))
        elif rs.result_kind != "money":
            self.fail(_missing('"score"'), **loc)
        if rs.result_kind == "score":
            sums = [v.quantize(CENT) for v in scores]  # the game score is what a player's result sums up

        disqualified = []
        for v in self.lst(t.get("disqualified", []), '"disqualified"', **loc):
            s = self.integer(v, Text(N_("a disqualified start number")), **loc)
            if s not in players:
                self.fail(Text(N_("start number %(s)d is disqualified but does not sit at this table"), s=s), **loc)
            if s in disqualified:
                self.fail(Text(N_('start number %(s)d is listed twice in "disqualified"'), s=s), **loc)
            disqualified.append(s)
        early = self.flag(t.get("early", False), '"early"', **loc)

        expected = rs.expected_total(len(players))
        total = sum(sums, Decimal(0))
        exempt = bool(disqualified) or (points is not None and (r, n) in no_fee)
        if expected is not None and total != expected and not exempt:
            if points is not None:
                self.fail(Text(N_('the sums total %(total)s, the table total must be %(expected)s (after an SEM-C10 '
                                  'no-fee correction add a "no-fee" entry for this table to "corrections")'),
                               total=total.quantize(CENT), expected=Decimal(expected).quantize(CENT)), **loc)
            self.fail(Text(N_("the sums total %(total)s, the table total must be %(expected)s"),
                           total=total.quantize(CENT), expected=Decimal(expected).quantize(CENT)), **loc)
        result = TableResult(table=n, players=players, sums=tuple(sums), points=points,
                             disqualified=tuple(disqualified), early=early, scores=scores,
                             **rs.read_table(self, t, players, loc))
        problem = rs.check_table(result)
        if problem is not None:
            self.fail(problem, **loc)
        return result

    def events(self, items: list, known: set[int]) -> list[Event]:
        events = []
        for i, e in enumerate(items, 1):
            where = Text(N_("event %(n)d"), n=i)
            e = self.obj(e, Text(N_("an event")), where=where)
            kind = self.text(e.get("type"), '"type"', where=where)
            if kind == LOT:
                events.append(self.lot(e, known, where))
                continue
            if kind not in EVENT_TYPES:
                self.fail(_not_one_of('"type"', kind, EVENT_TYPES), where=where)
            if "start_no" not in e:
                self.fail(_missing('"start_no"'), where=where)
            s = self.integer(e["start_no"], '"start_no"', where=where)
            if s not in known:
                self.fail(Text(N_("start number %(s)d is not in the players list"), s=s), where=where)
            after_round = colour = rnd = None
            referees: tuple[str, ...] = ()
            if kind == "withdrawn":
                if "after_round" not in e:
                    self.fail(_missing('"after_round"'), where=where)
                after_round = self.integer(e["after_round"], '"after_round"', minimum=0, where=where)
                if e.get("round") is not None:
                    rnd = self.integer(e["round"], '"round"', minimum=1, where=where)
            else:
                colour = e.get("colour")
                if colour not in CARD_COLOURS:
                    self.fail(_not_one_of('"colour"', colour, CARD_COLOURS), where=where)
                if "round" not in e:
                    self.fail(_missing('"round"'), where=where)
                rnd = self.integer(e["round"], '"round"', minimum=1, where=where)
                if e.get("after_round") is not None:
                    after_round = self.integer(e["after_round"], '"after_round"', minimum=0, where=where)
                referees = tuple(self.text(x, Text(N_("a referee")), where=where)
                                 for x in self.lst(e.get("referees", []), '"referees"', where=where))
            known_keys = {"type", "start_no", "after_round", "colour", "round", "referees"}
            extra = tuple((k, self.verbatim(v, _show(k), where=where)) for k, v in e.items() if k not in known_keys)
            events.append(Event(type=kind, start_no=s, after_round=after_round, colour=colour,
                                round=rnd, referees=referees, extra=extra))
        return events


    def lot(self, e: dict, known: set[int], where) -> Event:
        """TH-4: the order a lot drawn by the judge put tied players in."""
        if "order" not in e:
            self.fail(_missing('"order"'), where=where)
        order = tuple(self.integer(x, Text(N_('a start number in "order"')), where=where)
                      for x in self.lst(e["order"], '"order"', where=where))
        for s in order:
            if s not in known:
                self.fail(Text(N_("start number %(s)d is not in the players list"), s=s), where=where)
        if len(set(order)) != len(order):
            self.fail(Text(N_('a start number appears twice in "order"')), where=where)
        rnd = None
        if e.get("round") is not None:
            rnd = self.integer(e["round"], '"round"', minimum=1, where=where)
        extra = tuple((k, self.verbatim(v, _show(k), where=where)) for k, v in e.items()
                      if k not in ("type", "order", "round"))
        return Event(type="lot", start_no=0, round=rnd, order=order, extra=extra)


# --- writing ----------------------------------------------------------------------

def to_dict(t: Tournament) -> dict:
    """The file as JSON-ready data (numbers in audit and unknown data as int/float)."""
    return _to_dict(t, _plain)


def _to_dict(t: Tournament, verbatim) -> dict:
    d: dict = {
        "format": FORMAT,
        "ruleset": t.ruleset,
        "name": t.name,
        "date": t.date,
        "players": [_player_dict(p) for p in t.players],
        "rounds": [
            {"round": r.number, "tables": [_table_dict(tr, REGISTRY.get(t.ruleset)) for tr in r.tables]}
            for r in t.rounds
        ],
    }
    if t.events:
        d["events"] = [_event_dict(e, verbatim) for e in t.events]
    if t.corrections:
        d["corrections"] = verbatim(t.corrections)
    for k, v in t.extra.items():
        if k not in TOP_LEVEL_KEYS:
            d[k] = verbatim(v)
    return d


def _player_dict(p: Player) -> dict:
    d: dict = {"start_no": p.start_no}
    if p.id is not None:
        d["id"] = p.id
    d.update(name=p.name, club=p.club, status=p.status,
             rating=None if p.rating is None else json_number(p.rating),
             nominated=p.nominated)
    if not p.present:
        d["present"] = False
    if p.substitute_for is not None:
        d["substitute_for"] = p.substitute_for
    if p.from_round is not None:
        d["from_round"] = p.from_round
    return d


def _table_dict(tr: TableResult, rs: RuleSet | None = None) -> dict:
    d: dict = {"table": tr.table, "players": list(tr.players), "sums": [money_text(s) for s in tr.sums]}
    if tr.points is not None:
        d["points"] = [json_number(p) for p in tr.points]
    if tr.scores is not None:
        d["score"] = [json_number(s) for s in tr.scores]
    if tr.disqualified:
        d["disqualified"] = list(tr.disqualified)
    if tr.early:
        d["early"] = True
    return d if rs is None else rs.write_table(tr, d)


def _event_dict(e: Event, verbatim) -> dict:
    d: dict = {"type": e.type}
    if e.type == "lot":
        if e.round is not None:
            d["round"] = e.round
        d["order"] = list(e.order)
        for k, v in e.extra:
            d.setdefault(k, verbatim(v))
        return d
    if e.colour is not None:
        d["colour"] = e.colour
    d["start_no"] = e.start_no
    if e.round is not None:
        d["round"] = e.round
    if e.after_round is not None:
        d["after_round"] = e.after_round
    if e.referees or e.type == "card":
        d["referees"] = list(e.referees)
    for k, v in e.extra:
        d.setdefault(k, verbatim(v))
    return d


def dump(t: Tournament) -> str:
    """The file text: one line per player and per table, so files diff well.

    Numbers in audit and unknown data are written exactly as read: json cannot
    write a Decimal, so each goes out as a unique placeholder string that is
    then replaced by the number's text."""
    d = _to_dict(t, lambda v: v)
    nonce = os.urandom(8).hex()
    numbers: dict[str, str] = {}

    def exact(o):
        if isinstance(o, Fraction):
            return json_number(o)
        if isinstance(o, Decimal):
            if not o.is_finite():
                return str(o)
            token = f"\x00{nonce}:{len(numbers)}\x00"
            numbers[json.dumps(token)] = str(o)
            return token
        raise TypeError(f"{type(o).__name__} cannot be written to a tournament file")

    def one(value) -> str:
        return json.dumps(value, ensure_ascii=False, default=exact)

    def block(value, indent: str) -> str:
        return json.dumps(value, ensure_ascii=False, indent=2, default=exact).replace("\n", "\n" + indent)

    lines = []
    for key, value in d.items():
        if key == "players" and value:
            body = ",\n".join("    " + one(p) for p in value)
            lines.append(f'  "players": [\n{body}\n  ]')
        elif key == "rounds" and value:
            rounds = []
            for r in value:
                tables = ",\n".join("      " + one(tr) for tr in r["tables"])
                rounds.append(f'    {{"round": {r["round"]}, "tables": [\n{tables}\n    ]}}')
            lines.append('  "rounds": [\n' + ",\n".join(rounds) + "\n  ]")
        elif key in ("events", "corrections") and value:
            body = ",\n".join("    " + one(x) for x in value)
            lines.append(f'  {one(key)}: [\n{body}\n  ]')
        else:
            lines.append(f"  {one(key)}: {block(value, '  ')}")
    text = "{\n" + ",\n".join(lines) + "\n}\n"
    for token, number in numbers.items():
        text = text.replace(token, number)
    return text
