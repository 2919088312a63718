"""Writing and reading a tournament file is lossless: loads(dump(t)) == t."""
from __future__ import annotations

import json
from datetime import date
from decimal import Decimal
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from webapp.rules.exchange import TOP_LEVEL_KEYS, ExchangeError, dump, from_dict, loads, to_dict
from webapp.rules.model import CENT, Event, Player, Round, TableResult, Tournament
from webapp.rules.ruleset import get_ruleset

CLUBS = ["MK Poprad", "MK Žilina", "Klub mariášu Košice", "MK Ďurďošík", "Šachový a mariášový klub Ľubica"]
STATUSES = ["registered", "licensed", "guest", "substitute"]

names = st.text(min_size=1, max_size=30).filter(lambda s: s.strip())
leaf = st.one_of(
    st.none(), st.booleans(), st.integers(-10**6, 10**6), st.text(max_size=12),
    st.decimals(min_value=-10**6, max_value=10**6, places=2),
)
json_value = st.recursive(
    leaf,
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.text(max_size=8), inner, max_size=3)),
    max_leaves=8,
)


@st.composite
def players(draw) -> list[Player]:
    n = 3 * draw(st.integers(1, 3)) + draw(st.integers(0, 2))
    numbers = draw(st.lists(st.integers(1, 500), min_size=n, max_size=n, unique=True))
    result = []
    for i, s in enumerate(numbers):
        others = [x for x in numbers if x != s]
        status = draw(st.sampled_from(STATUSES))
        sub_for = draw(st.none() | st.sampled_from(others)) if status == "substitute" else None
        result.append(Player(
            start_no=s,
            name=draw(names),
            club=draw(st.none() | st.sampled_from(CLUBS)),
            status=status,
            rating=draw(st.none() | st.integers(0, 3000)),
            nominated=draw(st.booleans()),
            present=draw(st.booleans()),
            id=draw(st.none() | st.just(f"SK-{i:04d}")),
            substitute_for=sub_for,
            from_round=draw(st.none() | st.integers(1, 6)) if sub_for is not None else None,
        ))
    return result


@st.composite
def table_result(draw, number: int, seated: list[int], total: Decimal) -> TableResult:
    dq = draw(st.lists(st.sampled_from(seated), unique=True, max_size=2))
    cents = draw(st.lists(st.integers(-999, 2999), min_size=2, max_size=2))
    sums = [Decimal(c) * CENT for c in cents]
    if not dq:  # a disqualified table keeps the sums of the moment; no total to make
        sums.append((total - sum(sums)).quantize(CENT))
    else:
        sums.append(Decimal(draw(st.integers(-999, 2999))) * CENT)
    halves = st.integers(-2, 12).map(lambda h: Fraction(h, 2))
    points = draw(st.none() | st.tuples(halves, halves, halves))
    scores = draw(st.none() | st.tuples(*[st.integers(-500, 1000).map(Decimal)] * 3))
    return TableResult(number, tuple(seated), tuple(sums), points, tuple(dq),
                       bool(dq) and draw(st.booleans()), scores)


@st.composite
def tournaments(draw) -> Tournament:
    code = draw(st.sampled_from(["sem", "bbliga"]))
    rs = get_ruleset(code)
    ps = draw(players())
    numbers = [p.start_no for p in ps]
    rounds = []
    for r in range(1, draw(st.integers(0, rs.rounds)) + 1):
        order = draw(st.permutations(numbers))
        k = draw(st.integers(1, len(order) // 3))
        table_numbers = draw(st.lists(st.integers(1, 40), min_size=k, max_size=k, unique=True))
        rounds.append(Round(r, tuple(
            draw(table_result(tn, order[3 * i:3 * i + 3], rs.expected_total(3)))
            for i, tn in enumerate(table_numbers)
        )))
    events = []
    for _ in range(draw(st.integers(0, 3))):
        extra = tuple(draw(st.dictionaries(
            st.text(min_size=1, max_size=8).filter(
                lambda k: k not in {"type", "start_no", "after_round", "colour", "round", "referees"}),
            json_value, max_size=2)).items())
        if draw(st.booleans()):
            events.append(Event("withdrawn", draw(st.sampled_from(numbers)),
                                after_round=draw(st.integers(0, 6)), extra=extra))
        else:
            events.append(Event("card", draw(st.sampled_from(numbers)),
                                colour=draw(st.sampled_from(["yellow", "red"])),
                                round=draw(st.integers(1, 6)),
                                referees=tuple(draw(st.lists(names, max_size=2))), extra=extra))
    corrections = draw(st.lists(st.dictionaries(st.text(max_size=8), json_value, max_size=4), max_size=2))
    extra = draw(st.dictionaries(st.text(max_size=10).filter(lambda k: k not in TOP_LEVEL_KEYS),
                                 json_value, max_size=3))
    day = draw(st.none() | st.dates(date(1990, 1, 1), date(2099, 12, 31)).map(date.isoformat))
    return Tournament(ps, rounds, ruleset=code, name=draw(st.text(max_size=30)), date=day,
                      events=events, corrections=corrections, extra=extra)


@settings(max_examples=100, deadline=None)
@given(tournaments())
def test_dump_then_loads_is_lossless(t):
    text = dump(t)
    # random results need not fit together (rules/consistency.py): the format alone is tested
    again = loads(text, "prop.json", consistent=False)
    assert again == t
    assert dump(again) == text
    # the text is plain JSON with the documented shapes
    d = json.loads(text)
    assert d == to_dict(t)
    for r in d["rounds"]:
        for tr in r["tables"]:
            assert all(isinstance(s, str) and s.count(".") == 1 and len(s.split(".")[1]) == 2
                       for s in tr["sums"])


# --- whatever is put anywhere in a file, reading gives a Tournament or an ExchangeError


def _valid_file() -> dict:
    return json.loads(dump(Tournament(
        [Player(1, "Kučera Miloš", "MK Poprad", rating=812, id="SK-1"), Player(2, "Nováková Eva", status="guest"),
         Player(3, "Horváth Ján", "MK Žilina"), Player(4, "Šimko Peter", status="substitute", substitute_for=2,
                                                       from_round=2)],
        [Round(1, (TableResult(1, (1, 2, 3), (Decimal("14.00"), Decimal("9.50"), Decimal("6.50")),
                               points=(Fraction(5), Fraction(3), Fraction(1))),)),
         Round(2, (TableResult(1, (4, 1, 3), (Decimal("12.00"), Decimal("12.00"), Decimal("6.00")),
                               disqualified=(3,), scores=(Decimal(1), Decimal(2), Decimal(3))),))],
        events=[Event("withdrawn", 2, after_round=1), Event("card", 1, colour="yellow", round=2, referees=("R",))],
        corrections=[{"round": 1, "table": 1, "kind": "no-fee"}],
    )), parse_float=Decimal)


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, prefix + (i,))


VALID = _valid_file()
PATHS = list(_paths(VALID))
nasty = st.one_of(
    json_value,
    st.sampled_from([10**20, -(10**20), 10**5000, Decimal("1E+999999"), Decimal("1E-999999"), Decimal("0E-50"),
                     "1e3", "NaN", " 12.5 ", "", "\n", 0, -1, 2**31, True, [], {}, [[[]]], "12,50"]),
    st.integers(), st.floats(), st.text(max_size=5),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(PATHS), nasty, st.booleans()), min_size=1, max_size=3))
def test_any_value_anywhere_gives_a_tournament_or_an_exchange_error(edits):
    import copy

    d = copy.deepcopy(VALID)
    for path, value, delete in edits:
        if not path:
            d = value
            continue
        parent = d
        try:
            for key in path[:-1]:
                parent = parent[key]
            if delete and isinstance(parent, dict):
                parent.pop(path[-1], None)
            else:
                parent[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue  # an earlier edit changed the shape
    try:
        t = from_dict(d, "fuzz.json")
    except ExchangeError as e:
        assert "\n" not in str(e) and str(e).startswith("fuzz.json: ")
    else:
        assert loads(dump(t)) == t
