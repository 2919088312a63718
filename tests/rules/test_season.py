"""Season level of SEM: SEM-A2..A6, SEM-B1, SEM-B3 (RULES.md §1).

Tournaments come from tests/rules/builders_season.py, whose standings are the
chosen order. With N = 9 and the default finals (6, 3, 3 players in rounds
4-6) a place gives, by hand:

    place        1      2      3      4      5      6      7      8      9
    BP + bonus   9+100  8+91   7+85   6+81   5+78   4+75   3+72   2+69   1+66
    points       109    99     92     87     83     79     75     71     67
    game points  24     24     24     12     12     12     3      3      3
    money        75.02  75.00  74.98  40.02  40.01  40.00  15.00  14.99  14.98
"""
import random
from dataclasses import replace
from decimal import Decimal as D
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from webapp.rules.model import Event, Player, Round, Tournament
from webapp.rules.season import (
    BONUS, ClubResult, NominationError, SeasonClub, TournamentPoints, club_results, guest_check,
    historical_coefficient, historical_points, nomination_duty, nominations, ratings, season_table, tournament_points,
)
from webapp.rules.standings import PlayerStats, Standing, standings

from .builders_season import final_tournament, player, ranked_tournament, red_card

TP9 = {1: 109, 2: 99, 3: 92, 4: 87, 5: 83, 6: 79, 7: 75, 8: 71, 9: 67}
GP9 = {1: 24, 2: 24, 3: 24, 4: 12, 5: 12, 6: 12, 7: 3, 8: 3, 9: 3}
MONEY9 = {1: "75.02", 2: "75.00", 3: "74.98", 4: "40.02", 5: "40.01", 6: "40.00",
          7: "15.00", 8: "14.99", 9: "14.98"}


def tp_totals(t):
    return {sn: v.total for sn, v in tournament_points(standings(t)).items()}


def month(m):
    return f"{2025 + (m - 1) // 12}-{(m - 1) % 12 + 1:02d}-01"


# --------------------------------------------------------------------------- SEM-A3


def test_sem_a3_bonus_top50():
    assert len(BONUS) == 50
    assert BONUS[:21] == (100, 91, 85, 81, 78, 75, 72, 69, 66, 63, 60, 57, 54, 51, 48, 45, 42, 39, 36, 33, 30)
    assert BONUS[20:] == tuple(range(30, 0, -1))
    assert BONUS[-1] == 1


def test_sem_a3_table_of_nine_by_hand():
    t = ranked_tournament("SEM 1", "2026-01-10", 9, {})
    assert [s.player.start_no for s in standings(t)] == list(range(1, 10))
    assert tp_totals(t) == TP9
    rows = standings(t)
    assert {s.place: s.stats.points for s in rows} == GP9
    assert {s.place: s.stats.money for s in rows} == {p: D(m) for p, m in MONEY9.items()}


def test_sem_a3_placement_last_gets_1():
    tp = tournament_points(standings(ranked_tournament("SEM 1", "2026-01-10", 9, {})))
    assert tp[9] == TournamentPoints(1, 66) and tp[9].total == 67
    assert tp[1] == TournamentPoints(9, 100) and tp[1].total == 109


def test_sem_a3_places_beyond_50_get_no_bonus():
    tp = tournament_points(standings(ranked_tournament("SEM 1", "2026-01-10", 54, {})))
    assert tp[1] == TournamentPoints(54, 100)
    assert tp[21] == TournamentPoints(34, 30)
    assert tp[50] == TournamentPoints(5, 1)
    assert tp[51] == TournamentPoints(4, 0)
    assert tp[54] == TournamentPoints(1, 0)


def test_sem_a3_disqualified_not_counted_in_n():
    t = ranked_tournament("SEM 1", "2026-01-10", 9, {}, events=[red_card(2)])
    tp = tournament_points(standings(t))
    assert 2 not in tp and len(tp) == 8
    assert tp[1].total == 8 + 100
    assert tp[3].total == 7 + 91  # moves up to 2nd place
    assert tp[9].total == 1 + 69  # last of 8


def test_sem_a3_d5_substitute_not_counted_in_n():
    t = ranked_tournament("SEM 1", "2026-01-10", 6, {})
    sub = player(7, "sub", status="substitute")
    sub = replace(sub, substitute_for=6, from_round=2)

    def swap(table):
        return replace(table, players=tuple(7 if s == 6 else s for s in table.players))

    rounds = t.rounds[:1] + [Round(r.number, tuple(swap(tb) for tb in r.tables)) for r in t.rounds[1:]]
    t = Tournament(t.players + [sub], rounds, name=t.name, date=t.date,
                   events=[Event("withdrawn", 6, after_round=1)])
    tp = tournament_points(standings(t))
    assert 7 not in tp and sorted(tp) == [1, 2, 3, 4, 5, 6]
    assert tp[1].total == 6 + 100


def _synthetic(n):
    return [Standing(i + 1, Player(i + 1, f"P{i + 1}"), PlayerStats(i + 1), 3, None) for i in range(n)]


@given(st.integers(min_value=1, max_value=300))
def test_sem_a3_property_strictly_decreasing_and_total(n):
    tp = tournament_points(_synthetic(n))
    totals = [tp[p].total for p in range(1, n + 1)]
    assert all(a > b for a, b in zip(totals, totals[1:]))
    assert totals[-1] == 1 + (BONUS[n - 1] if n <= 50 else 0)
    assert sum(totals) == n * (n + 1) // 2 + sum(BONUS[:min(50, n)])


# --------------------------------------------------------------------------- SEM-B3


def club_field(club, n, first=1, **kw):
    return [player(first + i, f"{club}-{i}", club, **kw) for i in range(n)]


def test_sem_b3_auto_nomination_by_rating_then_start_no():
    members = club_field("MK Poprad", 14)
    ratings_ = {1: None, 2: "500", 3: "700", 4: None, 5: "700", 6: "650", 7: "100",
                8: "90", 9: "80", 10: None, 11: None, 12: "70", 13: None, 14: None}
    members = [replace(p, rating=None if ratings_[p.start_no] is None else D(ratings_[p.start_no]))
               for p in members]
    absent = replace(player(15, "absent", "MK Poprad", rating="9999"), present=False)
    t = Tournament(members + [absent])
    nom = nominations(t)["MK Poprad"]
    assert nom.required and nom.automatic
    # rated: 3 and 5 (700, start number decides), 6, 2, 7, 8, 9, 12; then unrated 1, 4
    assert nom.players == (1, 2, 3, 4, 5, 6, 7, 8, 9, 12)


def test_sem_b3_club_of_12_all_nominated():
    members = club_field("MK Nitra", 12)
    members[0] = replace(members[0], nominated=True)  # flags do not matter below 13
    absent = replace(player(13, "absent", "MK Nitra"), present=False)
    nom = nominations(Tournament(members + [absent]))["MK Nitra"]
    assert not nom.required and not nom.automatic
    assert nom.players == tuple(range(1, 13))


def test_sem_b3a_substitute_seated_in_round_1_counts_as_present_at_the_draw():
    absent = replace(player(13, "absent", "MK Nitra"), present=False)
    sub = replace(player(14, "sub", "MK Nitra", status="substitute"), substitute_for=13)
    members = club_field("MK Nitra", 12) + [absent, sub]
    nom = nominations(Tournament(members))["MK Nitra"]
    assert nom.required and nom.automatic and len(nom.players) == 10


def test_sem_b3a_duty_fixed_at_round_1_a_later_substitute_does_not_count():
    """12 present at the draw, a substitute joins after round 1
    (and a player withdraws): the club does not nominate, at the final neither."""
    members = club_field("MK Nitra", 12) + [replace(player(13, "sub", "MK Nitra", status="substitute"),
                                                    substitute_for=5, from_round=3)]
    t = Tournament(members, events=[Event("withdrawn", 5, after_round=2)])
    nom = nominations(t)["MK Nitra"]
    assert not nom.required and not nom.automatic
    assert nom.players == tuple(range(1, 13))
    assert nomination_duty(t) == {"MK Nitra": 12}
    # a stored duty (the server fixes it when round 1 starts) wins over the players list
    t.nomination_duty = {"MK Nitra": 13}
    assert nominations(t)["MK Nitra"].required


def test_sem_b3_guests_and_licensed_belong_to_no_club():
    members = club_field("MK Nitra", 12) + [player(13, "lic", "MK Nitra", status="licensed"),
                                            player(14, "guest", "MK Nitra", status="guest")]
    assert not nominations(Tournament(members))["MK Nitra"].required


def test_sem_b3_explicit_nomination_of_ten_kept():
    members = club_field("MK Poprad", 13)
    members = [replace(p, nominated=p.start_no > 3) for p in members]
    nom = nominations(Tournament(members))["MK Poprad"]
    assert nom.required and not nom.automatic and nom.players == tuple(range(4, 14))


def test_sem_b3_wrong_nomination_count_refused():
    members = club_field("MK Poprad", 14)
    members = [replace(p, nominated=p.start_no <= 8) for p in members]
    with pytest.raises(NominationError) as e:
        nominations(Tournament(members))
    assert str(e.value) == "club 'MK Poprad' has 14 players present and nominated 8: it must nominate exactly 10"


def test_sem_b3_max_two_jokers():
    # club MK J: 13 present, jokers placed 1-3, nominated 4-13; N = 15
    at = {p: player(0, f"j{p}", "MK J") for p in (1, 2, 3)}
    at.update({p: player(0, f"n{p}", "MK J", nominated=True) for p in range(4, 14)})
    t = ranked_tournament("SEM 1", "2026-01-10", 15, at)
    [res] = club_results(t)
    assert res.counted == (1, 2, 4, 5, 6, 7) and res.jokers == (1, 2)
    # N = 15: 15+100, 14+91, 12+81, 11+78, 10+75, 9+72
    assert res.score == 115 + 105 + 93 + 89 + 85 + 81
    # table points 24 + 24 + 21 + 21 + 15 + 12 (15 players: finals of 9, 6, 3)
    assert res.game_points == 117


def test_sem_b3_club_results_by_hand_and_ties():
    at = {1: "a1", 5: "a5", 9: "a9", 2: "b2", 3: "b3", 4: "b4", 6: "c6", 7: "c7", 8: "c8"}
    club = {"a": "MK A", "b": "MK B", "c": "MK C"}
    at = {p: player(0, pid, club[pid[0]]) for p, pid in at.items()}
    extra = [player(20, "z", "MK Zeta"), player(21, "y", "MK Alfa")]  # present, never played
    t = ranked_tournament("SEM 1", "2026-01-10", 9, at)
    t.players += extra
    assert club_results(t) == [
        ClubResult(1, "MK B", 99 + 92 + 87, Fraction(60), (2, 3, 4), ()),
        ClubResult(2, "MK A", 109 + 83 + 67, Fraction(39), (1, 5, 9), ()),
        ClubResult(3, "MK C", 79 + 75 + 71, Fraction(18), (6, 7, 8), ()),
        ClubResult(4, "MK Alfa", 0, Fraction(0), (), ()),
        ClubResult(5, "MK Zeta", 0, Fraction(0), (), ()),
    ]


def test_sem_b3_club_tie_by_game_points():
    # MK X: places 6 (79, 12 gp) + 7 (75, 3) = 154, 15 gp; MK Y: place 4 (87, 12) + 9 (67, 3) = 154, 15 gp
    # equal on both: MK X placed first by name.  MK W: 2 (99, 24) + 8 (71, 3) = 170, MK V: 3 (92) + 5 (83) = 175
    clubs = {6: "MK X", 7: "MK X", 4: "MK Y", 9: "MK Y", 2: "MK W", 8: "MK W", 3: "MK V", 5: "MK V"}
    t = ranked_tournament("SEM 1", "2026-01-10", 9, {p: player(0, f"p{p}", c) for p, c in clubs.items()})
    res = [(r.club, r.score, r.game_points) for r in club_results(t)]
    assert res == [("MK V", 175, 36), ("MK W", 170, 27), ("MK X", 154, 15), ("MK Y", 154, 15)]
    # game points decide an equal score: one player each, place 1 with and without finals
    t1 = ranked_tournament("A", "2026-01-10", 3, {1: player(0, "x", "MK Later")})
    t2 = ranked_tournament("A", "2026-01-10", 3, {1: player(0, "y", "MK Earlier")}, finals=(0, 0, 0))
    table = season_table([t1, t2]).clubs
    assert table == [SeasonClub(1, "MK Later", 103, Fraction(24)), SeasonClub(2, "MK Earlier", 103, Fraction(15))]


# --------------------------------------------------------------------------- SEM-A4


def test_sem_a4_best_11_of_12():
    places = [1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3]
    ts = [ranked_tournament(f"SEM {m}", month(m), 9, {p: "X"}) for m, p in enumerate(places, 1)]
    random.Random(1).shuffle(ts)
    x = next(r for r in season_table(ts).players if r.id == "X")
    assert x.dropped == ("SEM 9",)
    assert x.counted == tuple(f"SEM {m}" for m in range(1, 13) if m != 9)
    assert x.points == sum(TP9[p] for p in places) - 67 == 995
    assert x.game_points == 24 * 6 + 12 * 3 + 3 * 2
    assert x.money == 2 * (D("75.02") + D("75.00") + D("74.98")) + D("40.02") + D("40.01") + D("40.00") \
        + D("15.00") + D("14.99") == D("600.02")
    assert x.place == 1


def test_sem_a4_fewer_than_best_all_count():
    ts = [ranked_tournament(f"SEM {m}", month(m), 9, {9: "X"}) for m in range(1, 4)]
    x = next(r for r in season_table(ts).players if r.id == "X")
    assert x.points == 3 * 67 and x.dropped == () and len(x.counted) == 3


def test_sem_a4_tiebreak_game_points():
    # P: 103 (15 gp, 45.00) + 92 (15, 44.98) = 195, 30 gp, 89.98
    # Q:  86 ( 3 gp, 15.00) + 109 (24, 75.02) = 195, 27 gp, 90.02 -> P ahead despite less money
    ta = ranked_tournament("A", "2026-01-01", 3, {1: "P", 3: "Q"}, finals=(0, 0, 0))
    tb = ranked_tournament("B", "2026-02-01", 9, {1: "Q"}, finals=(9, 9, 9))
    tc = ranked_tournament("C", "2026-03-01", 9, {3: "P"}, finals=(0, 0, 0))
    rows = {r.id: r for r in season_table([ta, tb, tc]).players}
    p, q = rows["P"], rows["Q"]
    assert (p.points, p.game_points, p.money) == (195, 30, D("89.98"))
    assert (q.points, q.game_points, q.money) == (195, 27, D("90.02"))
    assert p.place + 1 == q.place


def test_sem_a4_tiebreak_money():
    # equal 109 points and 24 game points; P 75.04, Q 75.02 (Q's dropped 67 does not matter)
    t1 = ranked_tournament("P1", "2026-01-01", 9, {1: "P"}, cent=D("0.02"))
    t2 = ranked_tournament("Q1", "2026-02-01", 9, {1: "Q"})
    t3 = ranked_tournament("Q2", "2026-03-01", 9, {9: "Q"})
    rows = {r.id: r for r in season_table([t1, t2, t3], best=1).players}
    assert rows["P"].money == D("75.04") and rows["Q"].money == D("75.02")
    assert rows["Q"].dropped == ("Q2",)
    assert rows["P"].place + 1 == rows["Q"].place


def test_sem_a4_tiebreak_dropped():
    t1 = ranked_tournament("P1", "2026-01-01", 9, {1: "P"})
    t2 = ranked_tournament("Q1", "2026-02-01", 9, {1: "Q"})
    t3 = ranked_tournament("PQ", "2026-03-01", 9, {8: "P", 7: "Q"})
    rows = {r.id: r for r in season_table([t1, t2, t3], best=1).players}
    assert rows["P"].points == rows["Q"].points == 109
    assert rows["Q"].place + 1 == rows["P"].place  # dropped 75 > 71


def test_sem_a4_tiebreak_id_last():
    ts = [ranked_tournament(n, "2026-01-01", 3, {1: pid}) for n, pid in (("T1", "B"), ("T2", "A"))]
    rows = [r.id for r in season_table(ts).players if r.id in ("A", "B")]
    assert rows == ["A", "B"]


def test_sem_a4_equal_results_drop_lower_game_points_then_money_then_earlier():
    # game points: 'G1' (later) has 3 gp, 'G2' (earlier) 12 gp, both 67 points -> G1 dropped
    g1 = ranked_tournament("G1", "2026-05-01", 9, {9: "X"})
    g2 = ranked_tournament("G2", "2026-01-01", 9, {9: "X"}, finals=(9, 9, 9))
    # money: 'M1' (later) 75.02, 'M2' (earlier) 75.04 -> M1 dropped
    m1 = ranked_tournament("M1", "2026-05-01", 9, {1: "Y"})
    m2 = ranked_tournament("M2", "2026-01-01", 9, {1: "Y"}, cent=D("0.02"))
    # all equal: the earlier is dropped
    d1 = ranked_tournament("D1", "2026-05-01", 9, {5: "Z"})
    d2 = ranked_tournament("D2", "2026-01-01", 9, {5: "Z"})
    rows = {r.id: r for r in season_table([g1, g2, m1, m2, d1, d2], best=1).players}
    assert (rows["X"].counted, rows["X"].dropped) == (("G2",), ("G1",))
    assert (rows["Y"].counted, rows["Y"].dropped) == (("M2",), ("M1",))
    assert (rows["Z"].counted, rows["Z"].dropped) == (("D1",), ("D2",))


def test_sem_a4_name_and_club_from_latest_tournament():
    old = player(0, "SK-1", "MK Old", name="Eva Old")
    new = player(0, "SK-1", "MK New", name="Eva New")
    t_new = ranked_tournament("Later", "2026-06-01", 3, {2: new})
    t_old = ranked_tournament("Earlier", "2026-01-01", 3, {1: old})
    row = next(r for r in season_table([t_new, t_old]).players if r.id == "SK-1")
    assert (row.name, row.club) == ("Eva New", "MK New")
    assert row.counted == ("Earlier", "Later")


def test_sem_a4_disqualified_player_gets_nothing_from_that_tournament():
    t1 = ranked_tournament("T1", "2026-01-01", 9, {1: "X"}, events=[red_card(1)])
    t2 = ranked_tournament("T2", "2026-02-01", 9, {9: "X"})
    row = next(r for r in season_table([t1, t2]).players if r.id == "X")
    assert row.points == 67 and row.counted == ("T2",) and row.dropped == ()


def test_sem_a4_player_without_id_matched_by_name():
    t1 = ranked_tournament("T1", "2026-01-01", 3, {1: player(0, None, name="Kučera Miloš")})
    t2 = ranked_tournament("T2", "2026-02-01", 3, {3: player(0, None, name="Kučera Miloš")})
    row = next(r for r in season_table([t1, t2]).players if r.id == "Kučera Miloš")
    assert row.points == 103 + 86


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_sem_a4_property_points_are_the_best_results(data):
    pool = ["A", "B", "C", "D", "E"]
    best = data.draw(st.integers(1, 4))
    ts, got = [], {}
    for m in range(data.draw(st.integers(1, 6))):
        n = data.draw(st.sampled_from([3, 6, 9]))
        ids = data.draw(st.permutations(pool + [f"f{m}-{i}" for i in range(n)]))[:n]
        t = ranked_tournament(f"T{m}", month(m + 1), n, dict(enumerate(ids, 1)))
        ts.append(t)
        for p, pid in enumerate(ids, 1):
            got.setdefault(pid, []).append(n - p + 1 + (BONUS[p - 1]))
    table = season_table(ts, best=best).players
    assert [r.place for r in table] == list(range(1, len(table) + 1))
    for r in table:
        assert r.points == sum(sorted(got[r.id], reverse=True)[:best])
        assert len(r.counted) == min(best, len(got[r.id])) and len(r.counted) + len(r.dropped) == len(got[r.id])
    assert all(a.points >= b.points for a, b in zip(table, table[1:]))


# --------------------------------------------------------------------------- SEM-A5


def test_sem_a5_club_season_all_tournaments():
    ts = [ranked_tournament(f"SEM {m}", month(m), 9, {9: player(0, "x", "MK Solo")}) for m in range(1, 13)]
    club = next(c for c in season_table(ts).clubs if c.club == "MK Solo")
    assert club.points == 12 * 67 and club.game_points == 12 * 3  # all 12, not the best 11


def test_sem_a5_club_season_by_hand():
    a, b = "MK A", "MK B"
    t1 = ranked_tournament("T1", "2026-01-01", 9, {1: player(0, "a1", a), 5: player(0, "a2", a),
                                                    9: player(0, "a3", a), 2: player(0, "b1", b),
                                                    3: player(0, "b2", b), 4: player(0, "b3", b)})
    t2 = ranked_tournament("T2", "2026-02-01", 9, {2: player(0, "a1", a), 3: player(0, "a2", a),
                                                    4: player(0, "a3", a), 1: player(0, "b1", b)})
    assert season_table([t1, t2]).clubs == [
        SeasonClub(1, a, (109 + 83 + 67) + (99 + 92 + 87), Fraction(39 + 60)),
        SeasonClub(2, b, (99 + 92 + 87) + 109, Fraction(60 + 24)),
    ]


def test_sem_a5_nomination_error_names_the_tournament():
    members = [player(0, f"p{i}", "MK Poprad", nominated=i < 3) for i in range(13)]
    t = ranked_tournament("SEM 4 - Nitra", "2026-04-01", 15, dict(enumerate(members, 1)))
    with pytest.raises(NominationError, match=r"^tournament 'SEM 4 - Nitra': club 'MK Poprad' has 13 .* nominated 3"):
        season_table([t])


def test_season_duplicate_key_in_one_tournament_refused():
    t = ranked_tournament("T1", "2026-01-01", 3, {1: "X", 2: "X"})
    with pytest.raises(ValueError, match="'X' is listed twice"):
        season_table([t])


# --------------------------------------------------------------------------- SEM-A6


def test_sem_a6_coefficient():
    assert historical_coefficient(2000, 1600) == Fraction(5, 4)
    assert historical_coefficient(1600, 1600) == 1
    assert historical_coefficient(Fraction(3, 2), 1) == Fraction(3, 2)
    with pytest.raises(ValueError):
        historical_coefficient(2000, 0)
    with pytest.raises(ValueError):
        historical_coefficient(1000, 1600)


def test_sem_a6_historical_points():
    assert historical_points({"a": 1600, "b": 800, "c": 1}, 2000) == {"a": 2000, "b": 1000, "c": Fraction(5, 4)}
    # a record season: the coefficient is 1
    assert historical_points({"a": 1600, "b": 800}, 1500) == {"a": 1600, "b": 800}
    assert historical_points({}, 1500) == {}
    with pytest.raises(ValueError):
        historical_points({"a": 0}, 1500)


# --------------------------------------------------------------------------- SEM-B1


def test_sem_b1_rolling_window_of_tournaments():
    # 13 tournaments, given out of order; "old" played only the oldest, "X" the 2nd and the newest
    ts = []
    for m in range(1, 14):
        at = {1: "old"} if m == 1 else {}
        if m in (2, 13):
            at[9] = "X"
        if m % 2:
            at[2] = "odd"
        ts.append(ranked_tournament(f"SEM {m}", month(m), 9, at))
    random.Random(3).shuffle(ts)
    rows = {r.id: r for r in ratings(ts)}
    assert "old" not in rows
    assert (rows["X"].rating, rows["X"].tournaments) == (2 * 67, 2)
    assert (rows["odd"].rating, rows["odd"].tournaments) == (6 * 99, 6)  # 3, 5, … 13
    assert {r.id for r in ratings(ts, window=1)} == {f"SEM 13#{p}" for p in (1, 3, 4, 5, 6, 7, 8)} | {"X", "odd"}
    assert "old" in {r.id for r in ratings(ts, window=13)}


def test_sem_b1_order_ties_and_latest_name():
    # same date: the window of 1 takes the later by name ("B")
    ta = ranked_tournament("A", "2026-01-01", 3, {1: player(0, "P", name="Old Name"), 2: "Q", 3: "R"})
    tb = ranked_tournament("B", "2026-01-01", 3, {1: "R", 2: player(0, "P", name="New Name"), 3: "Q"})
    rows = ratings([tb, ta])
    assert [(r.id, r.name, r.rating, r.tournaments) for r in rows] == [
        ("P", "New Name", 103 + 93, 2), ("R", "Hráč R", 86 + 103, 2), ("Q", "Hráč Q", 93 + 86, 2)]
    assert [r.id for r in ratings([tb, ta], window=1)] == ["R", "P", "Q"]
    # equal ratings: by id
    tc = ranked_tournament("C", "2026-01-01", 3, {1: "b"})
    td = ranked_tournament("D", "2026-01-01", 3, {1: "a"})
    assert [r.id for r in ratings([tc, td]) if r.id in ("a", "b")] == ["a", "b"]


def test_sem_b1_disqualified_unrated_from_that_tournament():
    t = ranked_tournament("A", "2026-01-01", 3, {1: "P"}, events=[red_card(1)])
    rows = {r.id: r for r in ratings([t])}
    assert "P" not in rows and rows["A#2"].rating == 2 + 100


# --------------------------------------------------------------------------- SEM-A2


def test_sem_a2_guest_limit_four_tournaments():
    hist = [ranked_tournament(f"T{m}", month(m), 3, {1: player(0, "G", status="guest")}) for m in range(1, 5)]
    assert guest_check("G", "guest", hist[:3]) is None
    msg = guest_check("G", "guest", hist)
    assert msg == "'G' has already played 4 SEM tournaments this season as a guest: the limit is 4 (SEM-A2)"


def test_sem_a2_registered_or_rejected_cannot_be_guest():
    hist = [ranked_tournament("T1", month(1), 3, {1: player(0, "R", "MK A")})]
    assert "registered player" in guest_check("R", "guest", hist)
    assert "registered player" in guest_check("S", "guest", [], registered={"S"})
    assert "rejected" in guest_check("J", "guest", [], rejected={"J"})
    assert guest_check("R", "registered", hist) is None


# --------------------------------------------------------------------------- performance


def test_sem_a4_season_of_12_tournaments_600_players():
    """Scale check (timings live in benchmarks/rules_bench.py)."""
    rng = random.Random(7)
    pool = [(f"SK-{i:04d}", f"MK {i % 30:02d}", rng.choice([None, str(rng.randint(100, 2000))]))
            for i in range(700)]
    ts = []
    for m in range(1, 13):
        chosen = rng.sample(pool, 600)
        ts.append(final_tournament(f"SEM {m}", month(m), [
            player(sn, pid, club, rating=r) for sn, (pid, club, r) in enumerate(chosen, 1)]))
    table = season_table(ts)
    rated = ratings(ts)
    assert len(table.players) == 700 and len(table.clubs) == 30 and len(rated) == 700
    assert all(len(p.counted) <= 11 for p in table.players)
    assert [p.points for p in table.players] == sorted((p.points for p in table.players), reverse=True)
