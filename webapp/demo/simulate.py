"""Realistic generated tournaments, for the demo, the benchmarks and tests.

Seeded, so the same seed always gives the same players and sums.
"""
from __future__ import annotations

import random
from decimal import Decimal

from ..rules.model import CENT, Player, Round, TableResult, Tournament
from ..rules.ruleset import get_ruleset
from ..rules.seating import draw

SURNAMES = (
    "Kučera", "Horváth", "Varga", "Tóth", "Nagy", "Baláž", "Szabó", "Molnár", "Balog", "Lukáč",
    "Novák", "Kováč", "Polák", "Kollár", "Németh", "Oravec", "Hudák", "Mráz", "Král", "Urban",
    "Šimko", "Blaho", "Ďurica", "Gašpar", "Jurčo", "Mikuš", "Pavlík", "Rusnák", "Štefánik", "Čierny",
    "Dudáš", "Fabian", "Hrivnák", "Ivan", "Kráľ", "Lacko", "Matúš", "Ondrejka", "Sloboda", "Zeman",
)
FIRST_NAMES = (
    "Ján", "Peter", "Jozef", "Milan", "Miloš", "Martin", "Pavol", "Štefan", "Ladislav", "Dušan",
    "Eva", "Mária", "Anna", "Zuzana", "Katarína", "Vladimír", "Ivan", "Marián", "Rudolf", "Igor",
)
CLUBS = (
    "MK Poprad", "MK Nitra", "MK Žilina", "MK Prešov", "MK Košice", "MK Trenčín", "MK Levice",
    "MK Mengusovce", "MK Martin", "MK Zvolen", "MK Piešťany", "MK Humenné", "MK Senica",
    "MK Bardejov", "MK Lučenec", "MK Ružomberok", "MK Dubnica", "MK Snina",
)


def make_players(n: int, seed: int = 1, clubs: int = 18, unrated: float = 0.15,
                 id_prefix: str = "SK") -> list[Player]:
    """`n` players in ~`clubs` clubs (a few guests and licensed players)."""
    rng = random.Random(seed)
    players = []
    for i in range(1, n + 1):
        roll = rng.random()
        status, club = "registered", CLUBS[rng.randrange(min(clubs, len(CLUBS)))]
        if roll < 0.04:
            status, club = "guest", None
        elif roll < 0.07:
            status, club = "licensed", None
        rating = None if rng.random() < unrated else Decimal(rng.randint(50, 1500))
        name = f"{rng.choice(SURNAMES)} {rng.choice(FIRST_NAMES)}"
        players.append(Player(i, name, club=club, status=status, rating=rating,
                              id=f"{id_prefix}-{i:04d}"))
    return players


def table_sums(rng: random.Random, n: int = 3, total: Decimal = Decimal("30.00")) -> tuple[Decimal, ...]:
    """Sums of one table totalling exactly `total`, in 10-cent steps, rarely negative."""
    while True:
        sums = [Decimal(rng.randint(-5, 200)) / 10 for _ in range(n - 1)]
        last = total - sum(sums)
        if Decimal(-5) <= last <= Decimal(28):
            return tuple(s.quantize(CENT) for s in sums) + (last.quantize(CENT),)


def play_round(t: Tournament, round_no: int, rng: random.Random) -> Round:
    """Draw round `round_no` with the engine and fill every table with random sums."""
    rs = get_ruleset(t.ruleset)
    d = draw(t, round_no, rs)
    tables = tuple(
        TableResult(st.table, st.players, table_sums(rng, len(st.players), rs.expected_total(len(st.players))))
        for st in d.tables
    )
    return Round(round_no, tables)


def play_tournament(players: list[Player], seed: int = 1, name: str = "Demo", date: str | None = None,
                    ruleset: str = "sem", rounds: int | None = None) -> Tournament:
    rng = random.Random(seed)
    t = Tournament(list(players), [], ruleset=ruleset, name=name, date=date)
    last = rounds or get_ruleset(ruleset).rounds
    for k in range(1, last + 1):
        rnd = play_round(t, k, rng)
        if not rnd.tables:
            break
        t.rounds.append(rnd)
    return t
