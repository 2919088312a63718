"""Regenerate the sample tournament files in this folder with the engine's own
draw (seeded, so the output is stable):

    python tests/data/make_samples.py

- sem27_poprad.json: 27 players, six SEM rounds; MK Poprad has 13 players
  present and nominates 10 (SEM-B3), so its result can use jokers;
- sem27_zilina.json: the same players (same ids) at a second tournament;
- sem27_poprad_r3.json: the first tournament after round 3 (in progress);
- sem9_cut_ends.json: nine players; after round 3 all but three (7 points
  each) withdraw, round 4 ends 10/10/10 and nobody reaches the cut into
  round 5, so the tournament is over after round 4.
"""
from __future__ import annotations

import random
import sys
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from webapp.rules.exchange import dump  # noqa: E402
from webapp.rules.model import Event, Player, Round, TableResult, Tournament  # noqa: E402
from webapp.rules.seating import draw  # noqa: E402
from webapp.rules.standings import standings  # noqa: E402

NAMES = [
    "Kučera Miloš", "Nováková Eva", "Horváth Ján", "Šimko Peter", "Ďurica Štefan", "Tóth Mária",
    "Baláž Igor", "Kráľ Dušan", "Čierny Rudolf", "Gašpar Ladislav", "Jurčo Marián", "Mikuš Pavol",
    "Štefánik Zuzana", "Hrivnák Vladimír", "Ondrejka Jozef", "Lacko Martin", "Sloboda Anna",
    "Dudáš Milan", "Oravec Katarína", "Hudák Ivan", "Mráz Peter", "Urban Ján", "Blaho Štefan",
    "Polák Miloš", "Kollár Jozef", "Németh Eva", "Zeman Rudolf",
]


def players(seed: int) -> list[Player]:
    rng = random.Random(seed)
    result = []
    for i, name in enumerate(NAMES, 1):
        if i <= 13:
            club, status = "MK Poprad", "registered"
        elif i <= 19:
            club, status = "MK Žilina", "registered"
        elif i <= 24:
            club, status = "Klub mariášu Košice", "registered"
        elif i <= 25:
            club, status = None, "licensed"
        else:
            club, status = None, "guest"
        rating = None if i in (9, 22, 27) else Decimal(rng.randint(80, 1400))
        result.append(Player(i, name, club=club, status=status, rating=rating,
                             nominated=i <= 10, id=f"SK-{i:04d}"))
    return result


def sums(rng: random.Random) -> tuple[Decimal, ...]:
    """Three sums totalling 30.00 in 50-cent steps, with the odd tie."""
    if rng.random() < 0.12:
        a = Decimal(rng.randint(16, 36)) / 2
        return (a, a, Decimal(30) - 2 * a)
    while True:
        a, b = (Decimal(rng.randint(0, 44)) / 2 for _ in range(2))
        c = Decimal(30) - a - b
        if Decimal(-3) <= c <= Decimal(25):
            return (a.quantize(Decimal("0.01")), b.quantize(Decimal("0.01")), c.quantize(Decimal("0.01")))


def play(t: Tournament, seed: int, last: int = 6) -> Tournament:
    rng = random.Random(seed)
    for n in range(t.last_round + 1, last + 1):
        d = draw(t, n)
        if not d.tables:
            break
        t.rounds.append(Round(n, tuple(TableResult(st.table, st.players, sums(rng)) for st in d.tables)))
    return t


def full(seed: int, name: str, date: str) -> Tournament:
    for s in range(seed, seed + 500):
        t = play(Tournament(players(1), [], name=name, date=date), s)
        if t.last_round == 6:
            return t
    raise SystemExit("no seed gives six rounds")


def cut_ends() -> Tournament:
    ps = [replace(p, club=None, status="guest", nominated=False) for p in players(2)[:9]]
    for s in range(1, 5000):
        t = play(Tournament(ps, [], name="SEM 9 - ends at the cut", date="2026-04-18"), s, last=3)
        sevens = [r.player.start_no for r in standings(t) if r.stats.points == 7]
        if len(sevens) >= 3:
            keep = sevens[:3]
            t.events = [Event("withdrawn", p.start_no, after_round=3) for p in ps if p.start_no not in keep]
            d = draw(t, 4)
            assert [st.players for st in d.tables] and set(d.advancing) == set(keep), d
            t.rounds.append(Round(4, (TableResult(1, d.tables[0].players, (Decimal("10.00"),) * 3),)))
            assert not draw(t, 5).tables
            return t
    raise SystemExit("no seed gives three 7-point players")


def main() -> None:
    first = full(1, "SEM 1 - Poprad", "2026-01-17")
    second = full(101, "SEM 2 - Žilina", "2026-02-14")
    (HERE / "sem27_poprad.json").write_text(dump(first), encoding="utf-8")
    (HERE / "sem27_zilina.json").write_text(dump(second), encoding="utf-8")
    (HERE / "sem27_poprad_r3.json").write_text(
        dump(replace(first, rounds=first.rounds_upto(3))), encoding="utf-8")
    (HERE / "sem9_cut_ends.json").write_text(dump(cut_ends()), encoding="utf-8")


if __name__ == "__main__":
    main()
