"""Venue server figures for a generated 420-player tournament.

    python benchmarks/server_bench.py [--players 420] [--database-url URL]

Prints, on SQLite (a temp file) and, with --database-url or TEST_DATABASE_URL,
on PostgreSQL: closing a round and publishing the standings and the next draw
(server side, issue #3 target under 1 s), rendering the standings page
for 420 players (target under 100 ms), the projector (issue 11: under 25 ms),
the seating and a player's page (as an anonymous visitor gets them), the
final report, and the print page of a round's 140
paper sheets with their QR codes (target well under 1 s).
Each page is timed after the templates are compiled: rendered with the render
caches empty (new standings: a round closed), after a version bump alone (what
every sheet accepted in the round being played does to the cache keys), and
repeated. With --profile, the first uncached render is run under cProfile.
"""
from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


from sqlalchemy import update  # noqa: E402

from tests.helpers import forget_rendered_pages  # noqa: E402
from tests.pgschema import temporary_schema  # noqa: E402
from webapp import create_app  # noqa: E402
from webapp.extensions import db  # noqa: E402
from webapp.models import Player, Tournament, User  # noqa: E402
from webapp.cli.server import freeze_startup_objects  # noqa: E402
from webapp.services import rounds  # noqa: E402
from webapp.services.loaders import load_tournament  # noqa: E402
from webapp.demo.simulate import make_players, table_sums  # noqa: E402


def ms(s: float) -> str:
    return f"{s * 1000:8.1f} ms"


def timed_get(client, path: str, profile: bool):
    start = time.perf_counter()
    if profile:
        prof = cProfile.Profile()
        resp = prof.runcall(client.get, path)
    else:
        resp = client.get(path)
    elapsed = time.perf_counter() - start
    assert resp.status_code == 200, (path, resp.status_code)
    if profile:
        print(f"    --- profile of the first GET {path}")
        pstats.Stats(prof, stream=sys.stdout).sort_stats("cumulative").print_stats(25)
    return resp, elapsed


def bump_version(app, tid: int, public: bool = False) -> None:
    """`public`: a change the public pages show (a round closed, a correction); else what every
    sheet of the round being played does (the version alone)."""
    values = {"version": Tournament.version + 1}
    if public:
        values["public_version"] = Tournament.public_version + 1
    with app.app_context():
        db.session.execute(update(Tournament).where(Tournament.id == tid).values(**values))
        db.session.commit()


def run(url: str, label: str, n_players: int, profile: bool = False) -> None:
    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "bench", "WTF_CSRF_ENABLED": False})
    rng = random.Random(5)
    with app.app_context():
        db.create_all()
        user = User(username="bench", role="admin")  # every tournament (an operator sees only those assigned)
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
        widest = (0, 0)  # (tables, round): the print page is timed for the round with most tables
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
            widest = max(widest, (len(r.tables), k))
            print(f"  close round {k} + standings + draw of round {k + 1} ({tables} tables): {ms(elapsed)}")
            if nxt is None:
                break

    operator, visitor = app.test_client(), app.test_client()  # the public pages as spectators get them
    operator.post("/login", data={"username": "bench", "password": "bench-pass"})
    n_sheets, sheets_round = widest
    pages = ((visitor, f"/t/{tid}/standings", "public standings page"),
             (visitor, f"/t/{tid}/projector", "projector"),
             (visitor, f"/t/{tid}/seating", "seating"),
             (visitor, f"/t/{tid}/player/{n_players // 2}", "a player's page"),
             (operator, f"/operator/t/{tid}/report", "operator final results page"),
             (operator, f"/operator/t/{tid}/round/{sheets_round}/sheets", f"print page, {n_sheets} sheets"))
    # a process's first request compiles the templates: not what a change costs
    compile_times = [timed_get(client, path, False)[1] for client, path, _name in pages]
    freeze_startup_objects()  # as `listok serve` does
    print(f"  first requests of the process (templates compiled): {', '.join(ms(s).strip() for s in compile_times)}")
    for client, path, name in pages:
        cold, after_change = [], []
        for i in range(5):
            forget_rendered_pages()  # new standings: a round closed, a correction (a new public version)
            bump_version(app, tid, public=True)
            resp, elapsed = timed_get(client, path, profile and i == 0)
            cold.append(elapsed)
        for i in range(5):
            bump_version(app, tid)  # what every sheet accepted in the round being played does
            after_change.append(timed_get(client, path, False)[1])
        repeated = [timed_get(client, path, False)[1] for _ in range(5 if "sheets" in path else 10)]
        print(f"  {name} ({len(resp.data) // 1024} KB): uncached {ms(statistics.median(cold))} "
              f"(max {ms(max(cold)).strip()}); after a version bump {ms(statistics.median(after_change))} "
              f"(max {ms(max(after_change)).strip()}); repeated {ms(statistics.median(repeated))} "
              f"(max {ms(max(repeated)).strip()}); medians")
    # after a round closed every player opens their own page: the first one computes the closed
    # rounds' standings after each round, the others share them (views/public/standings.CLOSED)
    forget_rendered_pages()
    bump_version(app, tid, public=True)
    first = timed_get(visitor, f"/t/{tid}/player/1", False)[1]
    others = [timed_get(visitor, f"/t/{tid}/player/{s}", False)[1] for s in range(2, 22)]
    print(f"  players' pages on a new public version: the first {ms(first).strip()}, the next 20 "
          f"{ms(statistics.median(others)).strip()} (median, max {ms(max(others)).strip()})")
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=420)
    ap.add_argument("--database-url", default=os.environ.get("TEST_DATABASE_URL"))
    ap.add_argument("--profile", action="store_true", help="cProfile the first render of each page")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run(f"sqlite:///{tmp}/bench.db", "SQLite", args.players, args.profile)
    if args.database_url:
        with temporary_schema(args.database_url, "bench") as url:
            run(url, "PostgreSQL", args.players, args.profile)


if __name__ == "__main__":
    main()
