"""A thousand spectators through the caching proxy (docs/DEPLOY.md, "A caching proxy").

    .venv/bin/python benchmarks/proxy_bench.py [--spectators 1000] [--every 5] [--seconds 30]
                                               [--players 420] [--database-url URL]

One server, as a federation that also hosts a venue runs it: gunicorn with 4 workers
(webapp/serve/gunicorn_conf.py, LISTOK_ROLE=federation) on PostgreSQL (--database-url or
TEST_DATABASE_URL; else SQLite), holding a tournament of `players`
(rounds 1-2 closed, round 3 running) and a season of 6 finished tournaments. Debian's
nginx runs the site `listok proxy-config --plain` writes, in front of it.

Each spectator asks a page every `every` seconds (the standings or the season table,
half each, in one of four languages: the app's Vary keeps a copy per Accept-Language),
for `seconds`. Printed per phase: requests answered, the requests the app was asked
(gunicorn's access log), and the app's CPU (from /proc, all workers) per 1,000 requests
answered. In the same run, with the same server: the trivial `/healthz` through the
proxy (never cached: each request reaches the app) as the yardstick, and the same pages
straight to the app without the proxy.
"""
from __future__ import annotations

import argparse
import http.client
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import venue  # noqa: E402
from tests.pgschema import temporary_schema  # noqa: E402

LANGUAGES = ("sk", "cs", "en;q=0.9, sk;q=0.5", "ru")


def make_season(url: str, n_players: int, tournaments: int = 6) -> int:
    from tests.helpers import make_season as season_of
    from webapp import create_app
    from webapp.extensions import db

    app = create_app({"SECRET_KEY": venue.SECRET, "SQLALCHEMY_DATABASE_URI": url, "LISTOK_ROLE": "federation"})
    sid, _venue = season_of(app, tournaments, n_players, seed=1)
    with app.app_context():
        db.session.remove()
        db.engine.dispose()
    return sid


class Nginx:
    def __init__(self, upstream_port: int, folder: Path):
        from click.testing import CliRunner

        from webapp.cli import main
        from webapp.cli.proxy_config import nginx_main

        self.port = venue.free_port()
        self.folder = folder
        site = folder / "listok-nginx.conf"
        result = CliRunner().invoke(main, ["proxy-config", "--hostname", "localhost", "--plain",
                                           f"127.0.0.1:{self.port}", "--upstream", f"127.0.0.1:{upstream_port}",
                                           "--cache-dir", str(folder / "cache"), "-o", str(site)])
        assert result.exit_code == 0, result.output
        self.conf = folder / "nginx.conf"
        # worker_connections beyond the spectators' connections; one worker, as on a small proxy
        self.conf.write_text(nginx_main(site, folder))

    def __enter__(self):
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        self.proc = subprocess.Popen([nginx, "-p", str(self.folder), "-c", str(self.conf)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while True:
            try:
                if venue.get(self.port, "/healthz")[0] == 200:
                    return self
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("nginx did not start: " + (self.folder / "error.log").read_text()[-2000:])
            time.sleep(0.1)

    def __exit__(self, *exc):
        self.proc.terminate()
        self.proc.wait(timeout=10)

    def cpu(self) -> float:
        tick, total = os.sysconf("SC_CLK_TCK"), 0
        pids = [self.proc.pid]
        try:
            pids += [int(c) for c in Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text().split()]
        except OSError:
            pass
        for pid in pids:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += int(fields[11]) + int(fields[12])
        return total / tick


def spectators(port: int, paths: list[str], n: int, every: float, seconds: float, clients: int = 32):
    """`n` spectators, each asking one of `paths` every `every` seconds (start times spread),
    served by `clients` threads with a connection each. (answered, statuses, late requests)."""
    rng = random.Random(7)
    plan = sorted((rng.uniform(0, every) + k * every, s) for s in range(n) for k in range(int(seconds / every)))
    who = {s: (rng.choice(paths), rng.choice(LANGUAGES)) for s in range(n)}
    lock = threading.Lock()
    statuses: dict[int, int] = {}
    late = [0]
    cursor = [0]
    t0 = time.monotonic()

    def loop():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        seen: dict[int, int] = {}
        while True:
            with lock:
                if cursor[0] >= len(plan):
                    break
                at, s = plan[cursor[0]]
                cursor[0] += 1
            wait = t0 + at - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            elif wait < -1:
                late[0] += 1  # the clients fell behind the schedule by more than a second
            path, lang = who[s]
            try:
                conn.request("GET", path, headers={"Accept-Language": lang})
                r = conn.getresponse()
                r.read()
                status = r.status
            except (OSError, http.client.HTTPException):
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                status = 0
            seen[status] = seen.get(status, 0) + 1
        conn.close()
        with lock:
            for k, v in seen.items():
                statuses[k] = statuses.get(k, 0) + v

    threads = [threading.Thread(target=loop) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(statuses.values()), statuses, late[0], time.monotonic() - t0


def lines(path: Path) -> int:
    try:
        with path.open("rb") as f:
            return sum(1 for _ in f)
    except FileNotFoundError:
        return 0


def run(url: str, label: str, args, folder: Path) -> None:
    tid, _bodies = venue.make_venue(url, args.players, bodies=False, seed=5)
    sid = make_season(url, min(args.players, 120))
    pages = [f"/t/{tid}/standings", f"/seasons/{sid}/"]
    access = folder / "app-access.log"
    kind, workers = "gunicorn", 4
    env = {"LISTOK_ROLE": "federation", "LISTOK_ACCESS_LOG": str(access)}
    with venue.ServerProcess(kind, url, threads=8, workers=workers, extra_env=env) as server, \
            Nginx(server.port, folder) as proxy:
        for path in pages:  # as in a hall already open: templates compiled, the pages rendered once per worker
            for lang in LANGUAGES:
                for _ in range(workers):
                    assert venue.get(server.port, path, headers={"Accept-Language": lang})[0] == 200, path
        how = f"{kind} ({workers} worker{'s' if workers > 1 else ''} × 8 threads)"
        print(f"\n[{label}, {how}; {args.players} players, a season of 6 tournaments; "
              f"{args.spectators} spectators, a page every {args.every:g} s for {args.seconds:g} s]")
        print(f"  {'':34s} {'answered':>9s} {'app asked':>10s} {'app CPU / 1,000':>16s} {'× trivial':>10s} "
              f"{'nginx CPU / 1,000':>18s}")
        base = None
        for name, port, paths in (("/healthz through nginx", proxy.port, ["/healthz"]),
                                  ("standings + season, nginx", proxy.port, pages),
                                  ("standings + season, no proxy", server.port, pages)):
            asked0, cpu0, ncpu0 = lines(access), server.cpu(), proxy.cpu()
            answered, statuses, late, wall = spectators(port, paths, args.spectators, args.every, args.seconds)
            time.sleep(0.5)  # gunicorn writes its access log after the answer
            asked, cpu, ncpu = lines(access) - asked0, server.cpu() - cpu0, proxy.cpu() - ncpu0
            per = cpu / answered * 1000
            base = base or per
            codes = ",".join(f"{k}×{v}" for k, v in sorted(statuses.items()))
            nginx_per = f"{ncpu / answered * 1000:.2f} s" if port == proxy.port else "-"
            print(f"  {name:34s} {answered:9d} {asked:10d} {per:14.2f} s {per / base:10.1f} {nginx_per:>18s}"
                  f"   [{codes}; {answered / wall:.0f}/s{'; late ' + str(late) if late else ''}]")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spectators", type=int, default=1000)
    ap.add_argument("--every", type=float, default=5.0, help="Seconds between a spectator's requests.")
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--players", type=int, default=420)
    ap.add_argument("--database-url", default=os.environ.get("TEST_DATABASE_URL"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.database_url:
            with temporary_schema(args.database_url, "bench") as url:
                run(url, "PostgreSQL", args, Path(tmp))
        else:
            run(f"sqlite:///{tmp}/proxy.db", "SQLite", args, Path(tmp))


if __name__ == "__main__":
    main()
