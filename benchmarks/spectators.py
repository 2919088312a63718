"""Spectators at full speed: the public pages hundreds of phones and the hall
screen keep open, against a trivial endpoint of the same server.

    python benchmarks/spectators.py [--players 420] [--seconds 4] [--clients 16] [--database-url URL]

A venue of 420 players (rounds 1 and 2 closed, round 3 being played) is made
through the services; the server is a process of its own: `listok serve`
(waitress, one process) on SQLite and on PostgreSQL, and with
--database-url or TEST_DATABASE_URL also gunicorn with 4 workers
(webapp/serve/gunicorn_conf.py) on PostgreSQL. For each page, `clients` threads ask
it back to back for `seconds` (loopback only, then it stops): requests/s, p99,
and the server's CPU per request (from /proc, all workers) — as a plain GET
(a visitor without a cache) and as a revalidation with the ETag the page gave
(a proxy's or a browser's cache: If-None-Match), each divided by /healthz's.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import venue  # noqa: E402
from tests.pgschema import temporary_schema  # noqa: E402


def hammer(port: int, path: str, seconds: float, clients: int, headers: dict | None = None):
    """(requests/s, p99 ms, statuses) of `clients` threads asking `path` back to back; with an
    If-None-Match, each thread sends the ETag of the last page it got, as a cache does."""
    lat: list[float] = []
    statuses: dict[int, int] = {}
    lock = threading.Lock()
    deadline = time.perf_counter() + seconds

    def loop():
        mine, seen = [], {}
        mine_headers = dict(headers or {})
        while time.perf_counter() < deadline:
            t0 = time.perf_counter()
            try:
                status, _b, answer = venue.get(port, path, timeout=30, headers=mine_headers)
            except OSError:
                status = 0
            if status == 200 and "If-None-Match" in mine_headers:
                # as a browser's cache: the page changed (the projector's clock moves every 5 s), keep the new ETag
                mine_headers["If-None-Match"] = {k.lower(): v for k, v in answer.items()}.get("etag", "")
            mine.append((time.perf_counter() - t0) * 1000)
            seen[status] = seen.get(status, 0) + 1
        with lock:
            lat.extend(mine)
            for k, v in seen.items():
                statuses[k] = statuses.get(k, 0) + v

    threads = [threading.Thread(target=loop) for _ in range(clients)]
    t0 = time.perf_counter()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    wall = time.perf_counter() - t0
    return len(lat) / wall, venue.pct(lat, 99), statuses, len(lat)


def measure(server: venue.ServerProcess, label: str, pages: list[tuple[str, str]], seconds: float,
            clients: int) -> None:
    print(f"\n[{label}]")
    rows = []
    for name, path in [("trivial /healthz", "/healthz")] + pages:
        status, _body, headers = venue.get(server.port, path)  # warm: templates compiled, caches filled
        assert status == 200, (path, status)
        etag = {k.lower(): v for k, v in headers.items()}.get("etag")
        for mode, extra in (("GET", None), ("revalidate", {"If-None-Match": etag} if etag else None)):
            if mode == "revalidate" and extra is None:
                continue
            cpu0 = server.cpu()
            rps, p99, statuses, count = hammer(server.port, path, seconds, clients, extra)
            cpu = (server.cpu() - cpu0) / max(1, count)
            rows.append((name, mode, rps, p99, cpu, statuses))
    base = next(r for r in rows if r[0].startswith("trivial"))[4]
    for name, mode, rps, p99, cpu, statuses in rows:
        codes = ",".join(f"{k}×{v}" for k, v in sorted(statuses.items()))
        print(f"  {name:22s} {mode:10s} {rps:8.1f} req/s   p99 {p99:7.1f} ms   CPU {cpu * 1000:6.2f} ms/request "
              f"= {cpu / base if base else float('nan'):6.1f} × trivial   [{codes}]")


def run(url: str, label: str, n_players: int, seconds: float, clients: int, gunicorn: bool) -> None:
    tid, _bodies = venue.make_venue(url, n_players, bodies=False, seed=5)
    pages = [("standings", f"/t/{tid}/standings"), ("projector", f"/t/{tid}/projector"),
             ("seating", f"/t/{tid}/seating"), ("player page", f"/t/{tid}/player/7")]
    with venue.ServerProcess("listok", url, threads=8) as server:
        if venue.get(server.port, pages[2][1])[0] == 404:  # before the seating page existed
            pages[2] = ("seating (projector)", pages[1][1])
        measure(server, f"{label}, listok serve (waitress, 1 process, 8 threads), {n_players} players", pages,
                seconds, clients)
    if gunicorn:
        with venue.ServerProcess("gunicorn", url, threads=4, workers=4) as server:
            measure(server, f"{label}, gunicorn (4 workers × 4 threads), {n_players} players", pages, seconds,
                    clients)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=420)
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--database-url", default=os.environ.get("TEST_DATABASE_URL"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run(f"sqlite:///{tmp}/spectators.db", "SQLite", args.players, args.seconds, args.clients, False)
    if args.database_url:
        with temporary_schema(args.database_url, "bench") as url:
            run(url, "PostgreSQL", args.players, args.seconds, args.clients,
                (Path(venue.ROOT) / "webapp" / "serve" / "gunicorn_conf.py").exists())


if __name__ == "__main__":
    main()
