"""Tournament standings: SEM-B12 tie-break chain and stages, SEM-D2..D5, SEM-E."""
import random
from decimal import Decimal as D

from hypothesis import given, settings, strategies as st

from webapp.rules.model import Event, Player, Round, TableResult, Tournament
from webapp.rules.standings import standings


def sheet(table, players, sums, **kw):
    return TableResult(table, tuple(players), tuple(D(s) for s in sums), **kw)


def tournament(n, rounds, events=(), extra_players=()):
    players = [Player(i, f"Hráč {i}", club=f"MK {i % 4}") for i in range(1, n + 1)]
    players += list(extra_players)
    return Tournament(players, [Round(k + 1, tuple(ts)) for k, ts in enumerate(rounds)], events=list(events))


def order(t, **kw):
    return [s.player.start_no for s in standings(t, **kw)]


WORKED = [
    sheet(1, (1, 6, 7), ("14.00", "9.50", "6.50")),
    sheet(2, (2, 5, 8), ("10.00", "10.00", "10.00")),
    sheet(3, (3, 4, 9), ("12.00", "12.00", "6.00")),
]


def test_sem_b12_worked_example_rules_section_3():
    t = tournament(9, [WORKED])
    rows = standings(t)
    assert [r.player.start_no for r in rows] == [1, 3, 4, 2, 5, 8, 6, 7, 9]
    assert [r.tie for r in rows] == [None, "start number", "start number", "start number",
                                     "start number", "start number", None, None, None]
    assert [r.place for r in rows] == list(range(1, 10))
    assert rows[0].stats.points == 5 and rows[0].stats.money == D("14.00")


def test_sem_b12a_points_before_money():
    t = tournament(3, [[sheet(1, (1, 2, 3), ("14", "9.5", "6.5"))],
                       [sheet(1, (1, 2, 3), ("9", "12", "9"))]])
    # 1: 5+2=7 (23.00), 2: 3+5=8 (21.50), 3: 1+2=3
    assert order(t) == [2, 1, 3]


def test_sem_b12b_money_breaks_equal_points():
    t = tournament(6, [[sheet(1, (1, 2, 3), ("14", "9.5", "6.5")), sheet(2, (4, 5, 6), ("12", "10", "8"))]])
    assert order(t) == [1, 4, 5, 2, 6, 3]


def test_sem_b12c_better_point_records_lexicographic():
    # both 8 points and 25.00 EUR: #1 has 5+3, #4 has 4+4 -> more 5-point records first
    t = tournament(6, [
        [sheet(1, (1, 2, 3), ("13", "12", "5")), sheet(2, (4, 5, 6), ("12.5", "12.5", "5"))],
        [sheet(1, (1, 5, 6), ("12", "13", "5")), sheet(2, (4, 2, 3), ("12.5", "12.5", "5"))],
    ])
    rows = {r.player.start_no: r for r in standings(t)}
    assert (rows[1].stats.points, rows[1].stats.money) == (rows[4].stats.points, rows[4].stats.money)
    assert rows[1].stats.records == {5: 1, 3: 1} and rows[4].stats.records == {4: 2}
    assert rows[1].place < rows[4].place and rows[1].tie is None


def test_sem_b12d_largest_single_round_sum():
    # #1 and #4: 6 points, 20.00, records {3: 2}; #1's best round 11.00 beats #4's 10.50
    t = tournament(6, [
        [sheet(1, (1, 2, 3), ("11", "12", "7")), sheet(2, (4, 5, 6), ("10.5", "11", "8.5"))],
        [sheet(1, (1, 5, 6), ("9", "13", "8")), sheet(2, (4, 2, 3), ("9.5", "12", "8.5"))],
    ])
    rows = {r.player.start_no: r for r in standings(t)}
    a, b = rows[1].stats, rows[4].stats
    assert (a.points, a.money, a.records) == (b.points, b.money, b.records) == (6, D(20), {3: 2})
    assert rows[1].place + 1 == rows[4].place and rows[1].tie is None


def test_sem_b12e_second_largest_sum():
    # #2: 13, 10, 7 and #4: 13, 9, 8 -> equal points, money, records and largest sum
    t = tournament(9, [
        [sheet(1, (2, 1, 3), ("13", "12", "5")), sheet(2, (4, 5, 6), ("13", "12", "5")),
         sheet(3, (7, 8, 9), ("10", "10", "10"))],
        [sheet(1, (2, 5, 7), ("10", "14", "6")), sheet(2, (4, 1, 8), ("9", "15", "6")),
         sheet(3, (3, 6, 9), ("10", "10", "10"))],
        [sheet(1, (2, 6, 8), ("7", "12", "11")), sheet(2, (4, 7, 9), ("8", "12", "10")),
         sheet(3, (1, 3, 5), ("10", "10", "10"))],
    ])
    rows = {r.player.start_no: r for r in standings(t)}
    a, b = rows[2].stats, rows[4].stats
    assert (a.points, a.money, a.records) == (b.points, b.money, b.records) == (9, D(30), {5: 1, 3: 1})
    assert max(a.sums) == max(b.sums)
    assert rows[2].place + 1 == rows[4].place and rows[2].tie is None and rows[4].tie is None


def test_sem_b12_after_round_ignores_later_rounds():
    t = tournament(3, [[sheet(1, (1, 2, 3), ("14", "9.5", "6.5"))],
                       [sheet(1, (1, 2, 3), ("5", "10", "15"))]])
    assert order(t, after_round=1) == [1, 2, 3]
    assert order(t) == [3, 2, 1]
    assert standings(t, after_round=1)[0].stats.rounds == [1]


def _qualified(n=6):
    """Rounds 1-3 for 6 players, then round 4 for players 1-3 only."""
    r = lambda a: [sheet(1, a[:3], ("14", "10", "6")), sheet(2, a[3:], ("14", "10", "6"))]
    return [r((1, 2, 3, 4, 5, 6)), r((1, 2, 3, 4, 5, 6)), r((1, 2, 3, 4, 5, 6)),
            [sheet(1, (1, 2, 3), ("6", "10", "14"))]]


def test_sem_b12_stage_later_round_places_above():
    t = tournament(6, _qualified())
    # after round 4, #4 (15 points) is below #3 (8 points) because #3 played round 4
    rows = {r.player.start_no: r for r in standings(t)}
    assert rows[4].stats.points == 15 and rows[3].stats.points == 8
    assert order(t) == [1, 2, 3, 4, 5, 6]
    assert [s.stage for s in standings(t)] == [4, 4, 4, 3, 3, 3]
    assert order(t, after_round=3) == [1, 4, 2, 5, 3, 6]


def test_sem_b12_withdrawn_in_qualification_shares_stage_d4():
    rounds = _qualified()[:2]
    rounds[1] = [sheet(1, (1, 2, 3), ("14", "10", "6"))]  # 4, 5, 6 withdrew after round 1
    events = [Event("withdrawn", s, after_round=1) for s in (4, 5, 6)]
    t = tournament(6, rounds, events)
    rows = standings(t)
    # D4: they keep round 1; stage is the qualification stage for everybody
    assert {r.stage for r in rows} == {2}
    assert order(t) == [1, 2, 4, 5, 3, 6]


def test_sem_d2_disqualified_player_not_ranked():
    t = tournament(6, [[sheet(1, (1, 2, 3), ("14", "10", "6"), disqualified=(2,)),
                        sheet(2, (4, 5, 6), ("14", "10", "6"))]])
    rows = standings(t)
    assert 2 not in [r.player.start_no for r in rows]
    assert [r.place for r in rows] == [1, 2, 3, 4, 5]
    by = {r.player.start_no: r.stats for r in rows}
    assert (by[1].points, by[1].money, by[3].points, by[3].money) == (5, D(15), 3, D(7))


def test_sem_e_red_card_and_second_yellow_disqualify():
    events = [Event("card", 4, colour="red", round=1, referees=("A", "B")),
              Event("card", 5, colour="yellow", round=1), Event("card", 5, colour="yellow", round=1),
              Event("card", 6, colour="yellow", round=1)]
    t = tournament(6, [[sheet(1, (1, 2, 3), ("14", "10", "6")), sheet(2, (4, 5, 6), ("14", "10", "6"))]], events)
    # 3 and 6 tie on everything: the lower start number decides
    assert order(t) == [1, 2, 3, 6]


def test_sem_d3_substitute_for_disqualified_is_ranked_d5_for_withdrawn_is_not():
    subs = [Player(7, "Náhradník D", status="substitute", substitute_for=2, from_round=2),
            Player(8, "Náhradník W", status="substitute", substitute_for=5, from_round=2)]
    rounds = [
        [sheet(1, (1, 2, 3), ("14", "10", "6"), disqualified=(2,)), sheet(2, (4, 5, 6), ("14", "10", "6"))],
        [sheet(1, (1, 7, 3), ("6", "14", "10")), sheet(2, (4, 8, 6), ("6", "14", "10"))],
    ]
    t = tournament(6, rounds, [Event("withdrawn", 5, after_round=1)], subs)
    ranked = order(t)
    assert 7 in ranked and 8 not in ranked and 2 not in ranked and 5 in ranked
    assert len(ranked) == 6


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1, max_value=10_000), st.integers(min_value=1, max_value=6))
def test_sem_b12_total_order_independent_of_input_order(seed, n_tables):
    rng = random.Random(seed)
    n = 3 * n_tables
    rounds = []
    for _ in range(3):
        seats = list(range(1, n + 1))
        rng.shuffle(seats)
        tables = []
        for k in range(n_tables):
            a = rng.choice([0, 50, 100, 150, 200, 1000])
            b = rng.choice([0, 50, 100, 150, 200, 1000])
            c = 3000 - a - b
            tables.append(sheet(k + 1, seats[3 * k:3 * k + 3], (D(a) / 100, D(b) / 100, D(c) / 100)))
        rounds.append(tables)
    t1 = tournament(n, rounds)
    shuffled = [list(ts) for ts in rounds]
    for ts in shuffled:
        rng.shuffle(ts)
    t2 = tournament(n, shuffled)
    t2.players.reverse()
    rows = standings(t1)
    assert [r.player.start_no for r in rows] == order(t2)
    assert sorted(r.player.start_no for r in rows) == list(range(1, n + 1))
    keys = [(-r.stats.points, -r.stats.money) for r in rows]
    assert keys == sorted(keys)
