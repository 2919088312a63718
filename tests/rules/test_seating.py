"""The draw: SEM-B2 round 1, SEM-B6 round 2, SEM-B7 standings rounds, the cuts
SEM-B9..B11, the club rule and the field rules of SEM-D1..D5."""
from fractions import Fraction

import pytest

from tests.rules.builders import players, play_round, scripted_round, sheet, tournament, with_totals
from webapp.rules.model import Event, Player, Round
from webapp.rules.seating import Draw, DrawError, SeatedTable, cut, draw, rating_order
from webapp.rules.sem import SEM
from webapp.rules.standings import PlayerStats, Standing, standings


def seats(d: Draw) -> list[list[int]]:
    return [list(tb.players) for tb in d.tables]


def flagged(d: Draw) -> list[int]:
    return [tb.table for tb in d.tables if tb.flags]


def rated(n, clubs=None):
    """n players, start number s has rating 1000 - s (so L = 1, 2, ..., n)."""
    return players(n, clubs=clubs, ratings=lambda s: 1000 - s)


# 12 rated players, no clubs: T = 4, G1 = 1..4, G2 = 5..8 reversed, G3 = 9..12
ROUND1_12 = [[1, 8, 9], [2, 7, 10], [3, 6, 11], [4, 5, 12]]


# ---------------------------------------------------------------------------
# SEM-B2 round 1


def test_sem_b2_rating_order_rated_desc_then_unrated_by_start_number():
    ps = players(6, ratings={2: 500, 3: 700, 5: 500, 6: None})
    assert [p.start_no for p in rating_order(ps)] == [3, 2, 5, 1, 4, 6]


def test_sem_b2_nine_players_hand_checked():
    # L = 4, 1, 7, 2, 9, 3 (rated) then 5, 6, 8 (unrated by start number)
    ps = players(9, ratings={4: 900, 1: 800, 7: 700, 2: 600, 9: 500, 3: 400})
    L = [p.start_no for p in rating_order(ps)]
    assert L == [4, 1, 7, 2, 9, 3, 5, 6, 8]
    d = draw(tournament(ps), 1)
    assert d.round == 1 and d.advancing is None and d.eliminated is None
    assert seats(d) == [[L[0], L[5], L[6]], [L[1], L[4], L[7]], [L[2], L[3], L[8]]]
    assert [tb.table for tb in d.tables] == [1, 2, 3]
    assert flagged(d) == []


def test_sem_b2_group2_reversed():
    d = draw(tournament(rated(12)), 1)
    assert seats(d) == ROUND1_12
    assert [tb.players[1] for tb in d.tables] == [8, 7, 6, 5]


def test_sem_b2_last_table_gets_unrated_highest_start_number():
    ps = players(12, ratings=lambda s: 1000 - s if s <= 6 else None)
    d = draw(tournament(ps), 1)
    assert d.tables[-1].players == (4, 5, 12)
    assert d.tables[0].players == (1, 8, 9)


@pytest.mark.parametrize("n, message", [
    (400, "round 1: 400 players cannot be seated at tables of 3: add 2 players or withdraw 1"),
    (401, "round 1: 401 players cannot be seated at tables of 3: add 1 player or withdraw 2"),
])
def test_sem_b2_refuses_field_not_divisible_by_3(n, message):
    with pytest.raises(DrawError) as err:
        draw(tournament(players(n)), 1)
    assert str(err.value) == message


def test_sem_b2_absent_players_are_not_seated():
    ps = rated(13)
    ps[4] = Player(5, "Hráč 5", rating=ps[4].rating, present=False)
    d = draw(tournament(ps), 1)
    assert sorted(d.seated) == [s for s in range(1, 14) if s != 5]


def test_sem_b2_club_rule_swaps_with_nearest_table():
    # table 1 = 1, 8, 9: 1 and 8 of one club; 8 swaps with 7 (table 2, position 2)
    d = draw(tournament(rated(12, clubs={1: "A", 8: "A"})), 1)
    assert seats(d) == [[1, 7, 9], [2, 8, 10], [3, 6, 11], [4, 5, 12]]
    assert flagged(d) == []


def test_sem_b2_club_rule_tie_goes_to_lower_table():
    # conflict at table 3 (3 and 6); tables 2 and 4 are both one away: table 2 wins
    d = draw(tournament(rated(12, clubs={3: "A", 6: "A"})), 1)
    assert seats(d) == [[1, 8, 9], [2, 6, 10], [3, 7, 11], [4, 5, 12]]


def test_sem_b2_club_rule_group2_before_group3():
    # table 3 = 3, 6, 11 with 6 and 11 of one club: both may move; position 2 goes first
    d = draw(tournament(rated(12, clubs={6: "B", 11: "B"})), 1)
    assert seats(d) == [[1, 8, 9], [2, 6, 10], [3, 7, 11], [4, 5, 12]]


def test_sem_b2_club_rule_group3_when_group2_cannot_help():
    # table 1 = 1, 8, 9 with 8 and 9 of club A; every other group-2 player is of
    # club B like player 1, so only a group-3 swap works: 9 <-> 10
    clubs = {1: "B", 8: "A", 9: "A", 7: "B", 6: "B", 5: "B"}
    d = draw(tournament(rated(12, clubs=clubs)), 1)
    assert seats(d) == [[1, 8, 10], [2, 7, 9], [3, 6, 11], [4, 5, 12]]


def test_sem_b2_club_rule_skips_swap_that_breaks_other_table():
    # 8 (A) cannot go to table 2 where 2 is A, nor take 7 (A): nearest valid is table 3
    d = draw(tournament(rated(12, clubs={1: "A", 8: "A", 2: "A"})), 1)
    assert seats(d) == [[1, 6, 9], [2, 7, 10], [3, 8, 11], [4, 5, 12]]
    assert flagged(d) == []


def test_sem_b2_club_rule_group1_never_moves():
    clubs = {s: "ABCD"[s % 4] for s in range(1, 25)}
    ps = rated(24, clubs=clubs)
    d = draw(tournament(ps), 1)
    assert [tb.players[0] for tb in d.tables] == list(range(1, 9))
    assert sorted(tb.players[1] for tb in d.tables) == list(range(9, 17))
    assert sorted(tb.players[2] for tb in d.tables) == list(range(17, 25))
    assert flagged(d) == []


def test_sem_b2_three_of_one_club_take_two_swaps():
    d = draw(tournament(rated(12, clubs={1: "A", 8: "A", 9: "A"})), 1)
    assert seats(d) == [[1, 7, 11], [2, 8, 10], [3, 6, 9], [4, 5, 12]]
    assert flagged(d) == []


def test_sem_b2_unresolvable_club_conflict_is_flagged_and_kept():
    d = draw(tournament(rated(9, clubs=lambda s: "A")), 1)
    assert seats(d) == [[1, 6, 7], [2, 5, 8], [3, 4, 9]]
    assert flagged(d) == [1, 2, 3]
    assert all(tb.flags == ("same-club",) for tb in d.tables)


def test_sem_b2_guests_and_licensed_players_may_sit_together():
    ps = [Player(s, f"P{s}", club="MK X", status="guest" if s % 2 else "licensed",
                 rating=None) for s in range(1, 10)]
    d = draw(tournament(ps), 1)
    assert seats(d) == [[1, 6, 7], [2, 5, 8], [3, 4, 9]]
    assert flagged(d) == []


# ---------------------------------------------------------------------------
# SEM-B6 round 2, SEM-D1a, substitutes


def played_round1(ps, **kw):
    t = tournament(ps, events=kw.pop("events", ()))
    play_round(t, draw(t, 1), **kw)
    return t


def test_sem_b6_cyclic_move():
    t = played_round1(rated(12))
    assert seats(draw(t, 1)) == ROUND1_12
    d = draw(t, 2)
    # position 1 one table lower (table 1's to table 4), 3 one table higher (table 4's to 1)
    assert seats(d) == [[2, 8, 12], [3, 7, 9], [4, 6, 10], [1, 5, 11]]
    assert flagged(d) == []


def test_sem_b6_shift_uses_the_round1_sheets_not_a_new_draw():
    t = played_round1(rated(12))
    # the sheets as recorded win, e.g. after a manual correction of the round-1 draw
    t.rounds = [Round(1, (sheet(1, (1, 2, 3), (10, 10, 10)), sheet(2, (4, 5, 6), (10, 10, 10)),
                          sheet(3, (7, 8, 9), (10, 10, 10)), sheet(4, (10, 11, 12), (10, 10, 10))))]
    assert seats(draw(t, 2)) == [[4, 2, 12], [7, 5, 3], [10, 8, 6], [1, 11, 9]]


def test_sem_b6_club_rule_in_round2():
    # round 1 keeps 2 and 8 apart; the shift brings them to table 1 -> 8 swaps with 7
    t = played_round1(rated(12, clubs={2: "A", 8: "A"}))
    assert seats(draw(t, 1)) == ROUND1_12
    d = draw(t, 2)
    assert seats(d) == [[2, 7, 12], [3, 8, 9], [4, 6, 10], [1, 5, 11]]
    assert flagged(d) == []


def test_sem_b6_no_club_rule_outside_club_rule_rounds():
    class NoClubRuleInRound2(SEM):
        club_rule_rounds = frozenset({1})

    t = played_round1(rated(12, clubs={2: "A", 8: "A"}))
    d = draw(t, 2, NoClubRuleInRound2())
    assert seats(d) == [[2, 8, 12], [3, 7, 9], [4, 6, 10], [1, 5, 11]]
    assert flagged(d) == [1]


def test_sem_d1a_cancelled_table_round2():
    # round-1 table 2 (2, 7, 10) is disqualified as a whole: the ring is tables 1, 3, 4
    t = played_round1(rated(12), disqualified={2: (2, 7, 10)})
    d = draw(t, 2)
    assert seats(d) == [[3, 8, 12], [4, 6, 9], [1, 5, 11]]
    # 3 (to sit at table 2 position 1) takes the seat 2 would have had: table 1, position 1;
    # 9 (to sit at table 2 position 3) takes 10's seat: old table 3, now table 2, position 3
    assert d.tables[0].players[0] == 3 and d.tables[1].players[2] == 9
    assert [tb.table for tb in d.tables] == [1, 2, 3]


def test_sem_d1a_cancelled_first_and_last_tables_wrap_around():
    t = played_round1(rated(15), disqualified={1: (1, 10, 11), 5: (5, 6, 15)})
    # round 1: [1,10,11] [2,9,12] [3,8,13] [4,7,14] [5,6,15]; ring = tables 2, 3, 4
    assert seats(draw(t, 2)) == [[3, 9, 14], [4, 8, 12], [2, 7, 13]]


def test_sem_d3_substitute_takes_the_seat_of_a_disqualified_player():
    ps = rated(12) + [Player(13, "Náhradník", substitute_for=7)]
    t = played_round1(ps, disqualified={2: (7,)})
    assert seats(draw(t, 2)) == [[2, 8, 12], [3, 13, 9], [4, 6, 10], [1, 5, 11]]


def test_sem_d5_substitute_takes_the_seat_of_a_withdrawn_player():
    ps = rated(12) + [Player(13, "Náhradník", substitute_for=12, from_round=2)]
    t = played_round1(ps, events=[Event("withdrawn", 12, after_round=1)])
    assert seats(draw(t, 2)) == [[2, 8, 13], [3, 7, 9], [4, 6, 10], [1, 5, 11]]


def test_sem_d1b_remaining_player_keeps_the_seat_and_freed_seats_are_filled_by_position():
    """SEM-D1b, B6 ("each keeps their position"): the freed seats
    are filled by dissolving one incomplete table; nobody who stays keeps a
    different position, and of the movers as many as possible keep theirs."""
    # table 2: 7 and 10 disqualified (2 gets 5 points); the organiser withdraws 12
    t = played_round1(rated(12), disqualified={2: (7, 10)},
                      events=[Event("withdrawn", 12, after_round=1)])
    # shifted: [2,8,_] [3,_,9] [4,6,_] [1,5,11]; table 3 is dissolved: 6 keeps position 2
    # at table 2, 4 takes the only seat left (position 3; no position-1 seat is free)
    assert seats(draw(t, 2)) == [[2, 8, 4], [3, 6, 9], [1, 5, 11]]


def test_sem_d1b_no_player_changes_position_when_the_free_seats_allow():
    # round 1 [1,8,9] [2,7,10] [3,6,11] [4,5,12]; table 2: 2 and 7 disqualified, 10 remains;
    # the organiser withdraws 6 (position 2 of table 3)
    t = played_round1(rated(12), disqualified={2: (2, 7)}, events=[Event("withdrawn", 6, after_round=1)])
    d = draw(t, 2)
    # shifted: [_,8,12] [3,_,9] [4,_,10] [1,5,11]; the old rule regrouped 8,12,3,9,4,10 at
    # the end (3 from position 1 to 2, 9 from 3 to 1). Now one table is dissolved (every
    # choice keeps one of its two players' positions; ties: the highest table): 4 keeps
    # position 1 at table 1, 10 takes the position-2 seat at table 2.
    assert seats(d) == [[4, 8, 12], [3, 10, 9], [1, 5, 11]]
    assert [tb.players[0] for tb in d.tables] == [4, 3, 1]


def test_sem_d1a_substitutes_of_a_cancelled_table_are_seated_at_the_end():
    subs = [Player(13, "S1", substitute_for=2), Player(14, "S2", substitute_for=7),
            Player(15, "S3", substitute_for=10)]
    t = played_round1(rated(12) + subs, disqualified={2: (2, 7, 10)})
    assert seats(draw(t, 2)) == [[3, 8, 12], [4, 6, 9], [1, 5, 11], [13, 14, 15]]


def test_sem_b6_refuses_field_not_divisible_by_3():
    t = played_round1(rated(12), events=[Event("withdrawn", 5, after_round=1)])
    with pytest.raises(DrawError, match=r"^round 2: 11 players cannot be seated at tables of 3: "
                                        r"add 1 player or withdraw 2$"):
        draw(t, 2)


def test_substitute_without_from_round_waits_for_the_replaced_player_to_leave():
    ps = rated(12) + [Player(13, "S", substitute_for=7)]
    t = tournament(ps)
    assert 13 not in draw(t, 1).seated
    # replacing an absent player: plays from round 1
    ps = rated(12) + [Player(13, "S", substitute_for=14), Player(14, "Absent", present=False)]
    ps[0] = Player(1, "Absent too", present=False)
    assert 13 in draw(tournament(ps), 1).seated


def test_substitute_from_round_and_reserves():
    ps = rated(12) + [Player(13, "S", substitute_for=7, from_round=3),
                      Player(14, "Reserve", status="substitute"),
                      Player(15, "Late reserve", status="substitute", from_round=2)]
    t = played_round1(ps, events=[Event("withdrawn", 7, after_round=1)])
    assert sorted(draw(t, 1).seated) == list(range(1, 13))
    # round 2: 7 gone, 13 not yet (from round 3), reserve 14 never, 15 seated:
    # 15 takes 7's freed seat at [3, 7, 9] (SEM-D1b interpretation: no regrouping)
    d = draw(t, 2)
    assert seats(d) == [[2, 8, 12], [3, 15, 9], [4, 6, 10], [1, 5, 11]]
    play_round(t, d)
    t.events.append(Event("withdrawn", 12, after_round=2))
    seated = draw(t, 3).seated
    assert 13 in seated and 14 not in seated and 12 not in seated and len(seated) == 12


# ---------------------------------------------------------------------------
# SEM-B7 standings rounds

WORKED_ROUND1 = Round(1, (
    sheet(1, (1, 6, 7), ("14.00", "9.50", "6.50")),
    sheet(2, (2, 5, 8), ("10.00", "10.00", "10.00")),
    sheet(3, (3, 4, 9), ("12.00", "12.00", "6.00")),
))


def test_sem_b7_round3_by_standings_worked_example():
    # RULES.md section 3 plus an all-equal round 2: the order stays 1, 3, 4, 2, 5, 8, 6, 7, 9
    t = tournament(players(9), [WORKED_ROUND1, Round(2, (
        sheet(1, (1, 2, 3), (10, 10, 10)), sheet(2, (4, 5, 6), (10, 10, 10)),
        sheet(3, (7, 8, 9), (10, 10, 10))))])
    d = draw(t, 3)
    assert seats(d) == [[1, 3, 4], [2, 5, 8], [6, 7, 9]]


def test_bbliga_round2_by_standings():
    t = tournament(players(9), [WORKED_ROUND1], ruleset="bbliga")
    assert seats(draw(t, 2)) == [[1, 3, 4], [2, 5, 8], [6, 7, 9]]


def standings_t(n, clubs, rounds=2, **kw):
    """n players whose standings after `rounds` rounds are 1, 2, ..., n."""
    t = tournament(players(n, clubs=clubs), **kw)
    return with_totals(t, {s: 3 * n - s for s in range(1, n + 1)}, rounds)


def test_sem_b7_club_rule_lower_placed_swaps_with_highest_below():
    d = draw(standings_t(9, {2: "A", 3: "A"}), 3)
    assert seats(d) == [[1, 2, 4], [3, 5, 6], [7, 8, 9]]
    assert flagged(d) == []


def test_sem_b7_club_rule_skips_candidates_that_create_a_conflict():
    # 4 is of 1's club; 5 is of the pair's club; 6 would take 3 to 5's table: 7 moves up
    d = draw(standings_t(9, {1: "B", 2: "A", 3: "A", 4: "B", 5: "A"}), 3)
    assert seats(d) == [[1, 2, 7], [4, 5, 6], [3, 8, 9]]
    assert flagged(d) == []


def test_sem_b7_later_table_conflict_resolved_in_its_turn():
    # table 2 (4, 5, 6) already has 5 and 6 of club B: taking 4 up creates no new
    # conflict there; table 2 then sends 6 down for 7
    d = draw(standings_t(9, {2: "A", 3: "A", 5: "B", 6: "B"}), 3)
    assert seats(d) == [[1, 2, 4], [3, 5, 7], [6, 8, 9]]
    assert flagged(d) == []


def test_sem_b7_table_lists_players_in_standings_order_after_swap():
    # 3 moves down to table 2 and is listed first there (best placed)
    d = draw(standings_t(9, {1: "A", 3: "A"}), 3)
    assert seats(d) == [[1, 2, 4], [3, 5, 6], [7, 8, 9]]


def test_sem_b7_three_of_one_club():
    # 2 goes down for 4; then 3 cannot join 2 at table 2 and goes to table 3 for 7
    d = draw(standings_t(12, {1: "A", 2: "A", 3: "A"}), 3)
    assert seats(d) == [[1, 4, 7], [2, 5, 6], [3, 8, 9], [10, 11, 12]]
    assert flagged(d) == []


def test_sem_b7_conflict_at_the_last_table_resolved_by_moving_a_player_up():
    """Nobody below the last table, but the field allows the club
    rule: 8 moves up to table 2, the fewest places it can."""
    d = draw(standings_t(9, {8: "A", 9: "A"}), 3)
    assert seats(d) == [[1, 2, 3], [4, 5, 8], [6, 7, 9]]
    assert flagged(d) == []


def test_sem_b7_unresolvable_field_is_flagged():
    # 4 players of one club at 3 tables: the field does not allow the club rule
    d = draw(standings_t(9, {6: "A", 7: "A", 8: "A", 9: "A"}), 3)
    assert flagged(d) != []


def test_sem_d4_withdrawn_player_not_seated_after_withdrawal():
    t = standings_t(12, None, events=[Event("withdrawn", 2, after_round=2), Event("withdrawn", 5, after_round=2),
                                       Event("withdrawn", 9, after_round=2)])
    assert seats(draw(t, 3)) == [[1, 3, 4], [6, 7, 8], [10, 11, 12]]


def test_sem_d5_substitute_placed_by_own_results_in_round3():
    ps = players(9) + [Player(10, "S", substitute_for=9, from_round=2)]
    r1 = scripted_round(1, [((1, 2, 3), (5, 3, 1)), ((4, 5, 6), (5, 3, 1)), ((7, 8, 9), (5, 3, 1))])
    r2 = scripted_round(2, [((1, 4, 7), (5, 3, 1)), ((2, 5, 8), (5, 3, 1)), ((3, 6, 10), (1, 3, 5))])
    t = tournament(ps, [r1, r2], events=[Event("withdrawn", 9, after_round=1)])
    # totals: 1:10, 2 and 4: 8 (start number), 7: 6 (a 5-point round) before 5: 6,
    # then 10: 5 (not ranked, SEM-D5, but seated by its results), 6 and 8: 4, 3: 2
    assert 10 not in [r.player.start_no for r in standings(t, 2)]
    assert seats(draw(t, 3)) == [[1, 2, 4], [7, 5, 10], [6, 8, 3]]


def test_sem_d3_substitute_for_disqualified_is_ranked_and_seated():
    ps = players(9) + [Player(10, "S", substitute_for=9)]
    r1 = Round(1, (sheet(1, (1, 2, 3), (14, 10, 6)), sheet(2, (4, 5, 6), (14, 10, 6)),
                   sheet(3, (7, 8, 9), (14, 10, 6), disqualified=(9,))))
    r2 = scripted_round(2, [((1, 4, 7), (5, 3, 1)), ((2, 5, 8), (5, 3, 1)), ((3, 6, 10), (1, 3, 5))])
    t = tournament(ps, [r1, r2])
    d = draw(t, 3)
    # 1: 10 (24.00), 4: 8, 2: 8 (20.00 each; 4's 14.00 beats 2's 10.00), 5: 6, 7: 6
    # (a 5-point round: 7 before 5), 10: 5 (ranked, SEM-D3), 8: 4 (21.00), 6: 4 (16.00), 3: 2
    assert 9 not in d.seated and 10 in d.seated
    assert 10 in [r.player.start_no for r in standings(t, 2)]
    assert seats(d) == [[1, 4, 2], [7, 5, 10], [8, 6, 3]]


# ---------------------------------------------------------------------------
# SEM-B9..B11 cuts


def fake(points):
    return [Standing(i + 1, Player(i + 1, f"P{i + 1}"), PlayerStats(i + 1, points=Fraction(p)), 3, None)
            for i, p in enumerate(points)]


def test_sem_b9_threshold_topped_up_plus_extra_table():
    adv, elim = cut(fake([9, 8, 7, 7, 6, 6, 6, 5, 5, 4, 3, 3]), 7)
    assert adv == [1, 2, 3, 4, 5, 6, 7, 8, 9] and elim == [10, 11, 12]


def test_sem_b9_fill_up_crosses_point_groups():
    adv, elim = cut(fake([8, 7, 7, 7, 5, 4, 3, 3, 2]), 7)
    assert adv == [1, 2, 3, 4, 5, 6] and elim == [7, 8, 9]


def test_sem_b9_no_extra_table_without_six_point_player():
    assert cut(fake([7, 7, 7, 5, 5, 5, 4, 4, 4]), 7)[0] == [1, 2, 3]
    # the 6-point players went into the top-up: the next three have 5 points
    assert cut(fake([7, 7, 7, 7, 6, 6, 5, 5, 5, 4, 4, 4]), 7)[0] == [1, 2, 3, 4, 5, 6]


def test_sem_b9_extra_table_needs_only_one_six_point_player():
    assert cut(fake([7, 7, 7, 5, 6, 5, 4, 4, 4]), 7)[0] == [1, 2, 3, 4, 5, 6]
    assert cut(fake([7, 7, 7, 5, 5, 6, 4, 4, 4]), 7)[0] == [1, 2, 3, 4, 5, 6]


def test_sem_b9_exact_multiple_needs_no_top_up():
    assert cut(fake([9, 8, 7, 6, 6, 6, 5, 5, 5]), 7)[0] == [1, 2, 3, 4, 5, 6]
    assert cut(fake([9, 8, 7, 5, 5, 5, 5, 5, 5]), 7)[0] == [1, 2, 3]


def test_sem_b9_nobody_at_threshold_only_the_extra_table():
    assert cut(fake([6, 5, 5, 4, 4, 4]), 7) == ([1, 2, 3], [4, 5, 6])
    assert cut(fake([5, 5, 6, 4, 4, 4]), 7) == ([1, 2, 3], [4, 5, 6])
    assert cut(fake([5, 5, 5, 4, 4, 4]), 7) == ([], [1, 2, 3, 4, 5, 6])


def test_sem_b9_everybody_advances():
    assert cut(fake([9, 8, 8, 7, 7, 7]), 7) == ([1, 2, 3, 4, 5, 6], [])
    assert cut(fake([9, 8, 8, 7, 7, 6]), 7) == ([1, 2, 3, 4, 5, 6], [])


def test_sem_b9_fewer_than_three_left_no_extra_table():
    assert cut(fake([9, 8, 8, 7, 6, 6, 6, 6]), 7) == ([1, 2, 3, 4, 5, 6], [7, 8])
    # top-up stops at the end of the list (the draw then refuses the field)
    assert cut(fake([9, 8, 8, 7, 7, 7, 7]), 7) == ([1, 2, 3, 4, 5, 6, 7], [])
    assert cut(fake([]), 7) == ([], [])


def test_sem_b9_half_points_are_not_threshold_minus_one():
    assert cut(fake([7, 7, 7, Fraction(13, 2), 5, 5]), 7)[0] == [1, 2, 3]


def cut_t(totals, clubs=None, rounds=3, events=()):
    n = len(totals)
    t = tournament(players(n, clubs=clubs), events=events)
    return with_totals(t, {s: totals[s - 1] for s in range(1, n + 1)}, rounds)


def test_sem_b9_draw_round4_advancing_and_eliminated():
    t = cut_t([9, 8, 7, 7, 6, 6, 6, 5, 5, 4, 3, 3])
    d = draw(t, 4)
    assert d.advancing == (1, 2, 3, 4, 5, 6, 7, 8, 9)
    assert d.eliminated == (10, 11, 12)
    assert seats(d) == [[1, 2, 3], [4, 5, 6], [7, 8, 9]]


def test_sem_b9_draw_club_rule_in_round4():
    t = cut_t([9, 8, 7, 7, 6, 6, 6, 5, 5, 4, 3, 3], clubs={1: "A", 2: "A"})
    d = draw(t, 4)
    assert seats(d) == [[1, 3, 4], [2, 5, 6], [7, 8, 9]]
    assert flagged(d) == []


def test_sem_b9_withdrawn_and_disqualified_are_not_candidates():
    # 2 withdrew after round 3, 3 got a red card in round 3
    events = [Event("withdrawn", 2, after_round=3), Event("card", 3, colour="red", round=3)]
    t = cut_t([9, 8, 7, 7, 6, 6, 6, 5, 5, 4, 3, 3], events=events)
    d = draw(t, 4)
    # candidates 1, 4, 5, ...: 1 and 4 reach 7, top-up 5, extra table 6, 7, 8 (6 points)
    assert d.advancing == (1, 4, 5, 6, 7, 8)
    assert d.eliminated == (9, 10, 11, 12)


def test_sem_b9_d5_substitute_never_advances():
    ps = players(9) + [Player(10, "S", substitute_for=9, from_round=2)]
    r1 = scripted_round(1, [((1, 2, 3), (5, 3, 1)), ((4, 5, 6), (5, 3, 1)), ((7, 8, 9), (5, 3, 1))])
    r2 = scripted_round(2, [((1, 4, 7), (5, 3, 1)), ((2, 5, 8), (5, 3, 1)), ((3, 6, 10), (1, 3, 5))])
    r3 = scripted_round(3, [((1, 4, 7), (5, 3, 1)), ((2, 5, 8), (5, 3, 1)), ((3, 6, 10), (1, 3, 5))])
    t = tournament(ps, [r1, r2, r3], events=[Event("withdrawn", 9, after_round=1)])
    # 1: 15, 2: 13, 4: 11, 10: 10 (not ranked), 5: 9, 7 and 6: 7 (7 has a 5-point round),
    # 8: 5, 3: 3; two players left after the top-up: no extra table
    d = draw(t, 4)
    assert d.advancing == (1, 2, 4, 5, 7, 6)
    assert d.eliminated == (8, 3)


def test_sem_b9_cut_field_not_divisible_by_3_is_refused():
    t = cut_t([9, 8, 8, 7, 7, 7, 7, 5, 5], events=[Event("withdrawn", 9, after_round=3),
                                                 Event("withdrawn", 8, after_round=3)])
    with pytest.raises(DrawError, match=r"^round 4: 7 advancing players cannot be seated at tables of 3 "
                                        r"and nobody can be added to a cut round: withdraw 1 advancing "
                                        r"player \(SEM-D4\) before the draw$"):
        draw(t, 4)


def test_sem_b9_cut_of_11_on_7_points_says_withdraw_2_never_add():
    """11 candidates all on >= 7 points cannot be topped up."""
    t = cut_t([9, 9, 9, 8, 8, 8, 7, 7, 7, 7, 7, 5], events=[Event("withdrawn", 12, after_round=3)])
    with pytest.raises(DrawError) as e:
        draw(t, 4)
    assert e.value.code == "cut-not-divisible" and e.value.details["withdraw"] == 2
    assert "add" not in str(e.value).replace("added", "") and "11 advancing players" in str(e.value)


def test_sem_b9_nobody_advances_gives_an_empty_draw():
    d = draw(cut_t([5, 5, 5, 4, 4, 4]), 4)
    assert d == Draw(4, (), (), (1, 2, 3, 4, 5, 6))


def test_sem_b10_threshold_12_extra_table_needs_11():
    t = cut_t([14, 13, 12, 12, 11, 10, 10, 9, 9])
    t.rounds.append(scripted_round(4, [((1, 2, 3), (0, 0, 0)), ((4, 5, 6), (0, 0, 0)), ((7, 8, 9), (0, 0, 0))]))
    d = draw(t, 5)
    # 4 players at 12+, top-up 5 (11) and 6 (10); next three 7, 8, 9 have no 11
    assert d.advancing == (1, 2, 3, 4, 5, 6)
    assert d.eliminated == (7, 8, 9)


def test_sem_b10_only_players_of_round4_are_candidates():
    t = cut_t([14, 13, 12, 12, 11, 11, 11, 11, 11])
    t.rounds.append(scripted_round(4, [((1, 2, 3), (0, 0, 0)), ((4, 5, 6), (0, 0, 0))]))
    d = draw(t, 5)
    assert d.advancing == (1, 2, 3, 4, 5, 6) and d.eliminated == ()


def round_of(number, tables):
    return scripted_round(number, [(tb, (0, 0, 0)) for tb in tables])


def test_sem_b11_round6_no_club_rule_flags():
    clubs = {1: "A", 2: "A", 5: "B", 6: "B"}
    t = cut_t([20, 19, 18, 17, 16, 15, 3, 2, 1], clubs=clubs)
    t.rounds.append(round_of(4, [(1, 3, 4), (2, 5, 6)]))
    t.rounds.append(round_of(5, [(1, 3, 4), (2, 5, 6)]))
    d = draw(t, 6)
    assert d.advancing == (1, 2, 3, 4, 5, 6)
    assert seats(d) == [[1, 2, 3], [4, 5, 6]]
    assert flagged(d) == [1, 2]
    # round 5 with the same field applies the club rule
    t5 = cut_t([20, 19, 18, 17, 16, 15, 3, 2, 1], clubs=clubs)
    t5.rounds.append(round_of(4, [(1, 3, 4), (2, 5, 6)]))
    # 5 and 6 at the last table, nobody below: the club rule still finds a seating
    d5 = draw(t5, 5)
    assert seats(d5) == [[1, 3, 5], [2, 4, 6]] and flagged(d5) == []


# ---------------------------------------------------------------------------
# general


def test_draw_refuses_round_outside_the_rule_set():
    t = tournament(players(9))
    for n, text in ((0, "round 0: the rule set 'sem' has rounds 1 to 6"),
                    (7, "round 7: the rule set 'sem' has rounds 1 to 6")):
        with pytest.raises(DrawError) as err:
            draw(t, n)
        assert str(err.value) == text


def test_draw_names_the_missing_round():
    t = played_round1(rated(9))
    with pytest.raises(DrawError) as err:
        draw(t, 3)
    assert str(err.value) == "round 3: the results of round 2 are missing"
    with pytest.raises(DrawError, match="rounds 1, 2, 3 are missing"):
        draw(tournament(rated(9)), 4)


def test_draw_ignores_results_of_later_rounds():
    t = played_round1(rated(12))
    before = draw(t, 2)
    play_round(t, before, seed=3)
    play_round(t, draw(t, 3), seed=4)
    assert draw(t, 2) == before
    assert draw(t, 1) == draw(tournament(rated(12)), 1)


def test_draw_refuses_an_empty_field():
    with pytest.raises(DrawError, match="^round 1: there are no players to seat$"):
        draw(tournament([]), 1)


def test_draw_result_types():
    d = draw(tournament(rated(3)), 1)
    assert d == Draw(1, (SeatedTable(1, (1, 2, 3), ()),))


def test_draw_420_players_all_rounds():
    """Scale check (timings live in benchmarks/rules_bench.py)."""
    clubs = {s: f"MK {s % 37}" if s % 5 else None for s in range(1, 421)}
    t = tournament(players(420, clubs=clubs, ratings=lambda s: None if s % 7 == 0 else (s * 7919) % 1000))
    for n in range(1, 7):
        d = draw(t, n)
        seated = [s for table in d.tables for s in table.players]
        assert len(seated) == len(set(seated)) and len(seated) % 3 == 0
        if n <= 3:
            assert len(seated) == 420
        else:
            assert sorted(seated) == sorted(d.advancing)
        play_round(t, d, seed=11)
