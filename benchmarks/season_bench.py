"""The public season table of the federation server (issue 12): 12 tournaments × 420 players.

    .venv/bin/python benchmarks/season_bench.py [--players 420] [--tournaments 12] [--repeat 50]

Builds the tournament files with the engine (webapp/demo/simulate.py), stores them in a
federation server's season (SQLite in a temporary folder, or DATABASE_URL), and times
in process (the app's test client, no network) the season table page cold (the first
request after a tournament arrived: the season tables computed and rendered), warm
(rendered page kept for the season's version), revalidated (If-None-Match: 304), and
the trivial health check of the same server, printing the ratios to it."""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def timed(fn, repeat: int) -> float:
    """The median of `repeat` calls, in milliseconds."""
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        runs.append((time.perf_counter() - t0) * 1000)
    return statistics.median(runs)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=420)
    ap.add_argument("--tournaments", type=int, default=12)
    ap.add_argument("--repeat", type=int, default=50)
    args = ap.parse_args()

    import os

    from webapp import create_app
    from webapp.extensions import db
    from webapp.models import Federation, Season, Venue
    from webapp.rules import exchange
    from webapp.services import federation as svc
    from webapp.demo.simulate import make_players, play_tournament

    folder = tempfile.mkdtemp()
    url = os.environ.get("DATABASE_URL") or f"sqlite:///{folder}/federation.db"
    app = create_app({"SECRET_KEY": "bench", "SQLALCHEMY_DATABASE_URI": url, "LISTOK_ROLE": "federation"})
    t0 = time.perf_counter()
    pool = make_players(args.players + args.players // 10, seed=1)
    files = [exchange.dump(play_tournament(pool[k % 7:k % 7 + args.players], seed=k, name=f"SEM {k + 1}",
                                           date=f"2026-{k % 12 + 1:02d}-15")) for k in range(args.tournaments)]
    with app.app_context():
        db.create_all()
        f = Federation(code="bench", name="Bench")
        db.session.add(f)
        db.session.flush()
        v = Venue(name="Bench venue", federation_id=f.id)
        s = Season(federation_id=f.id, ruleset="sem", name="bench")
        db.session.add_all([v, s])
        db.session.flush()
        for text in files:
            svc.receive(text, season=s, venue=v, source="import", actor="bench")
        db.session.commit()
        sid = s.id
    print(f"{args.tournaments} tournaments × {args.players} players stored in {time.perf_counter() - t0:.1f} s")
    client = app.test_client()
    page = f"/seasons/{sid}/"
    trivial = "/healthz" if client.get("/healthz").status_code == 200 else "/static/css/listok.css"

    def cold():
        with app.app_context():  # a new version: what arrives with every tournament or roster change
            svc.bump_season(db.session.get(Season, sid))
            db.session.commit()
        r = client.get(page)
        assert r.status_code == 200

    def warm():
        assert client.get(page).status_code == 200

    etag = client.get(page).headers["ETag"]

    def revalidated():
        assert client.get(page, headers={"If-None-Match": etag}).status_code == 304

    def base():
        assert client.get(trivial).status_code == 200

    cold_ms = timed(cold, max(3, args.repeat // 10))
    etag = client.get(page).headers["ETag"]
    warm_ms, hit_ms, base_ms = timed(warm, args.repeat), timed(revalidated, args.repeat), timed(base, args.repeat)
    size = len(client.get(page).data)
    print(f"season table page ({size // 1024} KiB), median of runs:")
    for label, ms in (("cold (computed and rendered)", cold_ms), ("cached (rendered page kept)", warm_ms),
                      ("revalidated (304 by ETag)", hit_ms), (f"trivial endpoint {trivial}", base_ms)):
        print(f"  {label:32} {ms:8.2f} ms   {ms / base_ms:7.1f} × trivial")


if __name__ == "__main__":
    main()
