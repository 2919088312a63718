"""Thousand — Тысяча (RULES.md §2, TH-1..TH-6; seed 003)."""
from dataclasses import replace
from decimal import Decimal as D

import pytest

from tests.rules.builders import players
from tests.rules.builders_rulesets import file_error, reread, rnd, th_table
from webapp.rules.exchange import to_dict
from webapp.rules.model import Event, Player, Tournament
from webapp.rules.report import standings_report
from webapp.rules.ruleset import get_ruleset
from webapp.rules.seating import draw
from webapp.rules.standings import standings
from webapp.rules.thousand import bracket
from webapp.demo.simulate_rulesets import play

TH = get_ruleset("thousand")


def nine(*rounds, extra=(), events=()):
    return Tournament(players(9) + list(extra), list(rounds), ruleset="thousand", events=list(events))


def r1(*scores_by_table, ended=("time", "time", "time")):
    tables = [(1, 2, 3), (4, 5, 6), (7, 8, 9)]
    return rnd(1, *(th_table(k + 1, tb, sc, e) for k, (tb, sc, e) in enumerate(zip(tables, scores_by_table, ended))))


@pytest.mark.parametrize("score, ended, points", [
    (-5, "time", -1), (0, "time", 0), (435, "time", 0), (440, "time", 1), (875, "time", 1),
    (880, "time", 2),  # the barrel when time ran out
    (880, "win", 1),  # the barrel when another player won
    (1000, "win", 3), (1020, "win", 3),
])
def test_th_3_brackets(score, ended, points):
    assert bracket(D(score), ended) == points


def test_th_3_points_at_a_table_by_time_and_by_another_win():
    t = nine(r1((-5, 0, 435), (440, 875, 880), (880, 1000, 215), ended=("time", "time", "win")))
    pts = {s.player.start_no: s.stats.points for s in standings(t)}
    assert pts == {1: -1, 2: 0, 3: 0, 4: 1, 5: 1, 6: 2, 7: 1, 8: 3, 9: 0}


def test_th_3_a_table_won_twice_is_refused():
    t = nine(r1((1000, 1005, 0), (0, 0, 0), (0, 0, 0), ended=("win", "time", "time")))
    assert file_error(t) == "t.json: round 1, table 1: start numbers 1, 2 both reached 1000: a table is won once (TH-3)"


def test_th_3_885_cannot_stand():
    t = nine(r1((885, 0, 0), (0, 0, 0), (0, 0, 0)))
    assert "the score 885 of start number 1 cannot stand at the end of a game" in file_error(t)


def test_th_3_how_the_game_ended_must_fit_the_scores():
    t = nine(r1((875, 0, 0), (0, 0, 0), (0, 0, 0), ended=("win", "time", "time")))
    assert "ended by a win" in file_error(t) and "nobody reached 1000" in file_error(t)
    t = nine(r1((1000, 0, 0), (0, 0, 0), (0, 0, 0)))
    assert "reached 1000: the table ended by a win, not by time" in file_error(t)
    t = nine(r1((872, 0, 0), (0, 0, 0), (0, 0, 0)))
    assert "is not a multiple of 5" in file_error(t)
    d = to_dict(nine(r1((0, 0, 0), (0, 0, 0), (0, 0, 0))))
    del d["rounds"][0]["tables"][0]["ended"]
    assert 'missing "ended"' in file_error(d)
    d = to_dict(nine(r1((0, 0, 0), (0, 0, 0), (0, 0, 0))))
    d["rounds"][0]["tables"][0]["sums"] = ["0", "0", "0"]
    assert 'has no "sums"' in file_error(d)


def test_th_3_no_table_total_and_the_file_shape():
    t = nine(r1((-120, 435, 880), (0, 0, 0), (560, 1000, 5), ended=("time", "time", "win")))
    d = to_dict(t)
    first = d["rounds"][0]["tables"][0]
    assert first == {"table": 1, "players": [1, 2, 3], "score": [-120, 435, 880], "ended": "time"}
    assert reread(t).rounds == t.rounds


def test_th_4_points_then_score_then_start_number_until_a_lot_is_recorded():
    t = nine(r1((440, 0, 0), (440, 0, 0), (0, 0, 0)))
    rows = standings(t)
    assert [s.player.start_no for s in rows][:2] == [1, 4]
    assert rows[0].tie == rows[1].tie == "start number"
    t.events.append(Event("lot", 0, order=(4, 1)))
    rows = standings(t)
    assert [(s.place, s.player.start_no, s.tie) for s in rows][:2] == [(1, 4, "lot"), (2, 1, "lot")]
    assert reread(t).events == t.events
    assert to_dict(t)["events"] == [{"type": "lot", "order": [4, 1]}]


def test_th_2_round_1_by_lot_with_the_recorded_seed_or_by_rating():
    t = Tournament(players(12), ruleset="thousand", extra={"seed": 7})
    first = draw(t, 1)
    assert draw(t, 1) == first
    other = draw(replace(t, extra={"seed": 8}), 1)
    assert other != first
    assert sorted(first.seated) == list(range(1, 13))
    rated = Tournament(players(12, ratings=lambda s: 100 - s), ruleset="thousand", extra={"seed": 7})
    assert draw(rated, 1).tables[0].players == (1, 8, 9)  # SEM-B2 generalised


def test_th_2_swiss_rounds_avoid_repeated_opponents_then_a_final_of_four_with_everything_reset():
    t = play(Tournament(players(13), ruleset="thousand", extra={"seed": 3}), upto=4, seed=3)
    final = draw(t, 5)
    before = [s.player.start_no for s in standings(t, 4)]
    assert len(final.tables) == 1 and list(final.tables[0].players) == before[:4]
    assert list(final.advancing) == before[:4] and list(final.eliminated) == before[4:]
    assert standings_report(t)["final"] is False
    # the last-placed finalist wins the final: places 1-4 go by the final's score only
    f = final.tables[0].players
    t.rounds.append(rnd(5, th_table(1, f, (-40, 215, 640, 1000), "win")))
    rows = standings_report(t)["standings"]
    assert [r["start_no"] for r in rows][:4] == [f[3], f[2], f[1], f[0]]
    assert [r["final_score"] for r in rows][:4] == [1000, 640, 215, -40]
    assert all(r["final_score"] is None for r in rows[4:])
    assert [r["start_no"] for r in rows][4:] == before[4:]  # places 5 and below keep the Swiss order
    swiss = {s.player.start_no: s.stats.points for s in standings(t, 4)}
    assert all(r["points"] == swiss[r["start_no"]] for r in rows)  # points: the Swiss rounds only
    assert standings_report(t)["final"] is True


def test_th_2_the_final_is_one_table_of_four_played_to_a_win():
    t = play(Tournament(players(9), ruleset="thousand"), upto=4, seed=1)
    f = draw(t, 5).tables[0].players
    t.rounds.append(rnd(5, th_table(1, f, (0, 215, 640, 875), "time")))
    assert "the final is played to a win" in file_error(t)


def test_th_5_late_entry_after_round_1_with_zero():
    late = Player(10, "Late", status="registered", from_round=2)
    t = Tournament(players(9) + [late], ruleset="thousand")
    assert 10 not in draw(t, 1).seated
    t.rounds = [r1((440, 0, 0), (0, 0, 0), (0, 0, 0))]
    d2 = draw(t, 2)
    assert 10 in d2.seated
    assert sorted(len(tb.players) for tb in d2.tables) == [3, 3, 4]
    assert 10 not in {s.player.start_no for s in standings(reread(t))}  # no result yet
    t.rounds.append(rnd(2, *(th_table(tb.table, tb.players, [440] + [0] * (len(tb.players) - 1))
                             for tb in d2.tables)))
    late_row = next(s for s in standings(reread(t)) if s.player.start_no == 10)
    assert late_row.stats.rounds == [2]  # round 1 counts as 0 points, score 0


def test_th_5_no_late_entry_after_round_2():
    late = Player(10, "Late", status="registered", from_round=3)
    t = Tournament(players(9) + [late], ruleset="thousand", rounds=[r1((0, 0, 0), (0, 0, 0), (0, 0, 0))])
    assert file_error(t) == ("t.json: start number 10: a late entry is accepted after round 1 only, "
                             "not from round 3 (TH-5)")


def test_th_5_withdrawal_and_the_frozen_table_of_two():
    t = nine(r1((440, 0, 0), (0, 0, 0), (0, 0, 0)), events=[Event("withdrawn", 3, after_round=1)])
    d = draw(t, 2)
    assert 3 not in d.seated and len(d.seated) == 8
    # player 9 leaves table 1 of round 2 during the game: the two left are frozen
    t.rounds.append(rnd(2, th_table(1, (1, 2), (315, 640), frozen=True),
                        th_table(2, (4, 5, 6), (0, 0, 0)), th_table(3, (7, 8), (0, 0), frozen=True)))
    t.events.append(Event("withdrawn", 9, after_round=1))
    back = reread(t)
    rows = {s.player.start_no: s.stats for s in standings(back)}
    assert rows[1].points == 1 + 2 and rows[2].points == 0 + 2  # TH-5: 2 points each
    assert rows[1].money == 440 + 315 and rows[2].money == 640  # scores frozen at the withdrawal
    assert to_dict(back)["rounds"][1]["tables"][0] == {"table": 1, "players": [1, 2], "score": [315, 640],
                                                        "frozen": True}


def test_th_5_a_table_of_two_needs_frozen():
    t = nine(r1((0, 0, 0), (0, 0, 0), (0, 0, 0)))
    d = to_dict(t)
    d["rounds"][0]["tables"][0] = {"table": 1, "players": [1, 2], "score": [0, 0], "ended": "time"}
    assert "2 players at the table, the rule set 'thousand' seats 3 or 4" in file_error(d)


def test_th_5_substitutes_only_for_players_who_have_not_played():
    sub = Player(10, "Sub", status="substitute", substitute_for=1, from_round=2)
    t = Tournament(players(9) + [sub], ruleset="thousand",
                   rounds=[r1((0, 0, 0), (0, 0, 0), (0, 0, 0)),
                           rnd(2, th_table(1, (10, 2, 3), (0, 0, 0)), th_table(2, (4, 5, 6), (0, 0, 0)),
                               th_table(3, (7, 8, 9), (0, 0, 0)))],
                   events=[Event("withdrawn", 1, after_round=1)])
    assert "substitutes only for players who have not played (TH-5)" in file_error(t)


def test_th_1_tables_of_three_then_four():
    t = Tournament(players(10), ruleset="thousand")
    assert [len(tb.players) for tb in draw(t, 1).tables] == [3, 3, 4]
