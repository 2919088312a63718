"""The tournament file listok-tournament/1 (EXCHANGE.md): reading, writing and
every validation message (one line naming file, round, table, start number)."""
from __future__ import annotations

import copy
import json
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from webapp.rules.exchange import ExchangeError, dump, from_dict, load, loads, to_dict
from webapp.rules.model import Event, Player
from webapp.rules.ruleset import UnknownRuleSet
from webapp.rules.standings import standings

DATA = Path(__file__).resolve().parent.parent / "data"
SAMPLES = sorted(DATA.glob("*.json"))


def base() -> dict:
    """Six players, two rounds of two tables, all valid."""
    return {
        "format": "listok-tournament/1",
        "ruleset": "sem",
        "name": "SEM 5 - Poprad",
        "date": "2026-03-14",
        "players": [
            {"start_no": 1, "id": "SK-0001", "name": "Kučera Miloš", "club": "MK Poprad",
             "status": "registered", "rating": 812, "nominated": True},
            {"start_no": 2, "name": "Nováková Eva", "club": None, "status": "guest", "rating": None},
            {"start_no": 3, "name": "Horváth Ján", "club": "MK Žilina"},
            {"start_no": 4, "name": "Šimko Peter", "club": "MK Poprad"},
            {"start_no": 5, "name": "Ďurica Štefan", "club": "MK Nitra"},
            {"start_no": 6, "name": "Tóth Mária", "club": "MK Žilina"},
        ],
        "rounds": [
            {"round": 1, "tables": [
                {"table": 1, "players": [1, 2, 3], "sums": ["14.00", "9.50", "6.50"]},
                {"table": 2, "players": [4, 5, 6], "sums": ["10.00", "10.00", "10.00"]},
            ]},
            {"round": 2, "tables": [
                {"table": 1, "players": [4, 2, 6], "sums": ["12.00", "12.00", "6.00"]},
                {"table": 2, "players": [1, 5, 3], "sums": [15, 10.5, "4.50"]},
            ]},
        ],
    }


def error(d, source="poprad.json") -> str:
    text = d if isinstance(d, str) else json.dumps(d, ensure_ascii=False, default=str)
    with pytest.raises(ExchangeError) as exc:
        loads(text, source)
    message = str(exc.value)
    assert "\n" not in message
    assert message.startswith(f"{source}: ")
    return message


def table(d, r, t) -> dict:
    return d["rounds"][r - 1]["tables"][t - 1]


def test_base_is_valid():
    t = loads(json.dumps(base()), "poprad.json")
    assert [p.start_no for p in t.players] == [1, 2, 3, 4, 5, 6]
    assert t.last_round == 2


# --- reading --------------------------------------------------------------------


def test_worked_example_gives_the_rules_md_order_and_ties():
    t = load(DATA / "worked_example.json")
    rows = standings(t)
    assert [r.player.start_no for r in rows] == [1, 3, 4, 2, 5, 8, 6, 7, 9]
    ties = {r.player.start_no: r.tie for r in rows}
    assert ties[3] == ties[4] == "start number"
    assert ties[2] == ties[5] == ties[8] == "start number"
    assert ties[1] is ties[6] is ties[7] is ties[9] is None
    assert [r.stats.points for r in rows][:3] == [5, 4, 4]
    assert rows[0].stats.money == Decimal("14.00")


def test_defaults():
    t = loads(json.dumps({"format": "listok-tournament/1", "players": [{"start_no": 1, "name": "A"}]}))
    assert t.ruleset == "sem"
    assert t.rounds == [] and t.events == [] and t.corrections == [] and t.extra == {}
    p = t.players[0]
    assert (p.status, p.present, p.nominated, p.rating, p.club, p.id) == ("registered", True, False, None, None, None)
    assert p.key == "A"


def test_numbers_are_parsed_exactly():
    d = base()
    table(d, 1, 1)["sums"] = ["14", 9.5, "6.50"]
    table(d, 1, 2)["points"] = [3, 3, 3]
    table(d, 2, 1)["points"] = [4.5, 3.5, 1]
    d["corrections"] = [{"round": 1, "table": 2, "kind": "fee"}, {"round": 2, "table": 1, "kind": "fee"}]
    d["players"][0]["rating"] = 812.5
    t = loads(json.dumps(d))
    assert t.rounds[0].tables[0].sums == (Decimal("14.00"), Decimal("9.50"), Decimal("6.50"))
    assert all(isinstance(s, Decimal) for s in t.rounds[0].tables[0].sums)
    assert t.rounds[1].tables[0].points == (Fraction(9, 2), Fraction(7, 2), Fraction(1))
    assert t.players[0].rating == Decimal("812.5")
    out = to_dict(t)
    assert out["rounds"][0]["tables"][0]["sums"] == ["14.00", "9.50", "6.50"]
    assert out["rounds"][1]["tables"][0]["points"] == [4.5, 3.5, 1]
    assert out["rounds"][0]["tables"][1]["points"] == [3, 3, 3]
    assert isinstance(out["rounds"][0]["tables"][1]["points"][0], int)
    assert out["players"][0]["rating"] == 812.5
    assert out["players"][1]["rating"] is None
    assert to_dict(loads(json.dumps(base())))["players"][0]["rating"] == 812


def test_disqualification_early_score_events_corrections_and_extra_keys_are_kept():
    d = base()
    table(d, 2, 2).update(disqualified=[5], early=True, score=[120, 80, "100"])
    table(d, 2, 2)["sums"] = ["12.00", "9.00", "6.00"]  # as at the disqualification
    d["events"] = [
        {"type": "withdrawn", "start_no": 6, "after_round": 2},
        {"type": "card", "colour": "yellow", "start_no": 4, "round": 2, "referees": ["Hlavný Rozhodca"],
         "note": "slow play"},
    ]
    d["corrections"] = [{"round": 1, "table": 1, "kind": "operator-error", "old": ["14.00"], "amount": 1.25}]
    d["organiser"] = {"club": "MK Poprad", "fee": 12.5}
    t = loads(json.dumps(d))
    tr = t.rounds[1].tables[1]
    assert tr.disqualified == (5,) and tr.early is True
    assert tr.scores == (Decimal(120), Decimal(80), Decimal(100))
    assert t.events[0] == Event("withdrawn", 6, after_round=2)
    assert t.events[1].referees == ("Hlavný Rozhodca",) and t.events[1].extra == (("note", "slow play"),)
    assert t.corrections[0]["amount"] == Decimal("1.25")
    assert t.extra == {"organiser": {"club": "MK Poprad", "fee": Decimal("12.5")}}
    again = loads(dump(t))
    assert again == t
    assert json.loads(dump(t))["organiser"] == {"club": "MK Poprad", "fee": 12.5}
    assert json.loads(dump(t))["events"][1]["note"] == "slow play"


def test_substitute_fields():
    d = base()
    d["players"].append({"start_no": 7, "name": "Zeman Rudolf", "status": "substitute",
                         "substitute_for": 5, "from_round": 3, "present": False})
    p = loads(json.dumps(d)).players[-1]
    assert (p.status, p.substitute_for, p.from_round, p.present) == ("substitute", 5, 3, False)


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_sample_files_round_trip_byte_for_byte(path):
    t = load(path)
    assert loads(dump(t)) == t
    if path.name != "worked_example.json":  # hand-written; the others are written by dump()
        assert dump(t) == path.read_text(encoding="utf-8")


def test_load_reports_missing_file_and_bad_bytes(tmp_path):
    with pytest.raises(ExchangeError, match=r"nope\.json: no such file$"):
        load(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_bytes(b'{"format": "\xff"}')
    with pytest.raises(ExchangeError, match=r"bad\.json: not UTF-8 text"):
        load(bad)
    with pytest.raises(ExchangeError, match="is a directory"):
        load(tmp_path)


def test_error_is_a_value_error_with_location():
    d = base()
    table(d, 2, 2)["sums"] = ["15.00", "10.50", "5.50"]
    with pytest.raises(ValueError) as exc:
        loads(json.dumps(d), "poprad.json")
    e = exc.value
    assert isinstance(e, ExchangeError)
    assert (e.source, e.round, e.table) == ("poprad.json", 2, 2)


# --- validation, one message each -------------------------------------------------


def test_invalid_json_names_line_and_column():
    msg = error('{\n  "format": "listok-tournament/1",\n  "players": [}\n')
    assert msg.startswith("poprad.json: invalid JSON at line 3, column 15:")


def test_nan_is_rejected():
    assert "NaN is not allowed" in error('{"format": "listok-tournament/1", "players": [], "x": NaN}')


def test_missing_format():
    d = base()
    del d["format"]
    assert error(d) == 'poprad.json: missing "format" (expected "listok-tournament/1")'


def test_wrong_format():
    d = base()
    d["format"] = "listok-tournament/2"
    assert error(d) == ('poprad.json: unsupported format "listok-tournament/2" '
                        '(expected "listok-tournament/1")')


def test_unknown_ruleset():
    d = base()
    d["ruleset"] = "tarok"
    assert error(d) == f"poprad.json: {UnknownRuleSet('tarok')}"
    assert "unknown rule set 'tarok'" in error(d)


def test_smu_2_an_sem_file_read_as_smu_fails_the_zero_total():
    """The other rule sets are implemented: SMU tables total 0 Kč (SMU-2)."""
    d = base()
    d["ruleset"] = "smu"
    assert error(d) == "poprad.json: round 1, table 1: the sums total 30.00, the table total must be 0.00"


def test_missing_players():
    d = base()
    del d["players"]
    assert error(d) == 'poprad.json: missing "players"'


def test_missing_start_no():
    d = base()
    del d["players"][2]["start_no"]
    assert error(d) == 'poprad.json: player 3 in the list: missing "start_no"'


def test_missing_name():
    d = base()
    del d["players"][3]["name"]
    assert error(d) == 'poprad.json: start number 4: missing "name"'


def test_bad_status():
    d = base()
    d["players"][1]["status"] = "vip\nnext line"
    msg = error(d)
    assert msg == ('poprad.json: start number 2: "status" "vip\\nnext line" is not one of '
                   'registered, licensed, guest, substitute')


def test_bad_rating():
    d = base()
    d["players"][0]["rating"] = "812"
    assert error(d) == 'poprad.json: start number 1: "rating" "812" is not a number'


def test_duplicate_start_numbers():
    d = base()
    d["players"][4]["start_no"] = 2
    assert error(d) == "poprad.json: start number 2 appears twice in the players list (entries 2 and 5)"


def test_duplicate_ids():
    d = base()
    d["players"][5]["id"] = "SK-0001"
    assert error(d) == 'poprad.json: id "SK-0001" is used by start numbers 1 and 6'


def test_unknown_start_number_at_a_table():
    d = base()
    table(d, 2, 1)["players"] = [4, 2, 17]
    assert error(d) == "poprad.json: round 2, table 1: start number 17 is not in the players list"


def test_player_seated_twice_in_one_round():
    d = base()
    d["players"] += [{"start_no": n, "name": f"Hráč {n}"} for n in range(7, 19)]
    d["rounds"] = [
        {"round": 1, "tables": [
            {"table": t, "players": [3 * t - 2, 3 * t - 1, 3 * t], "sums": ["10.00"] * 3} for t in range(1, 7)
        ]},
        {"round": 2, "tables": [
            {"table": 3, "players": [17, 2, 3], "sums": ["10.00"] * 3},
            {"table": 5, "players": [4, 5, 17], "sums": ["10.00"] * 3},
        ]},
    ]
    assert error(d) == "poprad.json: round 2, table 5: start number 17 is seated twice in round 2 (also at table 3)"


def test_player_seated_twice_at_one_table():
    d = base()
    table(d, 1, 1)["players"] = [1, 2, 1]
    assert error(d) == "poprad.json: round 1, table 1: start number 1 is seated twice in round 1 (also at this table)"


def test_wrong_number_of_players_at_a_table():
    d = base()
    table(d, 1, 2)["players"] = [4, 5, 6, 1]
    table(d, 1, 2)["sums"] = ["10.00"] * 4
    assert error(d) == "poprad.json: round 1, table 2: 4 players at the table, the rule set 'sem' seats 3"


def test_wrong_number_of_sums():
    d = base()
    table(d, 2, 2)["sums"] = ["15.00", "15.00"]
    assert error(d) == "poprad.json: round 2, table 2: 2 sums for 3 players"


@pytest.mark.parametrize("bad, shown", [("abc", '"abc"'), (True, "true"), (None, "null"), ([10], "[10]"),
                                        ("NaN", '"NaN"'), ("1e3", '"1e3"'), ("", '""')])
def test_sum_that_is_not_a_number(bad, shown):
    d = base()
    table(d, 2, 1)["sums"] = ["12.00", bad, "6.00"]
    assert error(d) == f"poprad.json: round 2, table 1: the sum of start number 2 {shown} is not a number"


def test_sum_with_fractions_of_a_cent():
    d = base()
    table(d, 1, 1)["sums"] = ["14.005", "9.495", "6.50"]
    assert error(d) == 'poprad.json: round 1, table 1: the sum of start number 1 ("14.005") has fractions of a cent'
    table(d, 1, 1)["sums"] = [14.001, 9.499, 6.5]
    assert error(d) == "poprad.json: round 1, table 1: the sum of start number 1 (14.001) has fractions of a cent"


def test_trailing_zeros_are_not_fractions_of_a_cent():
    d = base()
    table(d, 1, 1)["sums"] = ["14.000", 9.50000, "6.5"]
    assert loads(json.dumps(d)).rounds[0].tables[0].sums == (Decimal("14.00"), Decimal("9.50"), Decimal("6.50"))


def test_table_total_must_be_the_rule_sets():
    d = base()
    table(d, 2, 2)["sums"] = ["15.00", "10.50", "5.50"]
    assert error(d) == "poprad.json: round 2, table 2: the sums total 31.00, the table total must be 30.00"


def test_table_total_of_bb_liga():
    d = base()
    d["ruleset"] = "bbliga"
    assert error(d) == "poprad.json: round 1, table 1: the sums total 30.00, the table total must be 12.00"


def test_table_total_is_not_checked_with_a_disqualification():
    d = base()
    table(d, 2, 2).update(sums=["12.00", "8.00", "4.00"], disqualified=[3])
    assert loads(json.dumps(d)).rounds[1].tables[1].disqualified == (3,)


def test_table_total_is_not_checked_after_a_no_fee_correction():
    d = base()
    table(d, 2, 2).update(sums=["15.00", "10.50", "5.50"], points=[5, 3, 1])
    msg = error(d)
    assert msg.startswith("poprad.json: round 2, table 2: the sums total 31.00, the table total must be 30.00")
    assert "no-fee" in msg
    d["corrections"] = [{"round": 2, "table": 2, "kind": "no-fee", "asked_by": "#3", "approved_by": "delegát"}]
    assert loads(json.dumps(d)).rounds[1].tables[1].points == (5, 3, 1)
    d["corrections"][0]["kind"] = "fee"
    error(d)


def test_duplicate_table_numbers():
    d = base()
    table(d, 2, 2)["table"] = 1
    assert error(d) == "poprad.json: round 2: table 1 appears twice in round 2"


def test_round_missing():
    d = base()
    d["rounds"].append({**copy.deepcopy(d["rounds"][1]), "round": 4})
    assert error(d) == "poprad.json: round 3 is missing (the file has rounds 1, 2, 4)"


def test_round_twice_and_out_of_order():
    d = base()
    d["rounds"][1]["round"] = 1
    assert error(d) == "poprad.json: round 1 appears twice (the file has rounds 1, 1)"
    d["rounds"] = [d["rounds"][1], d["rounds"][0]]
    d["rounds"][0]["round"], d["rounds"][1]["round"] = 2, 1
    assert error(d) == "poprad.json: rounds must be in order 1, 2, 3, … (the file has rounds 2, 1)"


def test_more_rounds_than_the_rule_set():
    d = base()
    d["rounds"] = [copy.deepcopy(d["rounds"][i % 2]) for i in range(7)]
    for i, r in enumerate(d["rounds"], 1):
        r["round"] = i
    assert error(d) == "poprad.json: the rule set 'sem' has 6 rounds, the file has 7"


def test_disqualified_player_not_at_that_table():
    d = base()
    table(d, 2, 1)["disqualified"] = [5]
    assert error(d) == "poprad.json: round 2, table 1: start number 5 is disqualified but does not sit at this table"


def test_points_of_the_wrong_length():
    d = base()
    table(d, 1, 2)["points"] = [3, 3]
    assert error(d) == "poprad.json: round 1, table 2: 2 points for 3 players"


def test_points_that_are_not_numbers():
    d = base()
    table(d, 1, 2)["points"] = [3, "3", 3]
    assert error(d) == 'poprad.json: round 1, table 2: the points of start number 5 "3" is not a number'


def test_score_of_the_wrong_length():
    d = base()
    table(d, 1, 2)["score"] = [1]
    assert error(d) == "poprad.json: round 1, table 2: 1 scores for 3 players"


def test_substitute_for_an_unknown_start_number():
    d = base()
    d["players"][5].update(status="substitute", substitute_for=42, from_round=2)
    assert error(d) == ('poprad.json: start number 6: "substitute_for" names start number 42, '
                        "which is not another player in the players list")


def test_event_naming_an_unknown_start_number():
    d = base()
    d["events"] = [{"type": "withdrawn", "start_no": 6, "after_round": 1},
                   {"type": "card", "colour": "red", "start_no": 99, "round": 2, "referees": ["A", "B"]}]
    assert error(d) == "poprad.json: event 2: start number 99 is not in the players list"


@pytest.mark.parametrize("event, message", [
    ({"type": "protest", "start_no": 1}, '"type" "protest" is not one of withdrawn, card'),
    ({"type": "card", "colour": "green", "start_no": 1, "round": 1}, '"colour" "green" is not one of yellow, red'),
    ({"type": "card", "colour": "red", "start_no": 1}, 'missing "round"'),
    ({"type": "withdrawn", "start_no": 1}, 'missing "after_round"'),
    ({"type": "withdrawn", "after_round": 1}, 'missing "start_no"'),
])
def test_bad_events(event, message):
    d = base()
    d["events"] = [event]
    assert error(d) == f"poprad.json: event 1: {message}"


@pytest.mark.parametrize("mutate, message", [
    (lambda d: [], "the file must be an object, not a list"),
    (lambda d: {**d, "players": {"1": "A"}}, '"players" must be a list, not an object'),
    (lambda d: {**d, "players": ["A"]}, "player 1 in the list: a player must be an object, not a string"),
    (lambda d: {**d, "rounds": {"1": []}}, '"rounds" must be a list, not an object'),
    (lambda d: {**d, "rounds": [[1, 2]]}, "round entry 1 must be an object, not a list"),
    (lambda d: {**d, "rounds": [{"tables": []}]}, 'missing "round" in round entry 1'),
    (lambda d: {**d, "rounds": [{"round": "1", "tables": []}]},
     '"round" of round entry 1 must be a whole number, not a string "1"'),
    (lambda d: {**d, "rounds": [{"round": 1}]}, 'round 1: missing "tables"'),
    (lambda d: {**d, "rounds": [{"round": 1, "tables": []}]}, "round 1: the round has no tables"),
    (lambda d: {**d, "rounds": [{"round": 1, "tables": "T1"}]}, 'round 1: "tables" must be a list, not a string'),
    (lambda d: {**d, "rounds": [{"round": 1, "tables": [[1, 2, 3]]}]},
     "round 1: table entry 1 must be an object, not a list"),
    (lambda d: {**d, "rounds": [{"round": 1, "tables": [{"players": [1, 2, 3]}]}]},
     'round 1: missing "table" in table entry 1'),
    (lambda d: {**d, "rounds": [{"round": 1, "tables": [{"table": 1, "players": "1 2 3", "sums": []}]}]},
     'round 1, table 1: "players" must be a list, not a string'),
    (lambda d: {**d, "rounds": [{"round": 1, "tables": [{"table": 1, "players": [1, "2", 3]}]}]},
     'round 1, table 1: a start number must be a whole number, not a string "2"'),
    (lambda d: {**d, "rounds": [{"round": 1, "tables": [{"table": 1, "players": [1, 2, 3]}]}]},
     'round 1, table 1: missing "sums"'),
    (lambda d: {**d, "rounds": [{"round": 1, "tables": [{"table": 1, "players": [1, 2, 3], "sums": "30"}]}]},
     'round 1, table 1: "sums" must be a list, not a string'),
    (lambda d: {**d, "rounds": [{"round": 1, "tables": [
        {"table": 1, "players": [1, 2, 3], "sums": ["10"] * 3, "disqualified": 2}]}]},
     'round 1, table 1: "disqualified" must be a list, not a number'),
    (lambda d: {**d, "rounds": [{"round": 1, "tables": [
        {"table": 1, "players": [1, 2, 3], "sums": ["10"] * 3, "early": "yes"}]}]},
     'round 1, table 1: "early" must be true or false, not "yes"'),
    (lambda d: {**d, "events": {"type": "card"}}, '"events" must be a list, not an object'),
    (lambda d: {**d, "events": ["withdrawn"]}, "event 1: an event must be an object, not a string"),
    (lambda d: {**d, "corrections": [1]}, "correction 1 must be an object, not a number"),
    (lambda d: {**d, "name": ["x"]}, '"name" must be a string or null, not a list'),
    (lambda d: {**d, "date": "14.3.2026"}, '"date" "14.3.2026" is not a date (YYYY-MM-DD)'),
    (lambda d: {**d, "ruleset": 1}, '"ruleset" must be a string, not a number'),
])
def test_malformed_shapes_are_exchange_errors(mutate, message):
    assert error(mutate(base())) == f"poprad.json: {message}"


@pytest.mark.parametrize("player, message", [
    ({"start_no": 0, "name": "A"}, "player 7 in the list: \"start_no\" must be at least 1, not 0"),
    ({"start_no": True, "name": "A"}, "player 7 in the list: \"start_no\" must be a whole number, not true/false true"),
    ({"start_no": 7, "name": ""}, 'start number 7: "name" is empty'),
    ({"start_no": 7, "name": None}, 'start number 7: "name" must be a string, not null'),
    ({"start_no": 7, "name": "A", "club": 3}, 'start number 7: "club" must be a string or null, not a number'),
    ({"start_no": 7, "name": "A", "nominated": "yes"}, 'start number 7: "nominated" must be true or false, not "yes"'),
    ({"start_no": 7, "name": "A", "present": 1}, 'start number 7: "present" must be true or false, not 1'),
    ({"start_no": 7, "name": "A", "id": ["x"]}, 'start number 7: "id" must be a string, not a list'),
])
def test_malformed_players(player, message):
    d = base()
    d["players"].append(player)
    assert error(d) == f"poprad.json: {message}"


def test_from_dict_accepts_floats_from_other_parsers():
    d = base()
    table(d, 1, 1)["sums"] = [14.0, 9.5, 6.5]
    t = from_dict(d, "api")
    assert t.rounds[0].tables[0].sums == (Decimal("14.00"), Decimal("9.50"), Decimal("6.50"))


def test_dump_writes_exchange_md_shapes():
    t = loads(json.dumps(base()))
    d = json.loads(dump(t))
    assert d["format"] == "listok-tournament/1"
    assert d["players"][0] == {"start_no": 1, "id": "SK-0001", "name": "Kučera Miloš", "club": "MK Poprad",
                               "status": "registered", "rating": 812, "nominated": True}
    assert d["players"][1] == {"start_no": 2, "name": "Nováková Eva", "club": None, "status": "guest",
                               "rating": None, "nominated": False}
    assert d["rounds"][1]["tables"][1] == {"table": 2, "players": [1, 5, 3], "sums": ["15.00", "10.50", "4.50"]}
    assert "Kučera" in dump(t)  # not \u-escaped


def test_model_round_trip_with_a_constructed_tournament():
    t = loads(json.dumps(base()))
    t.players.append(Player(7, "Zeman Rudolf", status="substitute", substitute_for=3, from_round=2,
                            rating=Decimal(100)))
    assert loads(dump(t)) == t
