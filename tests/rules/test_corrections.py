"""SEM-C10: corrections after hand-in and publication."""
from decimal import Decimal as D
from fractions import Fraction

import pytest

from webapp.rules.corrections import CorrectionError, audit_entry, correct_published_sheet
from webapp.rules.model import TableResult
from webapp.rules.ruleset import get_ruleset
from webapp.rules.seating import Draw, SeatedTable

SEM = get_ruleset("sem")
# recorded: #1 14 (5), #2 9.50 (3), #3 6.50 (1); really #2 won: 9.50 <-> 14
RECORDED = TableResult(4, (1, 2, 3), (D("14.00"), D("9.50"), D("6.50")))
REAL = (D("9.50"), D("14.00"), D("6.50"))


def effective(c):
    return {ch.start_no: ch.effective for ch in c.changes}


def test_sem_c10a_operator_error_real_values_for_everyone_free():
    c = correct_published_sheet(SEM, 2, RECORDED, REAL, "operator-error")
    assert c.harmed == (2,) and c.advantaged == (1,)
    assert effective(c) == {1: (3, D("9.50")), 2: (5, D("14.00")), 3: (1, D("6.50"))}
    assert c.table.sums == REAL and c.table.points is None
    assert c.fee == 0


def test_sem_c10b_no_fee_only_advantaged_corrected_harmed_unchanged():
    c = correct_published_sheet(SEM, 2, RECORDED, REAL, "no-fee")
    assert effective(c) == {1: (3, D("9.50")), 2: (3, D("9.50")), 3: (1, D("6.50"))}
    # the sheet now needs explicit points: they no longer follow from the sums
    assert c.table.sums == (D("9.50"), D("9.50"), D("6.50"))
    assert c.table.points == (3, 3, 1)


def test_sem_c10c_fee_after_round_2_round_3_draw_stays():
    draw3 = Draw(3, (SeatedTable(1, (2, 5, 6)), SeatedTable(2, (1, 3, 4))))
    c = correct_published_sheet(SEM, 2, RECORDED, REAL, "fee", next_draw=draw3)
    assert c.fee == D("20.00")
    assert effective(c)[2] == (5, D("14.00"))
    assert c.swapped_draw is None


def test_sem_c10c_fee_round_4_draw_harmed_and_advantaged_swap_places():
    draw4 = Draw(4, (SeatedTable(1, (1, 7, 8)), SeatedTable(2, (9, 2, 10))),
                 advancing=(1, 7, 8, 9, 2, 10), eliminated=(3, 11))
    clubs = {1: "A", 2: "B", 7: "B", 8: "C", 9: "D", 10: "E"}
    c = correct_published_sheet(SEM, 3, RECORDED, REAL, "fee", next_draw=draw4, clubs=clubs)
    d = c.swapped_draw
    assert [t.players for t in d.tables] == [(2, 7, 8), (9, 1, 10)]
    # SEM-C10c: two players of one club may now meet; the table is flagged
    assert d.tables[0].flags == ("same-club",) and d.tables[1].flags == ()
    assert set(d.advancing) == {1, 2, 7, 8, 9, 10} and d.eliminated == (3, 11)


def test_sem_c10c_harmed_player_gains_the_seat_of_an_eliminated_advantaged():
    draw4 = Draw(4, (SeatedTable(1, (1, 7, 8)),), advancing=(1, 7, 8), eliminated=(2, 3))
    c = correct_published_sheet(SEM, 3, RECORDED, REAL, "fee", next_draw=draw4)
    assert c.swapped_draw.tables[0].players == (2, 7, 8)
    assert c.swapped_draw.advancing == (7, 8, 2) and c.swapped_draw.eliminated == (1, 3)


def test_sem_c10b_no_fee_leaves_draw():
    draw4 = Draw(4, (SeatedTable(1, (1, 7, 8)),), advancing=(1, 7, 8), eliminated=(2, 3))
    assert correct_published_sheet(SEM, 3, RECORDED, REAL, "no-fee", next_draw=draw4).swapped_draw is None


def test_sem_c10_refuses_bad_input():
    with pytest.raises(CorrectionError, match="real sums total 31.00"):
        correct_published_sheet(SEM, 2, RECORDED, (D(15), D(10), D(6)), "fee")
    with pytest.raises(CorrectionError, match="unknown correction kind"):
        correct_published_sheet(SEM, 2, RECORDED, REAL, "bribe")
    with pytest.raises(CorrectionError, match="table 4: 2 real sums for 3 players"):
        correct_published_sheet(SEM, 2, RECORDED, REAL[:2], "fee")


def test_sem_c10_audit_entry_records_old_and_new():
    c = correct_published_sheet(SEM, 2, RECORDED, REAL, "fee")
    e = audit_entry(c, asked_by="#2", approved_by="delegát Novák", when="2026-03-14T12:10:00")
    assert e["kind"] == "fee" and e["fee"] == "20.00" and e["table"] == 4 and e["round"] == 2
    assert e["old"]["1"] == {"points": 5, "sum": "14.00"} and e["new"]["1"] == {"points": 3, "sum": "9.50"}
    assert e["harmed"] == [2] and e["advantaged"] == [1]


def test_sem_c10_money_only_harm():
    recorded = TableResult(1, (1, 2, 3), (D("15.00"), D("9.00"), D("6.00")))
    c = correct_published_sheet(SEM, 1, recorded, (D("14.50"), D("9.50"), D("6.00")), "no-fee")
    assert c.harmed == (2,) and c.advantaged == (1,)
    assert effective(c) == {1: (Fraction(5), D("14.50")), 2: (Fraction(3), D("9.00")), 3: (Fraction(1), D("6.00"))}
