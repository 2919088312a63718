"""Inconsistent files of SMU, ČSM and Thousand are refused as SEM's are; the
table-split limits (SMU-1, CSM-1, TH-1) and the frozen table (TH-5) when a
file is read; a card that disqualifies counts at its table in every rule set."""
from __future__ import annotations

import json
from decimal import Decimal as D

import pytest

from tests.rules.builders_inconsistent import CASES, _zero, as_file, played
from tests.rules.test_sem_fidelity import refused
from webapp.rules.exchange import dump, from_dict, loads
from webapp.rules.points import table_outcome
from webapp.rules.ruleset import get_ruleset
from webapp.rules.standings import standings


@pytest.mark.parametrize("name", sorted(CASES))
def test_inconsistent_file_of_another_rule_set_is_refused(name):
    d, fragments = CASES[name]()
    refused(d, *fragments)


@pytest.mark.parametrize("code", ["smu", "csm", "thousand", "bbliga"])
def test_generated_tournaments_of_every_rule_set_are_accepted(code):
    """What the engine draws and plays is consistent, for every field size it can seat."""
    for n in range(6, 31):
        if code == "bbliga" and n % 3:
            continue  # BB-2: tables of 3 only
        t = played(code, n, seed=n)
        assert loads(dump(t), "t.json") == t


# --- the table-split limits when a file is read --------------------------------------------


def _round_1(code: str, n: int, sizes: list[int]) -> dict:
    rs = get_ruleset(code)
    d = as_file(played(code, n, 1))
    order = list(range(1, n + 1))
    tables, i = [], 0
    for k, size in enumerate(sizes, 1):
        tables.append({"table": k, "players": order[i:i + size], **_zero(size, rs.result_kind)})
        i += size
    d["rounds"][0]["tables"] = tables
    return d


def _splits(n: int, small: int, big: int):
    """Every way to seat n players at tables of `small` and `big` (big tables last)."""
    for b in range(n // big + 1):
        if (n - b * big) % small == 0:
            yield [small] * ((n - b * big) // small) + [big] * b


def _expected(code: str, n: int) -> list[int]:
    """The one split each rule says, written out from the rule itself (not from the engine)."""
    if code == "smu":  # SMU-1: tables of 4 only for a remainder, at most two
        fours = {0: 0, 1: 1, 2: 2}[n % 3]
        return [3] * ((n - 4 * fours) // 3) + [4] * fours
    if code == "csm":  # CSM-1: tables of 3 only for a remainder, at most three
        threes = {0: 0, 3: 1, 2: 2, 1: 3}[n % 4]
        return [4] * ((n - 3 * threes) // 4) + [3] * threes
    fours = {0: 0, 1: 1, 2: 2}[n % 3]  # TH-1: as many tables of 3 as possible
    return [3] * ((n - 4 * fours) // 3) + [4] * fours


@pytest.mark.parametrize("code, rule", [("smu", "SMU-1"), ("csm", "CSM-1"), ("thousand", "TH-1")])
def test_smu1_csm1_th1_table_split_limits_when_a_file_is_read(code, rule):
    """Every split of 6..24 players into tables of 3 and 4: the rule's own split is
    read, every other one is refused naming the round, a table and the rule."""
    for n in range(6, 25):
        right = _expected(code, n)
        for sizes in _splits(n, 3, 4):
            d = _round_1(code, n, sizes if code != "csm" else sorted(sizes, reverse=True))
            if sorted(sizes) == sorted(right):
                assert from_dict(d, "t.json").rounds[0].tables
            else:
                refused(d, "round 1, table ", f"{n} players sit at tables of", rule)


def test_smu1_table_of_four_first_is_read():
    """Interpretation: SMU-1 limits how many tables of 4 a round has, not where they
    are; the draw puts them last, a file may number them otherwise."""
    d = _round_1("smu", 10, [4, 3, 3])
    assert [len(x.players) for x in from_dict(d, "t.json").rounds[0].tables] == [4, 3, 3]


def test_sem_b2_and_bb2_tables_of_four_are_refused():
    for code in ("sem", "bbliga"):
        d = _round_1("bbliga", 12, [3, 3, 3, 3])
        d["ruleset"] = code
        d["rounds"][0]["tables"] = [{"table": k + 1, "players": list(range(4 * k + 1, 4 * k + 5)),
                                     "sums": ["16.00" if code == "bbliga" else "40.00", "0.00", "0.00", "0.00"]}
                                    for k in range(3)]
        refused(d, "round 1, table 1", "4 players at the table")


# --- TH-5: a table that lost a player during the round -------------------------------------


def _thousand_round_2(n: int = 13) -> dict:
    return as_file(played("thousand", n, 2))


def _leave(d: dict, r: int, size: int, frozen: bool) -> int:
    """The second player of the first table of `size` in round r leaves during it."""
    tb = next(x for x in d["rounds"][r - 1]["tables"] if len(x["players"]) == size)
    s = tb["players"].pop(1)
    tb["score"].pop(1)
    if frozen:
        tb["frozen"] = True
        tb.pop("ended", None)
        tb["score"] = [100, 200]
    elif tb["ended"] == "win" and max(tb["score"]) < 1000:
        tb["ended"] = "time"
    d.setdefault("events", []).append({"type": "withdrawn", "start_no": s, "after_round": r - 1})
    return s


def test_th5_table_of_four_that_lost_a_player_is_read():
    d = _thousand_round_2(13)  # tables of 3, 3, 3, 4
    _leave(d, 2, 4, frozen=False)
    t = from_dict(d, "t.json")
    assert sorted(len(x.players) for x in t.rounds[1].tables) == [3, 3, 3, 3]


def test_th5_frozen_table_after_a_withdrawal_is_read():
    d = _thousand_round_2(12)  # tables of 3
    s = _leave(d, 2, 3, frozen=True)
    t = from_dict(d, "t.json")
    frozen = [x for x in t.rounds[1].tables if x.frozen]
    assert len(frozen) == 1 and len(frozen[0].players) == 2 and s not in frozen[0].players


def test_th5_one_withdrawal_cannot_shrink_two_tables():
    """13 players, one left during round 2: 12 seated at tables of 3, 3, 3, 3 (or
    3, 3, 2 frozen, 4) stand; at 4, 4, 2, 2 two tables lost players one withdrawal
    cannot explain (TH-1, TH-5)."""
    d = _thousand_round_2(13)
    s = _leave(d, 2, 4, frozen=False)
    assert from_dict(d, "t.json")
    order = [p for tb in d["rounds"][1]["tables"] for p in tb["players"]]
    d["rounds"][1]["tables"] = [
        {"table": 1, "players": order[0:4], **_zero(4, "score")},
        {"table": 2, "players": order[4:8], **_zero(4, "score")},
        {"table": 3, "players": order[8:10], "score": [100, 200], "frozen": True},
        {"table": 4, "players": order[10:12], "score": [100, 200], "frozen": True},
    ]
    assert s not in order
    refused(d, "round 2, table 1", "12 players sit at tables of 4, 4, 2, 2", "TH-1")


def test_th2_final_of_the_best_four_is_read_and_a_swap_refused():
    t = played("thousand", 12)
    d = as_file(t)
    assert from_dict(d, "t.json") == t
    best = [r.player.start_no for r in standings(t, 4)[:5]]
    final = d["rounds"][4]["tables"][0]
    assert sorted(final["players"]) == sorted(best[:4])
    final["players"][final["players"].index(best[3])] = best[4]
    refused(d, "round 5, table 1", f"start number {best[4]} is seated but the cut (TH-2)", "placed 5 after round 4")


# --- a card that disqualifies, in every rule set ------------------------------------------


@pytest.mark.parametrize("code", ["smu", "csm", "thousand"])
def test_red_card_only_as_an_event_counts_at_the_table_in_every_rule_set(code):
    """SEM-E8, D1: the card disqualifies at the player's table of its round; no
    SEM-D1c euro outside SEM (RULES.md §2)."""
    d = as_file(played(code, 12, 2))
    tb = d["rounds"][1]["tables"][0]
    s = tb["players"][0]
    d["events"] = [{"type": "card", "colour": "red", "start_no": s, "round": 2, "referees": ["A", "B"]}]
    t = from_dict(d, "t.json")
    table = t.rounds[1].tables[0]
    assert table.disqualified == (s,)
    listed = json.loads(json.dumps(d))
    listed["rounds"][1]["tables"][0]["disqualified"] = [s]
    assert from_dict(listed, "t.json") == t
    assert s not in [r.player.start_no for r in standings(t)]
    if code != "thousand":
        out = table_outcome(get_ruleset(code), table)
        assert out.points[0] is None and out.money[0] is None
        assert list(out.money[1:]) == [D(v) for v in tb["sums"][1:]]


def test_smu_d2_red_card_in_round_2_then_results_in_round_3_refused():
    d = as_file(played("smu", 12, 3))
    s = d["rounds"][1]["tables"][0]["players"][0]
    d["events"] = [{"type": "card", "colour": "red", "start_no": s, "round": 2, "referees": ["A", "B"]}]
    refused(d, "round 3, table", f"start number {s} was disqualified in round 2 (SEM-D2)")
