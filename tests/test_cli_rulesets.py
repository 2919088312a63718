"""`listok standings`, `draw` and `season` for SMU, ČSM and Thousand on the
sample files (EXCHANGE.md "Rule sets other than SEM"; RULES.md §2)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.rules.builders_inconsistent import CASES, file_text
from tests.test_cli import POPRAD, bad, edited, ok, run, write  # noqa: F401  (run is a fixture)
from webapp.rules.ruleset import get_ruleset

DATA = Path(__file__).resolve().parent / "data"
SMU = str(DATA / "smu10.json")
CSM = [str(DATA / f"csm14_{k}.json") for k in "abc"]
TH = str(DATA / "thousand13.json")
TH4 = str(DATA / "thousand13_r4.json")


def test_smu_standings_rows_as_sem(run):
    d = ok(run("standings", SMU))
    assert (d["ruleset"], d["after_round"], d["final"]) == ("smu", 5, True)
    row = d["standings"][0]
    assert set(row) == {"place", "start_no", "name", "club", "points", "money", "records", "sums",
                        "last_round", "tie", "tournament_points"}
    assert row["tournament_points"] is None and "clubs" not in d  # SEM-A3, B3 are SEM's
    assert sum(float(m) for r in d["standings"] for m in r["sums"]) == 0  # SMU-2: every table totals 0 Kč
    points = [r["points"] for r in d["standings"]]
    assert points == sorted(points, reverse=True)


def test_smu_draw_mixes_tables_of_3_and_4(run):
    d = ok(run("draw", SMU, "--round", 3))
    assert [len(t["players"]) for t in d["tables"]] == [3, 3, 4]  # SMU-1, SMU-4
    assert d["advancing"] is None and d["eliminated"] is None


def test_csm_standings_shape(run):
    d = ok(run("standings", CSM[0]))
    assert (d["ruleset"], d["final"]) == ("csm", True)
    row = d["standings"][0]
    assert set(row) == {"place", "start_no", "name", "club", "bp", "sb", "zb", "pb", "rounds", "tie"}
    assert set(row["rounds"][0]) == {"round", "place", "bp", "zb", "pb", "sb"}
    assert all(isinstance(row[k], int) for k in ("bp", "sb", "zb", "pb"))
    assert row["sb"] == row["zb"] + row["pb"] and row["bp"] == sum(r["bp"] for r in row["rounds"])
    assert sum(r["zb"] for r in d["standings"]) == 0  # CSM-2


def test_csm_draw_round_2_without_repeats(run):
    d = ok(run("draw", CSM[0], "--round", 2))
    assert [len(t["players"]) for t in d["tables"]] == [4, 4, 3, 3]  # CSM-1: tables of 3 last
    assert all("repeat" not in t["flags"] for t in d["tables"])  # CSM-5


def test_csm_season_with_strike_and_teams(run):
    d = ok(run("season", *CSM, "--strike", 1))
    assert set(d) == {"players", "teams"}
    row = d["players"][0]
    assert set(row) == {"place", "id", "name", "club", "zb", "pb", "sb", "b", "counted", "dropped"}
    assert all(len(r["dropped"]) == 1 and len(r["counted"]) == 2 for r in d["players"])  # CSM-6
    plain = ok(run("season", *CSM))
    assert all(r["dropped"] == [] for r in plain["players"])
    assert [r["place"] for r in d["teams"]] == list(range(1, len(d["teams"]) + 1))


def test_csm_season_takes_strike_not_best(run):
    assert "--strike" in bad(run("season", *CSM, "--best", 2))
    assert "--strike applies to the rule set 'csm'" in bad(run("season", POPRAD, "--strike", 1))


def test_thousand_standings_with_the_final(run):
    d = ok(run("standings", TH))
    assert (d["ruleset"], d["after_round"], d["final"]) == ("thousand", 5, True)
    rows = d["standings"]
    assert set(rows[0]) == {"place", "start_no", "name", "points", "score", "last_round", "tie", "final_score"}
    finals = [r["final_score"] for r in rows[:4]]
    assert finals == sorted(finals, reverse=True) and None not in finals  # TH-2: places 1-4 by the final
    assert all(r["final_score"] is None for r in rows[4:])
    withdrawn = {r["start_no"]: r["last_round"] for r in rows}
    assert withdrawn[5] == 2  # TH-5: keeps the rounds played


def test_thousand_draw_of_the_final(run):
    s = ok(run("standings", TH4))
    assert s["final"] is False
    d = ok(run("draw", TH4, "--round", 5))
    top4 = [r["start_no"] for r in s["standings"][:4]]
    assert d["tables"] == [{"table": 1, "players": top4, "flags": []}]
    assert d["advancing"] == top4 and set(d["eliminated"]) == {r["start_no"] for r in s["standings"][4:]} - {5, 7}


def test_thousand_lot_settles_a_tie(run, tmp_path):
    def level(d):  # everybody 0 points, score 0: one tie across the field (TH-4)
        for r in d["rounds"]:
            for t in r["tables"]:
                t["score"] = [0] * len(t["players"])
                if not t.get("frozen"):
                    t["ended"] = "time"

    d = edited(TH4, level)
    rows = ok(run("standings", write(tmp_path, "a.json", d)))["standings"]
    assert {r["tie"] for r in rows} == {"start number"}
    order = sorted((r["start_no"] for r in rows), reverse=True)
    d["events"].append({"type": "lot", "order": order})
    rows = ok(run("standings", write(tmp_path, "b.json", d)))["standings"]
    # the frozen table of two (8, 2) got 2 points each (TH-5) and leads; each tie follows the lot
    assert [r["start_no"] for r in rows] == [8, 2] + [s for s in order if s not in (8, 2)]
    assert {r["tie"] for r in rows} == {"lot"}


def test_thousand_bad_score_is_one_line_exit_2(run, tmp_path):
    d = edited(TH4, lambda d: d["rounds"][0]["tables"][0].update(score=[885, 875, 1005]))
    path = write(tmp_path, "bad.json", d)
    assert bad(run("standings", path)) == (f"{path}: round 1, table 1: the score 885 of start number 2 cannot "
                                           f"stand at the end of a game: above 880 only 1000 (the win) counts (TH-3)")


def test_csm_unsigned_premium_line_is_refused(run, tmp_path):
    def unsign(d):
        d["rounds"][0]["tables"][0]["premium_games"][0]["signed_by"] = []

    path = write(tmp_path, "unsigned.json", edited(CSM[0], unsign))
    assert "lacks the signatures of its players" in bad(run("standings", path))


def test_season_refuses_a_mix_of_rule_sets(run):
    assert "one rule set" in bad(run("season", CSM[0], SMU))


def test_smu_and_thousand_season(run):
    d = ok(run("season", SMU))
    assert d["players"][0]["points"] == 10 and "money" in d["players"][0]  # N - place + 1 with N = 10
    d = ok(run("season", TH))
    assert "score" in d["players"][0] and d["players"][0]["points"] == 14
    json.dumps(d)


# --- inconsistent files of every rule set: exit 2, one line, for standings and draw -------

@pytest.mark.parametrize("name", sorted(CASES))
def test_listok_refuses_an_inconsistent_file_of_another_rule_set(run, tmp_path, name):
    """SMU-1/4, CSM-1, TH-1/2/5, SEM-D2/D4 in every rule set: `listok standings` and
    `listok draw` refuse the file with exit status 2 and one line naming what is wrong."""
    d, fragments = CASES[name]()
    f = write(tmp_path, f"{name}.json", file_text(d))
    msg = bad(run("standings", f))
    assert msg.startswith(f"{f}: round ")
    for part in fragments:
        assert part in msg, msg
    next_round = min(len(d["rounds"]) + 1, get_ruleset(d["ruleset"]).rounds)
    assert bad(run("draw", f, "--round", next_round)) == msg
