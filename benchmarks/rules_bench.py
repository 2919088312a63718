"""Rules engine figures for a generated 420-player SEM tournament.

    python benchmarks/rules_bench.py [--players 420] [--repeat 20]

Prints: standings + draw per round (in-process), a full 6-round replay,
a 12-tournament season with 600 players, and `listok draw` end to end
(process start included). Targets (issue #2): a round's standings + draw
under 20 ms; `listok draw` under 0.5 s. The same figures per round follow for
a 400-player ČSM and Thousand tournament (issue 9; `--other-players`).
"""
from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from webapp.rules.exchange import dump  # noqa: E402
from webapp.rules.model import Tournament  # noqa: E402
from webapp.rules.report import standings_report  # noqa: E402
from webapp.rules.seating import draw  # noqa: E402
from webapp.rules.season import ratings, season_table  # noqa: E402
from webapp.rules.standings import standings  # noqa: E402
from webapp.demo.simulate import make_players, play_tournament  # noqa: E402


def timed(fn, repeat):
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs), max(runs)


def ms(s):
    return f"{s * 1000:8.2f} ms"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=420)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--other-players", type=int, default=400)
    args = ap.parse_args()

    players = make_players(args.players, seed=7)
    t = play_tournament(players, seed=7, name="Bench", date="2026-03-14")
    print(f"tournament: {len(players)} players, {len(t.rounds)} rounds, "
          f"tables per round {[len(r.tables) for r in t.rounds]}")

    print("\nstandings + draw per round (median / max of", args.repeat, "runs):")
    for k in range(1, len(t.rounds) + 1):
        upto = Tournament(t.players, t.rounds[: k - 1], ruleset=t.ruleset, name=t.name, date=t.date)

        def step():
            ranking = standings(upto, k - 1) if k > 1 else None
            draw(upto, k, ranking=ranking)

        med, worst = timed(step, args.repeat)
        print(f"  round {k}: {ms(med)}  (max {ms(worst)})")

    def replay():
        for k in range(1, len(t.rounds) + 1):
            upto = Tournament(t.players, t.rounds[: k - 1], ruleset=t.ruleset)
            draw(upto, k)
            standings(t, k)
        standings_report(t)

    med, worst = timed(replay, max(3, args.repeat // 4))
    print(f"\nfull 6-round replay (6 draws, 6 standings, final report): {ms(med)}  (max {ms(worst)})")

    pool = make_players(600, seed=11)
    rng = random.Random(11)
    season = []
    for i in range(12):
        present = sorted(rng.sample(pool, 420), key=lambda p: p.start_no)
        season.append(play_tournament(present, seed=100 + i, name=f"SEM {i + 1}", date=f"2026-{i + 1:02d}-10"))
    med, worst = timed(lambda: season_table(season), 3)
    print(f"\nseason table, 12 tournaments x 420 of 600 players: {ms(med)}  (max {ms(worst)})")
    med, worst = timed(lambda: ratings(season), 3)
    print(f"rating list (SEM-B1, window 12):                 {ms(med)}  (max {ms(worst)})")

    for code in ("csm", "thousand"):
        other_ruleset(code, args.other_players, args.repeat)

    exe = shutil.which("listok")
    if exe:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "bench.json"
            upto = Tournament(t.players, t.rounds[:3], ruleset=t.ruleset, name=t.name, date=t.date)
            path.write_text(dump(upto), encoding="utf-8")

            def run():
                subprocess.run([exe, "draw", str(path), "--round", "4"], check=True,
                               stdout=subprocess.DEVNULL)

            med, worst = timed(run, 10)
            print(f"\n`listok draw FILE --round 4` end to end (420 players): {ms(med)}  (max {ms(worst)})")
    else:
        print("\n`listok` is not on PATH: install the project (pip install -e .) to time the command")


def other_ruleset(code: str, n: int, repeat: int) -> None:
    """Standings + draw per round for a rule set of RULES.md §2 (tables of 3 and 4)."""
    from webapp.demo.simulate_rulesets import play, players as ruleset_players

    t = play(Tournament(ruleset_players(n, seed=7), ruleset=code, name="Bench", extra={"seed": 7}), seed=7)
    print(f"\n{code}: {n} players, {len(t.rounds)} rounds, tables per round {[len(r.tables) for r in t.rounds]}")
    print("standings + draw per round (median / max of", repeat, "runs):")
    for k in range(1, len(t.rounds) + 1):
        upto = Tournament(t.players, t.rounds[: k - 1], ruleset=code, name=t.name, extra=t.extra)

        def step():
            ranking = standings(upto, k - 1) if k > 1 else None
            draw(upto, k, ranking=ranking)

        med, worst = timed(step, repeat)
        print(f"  round {k}: {ms(med)}  (max {ms(worst)})")
    med, worst = timed(lambda: standings_report(t), max(3, repeat // 4))
    print(f"  final standings report: {ms(med)}  (max {ms(worst)})")


if __name__ == "__main__":
    main()
