"""SEM to the letter through `listok`: every inconsistent file is refused with exit status 2
and one line naming the file, round, table and start number."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from webapp.cli import main
from webapp.rules.exchange import dump
from webapp.rules.model import Event
from webapp.demo.simulate import make_players, play_tournament

from tests.rules.builders import players, tournament

DATA = Path(__file__).resolve().parent / "data"
POPRAD = DATA / "sem27_poprad.json"
ZILINA = DATA / "sem27_zilina.json"
R3 = DATA / "sem27_poprad_r3.json"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def bad(result) -> str:
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stdout == "" and "Traceback" not in result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("listok: "), result.stderr
    return lines[0][len("listok: "):]


def write(tmp_path, name, d) -> str:
    p = tmp_path / name
    p.write_text(d if isinstance(d, str) else json.dumps(d, ensure_ascii=False), encoding="utf-8")
    return str(p)


def load(path) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def test_sem_b2_listok_missing_table_in_round_1(tmp_path):
    d = load(R3)
    gone = d["rounds"][0]["tables"].pop()
    f = write(tmp_path, "missing.json", d)
    msg = bad(run("standings", f))
    assert msg.startswith(f"{f}: round 1, start number ") and "sits at no table" in msg
    assert any(f"start number {s}:" in msg for s in gone["players"])


def test_sem_b7_listok_missing_table_in_round_3_also_refuses_the_round_4_draw(tmp_path):
    d = load(R3)
    del d["rounds"][2]["tables"][4]
    f = write(tmp_path, "missing3.json", d)
    assert bad(run("draw", f, "--round", 4)) == f"{f}: round 3: table 5 is missing (the round has tables 1, 2, 3, 4, 6, 7, 8, 9)"


def test_sem_d1c_listok_red_card_only_as_an_event(tmp_path):
    """SEM-E8, D1c: a red card recorded only as an event counts at the player's table,
    as the server counts it: the same standings as the file listing the disqualification."""
    d = load(R3)
    tb = d["rounds"][1]["tables"][3]
    s = tb["players"][0]
    d["events"] = [{"type": "card", "colour": "red", "start_no": s, "round": 2, "referees": ["Rozhodca A", "B"]}]
    d["rounds"] = d["rounds"][:2]  # the card was given after round 2 closed, before round 3
    card = run("standings", write(tmp_path, "card.json", d))
    assert card.exit_code == 0, card.output
    listed = json.loads(json.dumps(d))
    listed["rounds"][1]["tables"][3]["disqualified"] = [s]
    same = run("standings", write(tmp_path, "listed.json", listed))
    assert json.loads(card.stdout) == json.loads(same.stdout)
    rows = {row["start_no"]: row for row in json.loads(card.stdout)["standings"]}
    assert s not in rows
    for p, v in zip(tb["players"], tb["sums"]):
        if p != s:
            assert rows[p]["sums"][1] == f"{float(v) + 1:.2f}"  # + 1 EUR from the disqualified player


def test_sem_e8_listok_red_card_with_one_referee(tmp_path):
    d = load(R3)
    d["events"] = [{"type": "card", "colour": "red", "start_no": 3, "round": 4, "referees": ["A"]}]
    msg = bad(run("standings", write(tmp_path, "e8.json", d)))
    assert "event 1: the red card of start number 3 names 1 referee(s)" in msg and "SEM-E8" in msg


def test_sem_c11_listok_impossible_sums(tmp_path):
    d = load(R3)
    tb = d["rounds"][0]["tables"][0]
    tb["sums"] = ["45.00", "-20.00", "5.00"]
    msg = bad(run("standings", write(tmp_path, "c11.json", d)))
    assert f"round 1, table 1: the sum -20.00 of start number {tb['players'][1]} is impossible" in msg
    assert "SEM-C11" in msg


def test_sem_c10_listok_points_override_without_correction(tmp_path):
    d = load(R3)
    d["rounds"][1]["tables"][0]["points"] = [100, -3, 0.5]
    f = write(tmp_path, "points.json", d)
    assert "round 2, table 1: the table has \"points\" but \"corrections\" has no SEM-C10 entry" in bad(
        run("standings", f))
    d["corrections"] = [{"round": 2, "table": 1, "kind": "fee"}]
    msg = bad(run("standings", write(tmp_path, "points2.json", d)))
    assert f"round 2, table 1: 100 points for start number {d['rounds'][1]['tables'][0]['players'][0]}" in msg


def test_sem_d2_listok_disqualified_player_in_a_later_round(tmp_path):
    d = load(R3)
    tb = d["rounds"][0]["tables"][2]
    s = tb["players"][1]
    tb["disqualified"] = [s]
    msg = bad(run("standings", write(tmp_path, "dq.json", d)))
    assert f"round 2, table " in msg and f"start number {s} was disqualified in round 1 (SEM-D2)" in msg


def test_sem_d4_listok_withdrawn_player_with_later_results(tmp_path):
    d = load(R3)
    s = d["rounds"][2]["tables"][0]["players"][0]
    d["events"] = [{"type": "withdrawn", "start_no": s, "after_round": 1}]
    msg = bad(run("draw", write(tmp_path, "wd.json", d), "--round", 4))
    assert f"round 2, table " in msg and f"start number {s} withdrew after round 1 (SEM-D4)" in msg


def test_sem_b9_listok_cut_that_cannot_fill_tables_says_withdraw(tmp_path):
    # points per round (C10 fee corrections written as points): totals 11 11 10 10 9 9 9 9 8 8 7 7;
    # 12 withdraws after round 3, so 11 candidates, all on 7 or more
    split = {11: (5, 5, 1), 10: (5, 4, 1), 9: (3, 3, 3), 8: (4, 3, 1), 7: (3, 3, 1)}
    totals = dict(zip(range(1, 13), [11, 11, 10, 10, 9, 9, 9, 9, 8, 8, 7, 7]))
    t = tournament(players(12), events=[Event("withdrawn", 12, after_round=3)])
    d = json.loads(dump(t))
    d["rounds"] = [{"round": r, "tables": [
        {"table": k + 1, "players": [3 * k + 1, 3 * k + 2, 3 * k + 3], "sums": ["10.00"] * 3,
         "points": [split[totals[3 * k + i]][r - 1] for i in (1, 2, 3)]} for k in range(4)]} for r in (1, 2, 3)]
    d["corrections"] = [{"round": r, "table": k, "kind": "fee"} for r in (1, 2, 3) for k in (1, 2, 3, 4)]
    msg = bad(run("draw", write(tmp_path, "cut.json", d), "--round", 4))
    assert "round 4: 11 advancing players cannot be seated at tables of 3" in msg
    assert "withdraw 2 advancing players (SEM-D4)" in msg and "add 1" not in msg


def test_sem_a4_listok_season_refuses_another_rule_set(tmp_path):
    bb = play_tournament(make_players(24, seed=4), seed=4, name="BB liga 1", date="2026-05-01", ruleset="bbliga")
    f = write(tmp_path, "bb.json", dump(bb))
    assert bad(run("season", POPRAD, f)) == (f"{f}: the rule set is 'bbliga', {POPRAD} is 'sem': "
                                             f"a season table takes the files of one rule set")
    assert bad(run("rating", POPRAD, ZILINA, f)).startswith(f"{f}: the rule set is 'bbliga'")


def test_sem_a4_listok_season_and_rating_refuse_the_same_tournament_twice(tmp_path):
    copy = write(tmp_path, "copy.json", POPRAD.read_text(encoding="utf-8"))
    for command in ("season", "rating"):
        msg = bad(run(command, POPRAD, ZILINA, copy))
        assert msg.startswith(f"{POPRAD} and {copy} are the same tournament")
    a, b = load(POPRAD), load(ZILINA)
    a["id"] = b["id"] = "SEM-2026-5"
    fa, fb = write(tmp_path, "a.json", a), write(tmp_path, "b.json", b)
    assert bad(run("season", fa, fb)) == (f"{fa} and {fb} are the same tournament (id SEM-2026-5): "
                                          f"each tournament counts once")
    b["id"] = "SEM-2026-6"
    assert run("season", fa, write(tmp_path, "b2.json", b)).exit_code == 0
