"""Regenerate the sample files of the rule sets other than SEM (RULES.md §2)
with the engine's own draw (seeded, so the output is stable):

    python tests/data/make_samples_rulesets.py

- smu10.json: 10 players of SMU (tables of 3, 3 and 4, SMU-1), five rounds of
  net Kč (SMU-2) with ties at tables of 3 and 4 (SMU-3);
- csm14_a.json, csm14_b.json: 14 players of ČSM (tables of 4, 4, 3, 3, CSM-1)
  at two tournaments of a league (same ids, two "halves" each), ZB + PB with
  premium-game lines (CSM-2, CSM-3);
- thousand13.json: 13 players of Thousand, a late entry after round 1, a
  withdrawal after round 2, a withdrawal during round 3 that leaves a frozen
  table of two (TH-5), a lot (TH-4) where the standings after round 4 tie,
  and the final (TH-2);
- thousand13_r4.json: the same after round 4 (the final not played yet).
"""
from __future__ import annotations

import random
import sys
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from webapp.rules.exchange import dump, loads  # noqa: E402
from webapp.rules.model import Event, Player, PremiumGame, Round, TableResult, Tournament  # noqa: E402
from webapp.rules.seating import draw  # noqa: E402

CZ = ["Novák Jan", "Svoboda Petr", "Dvořák Josef", "Černý Pavel", "Procházka Jiří", "Kučera Miloš",
      "Veselý Tomáš", "Horák Martin", "Němec Ladislav", "Marek Zdeněk", "Pokorná Eva", "Pospíšil Karel",
      "Hájek Milan", "Král Jaroslav"]
RU = ["Иванов Сергей", "Петров Алексей", "Смирнова Ольга", "Кузнецов Андрей", "Попов Дмитрий",
      "Васильев Игорь", "Соколова Анна", "Михайлов Павел", "Новиков Олег", "Фёдоров Николай",
      "Морозов Виктор", "Волков Юрий", "Лебедева Мария", "Козлов Артём"]
D = Decimal


def _players(names, clubs, prefix, rated=True, seed=0) -> list[Player]:
    rng = random.Random(seed)
    return [Player(i, name, club=clubs[(i - 1) % len(clubs)] if clubs else None,
                   status="registered" if clubs else "guest",
                   rating=D(rng.randint(10, 400)) if rated else None, id=f"{prefix}-{i:03d}")
            for i, name in enumerate(names, 1)]


def _zero_sum(rng: random.Random, n: int, spread: int) -> list[int]:
    while True:
        parts = [rng.randint(-spread, spread) for _ in range(n - 1)]
        parts.append(-sum(parts))
        if abs(parts[-1]) <= spread * 2:
            return parts


def smu() -> Tournament:
    t = Tournament(_players(CZ[:10], ["MK Kyjov", "MK Strážnice", "Veselí"], "SMU"), ruleset="smu",
                   name="SMU 3 - Kyjov", date="2026-04-11")
    rng = random.Random(3)
    for n in range(1, 6):
        d = draw(t, n)
        tables = []
        for st in d.tables:
            k = len(st.players)
            if n == 2 and k == 4:
                sums = [30, -10, -10, -10]  # SMU-3: a tie for 2nd-4th at a table of 4
            elif n == 3 and k == 3 and st.table == 1:
                sums = [12, 12, -24]  # SMU-3: a tie for 1st (4-4-1)
            elif n == 4 and k == 4:
                sums = [15, -5, -5, -5]
            else:
                sums = _zero_sum(rng, k, 40)
            tables.append(TableResult(st.table, st.players, tuple(D(s).quantize(D("0.01")) for s in sums)))
        t.rounds.append(Round(n, tuple(tables)))
    return t


def csm(name: str, date: str, seed: int) -> Tournament:
    t = Tournament(_players(CZ, ["GRINGOS", "Limit Pardubice", "Plnotuční", None], "CSM", seed=seed),
                   ruleset="csm", name=name, date=date)
    t.players = [replace(p, status="guest") if p.club is None else p for p in t.players]
    rng = random.Random(seed)
    games = ["100 a sedma", "betl", "durch", "dvě sedmy", "sto"]
    for n in range(1, 3):
        d = draw(t, n)
        tables = []
        for st in d.tables:
            k = len(st.players)
            zb = _zero_sum(rng, k, 150)
            pb = [rng.choice([0, 10, 20, 30, 40, 60, 80, 120]) for _ in range(k)]
            lines = []
            for s, p in zip(st.players, pb):
                if p >= 50:
                    lines.append(PremiumGame(s, rng.choice(games), p, tuple(st.players[:3]) if s in st.players[:3]
                                             else (s,) + tuple(st.players[:2])))
            tables.append(TableResult(st.table, st.players, tuple(D(z).quantize(D("0.01")) for z in zb),
                                      scores=tuple(D(p) for p in pb), premium_games=tuple(lines)))
        t.rounds.append(Round(n, tuple(tables)))
    return t


def _thousand_scores(rng: random.Random, k: int, win: bool) -> list[int]:
    def one():
        v = rng.choice([-120, -40, 0, 85, 215, 380, 435, 440, 560, 705, 875, 880])
        return v
    scores = [one() for _ in range(k)]
    if win:
        scores[rng.randrange(k)] = 1000 + 5 * rng.randint(0, 4)
    return scores


def thousand(final: bool = True) -> Tournament:
    ps = _players(RU[:13], None, "TH", rated=False)
    late = Player(14, RU[13], status="registered", id="TH-014", from_round=2)
    t = Tournament(ps + [late], ruleset="thousand", name="Тысяча - Репино", date="2026-05-09",
                   extra={"seed": 2013})
    rng = random.Random(13)
    for n in range(1, 5):
        if n == 3:
            t.events.append(Event("withdrawn", 5, after_round=2))
        d = draw(t, n)
        tables = []
        for st in d.tables:
            k = len(st.players)
            if n == 3 and st.table == 1:
                # a player leaves during round 3: the two left keep their scores (TH-5)
                leaver = st.players[-1]
                t.events.append(Event("withdrawn", leaver, after_round=2))
                tables.append(TableResult(st.table, st.players[:-1], (D(315), D(640)),
                                          scores=(D(315), D(640)), frozen=True))
                continue
            win = rng.random() < 0.4
            scores = _thousand_scores(rng, k, win)
            tables.append(TableResult(st.table, st.players, tuple(D(s) for s in scores),
                                      scores=tuple(D(s) for s in scores), ended="win" if win else "time"))
        t.rounds.append(Round(n, tuple(tables)))
    from webapp.rules.standings import standings

    rows = standings(t, 4)
    tied = next(([x.player.start_no for x in rows if x.tie and (x.stats.points, x.stats.money)
                  == (r.stats.points, r.stats.money)] for r in rows if r.tie), [])
    if tied:
        t.events.append(Event("lot", 0, order=tuple(reversed(tied))))  # TH-4: the judge's lot
    if final:
        d = draw(t, 5)
        st = d.tables[0]
        scores = (D(1000), D(640), D(215), D(-35))
        t.rounds.append(Round(5, (TableResult(1, st.players, scores, scores=scores, ended="win"),)))
    return t


def main() -> None:
    files = {
        "smu10.json": smu(),
        "csm14_a.json": csm("Pražská liga 1 - Zdice", "2026-01-17", 1),
        "csm14_b.json": csm("Pražská liga 2 - Plzeň", "2026-02-21", 2),
        "csm14_c.json": csm("Pražská liga 3 - Kladno", "2026-03-21", 3),
        "thousand13.json": thousand(),
        "thousand13_r4.json": replace(thousand(final=False), name="Тысяча - Репино"),
    }
    for name, t in files.items():
        text = dump(t)
        loads(text, name)  # what we write must read back
        (HERE / name).write_text(text, encoding="utf-8")
        print(f"wrote tests/data/{name}")


if __name__ == "__main__":
    main()
