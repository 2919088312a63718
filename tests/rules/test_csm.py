"""ČSM licitovaný mariáš (RULES.md §2, CSM-1..CSM-6; seed 001)."""
import json
from dataclasses import replace

from tests.rules.builders import players
from tests.rules.builders_rulesets import csm_table, field, file_error, reread, rnd
from webapp.rules.exchange import dump, to_dict
from webapp.rules.model import Player, Tournament
from webapp.rules.report import season_report, standings_report
from webapp.rules.seating import draw
from webapp.rules.tables import opponents

SIGNED = (1, 2, 3)


def eight(round1=None, round2=None):
    r1 = round1 or rnd(1, csm_table(1, (1, 2, 3, 4), [100, -20, -30, -50], [0, 60, 0, 10],
                                    [(2, "100 a sedma", 60, SIGNED)]),
                       csm_table(2, (5, 6, 7, 8), [40, 40, 0, -80], [0, 0, 30, 0]))
    rounds = [r1] + ([round2] if round2 else [])
    return field(8, "csm", rounds=rounds)


def test_csm_2_sb_is_zb_plus_pb():
    rows = standings_report(eight())["standings"]
    two = next(r for r in rows if r["start_no"] == 2)
    assert (two["zb"], two["pb"], two["sb"]) == (-20, 60, 40)
    assert all(r["sb"] == r["zb"] + r["pb"] for r in rows)


def test_csm_2_zb_total_zero_whole_numbers_and_pb_not_negative():
    t = eight(rnd(1, csm_table(1, (1, 2, 3, 4), [100, -20, -30, -40], [0, 0, 0, 0]),
                  csm_table(2, (5, 6, 7, 8), [40, 40, 0, -80], [0, 0, 0, 0])))
    assert file_error(t) == "t.json: round 1, table 1: the sums total 10.00, the table total must be 0.00"
    d = to_dict(eight())
    d["rounds"][0]["tables"][1]["sums"] = ["40.5", "39.5", 0, -80]
    assert "the ZB of start number 5 (40.50) must be a whole number (CSM-2)" in file_error(d)
    d = to_dict(eight())
    d["rounds"][0]["tables"][1]["score"] = [0, -10, 30, 0]
    assert "the PB of start number 6 (-10) must be a whole number, 0 or more (CSM-2)" in file_error(d)
    d = to_dict(eight())
    del d["rounds"][0]["tables"][1]["score"]
    assert file_error(d) == 't.json: round 1, table 2: missing "score"'


def test_csm_3_premium_game_line_without_its_players_signatures_is_refused():
    d = to_dict(eight())
    d["rounds"][0]["tables"][0]["premium_games"][0]["signed_by"] = [2]
    assert file_error(d) == ("t.json: round 1, table 1: premium game 1 (100 a sedma, 60 PB of start number 2) "
                             "lacks the signatures of its players: 2 more must sign the line (CSM-3)")
    d["rounds"][0]["tables"][0]["premium_games"][0]["signed_by"] = [1, 3, 4]
    assert "the player of the game must sign the line (CSM-3)" in file_error(d)
    d["rounds"][0]["tables"][0]["premium_games"][0]["signed_by"] = [2, 3, 9]
    assert "start number 9 signed but does not sit at this table" in file_error(d)


def test_csm_3_lines_are_50_pb_or_more_and_within_the_players_pb():
    d = to_dict(eight())
    d["rounds"][0]["tables"][0]["premium_games"][0]["pb"] = 40
    assert "40 PB is below 50" in file_error(d)
    d = to_dict(eight())
    d["rounds"][0]["tables"][0]["premium_games"].append(
        {"start_no": 2, "game": "betl", "pb": 50, "signed_by": [1, 2, 3]})
    assert "start number 2 has 60 PB but premium-game lines of 110 PB" in file_error(d)


def test_csm_3_lines_round_trip_with_signatures():
    t = eight()
    back = reread(t)
    assert back.rounds == t.rounds
    line = json.loads(dump(t))["rounds"][0]["tables"][0]["premium_games"]
    assert line == [{"start_no": 2, "game": "100 a sedma", "pb": 60, "signed_by": [1, 2, 3]}]
    assert json.loads(dump(t))["rounds"][0]["tables"][0]["sums"] == [100, -20, -30, -50]


def test_csm_4_placement_points_across_the_field_with_shared_places():
    """SB: 1→100, 2→40, 3→-30, 4→-40, 5→40, 6→40, 7→30, 8→-80. Players 2, 5
    and 6 share SB 40; ZB decides 5 and 6 (40) above 2 (-20); 5 and 6 are
    equal on SB and ZB and share place 2 (BP 7), place 3 is skipped."""
    rows = standings_report(eight())["standings"]
    by_no = {r["start_no"]: r["rounds"][0] for r in rows}
    assert {s: (by_no[s]["place"], by_no[s]["bp"]) for s in by_no} == {
        1: (1, 8), 5: (2, 7), 6: (2, 7), 2: (4, 5), 7: (5, 4), 3: (6, 3), 4: (7, 2), 8: (8, 1)}
    assert [r["start_no"] for r in rows] == [1, 5, 6, 2, 7, 3, 4, 8]
    assert [r["tie"] for r in rows][1:3] == ["start number", "start number"]  # 5 and 6 equal on BP, SB, ZB


def test_csm_4_tournament_by_bp_then_sb_then_zb():
    r2 = rnd(2, csm_table(1, (1, 5, 7, 3), [-100, 0, 50, 50], [0, 0, 0, 0]),
             csm_table(2, (6, 2, 4, 8), [-40, 20, 20, 0], [0, 0, 0, 0]))
    rows = standings_report(eight(round2=r2))["standings"]
    top = [(r["start_no"], r["bp"], r["sb"], r["zb"]) for r in rows]
    bps = [r[1] for r in top]
    assert bps == sorted(bps, reverse=True)
    for a, b in zip(top, top[1:]):
        assert (a[1], a[2], a[3]) >= (b[1], b[2], b[3])
    assert standings_report(eight(round2=r2))["final"] is True  # CSM-5: two halves


def test_csm_5_round_1_by_rating_groups_2_and_4_reversed_tables_of_three_last():
    t = field(14, "csm", ratings=lambda s: 100 - s)
    d = draw(t, 1)
    # T = 4 tables (4, 4, 3, 3): G1 = 1-4, G2 = 5-8 reversed, G3 = 9-12, G4 = 13-14 reversed
    assert [tb.players for tb in d.tables] == [(1, 8, 9, 14), (2, 7, 10, 13), (3, 6, 11), (4, 5, 12)]


def test_csm_5_round_2_no_repeated_opponents():
    t = field(16, "csm", ratings=lambda s: 100 - s)
    d1 = draw(t, 1)
    # everybody at a table gets the same SB, so the standings follow the table order
    r1 = rnd(1, *(csm_table(tb.table, tb.players, [0] * 4, [0] * 4) for tb in d1.tables))
    t.rounds = [r1]
    d2 = draw(t, 2)
    met = opponents(t, 1)
    for tb in d2.tables:
        assert not any(b in met[a] for a in tb.players for b in tb.players if a != b), tb
        assert tb.flags == ()


def league(name, date, order, club=lambda s: "Tým A" if s <= 3 else "Tým B"):
    """A final ČSM tournament of 8 players whose round SB follow `order` (best first)."""
    ps = [Player(s, f"Hráč {s}", club=club(s), id=f"CZ-{s}") for s in range(1, 9)]
    zb = {s: 70 - 20 * i for i, s in enumerate(order)}
    tables = [order[0::2], order[1::2]]
    rounds = []
    for n in (1, 2):
        rows = []
        for k, tb in enumerate(tables, 1):
            values = [zb[s] for s in tb]
            shift = sum(values) // len(values)
            values = [v - shift for v in values]
            values[0] -= sum(values)
            rows.append(csm_table(k, tb, values, [0, 0, 0, 0]))
        rounds.append(rnd(n, *rows))
    return Tournament(ps, rounds, ruleset="csm", name=name, date=date)


def test_csm_6_league_table_with_struck_tournaments_and_teams():
    a = league("Liga 1", "2026-01-10", [1, 2, 3, 4, 5, 6, 7, 8])
    b = league("Liga 2", "2026-02-10", [8, 7, 6, 5, 4, 3, 2, 1])
    c = league("Liga 3", "2026-03-10", [1, 3, 5, 7, 2, 4, 6, 8])
    plain = season_report([a, b, c])
    row = next(r for r in plain["players"] if r["id"] == "CZ-1")
    assert set(row) == {"place", "id", "name", "club", "zb", "pb", "sb", "b", "counted", "dropped"}
    assert row["sb"] == row["zb"] + row["pb"]
    assert row["dropped"] == []
    struck = season_report([a, b, c], strike=1)
    row = next(r for r in struck["players"] if r["id"] == "CZ-1")
    assert row["dropped"] == ["Liga 2"] and row["counted"] == ["Liga 1", "Liga 3"]
    bs = [(r["b"], r["sb"], r["zb"]) for r in struck["players"]]
    assert bs == sorted(bs, reverse=True)
    assert [r["place"] for r in struck["players"]] == list(range(1, 9))
    teams = {r["team"]: r for r in plain["teams"]}
    assert set(teams) == {"Tým A", "Tým B"}
    assert sum(r["b"] for r in plain["teams"]) == 3 * (2 + 1)  # team BP = teams - place + 1
    assert set(plain["teams"][0]) == {"place", "team", "zb", "pb", "sb", "b", "counted", "dropped"}


def test_csm_6_a_missed_tournament_is_struck_first():
    a = league("Liga 1", "2026-01-10", [1, 2, 3, 4, 5, 6, 7, 8])
    b = league("Liga 2", "2026-02-10", [8, 7, 6, 5, 4, 3, 2, 1])
    b.players = [replace(p, id="CZ-99") if p.start_no == 1 else p for p in b.players]
    row = next(r for r in season_report([a, b], strike=1)["players"] if r["id"] == "CZ-1")
    assert row["counted"] == ["Liga 1"] and row["dropped"] == []


def test_csm_1_draw_of_5_players_refused():
    import pytest

    from webapp.rules.seating import DrawError

    with pytest.raises(DrawError, match="round 1: 5 players cannot be seated at tables of 4 and 3"):
        draw(Tournament(players(5), ruleset="csm"), 1)
