"""The JSON-ready reports of EXCHANGE.md (shared by `listok` and the server)."""
from __future__ import annotations

import json
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

from webapp.rules.exchange import load
from webapp.rules.report import (BRIEF_KEYS, ReportError, draw_report, is_final, rating_report, season_report,
                                 standings_report)
from webapp.rules.season import BONUS
from webapp.rules.seating import cut_leaves_nobody, draw
from webapp.rules.sem import SEM_RULES

DATA = Path(__file__).resolve().parent.parent / "data"
ROW_KEYS = ["place", "start_no", "name", "club", "points", "money", "records", "sums",
            "last_round", "tie", "tournament_points"]


@pytest.fixture(scope="module")
def poprad():
    return load(DATA / "sem27_poprad.json")


@pytest.fixture(scope="module")
def zilina():
    return load(DATA / "sem27_zilina.json")


@pytest.mark.parametrize("name", ["worked_example.json", "sem27_poprad.json", "sem9_cut_ends.json", "smu10.json",
                                  "csm14_a.json", "thousand13.json"])
def test_the_hall_screen_s_brief_standings_are_the_full_report_s_rows_cut_short(name):
    """standings_report(brief=True) (the projector's slides): the same rows, in the same order, with
    the same values, of the keys it keeps; a rule set's own report whole."""
    t = load(DATA / name)
    for k in range(1, t.last_round + 1):
        full, brief = standings_report(t, k), standings_report(t, k, brief=True)
        assert brief["after_round"] == full["after_round"] == k
        if "final" not in brief:
            assert brief["standings"] == [{key: row[key] for key in BRIEF_KEYS} for row in full["standings"]]
        else:  # ČSM and Thousand report on their own
            assert brief == full


def test_standings_of_the_worked_example():
    rep = standings_report(load(DATA / "worked_example.json"))
    assert list(rep) == ["ruleset", "after_round", "final", "standings"]
    assert (rep["ruleset"], rep["after_round"], rep["final"]) == ("sem", 1, False)
    rows = rep["standings"]
    assert [r["start_no"] for r in rows] == [1, 3, 4, 2, 5, 8, 6, 7, 9]
    assert list(rows[0]) == ROW_KEYS
    assert rows[0] == {"place": 1, "start_no": 1, "name": "Kučera Miloš", "club": "MK Poprad",
                       "points": 5, "money": "14.00", "records": {"5": 1, "4": 0, "3": 0},
                       "sums": ["14.00"], "last_round": 1, "tie": None, "tournament_points": None}
    assert [r["tie"] for r in rows[1:6]] == ["start number"] * 5
    assert rows[1]["points"] == 4 and isinstance(rows[1]["points"], int)
    json.dumps(rep)


def test_half_points_are_json_numbers():
    t = load(DATA / "worked_example.json")
    r1 = t.rounds[0]
    t2 = replace(t, rounds=[replace(r1, tables=(replace(r1.tables[0], points=(Fraction(9, 2), Fraction(7, 2), 1)),)
                                    + r1.tables[1:])])
    rows = {r["start_no"]: r for r in standings_report(t2)["standings"]}
    assert rows[1]["points"] == 4.5 and rows[6]["points"] == 3.5 and rows[7]["points"] == 1


def test_standings_after_an_earlier_round(poprad):
    rep = standings_report(poprad, after_round=3)
    assert (rep["after_round"], rep["final"]) == (3, False)
    assert "clubs" not in rep
    assert all(r["last_round"] == 3 and len(r["sums"]) == 3 for r in rep["standings"])
    assert all(r["tournament_points"] is None for r in rep["standings"])


@pytest.mark.parametrize("k", [0, 7, -1])
def test_standings_after_a_round_not_in_the_file(poprad, k):
    with pytest.raises(ReportError, match=f"cannot give standings after round {k}: the file has rounds 1..6"):
        standings_report(poprad, after_round=k)


def test_final_standings_have_tournament_points_and_clubs(poprad):
    rep = standings_report(poprad)
    assert (rep["after_round"], rep["final"]) == (6, True)
    rows = rep["standings"]
    n = len(rows)
    for p, r in enumerate(rows, 1):
        tp = r["tournament_points"]
        assert tp == {"placement": n - p + 1, "bonus": BONUS[p - 1], "total": n - p + 1 + BONUS[p - 1]}
    assert [r["last_round"] for r in rows[:3]] == [6, 6, 6]
    clubs = rep["clubs"]
    assert [c["club"] for c in clubs] and [c["place"] for c in clubs] == list(range(1, len(clubs) + 1))
    for c in clubs:
        assert list(c) == ["place", "club", "score", "game_points", "counted", "jokers"]
        assert len(c["counted"]) <= 6 and len(c["jokers"]) <= 2 and set(c["jokers"]) <= set(c["counted"])
        total = {r["start_no"]: r["tournament_points"]["total"] for r in rows}
        assert c["score"] == sum(total[s] for s in c["counted"])
    poprad_club = next(c for c in clubs if c["club"] == "MK Poprad")
    assert all(s > 10 for s in poprad_club["jokers"])  # 11-13 are the club's non-nominated players
    json.dumps(rep)


def test_final_when_nobody_passes_the_cut():
    t = load(DATA / "sem9_cut_ends.json")
    assert t.last_round == 4
    assert is_final(t) and not is_final(t, 3)
    # decided by the cut alone (SEM-B9..B11): the same as the draw into round 5 seating nobody
    assert cut_leaves_nobody(t, 5, SEM_RULES) and not draw(t, 5).tables
    assert not cut_leaves_nobody(t, 4, SEM_RULES) and draw(t, 4).tables
    rep = standings_report(t)
    assert rep["final"] is True
    assert rep["standings"][0]["tournament_points"]["bonus"] == 100
    assert rep["clubs"] == []  # all guests


def test_draw_report_repeats_the_engines_draws(poprad):
    for n in range(1, 7):
        rep = draw_report(poprad, n)
        assert list(rep) == ["round", "tables", "advancing", "eliminated"]
        assert [tuple(tb["players"]) for tb in rep["tables"]] == [tr.players for tr in poprad.rounds[n - 1].tables]
        assert all(list(tb) == ["table", "players", "flags"] for tb in rep["tables"])
        if n >= 4:
            seated = sorted(s for tb in rep["tables"] for s in tb["players"])
            assert sorted(rep["advancing"]) == seated and rep["eliminated"]
        else:
            assert rep["advancing"] is None and rep["eliminated"] is None
    json.dumps(rep)


def test_draw_report_refuses_rounds_it_cannot_draw():
    t = load(DATA / "sem27_poprad_r3.json")
    assert draw_report(t, 4)["round"] == 4
    with pytest.raises(ReportError, match=r"cannot draw round 5: it needs the results of rounds 1..4, "
                                          r"the file has rounds 1..3"):
        draw_report(t, 5)
    with pytest.raises(ReportError, match="round 7 does not exist: the rule set 'sem' has rounds 1..6"):
        draw_report(t, 7)
    with pytest.raises(ReportError, match="round 0 does not exist"):
        draw_report(t, 0)


def test_season_report(poprad, zilina):
    rep = season_report([zilina, poprad])
    assert list(rep) == ["players", "clubs"]
    first = rep["players"][0]
    assert list(first) == ["place", "id", "name", "club", "points", "game_points", "money", "counted", "dropped"]
    assert isinstance(first["money"], str) and first["money"].count(".") == 1
    tp = {}
    for t in (poprad, zilina):
        for r in standings_report(t)["standings"]:
            tp.setdefault(f"SK-{r['start_no']:04d}", []).append(r["tournament_points"]["total"])
    for p in rep["players"]:
        assert p["points"] == sum(tp[p["id"]])
        assert p["counted"] == ["SEM 1 - Poprad", "SEM 2 - Žilina"] and p["dropped"] == []
    assert list(rep["clubs"][0]) == ["place", "club", "points", "game_points"]
    best1 = season_report([poprad, zilina], best=1)
    assert all(len(p["counted"]) == 1 and len(p["dropped"]) == 1 for p in best1["players"])
    json.dumps(rep)


def test_rating_report(poprad, zilina):
    rep = rating_report([poprad, zilina])
    rows = rep["ratings"]
    assert list(rows[0]) == ["id", "name", "rating", "tournaments"]
    assert rows == sorted(rows, key=lambda r: -r["rating"])
    assert {r["tournaments"] for r in rows} == {2}
    assert {r["tournaments"] for r in rating_report([poprad, zilina], window=1)["ratings"]} == {1}


def test_season_and_rating_need_finished_tournaments(poprad):
    r3 = load(DATA / "sem27_poprad_r3.json")
    with pytest.raises(ReportError, match=r"tournament 'SEM 1 - Poprad' is not finished \(results for 3 of 6 rounds\)"):
        season_report([poprad, r3])
    with pytest.raises(ReportError, match="is not finished"):
        rating_report([r3])
