"""Venue server figures for a generated 420-player tournament.

    python benchmarks/server_bench.py [--players 420] [--database-url URL]

Prints, on SQLite (a temp file) and, with --database-url or TEST_DATABASE_URL,
on PostgreSQL: closing a round and publishing the standings and the next draw
(server side, issue #3 target under 1 s), and rendering the standings page
for 420 players (target under 100 ms).
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


from tests.pgschema import temporary_schema  # noqa: E402
from webapp import create_app  # noqa: E402
from webapp.extensions import db  # noqa: E402
from webapp.models import Player, Tournament, User  # noqa: E402
from webapp.services import rounds  # noqa: E402
from webapp.services.results import load_tournament  # noqa: E402
from webapp.simulate import make_players, table_sums  # noqa: E402


def ms(s: float) -> str:
    return f"{s * 1000:8.1f} ms"


def run(url: str, label: str, n_players: int) -> None:
    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "bench", "WTF_CSRF_ENABLED": False})
    rng = random.Random(5)
    with app.app_context():
        db.create_all()
        user = User(username="bench", role="operator")
        user.set_password("bench-pass")
        db.session.add(user)
        t = Tournament(name="Bench", ruleset="sem")
        for p in make_players(n_players, seed=5):
            t.players.append(Player(start_no=p.start_no, reg_id=p.id, name=p.name, club=p.club,
                                    status=p.status, rating=p.rating, present=True))
        db.session.add(t)
        db.session.commit()
        tid = t.id

        print(f"\n[{label}] {n_players} players")
        for k in range(1, 7):
            t = load_tournament(tid)
            if k == 1:
                r = rounds.draw_round(t, "bench")
            else:
                r = t.rounds[-1]
            rounds.publish_round(t, r, "bench", t.version)
            for tab in r.tables:
                rounds.record_sheet(t, tab, list(table_sums(rng)), "bench")
            db.session.commit()
            db.session.expire_all()

            start = time.perf_counter()
            t = load_tournament(tid)
            r = t.rounds[-1]
            rounds.close_round(t, r, "bench", t.version)
            nxt = None
            if t.status != "finished":
                nxt = rounds.draw_round(t, "bench")
            db.session.commit()
            elapsed = time.perf_counter() - start
            db.session.expire_all()
            tables = len(nxt.tables) if nxt is not None else 0
            print(f"  close round {k} + standings + draw of round {k + 1} ({tables} tables): {ms(elapsed)}")
            if nxt is None:
                break

    client = app.test_client()
    client.post("/login", data={"username": "bench", "password": "bench-pass"})
    for path, name in ((f"/t/{tid}/standings", "public standings page"),
                       (f"/operator/t/{tid}/standings", "operator final results page")):
        start = time.perf_counter()
        client.get(path)
        cold = time.perf_counter() - start
        runs = []
        for _ in range(10):
            start = time.perf_counter()
            resp = client.get(path)
            runs.append(time.perf_counter() - start)
            assert resp.status_code == 200, resp.status_code
        print(f"  {name} ({len(resp.data) // 1024} KB): first render {ms(cold)}; "
              f"repeated: median {ms(statistics.median(runs))}, max {ms(max(runs))}")
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=420)
    ap.add_argument("--database-url", default=os.environ.get("TEST_DATABASE_URL"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run(f"sqlite:///{tmp}/bench.db", "SQLite", args.players)
    if args.database_url:
        with temporary_schema(args.database_url, "bench") as url:
            run(url, "PostgreSQL", args.players)


if __name__ == "__main__":
    main()
