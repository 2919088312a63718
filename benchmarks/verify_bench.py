"""How long `listok verify` takes for a generated 420-player, 6-round tournament.

    python benchmarks/verify_bench.py [--players 420] [--database-url URL]

The tournament is played through the services as at the venue (draw, publish,
a desk sheet per table, close), so its chain holds what a real one holds:
every sheet, every status change, every round's actions, the heads published
at each SEM-C9 publication. Prints the chain's length and the time of the
whole command (`listok verify --tournament ID`, in process: app start-up not
counted) on SQLite (a temp file) and, with --database-url or TEST_DATABASE_URL,
on PostgreSQL.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import func, select  # noqa: E402

from tests.pgschema import temporary_schema  # noqa: E402
from webapp import create_app  # noqa: E402
from webapp.extensions import db  # noqa: E402
from webapp.models import AuditEntry, Player, Sheet, Tournament  # noqa: E402
from webapp.services import rounds  # noqa: E402
from webapp.services.loaders import load_tournament  # noqa: E402
from webapp.demo.simulate import make_players, table_sums  # noqa: E402


def build(app, n_players: int) -> int:
    rng = random.Random(5)
    with app.app_context():
        db.create_all()
        t = Tournament(name="Bench", ruleset="sem")
        for p in make_players(n_players, seed=5):
            t.players.append(Player(start_no=p.start_no, reg_id=p.id, name=p.name, club=p.club,
                                    status=p.status, rating=p.rating, present=True))
        db.session.add(t)
        db.session.commit()
        tid = t.id
        for _k in range(1, 7):
            t = load_tournament(tid)
            r = rounds.draw_round(t, "bench")
            rounds.publish_round(t, r, "bench", t.version)
            for tab in r.tables:
                rounds.record_sheet(t, tab, list(table_sums(rng)), "bench")
            rounds.close_round(t, r, "bench", t.version)
            db.session.commit()
            db.session.expire_all()
            if t.status == "finished":
                break
        return tid


def run(url: str, label: str, n_players: int, repeat: int) -> None:
    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "bench", "WTF_CSRF_ENABLED": False})
    start = time.perf_counter()
    tid = build(app, n_players)
    built = time.perf_counter() - start
    with app.app_context():
        entries = db.session.scalar(select(func.count()).select_from(AuditEntry)
                                    .where(AuditEntry.tournament_id == tid))
        sheets = db.session.scalar(select(func.count(Sheet.id)))
        n_rounds = len(db.session.get(Tournament, tid).rounds)
    runner = app.test_cli_runner()
    times, output = [], ""
    for _i in range(repeat):
        start = time.perf_counter()
        result = runner.invoke(args=["listok", "verify", "--tournament", str(tid)])
        times.append(time.perf_counter() - start)
        assert result.exit_code == 0, result.output
        output = result.output.strip()
    print(f"\n[{label}] {n_players} players, {n_rounds} rounds, {sheets} sheets, {entries} chain records "
          f"(built in {built:.1f} s)")
    print(f"  {output}")
    print(f"  listok verify: median {statistics.median(times) * 1000:.0f} ms, "
          f"min {min(times) * 1000:.0f} ms over {repeat} runs")
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=420)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--database-url", default=os.environ.get("TEST_DATABASE_URL"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run(f"sqlite:///{Path(tmp) / 'bench.db'}", "SQLite", args.players, args.repeat)
    if args.database_url:
        with temporary_schema(args.database_url) as url:
            run(url, "PostgreSQL", args.players, args.repeat)


if __name__ == "__main__":
    main()
