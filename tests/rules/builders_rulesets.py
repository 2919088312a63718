"""Builders for the rule sets other than SEM (RULES.md §2).

- `smu_table(no, players, sums)`: net Kč per player;
- `csm_table(no, players, zb, pb, lines=())`: ZB, PB and premium-game lines
  `(start_no, game, pb, signed_by)`;
- `th_table(no, players, scores, ended="time", frozen=False)`;
- `field(n, ruleset, ...)`: a Tournament of n players (builders.players);
- `file_dict(t)` / `reread(t)`: through the tournament file and back.
"""
from __future__ import annotations

import json
from decimal import Decimal as D

from tests.rules.builders import players
from webapp.rules.exchange import ExchangeError, dump, from_dict, loads, to_dict
from webapp.rules.model import CENT, PremiumGame, Round, TableResult, Tournament


def smu_table(no: int, ps, sums) -> TableResult:
    return TableResult(no, tuple(ps), tuple(D(str(s)).quantize(CENT) for s in sums))


def csm_table(no: int, ps, zb, pb, lines=()) -> TableResult:
    return TableResult(no, tuple(ps), tuple(D(z).quantize(CENT) for z in zb), scores=tuple(D(p) for p in pb),
                       premium_games=tuple(PremiumGame(s, g, v, tuple(by)) for s, g, v, by in lines))


def th_table(no: int, ps, scores, ended: str | None = "time", frozen: bool = False) -> TableResult:
    values = tuple(D(s) for s in scores)
    return TableResult(no, tuple(ps), tuple(v.quantize(CENT) for v in values), scores=values,
                       ended=None if frozen else ended, frozen=frozen)


def field(n: int, ruleset: str, clubs=None, ratings=None, rounds=()) -> Tournament:
    return Tournament(players(n, clubs=clubs, ratings=ratings), [*rounds], ruleset=ruleset)


def rnd(number: int, *tables: TableResult) -> Round:
    return Round(number, tuple(tables))


def reread(t: Tournament) -> Tournament:
    return loads(dump(t), "t.json")


def file_error(t: Tournament | dict) -> str:
    d = t if isinstance(t, dict) else json.loads(json.dumps(to_dict(t)))
    try:
        from_dict(d, "t.json")
    except ExchangeError as e:
        return str(e)
    raise AssertionError("the file was accepted")
