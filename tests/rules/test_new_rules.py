"""The rules of the seeds that had no implementation (BB-1 late fee, BB-2 jury, SMU-4 referees,
CSM-3 keeper by lot, CSM-5 round 1 by the season table): the engine alone, no app."""
from __future__ import annotations

from decimal import Decimal as D

from tests.rules.builders import sheet
from tests.rules.builders_rulesets import csm_table, field, file_error, reread, rnd
from webapp.rules.model import TableResult
from webapp.rules.ruleset import get_ruleset
from webapp.rules.seating import draw

BB = get_ruleset("bbliga")
SMU = get_ruleset("smu")
CSM = get_ruleset("csm")


# ----------------------------------------------------------------- BB-1 late fee


def test_bb1_late_player_pays_4_cents_to_each_other_player():
    """BB-1: one late player pays 0.04 EUR to each of the two others: -0.08, +0.04, +0.04; the
    fees total 0, so the table total stays 12 EUR."""
    fees = BB.late_fees((3, 7, 11), (7,))
    assert fees == (D("0.04"), D("-0.08"), D("0.04"))
    assert sum(fees) == 0 and BB.expected_total(3) == D("12.00")


def test_bb1_two_late_players_each_pay_every_other():
    """BB-1: two late players pay each other too: each nets -0.04, the punctual one +0.08."""
    assert BB.late_fees((3, 7, 11), (3, 7)) == (D("-0.04"), D("-0.04"), D("0.08"))
    assert BB.late_fees((3, 7, 11), ()) == (D(0), D(0), D(0))


def test_bb1_late_player_not_at_the_table_refused():
    """BB-1: a late start number must sit at the table; one named twice is refused too."""
    assert BB.check_late((3, 7, 11), (5,)).code == "late-player"
    assert "start number 5" in BB.check_late((3, 7, 11), (5,))
    assert BB.check_late((3, 7, 11), (7, 7)).code == "late-twice"
    assert BB.check_late((3, 7, 11), (7,)) is None


def test_bb1_late_fee_only_where_the_rule_set_has_one():
    """BB-1 is BB liga's: a late player on an SMU sheet is refused, SEM has no fee either."""
    assert SMU.check_late((1, 2, 3), (2,)).code == "late-none"
    assert get_ruleset("sem").late_fee is None


def test_bb1_late_players_kept_in_the_tournament_file():
    """BB-1: the file keeps `late` on a table (its sums already include the fee, total 12 EUR)."""
    t = field(6, "bbliga", rounds=[rnd(1, sheet(1, (1, 2, 3), ["4.54", "3.42", "4.04"], late=(2,)),
                                       sheet(2, (4, 5, 6), ["4.00", "4.00", "4.00"]))])
    again = reread(t)
    assert again.rounds[0].tables[0].late == (2,)
    assert again.rounds[0].tables[1].late == ()


def test_bb1_file_with_a_late_player_of_another_table_refused():
    t = field(6, "bbliga", rounds=[rnd(1, sheet(1, (1, 2, 3), ["4.00", "4.00", "4.00"], late=(5,)),
                                       sheet(2, (4, 5, 6), ["4.00", "4.00", "4.00"]))])
    message = file_error(t)
    assert "round 1, table 1" in message and "start number 5 does not sit at this table (BB-1)" in message


# ----------------------------------------------------------------- BB-2 jury, SMU-4 referees


def test_bb2_jury_of_two_members_of_one_club_refused():
    """BB-2 (seed E1): each member of the jury of 3 is of another club; the refusal names the club."""
    problem = BB.officials.check([("MK Poprad", None), ("KM Zvolen", 4), ("mk poprad", None)])
    assert problem.code == "officials-same-club" and "MK Poprad" in problem
    assert BB.officials.check([("MK Poprad", None), ("KM Zvolen", 4), ("Lučenec", None)]) is None


def test_bb2_jury_has_three_members_each_of_a_club():
    assert BB.officials.count == 3 and BB.officials.kind == "jury"
    assert BB.officials.check([("A", 1), ("B", 2), ("C", 3), ("D", 4)]).code == "officials-count"
    assert BB.officials.check([(None, 1)]).code == "officials-club"


def test_smu4_three_referees_named_from_the_players():
    """SMU-4 (seed G2): three referees, each a player of the tournament (a start number)."""
    assert SMU.officials.count == 3 and SMU.officials.from_players
    assert SMU.officials.check([("Kyjov", None)]).code == "officials-player"
    assert SMU.officials.check([("Kyjov", 1), ("Kyjov", 2), (None, 3)]) is None  # clubs may repeat
    assert SMU.officials.check([("Kyjov", 1), ("Kyjov", 1)]).code == "officials-twice"


def test_smu4_referee_at_the_table_of_a_case_does_not_decide_it():
    assert not SMU.officials.may_decide(7, (3, 7, 11))
    assert SMU.officials.may_decide(8, (3, 7, 11))
    assert SMU.officials.may_decide(None, (3, 7, 11))


def test_officials_only_in_bb_and_smu():
    assert get_ruleset("sem").officials is None and CSM.officials is None


# ----------------------------------------------------------------- CSM-3 keeper by lot


def test_csm3_keeper_by_lot_kept_in_the_file_and_checked():
    """CSM-3: the scorekeeper a lot chose is kept on the table; one not at the table is refused."""
    from dataclasses import replace

    tab = csm_table(1, (1, 2, 3, 4), [10, -10, 0, 0], [0, 0, 0, 0])
    t = field(4, "csm", rounds=[rnd(1, replace(tab, keeper_by_lot=3))])
    assert reread(t).rounds[0].tables[0].keeper_by_lot == 3
    bad = field(4, "csm", rounds=[rnd(1, replace(tab, keeper_by_lot=9))])
    assert "scorekeeper chosen by lot, start number 9, does not sit at this table (CSM-3)" in file_error(bad)
    assert CSM.check_keeper((1, 2, 3, 4), 9).code == "keeper-player"
    assert BB.check_keeper((1, 2, 3), 1).code == "keeper-none"


def test_csm3_without_a_lot_position_1_keeps_the_sheet():
    assert CSM.sheet_keeper() == 0 and CSM.keeper_by_lot and not BB.keeper_by_lot


# ----------------------------------------------------------------- CSM-5 round 1 seeding


def _ids(t):
    return {p.key: p.start_no for p in t.players}


def test_csm5_round1_seeded_by_the_season_table():
    """CSM-5: the current season table seeds round 1 (places 1-4 at position 1 of tables 1-4 …),
    even when ratings exist; players not in the season table follow by rating."""
    t = field(8, "csm", ratings=lambda s: 100 + s)  # by rating: 8, 7, 6 … first
    keys = {p.start_no: p.key for p in t.players}
    t.season_places = {keys[1]: 1, keys[2]: 2, keys[3]: 3, keys[4]: 4, keys[5]: 5, keys[6]: 6}
    d = draw(t, 1, CSM)
    assert d.seeding == "season" and d.seeded_by_season == 6
    # L = 1..6 by place, then 8, 7 by rating; two tables of 4, group 2 reversed
    assert [tab.players for tab in d.tables] == [(1, 4, 5, 7), (2, 3, 6, 8)]


def test_csm5_round1_by_rating_without_a_season_table():
    t = field(8, "csm", ratings=lambda s: 100 + s)
    d = draw(t, 1, CSM)
    assert d.seeding == "rating"
    assert [tab.players[0] for tab in d.tables] == [8, 7]


def test_csm5_round1_by_start_number_without_season_or_rating():
    t = field(8, "csm")
    t.season_places = {"nobody-here": 1}
    d = draw(t, 1, CSM)
    assert d.seeding == "start" and d.seeded_by_season == 0
    assert [tab.players for tab in d.tables] == [(1, 4, 5, 8), (2, 3, 6, 7)]


def test_csm5_season_table_ignored_where_the_rule_set_does_not_seed_by_it():
    """Only ČSM seeds by the season table: SMU keeps round 1 by rating."""
    t = field(9, "smu", ratings=lambda s: 100 + s)
    t.season_places = {p.key: p.start_no for p in t.players}
    assert draw(t, 1, SMU).seeding == "rating"


def test_table_result_defaults_keep_old_sheets():
    tab = TableResult(1, (1, 2, 3), (D("4"), D("4"), D("4")))
    assert tab.late == () and tab.keeper_by_lot is None
