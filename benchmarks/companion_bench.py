"""My tournament on 400 phones: every player's page polls its part every 15 s
(with the ETag it last got, as the browser's cache does) through a round and
the change to the next round, against the trivial /healthz polled by the same
400 clients at the same rate in the same run.

    python benchmarks/companion_bench.py [--players 400] [--seconds 60] [--interval 15] [--database-url URL]

A venue (benchmarks/venue.py: rounds 1 and 2 closed, round 3 published; the
field rounded up to tables of 3) is
served by `listok serve` (waitress, one process, 8 threads) in a process of
its own. Phase 1 polls /healthz, phase 2 /t/<id>/me/<start no>/now; halfway
through phase 2 every sheet of round 3 comes in at the desk, round 3 closes
and round 4 is drawn and published (each player's next table appears in
their next poll). Printed per phase: the server's CPU seconds per minute
(from /proc), p95 and p99 latency, answers by status, and phase 2's CPU as a
multiple of phase 1's.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import venue  # noqa: E402
from tests.pgschema import temporary_schema  # noqa: E402


def poll(server: venue.ServerProcess, paths: list[str], seconds: float, interval: float, workers: int,
         midway=None) -> dict:
    """Each path a phone asking every `interval` s (first ask spread over one interval) for `seconds`;
    `midway()` runs once at half time. CPU seconds per minute, latencies, statuses."""
    rng = random.Random(3)
    due = sorted((rng.uniform(0, interval), i) for i in range(len(paths)))
    etags: dict[int, str] = {}
    lat: list[float] = []
    statuses: dict[int, int] = {}
    lock = threading.Lock()
    start = time.perf_counter()
    cpu0 = server.cpu()
    done_midway = threading.Event()

    def worker():
        while True:
            with lock:
                if not due:
                    return
                at, i = due.pop(0)
            wait = start + at - time.perf_counter()
            if at > seconds:
                return
            if wait > 0:
                time.sleep(wait)
            if midway and at > seconds / 2 and not done_midway.is_set():
                with lock:
                    first = not done_midway.is_set()
                    done_midway.set()
                if first:
                    midway()
            headers = {"If-None-Match": etags[i]} if i in etags else {}
            t0 = time.perf_counter()
            try:
                status, _b, answer = venue.get(server.port, paths[i], headers=headers)
            except OSError:
                status, answer = 0, {}
            ms = (time.perf_counter() - t0) * 1000
            tag = {k.lower(): v for k, v in answer.items()}.get("etag")
            with lock:
                lat.append(ms)
                statuses[status] = statuses.get(status, 0) + 1
                if tag:
                    etags[i] = tag
                due.append((at + interval, i))
                due.sort()

    threads = [threading.Thread(target=worker) for _ in range(workers)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    wall = time.perf_counter() - start
    cpu = server.cpu() - cpu0
    return {"cpu_per_min": cpu / wall * 60, "p95": venue.pct(lat, 95), "p99": venue.pct(lat, 99),
            "requests": len(lat), "statuses": statuses, "wall": wall}


def round_change(url: str, tid: int):
    """Every sheet of the round being played in at the desk, the round closed, the next drawn and published."""
    def change():
        from webapp import create_app
        from webapp.extensions import db
        from webapp.models import Tournament
        from webapp.services import rounds
        from webapp.demo.simulate import table_sums

        t0 = time.perf_counter()
        app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": venue.SECRET})
        rng = random.Random(9)
        with app.app_context():
            t = db.session.get(Tournament, tid)
            r = t.rounds[-1]
            for tab in r.tables:
                if tab.sheet is None:
                    rounds.record_sheet(t, tab, list(table_sums(rng)), "bench")
            rounds.close_round(t, r, "bench", t.version)
            nxt = rounds.draw_round(t, "bench")
            rounds.publish_round(t, nxt, "bench", t.version)
            db.session.commit()
            db.session.remove()
        print(f"  (round change at the desk: {time.perf_counter() - t0:.1f} s)")
    return change


def report(name: str, m: dict, base: dict | None) -> None:
    codes = ",".join(f"{k}×{v}" for k, v in sorted(m["statuses"].items()))
    ratio = f"   = {m['cpu_per_min'] / base['cpu_per_min']:5.1f} × trivial" if base and base["cpu_per_min"] else ""
    print(f"  {name:34s} CPU {m['cpu_per_min']:6.2f} s/min   p95 {m['p95']:7.1f} ms   p99 {m['p99']:7.1f} ms   "
          f"{m['requests']} requests [{codes}]{ratio}")


def run(url: str, label: str, players: int, seconds: float, interval: float, workers: int) -> None:
    field = -(-players // 3) * 3  # SEM seats tables of 3: the field rounded up, `players` of them polling
    tid, _bodies = venue.make_venue(url, field, bodies=False, seed=5)
    print(f"\n[{label}, listok serve (waitress, 1 process, 8 threads), {players} phones every {interval:g} s, "
          f"{seconds:g} s per phase]")
    with venue.ServerProcess("listok", url, threads=8) as server:
        me = [f"/t/{tid}/me/{n}/now" for n in range(1, players + 1)]
        for path in me[:3]:  # warm: templates compiled
            assert venue.get(server.port, path)[0] == 200, path
        trivial = poll(server, ["/healthz"] * players, seconds, interval, workers)
        report("trivial /healthz", trivial, None)
        mine = poll(server, me, seconds, interval, workers, midway=round_change(url, tid))
        report("my tournament (round change midway)", mine, trivial)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=400)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--interval", type=float, default=15.0)
    ap.add_argument("--workers", type=int, default=32, help="client threads")
    ap.add_argument("--database-url", default=os.environ.get("TEST_DATABASE_URL"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run(f"sqlite:///{tmp}/companion.db", "SQLite", args.players, args.seconds, args.interval, args.workers)
    if args.database_url:
        with temporary_schema(args.database_url, "bench") as url:
            run(url, "PostgreSQL", args.players, args.seconds, args.interval, args.workers)


if __name__ == "__main__":
    main()
