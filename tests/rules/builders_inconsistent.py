"""Inconsistent tournament files of SMU, ČSM and Thousand, one inconsistency each.

Each case starts from a consistent tournament (the engine's own draw, played by
`webapp.demo.simulate_rulesets.play`) and breaks one rule. `CASES` maps a name (the
rule ID first) to a builder returning `(file dict, fragments)`: the file as
JSON data and the pieces the one-line refusal must contain (round, table,
start number, rule). The engine, `listok standings`/`draw`, the operator's
import and `listok import` must all refuse each of them the same way.
"""
from __future__ import annotations

import json
from decimal import Decimal

from webapp.rules.exchange import dump
from webapp.rules.model import Tournament
from webapp.rules.standings import standings
from webapp.demo.simulate_rulesets import play, players


def played(code: str, n: int, upto: int | None = None, seed: int = 1) -> Tournament:
    return play(Tournament(players(n, seed=seed), ruleset=code, name=f"{code} {n}"), upto, seed=seed)


def as_file(t: Tournament) -> dict:
    return json.loads(dump(t), parse_float=Decimal)


def file_text(d: dict) -> str:
    """The file as JSON text (numbers read as Decimal written back as numbers)."""
    def number(v):
        if isinstance(v, Decimal):
            return int(v) if v == v.to_integral_value() else float(v)
        raise TypeError(type(v).__name__)

    return json.dumps(d, ensure_ascii=False, default=number)


def _tables(d: dict, r: int) -> list[dict]:
    return d["rounds"][r - 1]["tables"]


def _zero(k: int, result_kind: str) -> dict:
    """Results of one table that stand by themselves (a table total of 0)."""
    if result_kind == "score":
        return {"score": [440 + 5 * i for i in range(k)], "ended": "time"}
    sums = [10 * (k - 1)] + [-10] * (k - 1)
    if result_kind == "zb+pb":
        return {"sums": sums, "score": [0] * k}
    return {"sums": [f"{s}.00" for s in sums]}


def _resplit(code: str, result_kind: str, n: int, size: int) -> tuple[dict, list[str]]:
    """Round 1 of n players seated at tables of `size` only, a split the rule set does not make."""
    d = as_file(played(code, n, 1))
    order = [s for tb in _tables(d, 1) for s in tb["players"]]
    d["rounds"][0]["tables"] = [{"table": i + 1, "players": order[size * i:size * (i + 1)], **_zero(size, result_kind)}
                                for i in range(n // size)]
    return d, ["round 1, table 1:", f"{n} players sit at tables of {', '.join([str(size)] * (n // size))}"]


def smu1_twelve_players_as_three_tables_of_four():
    d, frag = _resplit("smu", "money", 12, 4)
    return d, frag + ["tables of 3, 3, 3, 3", "SMU-1"]


def csm1_twelve_players_as_four_tables_of_three():
    d, frag = _resplit("csm", "zb+pb", 12, 3)
    return d, frag + ["tables of 4, 4, 4", "CSM-1"]


def th1_twelve_players_as_three_tables_of_four():
    d, frag = _resplit("thousand", "score", 12, 4)
    return d, frag + ["tables of 3, 3, 3, 3", "TH-1"]


def smu4_round_2_with_table_2_missing():
    d = as_file(played("smu", 10, 2))  # tables of 3, 3, 4
    del _tables(d, 2)[1]
    return d, ["round 2: table 2 is missing (the round has tables 1, 3)"]


def smu4_round_2_with_the_last_table_missing():
    d = as_file(played("smu", 10, 2))
    gone = _tables(d, 2).pop()
    s = min(gone["players"])
    return d, [f"round 2, start number {s}: start number {s} is in the field but sits at no table"]


def _seated(d: dict, r: int, k: int = 0) -> tuple[int, int]:
    tb = _tables(d, r)[k]
    return tb["table"], tb["players"][1]


def _withdrawn_then_seated(code: str, n: int, r: int, rule: str) -> tuple[dict, list[str]]:
    """A player of round r withdrew after round r-1 (SEM-D4, TH-5)."""
    d = as_file(played(code, n, r))
    table, s = _seated(d, r)
    d["events"] = [{"type": "withdrawn", "start_no": s, "after_round": r - 1}]
    return d, [f"round {r}, table {table}: start number {s} withdrew after round {r - 1} ({rule})"]


def _disqualified_then_seated(code: str, n: int, r: int, card: bool = False) -> tuple[dict, list[str]]:
    """A player of round r was disqualified in round r-1 (SEM-D2), on the sheet or by a red card."""
    d = as_file(played(code, n, r))
    table, s = _seated(d, r)
    if card:
        d["events"] = [{"type": "card", "colour": "red", "start_no": s, "round": r - 1, "referees": ["A", "B"]}]
    for tb in _tables(d, r - 1):
        if s in tb["players"] and not card:
            tb["disqualified"] = [s]
    return d, [f"round {r}, table {table}: start number {s} was disqualified in round {r - 1} (SEM-D2)"]


def smu_d4_results_after_withdrawal():
    return _withdrawn_then_seated("smu", 10, 3, "SEM-D4")


def smu_d2_results_after_disqualification():
    return _disqualified_then_seated("smu", 10, 3)


def smu_e8_red_card_then_results_in_a_later_round():
    return _disqualified_then_seated("smu", 10, 3, card=True)


def th5_results_after_withdrawal():
    return _withdrawn_then_seated("thousand", 12, 3, "TH-5")


def th_d2_results_after_disqualification():
    return _disqualified_then_seated("thousand", 12, 3)


def csm_d4_results_after_withdrawal():
    return _withdrawn_then_seated("csm", 12, 2, "SEM-D4")


def th2_final_with_the_ninth_placed_player():
    t = played("thousand", 12)
    ninth = standings(t, 4)[8].player.start_no
    d = as_file(t)
    final = _tables(d, 5)[0]
    final["players"][3] = ninth
    return d, [f"round 5, table 1: start number {ninth} is seated but the cut (TH-2) does not let them "
               f"through (placed 9 after round 4)"]


def th5_frozen_table_without_a_withdrawal():
    d = as_file(played("thousand", 8, 1))  # two tables of 4
    order = [s for tb in _tables(d, 1) for s in tb["players"]]
    d["rounds"][0]["tables"] = [
        {"table": 1, "players": order[0:3], **_zero(3, "score")},
        {"table": 2, "players": order[3:6], **_zero(3, "score")},
        {"table": 3, "players": order[6:8], "score": [100, 200], "frozen": True},
    ]
    return d, ["round 1, table 3: the table is frozen (TH-5) but nobody left it"]


CASES = {f.__name__: f for f in (
    smu1_twelve_players_as_three_tables_of_four, csm1_twelve_players_as_four_tables_of_three,
    th1_twelve_players_as_three_tables_of_four, smu4_round_2_with_table_2_missing,
    smu4_round_2_with_the_last_table_missing, smu_d4_results_after_withdrawal,
    smu_d2_results_after_disqualification, smu_e8_red_card_then_results_in_a_later_round,
    th5_results_after_withdrawal, th_d2_results_after_disqualification, csm_d4_results_after_withdrawal,
    th2_final_with_the_ninth_placed_player, th5_frozen_table_without_a_withdrawal,
)}
