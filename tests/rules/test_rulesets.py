"""The rule-set interface (RULES.md §2): the registry, field splits (SMU-1,
CSM-1, TH-1) and the SEM-only rules kept behind the interface."""
from decimal import Decimal as D

import pytest

from tests.rules.builders import play_round
from tests.rules.builders_rulesets import field, rnd, smu_table
from webapp.rules.points import administrative_correction, sheet_hints, table_outcome
from webapp.rules.report import standings_report
from webapp.rules.ruleset import REGISTRY, NoSplit, get_ruleset
from webapp.rules.seating import DrawError, draw

SMU, CSM, TH, SEM, BB = (get_ruleset(c) for c in ("smu", "csm", "thousand", "sem", "bbliga"))


def test_every_rule_set_is_registered_by_importing_the_package():
    assert sorted(REGISTRY) == ["bbliga", "csm", "sem", "smu", "thousand"]
    assert type(BB).__module__ == "webapp.rules.bbliga"
    assert type(SEM).__module__ == "webapp.rules.sem"


# n: (SMU, ČSM, Thousand); None = refused
SPLITS = {
    3: ((3,), (3,), (3,)),
    4: ((4,), (4,), (4,)),
    5: (None, None, None),
    6: ((3, 3), (3, 3), (3, 3)),
    7: ((3, 4), (4, 3), (3, 4)),
    8: ((4, 4), (4, 4), (4, 4)),
    9: ((3, 3, 3), (3, 3, 3), (3, 3, 3)),
    10: ((3, 3, 4), (4, 3, 3), (3, 3, 4)),
    11: ((3, 4, 4), (4, 4, 3), (3, 4, 4)),
    12: ((3, 3, 3, 3), (4, 4, 4), (3, 3, 3, 3)),
    13: ((3, 3, 3, 4), (4, 3, 3, 3), (3, 3, 3, 4)),
}


@pytest.mark.parametrize("n", sorted(SPLITS))
def test_smu_1_csm_1_th_1_split_of_3_to_13_players(n):
    for rs, expected in zip((SMU, CSM, TH), SPLITS[n]):
        if expected is None:
            with pytest.raises(NoSplit) as e:
                rs.table_split(n)
            assert f"{n} players cannot be seated at tables of" in str(e.value)
            assert f"'{rs.code}'" in str(e.value)
        else:
            assert rs.table_split(n) == expected, rs.code


def test_split_of_400_players():
    assert SMU.table_split(400) == (3,) * 132 + (4,)  # SMU-1: one table of 4, last
    assert CSM.table_split(400) == (4,) * 100  # CSM-1
    assert TH.table_split(400) == (3,) * 132 + (4,)  # TH-1
    assert CSM.table_split(401) == (4,) * 98 + (3,) * 3  # CSM-1: at most 3 tables of 3
    assert SMU.table_split(401) == (3,) * 131 + (4, 4)  # SMU-1: at most 2 tables of 4


def test_csm_1_refusal_names_what_would_work():
    with pytest.raises(NoSplit) as e:
        CSM.table_split(5)
    assert str(e.value) == ("5 players cannot be seated at tables of 4 and 3 (at most 3 tables of 3) "
                            "under the rule set 'csm'; add 1 player or withdraw 1")
    assert e.value.details["add"] == 1 and e.value.details["withdraw"] == 1


def test_th_1_draw_of_5_players_is_refused_with_the_round():
    with pytest.raises(DrawError) as e:
        draw(field(5, "thousand"), 1)
    assert str(e.value).startswith("round 1: 5 players cannot be seated at tables of 3 and 4")
    assert e.value.code == "no-split"


def test_sem_split_is_tables_of_three_only():
    assert SEM.table_split(9) == (3, 3, 3)
    with pytest.raises(NoSplit):
        SEM.table_split(10)


def test_sem_c8_c5_d1_are_sem_only():
    """RULES.md §2: SEM-C5, C8, C11 and D1 compensation apply to SEM only."""
    negative = [D("-5.00"), D("20.00"), D("15.00")]
    assert [h.rule for h in sheet_hints(SEM, negative)] == ["SEM-C8"]
    smu_negative = [D("-5.00"), D("20.00"), D("-15.00")]
    assert sheet_hints(SMU, smu_negative) == []  # SMU-2: negative sums are normal
    assert [h.rule for h in sheet_hints(SMU, [D(1), D(0), D(0)])] == ["SMU-2"]
    assert administrative_correction(SEM, [D(15), D(10), D(6)]) == (D("14.00"), D("10.00"), D("6.00"))
    assert administrative_correction(SMU, [D(15), D(-10), D(-6)]) == (D(15), D(-10), D(-6))
    assert SEM.dq_compensation == D("1.00") and SMU.dq_compensation == 0
    dq = smu_table(1, (1, 2, 3), ["5", "-2", "-3"])
    out = table_outcome(SMU, dq.__class__(**{**dq.__dict__, "disqualified": (3,)}))
    assert out.money == (D("5.00"), D("-2.00"), None)  # no EUR compensation outside SEM
    assert out.points == (5, 3, None)


def test_sem_a3_b3_only_in_sem_final_standings():
    t = field(9, "bbliga")
    for n in range(1, 6):
        play_round(t, draw(t, n), seed=1)
    report = standings_report(t)
    assert report["final"] is True
    assert "clubs" not in report  # SEM-B3 is SEM's
    assert all(r["tournament_points"] is None for r in report["standings"])  # SEM-A3 is SEM's


def test_result_shapes_and_units():
    assert (SEM.result_kind, SEM.currency, SEM.expected_total(3)) == ("money", "EUR", D("30.00"))
    assert (BB.result_kind, BB.currency, BB.expected_total(3)) == ("money", "EUR", D("12.00"))
    assert (SMU.result_kind, SMU.currency, SMU.expected_total(4)) == ("money", "Kč", 0)
    assert (CSM.result_kind, CSM.expected_total(4)) == ("zb+pb", 0)
    assert (TH.result_kind, TH.currency, TH.expected_total(3)) == ("score", None, None)


def test_sheet_keeper_sem_c4_smu_1_csm_3_th_6():
    assert SEM.sheet_keeper([D(10), D(14), D(6)]) == 1  # SEM-C4: the table winner
    assert SMU.sheet_keeper([D(10), D(14), D(-24)]) == 0  # SMU-1: player A
    assert CSM.sheet_keeper() == 0  # CSM-3: the scorekeeper, position 1 unless drawn by lot
    assert TH.sheet_keeper([D(435), D(1000), D(880)]) == 1  # TH-6: the best result submits
    assert TH.sheet_keeper() is None


def test_bb_1_bb_2_table_total_12_and_sem_table_points():
    t = field(9, "bbliga", rounds=[rnd(1, smu_table(1, (1, 2, 3), ["6", "4", "2"]),
                                       smu_table(2, (4, 5, 6), ["4", "4", "4"]),
                                       smu_table(3, (7, 8, 9), ["5", "5", "2"]))])
    assert BB.expected_total(3) == D("12.00")
    assert [r["points"] for r in standings_report(t)["standings"]][:3] == [5, 4, 4]
    assert draw(t, 2).tables[0].players == (1, 7, 8)  # BB-2: round 2 by standings (SEM-B7)


def test_sem_b4_th2_round_length_and_its_rule_come_from_the_rule_set():
    assert [SEM.round_minutes(n) for n in range(1, 7)] == [50] * 6
    assert [TH.round_minutes(n) for n in range(1, 6)] == [60, 60, 60, 60, None]  # TH-2: the final is untimed
    for rs in (CSM, SMU, BB):  # their rules name no round length
        assert rs.round_length is None and rs.round_minutes(1) is None
    assert SEM.round_rule.startswith("SEM-B4: a round lasts 50 minutes")
    assert TH.round_rule.startswith("TH-2: a Swiss round lasts 60 minutes") and "without a time limit" in TH.round_rule
    for rs, rule in ((CSM, "ČSM"), (SMU, "SMU-4"), (BB, "BB-2")):
        assert "no round length" in rs.round_rule and rule in rs.round_rule and "SEM-" not in rs.round_rule
