"""Table points and sheet checks: SEM-C5, C6, C8, C11, D1."""
from decimal import Decimal as D
from fractions import Fraction

import pytest
from hypothesis import given, strategies as st

from webapp.rules.model import TableResult
from webapp.rules.points import administrative_correction, sheet_hints, table_outcome
from webapp.rules.ruleset import get_ruleset, shared_place_points

SEM = get_ruleset("sem")


def pts(*sums):
    return SEM.table_points([D(s) for s in sums])


@pytest.mark.parametrize("sums, expected", [
    (("14.00", "9.50", "6.50"), (5, 3, 1)),
    (("6.50", "14.00", "9.50"), (1, 5, 3)),
    (("12.00", "12.00", "6.00"), (4, 4, 1)),
    (("20.00", "5.00", "5.00"), (5, 2, 2)),
    (("5.00", "20.00", "5.00"), (2, 5, 2)),
    (("10.00", "10.00", "10.00"), (3, 3, 3)),
    (("30.00", "0.00", "0.00"), (5, 2, 2)),
    (("35.50", "-3.00", "-2.50"), (5, 1, 3)),
    (("15.00", "15.00", "0.00"), (4, 4, 1)),
    (("31.00", "0.00", "-1.00"), (5, 3, 1)),
])
def test_sem_c6_table_points_all_tie_patterns(sums, expected):
    assert pts(*sums) == tuple(Fraction(e) for e in expected)


def test_sem_c6_four_player_ties_share_halves():
    assert shared_place_points([D(8), D(4), D(4), D(0)], (5, 3, 2, 1)) == (5, Fraction(5, 2), Fraction(5, 2), 1)
    assert shared_place_points([D(3), D(3), D(3), D(3)], (5, 3, 2, 1)) == (Fraction(11, 4),) * 4


cents = st.integers(min_value=-999, max_value=4998).map(lambda c: D(c) / 100)


@given(st.tuples(cents, cents))
def test_sem_c6_points_always_total_nine(pair):
    a, b = pair
    sums = (a, b, D(30) - a - b)
    points = SEM.table_points(sums)
    assert sum(points) == 9
    # more money never means fewer points
    for i in range(3):
        for j in range(3):
            if sums[i] > sums[j]:
                assert points[i] > points[j]
            if sums[i] == sums[j]:
                assert points[i] == points[j]


def test_sem_c5_excess_taken_from_winner():
    assert administrative_correction(SEM, [D(15), D(10), D(6)]) == (D("14.00"), D("10.00"), D("6.00"))


def test_sem_c5_shortfall_split_between_others():
    assert administrative_correction(SEM, [D(14), D(9), D(6)]) == (D("14.00"), D("9.50"), D("6.50"))


def test_sem_c5_winner_can_lose_the_win():
    corrected = administrative_correction(SEM, [D("12.00"), D("11.50"), D("9.50")])  # total 33
    assert corrected == (D("9.00"), D("11.50"), D("9.50"))
    assert SEM.table_points(corrected) == (Fraction(1), Fraction(5), Fraction(3))


def test_sem_c5_odd_cent_goes_to_first_listed_other():
    assert administrative_correction(SEM, [D("6.00"), D("14.00"), D("9.99")]) == (D("6.01"), D("14.00"), D("9.99"))


def test_sem_c5_correct_total_unchanged():
    assert administrative_correction(SEM, [D(14), D("9.5"), D("6.5")]) == (D("14.00"), D("9.50"), D("6.50"))


def test_sem_c5_c11_hints_block_wrong_total_and_impossible_sums():
    codes = {h.code for h in sheet_hints(SEM, [D(15), D(10), D(6)])}
    assert codes == {"total"}
    hints = sheet_hints(SEM, [D("40.00"), D("-10.00"), D("0.00")])
    assert [(h.code, h.position, h.blocking) for h in hints] == [
        ("below-lowest", 1, True), ("negative", 1, False)]
    assert sheet_hints(SEM, [D("49.98"), D("-9.99"), D("-9.99")])[0].code == "negative"
    assert not any(h.blocking for h in sheet_hints(SEM, [D("49.98"), D("-9.99"), D("-9.99")]))
    assert sheet_hints(SEM, [D("14"), D("9.5"), D("6.5")]) == []


def test_sem_c8_negative_sum_needs_note_but_counts():
    hints = sheet_hints(SEM, [D("31.50"), D("0.00"), D("-1.50")])
    assert [(h.rule, h.position, h.blocking) for h in hints] == [("SEM-C8", 2, False)]


def table(players, sums, **kw):
    return TableResult(1, tuple(players), tuple(D(s) for s in sums), **kw)


def test_sem_d1c_one_disqualified_plus_one_euro_higher_gets_five():
    out = table_outcome(SEM, table((1, 2, 3), ("12.00", "8.00", "10.00"), disqualified=(2,)))
    assert out.money == (D("13.00"), None, D("11.00"))
    assert out.points == (5, None, 3)


def test_sem_d1c_equal_sums_four_four():
    out = table_outcome(SEM, table((1, 2, 3), ("11.00", "8.00", "11.00"), disqualified=(2,)))
    assert out.points == (4, None, 4)
    assert out.money == (D("12.00"), None, D("12.00"))


def test_sem_d1c_early_disqualification_annuls_games_four_four():
    out = table_outcome(SEM, table((1, 2, 3), ("14.00", "6.00", "10.00"), disqualified=(3,), early=True))
    assert out.points == (4, 4, None)
    assert out.money == (D("11.00"), D("11.00"), None)


def test_sem_d1b_two_disqualified_remaining_gets_five_and_ten():
    out = table_outcome(SEM, table((1, 2, 3), ("3.00", "20.00", "7.00"), disqualified=(2, 3)))
    assert out.points == (5, None, None)
    assert out.money == (D("10.00"), None, None)


def test_sem_d1a_whole_table_cancelled():
    out = table_outcome(SEM, table((1, 2, 3), ("10", "10", "10"), disqualified=(1, 2, 3)))
    assert out.cancelled
    assert out.money == (None, None, None)


def test_sem_c10_points_override_used():
    out = table_outcome(SEM, table((1, 2, 3), ("14", "10", "6"), points=(Fraction(5), Fraction(3), Fraction(3))))
    assert out.points == (5, 3, 3)
