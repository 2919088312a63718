"""SMU (RULES.md §2, SMU-1..SMU-4; seed 004)."""
from decimal import Decimal as D
from fractions import Fraction as F

import pytest

from tests.rules.builders_rulesets import field, file_error, reread, rnd, smu_table
from webapp.rules.ruleset import get_ruleset
from webapp.rules.seating import draw
from webapp.rules.standings import standings

SMU = get_ruleset("smu")


def pts(*sums):
    return SMU.table_points([D(s) for s in sums])


@pytest.mark.parametrize("sums, expected", [
    ((10, 0, -10), (5, 3, 1)),
    ((10, 10, -20), (4, 4, 1)),  # SMU-3: tie for 1st
    ((20, -10, -10), (5, 2, 2)),  # tie for 2nd
    ((0, 0, 0), (3, 3, 3)),  # all equal
    ((-3, 5, -2), (1, 5, 3)),  # negative sums are normal (SMU-2)
])
def test_smu_3_table_of_three(sums, expected):
    assert pts(*sums) == expected


@pytest.mark.parametrize("sums, expected", [
    ((30, 10, -10, -30), (5, 3, 2, 1)),
    ((20, 20, -10, -30), (4, 4, 2, 1)),  # tie for 1st-2nd: (5 + 3) / 2
    ((30, 0, 0, -30), (5, F(5, 2), F(5, 2), 1)),  # tie for 2nd-3rd: halves
    ((30, -10, -10, -10), (5, 2, 2, 2)),  # three equal for 2nd-4th: (3 + 2 + 1) / 3
    ((10, 10, 10, -30), (F(10, 3), F(10, 3), F(10, 3), 1)),  # three equal for 1st-3rd: thirds
    ((0, 0, 0, 0), (F(11, 4),) * 4),  # all four equal
    ((5, 5, -5, -5), (4, 4, F(3, 2), F(3, 2))),
])
def test_smu_3_table_of_four_shares_places_in_halves_and_thirds(sums, expected):
    assert pts(*sums) == expected


def test_smu_2_table_totals_zero_kc():
    t = field(6, "smu", rounds=[rnd(1, smu_table(1, (1, 2, 3), ["5", "0", "-4"]),
                                    smu_table(2, (4, 5, 6), ["1", "-1", "0"]))])
    assert file_error(t) == "t.json: round 1, table 1: the sums total 1.00, the table total must be 0.00"


def test_smu_1_table_of_four_in_a_file_and_round_trip():
    t = field(7, "smu", rounds=[rnd(1, smu_table(1, (1, 2, 3), ["5", "0", "-5"]),
                                    smu_table(2, (4, 5, 6, 7), ["30", "-10", "-10", "-10"]))])
    back = reread(t)
    assert back.rounds == t.rounds
    rows = {s.player.start_no: s.stats.points for s in standings(back)}
    assert rows[4] == 5 and rows[5] == rows[6] == rows[7] == 2


def test_smu_1_refuses_a_table_of_five():
    t = field(8, "smu", rounds=[rnd(1, smu_table(1, (1, 2, 3), ["5", "0", "-5"]),
                                    smu_table(2, (4, 5, 6, 7, 8), ["30", "-10", "-10", "-10", "0"]))])
    assert file_error(t) == "t.json: round 1, table 2: 5 players at the table, the rule set 'smu' seats 3 or 4"


def test_smu_4_round_1_by_rating_tables_of_four_last():
    """SEM-B2 generalised: group g at position g, groups 2 and 4 reversed."""
    t = field(10, "smu", ratings=lambda s: 100 - s)
    d = draw(t, 1)
    assert [tb.players for tb in d.tables] == [(1, 6, 7, ), (2, 5, 8), (3, 4, 9, 10)]


def test_smu_4_club_rule_in_round_1():
    clubs = {1: "A", 6: "A"}
    t = field(10, "smu", clubs=clubs, ratings=lambda s: 100 - s)
    d = draw(t, 1)
    tables = [tb.players for tb in d.tables]
    assert tables[0][0] == 1  # position 1 never moves
    assert 6 not in tables[0]
    assert all(not tb.flags for tb in d.tables)


def test_smu_4_standings_points_money_records_and_later_rounds_by_standings():
    r1 = rnd(1, smu_table(1, (1, 2, 3), ["10", "10", "-20"]),  # 4, 4, 1
             smu_table(2, (4, 5, 6, 7), ["30", "-10", "-10", "-10"]))  # 5, 2, 2, 2
    t = field(7, "smu", rounds=[r1])
    order = [s.player.start_no for s in standings(t)]
    assert order == [4, 1, 2, 5, 6, 7, 3]
    assert [s.tie for s in standings(t)][1:3] == ["start number", "start number"]
    d = draw(t, 2)
    assert [tb.players for tb in d.tables] == [(4, 1, 2), (5, 6, 7, 3)]
