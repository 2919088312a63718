"""Random but valid results for the rule sets other than SEM (RULES.md §2), for
benchmarks, property tests and demos: `random_table` plays one sheet, `play`
draws and plays rounds with the engine's own draw."""
from __future__ import annotations

import random
from decimal import Decimal

from ..rules.model import CENT, Player, PremiumGame, Round, TableResult, Tournament
from ..rules.ruleset import get_ruleset
from ..rules.seating import draw

GAMES = ("100 a sedma", "betl", "durch", "dvě sedmy", "sto")
THOUSAND_SCORES = (-120, -40, -5, 0, 85, 215, 380, 435, 440, 560, 705, 875, 880)


def _zero_sum(rng: random.Random, n: int, spread: int) -> list[int]:
    parts = [rng.randint(-spread, spread) for _ in range(n - 1)]
    return parts + [-sum(parts)]


def random_table(code: str, table: int, players: tuple[int, ...], rng: random.Random,
                 final: bool = False) -> TableResult:
    rs = get_ruleset(code)
    k = len(players)
    if rs.result_kind == "score":
        scores = [rng.choice(THOUSAND_SCORES) for _ in range(k)]
        win = final or rng.random() < 0.4
        if win:
            scores[rng.randrange(k)] = 1000 + 5 * rng.randint(0, 4)
        values = tuple(Decimal(s) for s in scores)
        return TableResult(table, players, tuple(v.quantize(CENT) for v in values), scores=values,
                           ended="win" if win else "time")
    if rs.result_kind == "zb+pb":
        zb = _zero_sum(rng, k, 150)
        pb = [rng.choice((0, 0, 10, 20, 30, 40, 60, 80, 120)) for _ in range(k)]
        lines = tuple(PremiumGame(s, rng.choice(GAMES), p, tuple(sorted({s, *players[:3]} if s in players[:3]
                                                                         else {s, *players[:2]})))
                      for s, p in zip(players, pb) if p >= 50)
        return TableResult(table, players, tuple(Decimal(z).quantize(CENT) for z in zb),
                           scores=tuple(Decimal(p) for p in pb), premium_games=lines)
    total = rs.expected_total(k) or Decimal(0)
    sums = _zero_sum(rng, k, 40)
    sums[0] += int(total)
    return TableResult(table, players, tuple(Decimal(s).quantize(CENT) for s in sums))


def players(n: int, seed: int = 0, clubs: int = 8, rated: float = 0.8) -> list[Player]:
    rng = random.Random(seed)
    return [Player(s, f"Hráč {s}", club=f"Klub {rng.randrange(clubs)}" if rng.random() < 0.8 else None,
                   status="registered", rating=Decimal(rng.randint(1, 999)) if rng.random() < rated else None,
                   id=f"P-{s:04d}")
            for s in range(1, n + 1)]


def play(t: Tournament, upto: int | None = None, seed: int = 0) -> Tournament:
    """Draw and play rounds last_round+1..upto (default: the rule set's last round)."""
    rs = get_ruleset(t.ruleset)
    rng = random.Random(seed)
    for n in range(t.last_round + 1, (upto or rs.rounds) + 1):
        d = draw(t, n)
        if not d.tables:
            break
        final = rs.round_kind(n) == "cut" and rs.final_size is not None
        t.rounds.append(Round(n, tuple(random_table(t.ruleset, st.table, st.players, rng, final)
                                       for st in d.tables)))
    return t
