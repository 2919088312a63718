"""Phones sending signed sheets to the venue server over a bad network.

    python benchmarks/sync_bench.py [--phones 130] [--drop 0.2] [--database-url URL] [--scrypt-pins]
                                    [--pins arrival|proofs|both] [--threads 8] [--workers N]
                                    [--backends sqlite,postgresql] [--readers 14] [--no-pages] [--no-browser]

The server is a process of its own: `listok serve --threads 8` on a database
migrated like a venue's (rounds 1 and 2 closed, round 3 being played, one table
per phone). Between the phones and it, a proxy (tests/browser/netproxy.py)
loses 20 % of the answers to POST /api/v1/sheets AFTER the server answered.
Each phone (a thread, released together) retries like outbox.js: the same
idempotency key, a 20 s timeout, back-off 0.5 s doubling to 60 s (±25 %), a
503's ticket (retry_after_ms) kept with up to 10 % jitter. While they send, 8 table-state polls
(GET /api/v1/table), 4 standings and 2 projector readers (--readers: another
number, in those proportions) ask the server directly. In the same run, the yardstick: benchmarks/bare_app.py (a bare
Flask POST, one INSERT + commit) under the same waitress with the same
threads, through the same proxy. Printed per backend (SQLite in a temp file;
PostgreSQL with --database-url or TEST_DATABASE_URL, in a schema of its own):
sheets stored (must be n), duplicates (must be 0), replays, 503s, timeouts,
confirmation p50/p95 from a phone's first try, throughput and its ratio to
the bare app, the server's CPU per sheet (from /proc), the CPU of a replay
against a bare POST's, the readers' p50/p95 during the burst, and the
server's RSS before and after the burst. --pins proofs: sheets signed online
(PIN proofs instead of PINs). --workers N: both servers, listok and the bare
app, under gunicorn (webapp/serve/gunicorn_conf.py) with N workers and the same
threads, the deployment for PostgreSQL (docs/DEPLOY.md).

Then the table page's transferred size in Debian's chromium at 360 px (bytes
that crossed the proxy, headers included): the first load, and two repeat
loads (the QR code scanned again) with the service worker in control (the
page and its assets from its cache: the figure is what still crossed the
network for them, target 0), with the page's GET /api/v1/table state request
and the browser's own check for a new worker (/sw.js) printed apart. Also
the page + assets with gzip only, as plain HTTP would fetch them, and the
cost of the table state request the open pages poll.
"""
from __future__ import annotations

import argparse
import gzip
import http.client
import json
import logging
import os
import random
import re
import statistics
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.venue import drawing, pct  # noqa: E402

from sqlalchemy import func, select  # noqa: E402
from waitress.server import create_server  # noqa: E402
from werkzeug.security import generate_password_hash  # noqa: E402

from webapp.services import pins as pin_service  # noqa: E402

from tests.browser.netproxy import FlakyProxy  # noqa: E402
from benchmarks import venue  # noqa: E402
from tests.pgschema import temporary_schema  # noqa: E402
from webapp import create_app  # noqa: E402
from webapp.extensions import db  # noqa: E402
from webapp.models import Player, Round, Sheet, Submission, Tournament  # noqa: E402
from webapp.services import rounds  # noqa: E402
from webapp.services.pins import pin_proof  # noqa: E402
from webapp.services.tokens import table_token  # noqa: E402
from webapp.demo.simulate import make_players, table_sums  # noqa: E402
from webapp.sync.protocol import Content  # noqa: E402

CONFIRMED = {"accepted", "needs-referee", "dispute"}
SCRYPT = "scrypt:16384:8:1"  # what databases made before keyed verifiers hold


class Served:
    """The app under waitress on 127.0.0.1, in a thread."""

    def __init__(self, app, threads: int = 8):
        self.server = create_server(app, host="127.0.0.1", port=0, threads=threads)
        self.closing = False
        self.thread = threading.Thread(target=self._run, name="waitress", daemon=True)

    def _run(self):
        try:
            self.server.run()
        except OSError:
            if not self.closing:  # closing the sockets under the loop's select() is the way out
                raise

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.effective_port}"

    def __enter__(self):
        logging.getLogger("waitress").setLevel(logging.ERROR)
        logging.getLogger("waitress.queue").setLevel(logging.ERROR)  # "task queue depth": 130 phones at once
        self.thread.start()
        return self

    def __exit__(self, *exc):
        logging.getLogger("waitress").setLevel(logging.CRITICAL)  # a request cut off by the close is expected
        self.closing = True
        self.server.close()
        self.thread.join(timeout=5)


def setup(app, n_tables: int, scrypt_pins: bool, proofs: bool = False) -> tuple[int, list[dict]]:
    """A published round 1 with one table per phone, PINs, and each table's signed sheet."""
    rng = random.Random(11)
    with app.app_context():
        db.create_all()
        t = Tournament(name="Sync bench", ruleset="sem")
        for p in make_players(n_tables * 3, seed=11):
            t.players.append(Player(start_no=p.start_no, reg_id=p.id, name=p.name, club=p.club, status=p.status,
                                    rating=p.rating, present=True))
        db.session.add(t)
        db.session.commit()
        pins = {p.start_no: f"{rng.randrange(10000):04d}" for p in t.players}
        if scrypt_pins:  # hashed on both cores (scrypt releases the GIL)
            with ThreadPoolExecutor(4) as pool:
                hashes = dict(zip(pins, pool.map(lambda pin: generate_password_hash(pin, method=SCRYPT),
                                                 pins.values())))
        else:  # as services.pins.issue_pin stores them
            key = pin_service.pepper(t.id, t.pin_salt)
            hashes = {s: pin_service.verifier(key, t.id, s, pin) for s, pin in pins.items()}
        for p in t.players:
            p.pin_hash = hashes[p.start_no]
        r = rounds.draw_round(t, "bench")
        rounds.publish_round(t, r, "bench", t.version)
        db.session.commit()
        bodies = []
        with app.test_request_context():
            for tab in r.tables:
                sums = [int(s * 100) for s in table_sums(rng)]
                content = Content(tournament=t.id, round=1, table=tab.number, players=tuple(tab.players),
                                  sums_cents=tuple(sums), note="posledná hra: betl, platil 2,40" if min(sums) < 0
                                  else "")
                h = content.hash
                bodies.append({
                    "token": table_token(t.id, 1, tab.number), "idempotency_key": str(uuid.uuid4()),
                    "content": content.as_dict(), "content_hash": h,
                    "signatures": [{"start_no": s, "pin": pins[s], "hash": h, "drawing": drawing(rng),
                                    "signed_at": "2026-03-14T10:51:02Z",
                                    **({"pin_proof": pin_proof(t.id, s, h, hashes[s])} if proofs else {})}
                                   for s in tab.players]})
        return t.id, bodies


def phone(proxy_port: int, path: str, body: dict, start: threading.Barrier, out: list, i: int) -> None:
    """Send one signed sheet until the server confirms it, always with the same key,
    as outbox.js does: 20 s timeout, back-off 0.5 s doubling to 60 s (±25 %), a
    503's ticket (retry_after_ms) kept with up to 10 % jitter."""
    payload = json.dumps(body, ensure_ascii=False).encode()
    rng = random.Random(i)
    start.wait()
    t0 = time.perf_counter()
    tries = errors = timeouts = busy = 0
    first = None
    while True:
        tries += 1
        retry_after = None
        try:
            status, answer, retry_after = venue.post_json(proxy_port, path, payload)
        except TimeoutError:
            status, answer = None, None
            timeouts += 1
        except (OSError, http.client.HTTPException):
            status, answer = None, None
        if first is None and status != 503:
            first = time.perf_counter()  # the server has answered the first try (the proxy may drop it)
        if answer and answer.get("status") in CONFIRMED:
            out[i] = {"latency": time.perf_counter() - t0, "tries": tries, "errors": errors, "timeouts": timeouts,
                      "busy": busy, "first": first, "receipt": answer["receipt"], "status": answer["status"],
                      "replay": bool(answer.get("replay")), "table": body["content"]["table"]}
            return
        if status == 503:
            busy += 1
        elif status is not None and status >= 500:
            errors += 1
        elif status is not None:
            out[i] = {"error": answer, "tries": tries, "table": body["content"]["table"]}
            return
        if time.perf_counter() - t0 > 600:
            out[i] = {"error": "gave up after 600 s", "tries": tries, "table": body["content"]["table"]}
            return
        busy_answer = status == 503 and isinstance(answer, dict)
        time.sleep(venue.phone_delay(tries, rng, retry_after if status == 503 else None,
                                     answer.get("retry_after_ms") if busy_answer else None))


def pollers(port: int, paths: list[str], stop: threading.Event, out: dict, every: float = 0.5) -> list:
    """Readers during the burst: each path asked in its own loop, straight to the server."""
    def loop(name: str, path: str) -> None:
        rng = random.Random(path)
        while not stop.is_set():
            t0 = time.perf_counter()
            try:
                status, _b, _h = venue.get(port, path, timeout=60)
            except OSError:
                status = None
            out.setdefault(name, []).append(((time.perf_counter() - t0) * 1000, status))
            stop.wait(every * rng.uniform(0.5, 1.5))

    threads = [threading.Thread(target=loop, args=(name, path), daemon=True) for name, path in paths]
    for th in threads:
        th.start()
    return threads


def burst(server: venue.ServerProcess, path: str, bodies: list[dict], drop: float,
          poll_paths: list[tuple[str, str]] = ()) -> dict:
    """All phones released together through the dropping proxy; readers polling alongside."""
    proxy = FlakyProxy(server.base, drop_rate=drop, seed=7, drop_paths=(path,)).start()
    n = len(bodies)
    polls: dict = {}
    stop = threading.Event()
    try:
        out: list[dict | None] = [None] * n
        barrier = threading.Barrier(n + 1)
        threads = [threading.Thread(target=phone, args=(proxy.server.server_port, path, b, barrier, out, i))
                   for i, b in enumerate(bodies)]
        for th in threads:
            th.start()
        readers = pollers(server.port, list(poll_paths), stop, polls)
        cpu0 = server.cpu()
        barrier.wait()
        t0 = time.perf_counter()
        for th in threads:
            th.join()
        wall = time.perf_counter() - t0
        served = max((o["first"] for o in out if o and o.get("first")), default=t0 + wall) - t0
        stop.set()
        for th in readers:
            th.join(timeout=70)
        cpu = server.cpu() - cpu0
    finally:
        proxy.stop()
    ok = [o for o in out if o and "latency" in o]
    return {"out": out, "ok": ok, "wall": wall, "served": served, "cpu": cpu, "dropped": proxy.dropped, "polls": polls}


def sequential_cpu(server: venue.ServerProcess, path: str, payloads: list[bytes], rounds: int = 2) -> float:
    """Server CPU seconds per request, requests sent one after another straight to the server."""
    cpu0 = server.cpu()
    count = 0
    for _r in range(rounds):
        for payload in payloads:
            venue.post_json(server.port, path, payload, timeout=60)
            count += 1
    return (server.cpu() - cpu0) / count


def stored_sheets(url: str, tid: int) -> tuple[int, int, dict, int]:
    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": venue.SECRET})
    with app.app_context():
        r = db.session.scalar(select(Round).where(Round.tournament_id == tid).order_by(Round.number.desc()))
        stored = db.session.scalars(select(Sheet).where(Sheet.table_id.in_([tab.id for tab in r.tables]))).all()
        per_table: dict[int, list] = {}
        for s in stored:
            per_table.setdefault(s.table.number, []).append(s.receipt)
        submissions = db.session.scalar(select(func.count()).select_from(Submission))
        db.session.remove()
        db.engine.dispose()
    return len(stored), sum(len(v) - 1 for v in per_table.values()), per_table, submissions


def run_submissions(url: str, label: str, n: int, drop: float, scrypt_pins: bool, proofs: bool,
                    threads: int = 8, repeat: int = 3, workers: int = 0, readers: int = 14) -> dict:
    """One backend: the bare yardstick and `listok serve`, each a process of its own, in this run.
    `repeat` pairs of bursts (the bare app's, then listok's, n phones each, listok's on tables of a
    tournament of their own): a burst lasts well under a second, so one pair's ratio swings with
    whatever else the machine does; the median pair's is printed with the range. The first
    tournament's round has 2n tables: n phones send alone (its sheets are checked afterwards), then
    the other n with readers polling."""
    tid, all_bodies = venue.make_venue(url, 2 * n * 3, proofs=proofs, scrypt_pins=scrypt_pins)
    bodies, read_bodies = all_bodies[:n], all_bodies[n:]
    venues = [(tid, bodies)] + [venue.make_venue(url, n * 3, seed=11 + k, proofs=proofs, scrypt_pins=scrypt_pins)
                                for k in range(1, repeat)]
    states, standings = round(readers * 8 / 14), round(readers * 4 / 14)  # 8, 4 and 2 of the default 14
    polls = [(f"table state {i}", f"/api/v1/table?token={read_bodies[i * n // states]['token']}")
             for i in range(states)]
    polls += [(f"standings {i}", f"/t/{tid}/standings") for i in range(standings)]
    polls += [(f"projector {i}", f"/t/{tid}/projector") for i in range(readers - states - standings)]
    kinds = ("bare-gunicorn", "gunicorn") if workers else ("bare", "listok")
    with venue.ServerProcess(kinds[0], url, threads=threads, workers=workers) as bare, \
            venue.ServerProcess(kinds[1], url, threads=threads, workers=workers) as server:
        # templates compiled and the pages of the closed rounds rendered, as after any first visitor: in
        # every process (a worker's first standings are computed while the others' are kept)
        warm = [f"/t/{tid}/standings", f"/t/{tid}/projector", f"/api/v1/table?token={bodies[0]['token']}"]
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda path: venue.get(server.port, path), warm * 4 * max(workers, 1)))
        rss_rest = server.rss_mb()
        pairs = []
        for k, (_tid, listok_bodies) in enumerate(venues):
            bare_run = burst(bare, "/bare", [{**b, "idempotency_key": str(uuid.uuid4())} for b in listok_bodies],
                             drop)
            run = burst(server, "/api/v1/sheets", listok_bodies, drop)
            pairs.append((run, bare_run))
            if k == 0:
                time.sleep(2)
                rss_after = server.rss_mb()
        bare_cpu = sequential_cpu(bare, "/bare", [json.dumps({**b, "idempotency_key": str(uuid.uuid4())}).encode()
                                                  for b in bodies])
        replay_cpu = sequential_cpu(server, "/api/v1/sheets",
                                    [json.dumps(b, ensure_ascii=False).encode() for b in bodies])
        read_run = burst(server, "/api/v1/sheets", read_bodies, drop, polls)
        time.sleep(2)
        rss_end = server.rss_mb()
    ratios = sorted(((len(r["ok"]) / r["served"]) / (len(b["ok"]) / b["served"]), i)
                    for i, (r, b) in enumerate(pairs))
    run, bare_run = pairs[ratios[len(ratios) // 2][1]]
    n_stored = duplicates = submissions = 0
    errors, mismatched = [], []
    for (vid, _b), (r, _bare) in zip(venues, pairs):  # every burst's sheets, each exactly once
        stored, dup, receipts, keys = stored_sheets(url, vid)
        n_stored, duplicates, submissions = n_stored + stored, duplicates + dup, keys
        errors += [o for o in r["out"] if not o or "error" in o]
        mismatched += [(vid, o["table"]) for o in r["ok"] if receipts.get(o["table"]) != [o["receipt"]]]
    n_stored -= len(read_run["ok"])
    ok = run["ok"]
    every = [o for r, _bare in pairs for o in r["ok"]]
    lat = [o["latency"] * 1000 for o in ok]
    pins = ("PIN proofs from signing online" if proofs else
            "PINs checked on arrival: " + ("scrypt (an older database)" if scrypt_pins else "keyed verifiers")
            + ", 3 per sheet")
    tput, bare_tput = len(ok) / run["served"], len(bare_run["ok"]) / bare_run["served"]
    print(f"\n[{label}] {n} phones, {drop:.0%} of sheet answers lost after the server answered ({pins}); "
          "server: " + (f"gunicorn (webapp/serve/gunicorn_conf.py) --workers {workers} --threads {threads}, the bare "
                        "app under the same configuration" if workers else
                        f"listok serve --threads {threads}, a process of its own"))
    print(f"  sheets stored        {n_stored:6d}   (must be {n * len(pairs)}: {len(pairs)} bursts)")
    print(f"  duplicates           {duplicates:6d}   (must be 0)")
    print(f"  submission keys      {submissions:6d}")
    print(f"  answers lost         {run['dropped']:6d}   ({sum(o['tries'] for o in run['out'] if o)} tries in all)")
    print(f"  replayed answers     {sum(1 for o in ok if o['replay']):6d}")
    print(f"  busy answers (503)   {sum(o['busy'] for o in every):6d}   (their tickets kept; in all bursts)")
    print(f"  phone timeouts (20 s){sum(o['timeouts'] for o in every):6d}   (in all bursts)")
    print(f"  server errors (5xx)  {sum(o.get('errors', 0) for o in every):6d}   (retried like a lost answer)")
    print(f"  receipts that differ {len(mismatched):6d}   (phone vs. database, must be 0)")
    print(f"  phones not confirmed {len(errors):6d}   {errors[:2] if errors else ''}")
    bare_lat = [o["latency"] * 1000 for o in bare_run["ok"]]
    if lat:
        print(f"  confirmation p50 {statistics.median(lat):8.1f} ms   p95 {pct(lat, 95):8.1f} ms   "
              f"max {max(lat):8.1f} ms")
        print(f"  bare Flask, the same phones: p50 {statistics.median(bare_lat):8.1f} ms   p95 "
              f"{pct(bare_lat, 95):8.1f} ms   max {max(bare_lat):8.1f} ms   (what the back-off alone costs)")
    print(f"  throughput  {tput:8.1f} sheets/s   (every first try answered after {run['served']:.2f} s, all "
          f"confirmed after {run['wall']:.2f} s); bare Flask POST + INSERT + commit {bare_tput:.1f}/s "
          f"({bare_run['served']:.2f} s, {bare_run['wall']:.2f} s): ratio {tput / bare_tput:6.1%}")
    print(f"  ratio in {len(ratios)} pairs of bursts: " + ", ".join(f"{r:.1%}" for r, _i in ratios)
          + " (the median pair's figures above and below)")
    print(f"  server CPU per sheet in the burst {run['cpu'] / n * 1000:6.1f} ms; bare "
          f"{bare_run['cpu'] / n * 1000:.1f} ms")
    print(f"  replay of a stored sheet: {replay_cpu * 1000:6.2f} ms CPU; bare POST {bare_cpu * 1000:.2f} ms: "
          f"ratio {replay_cpu / bare_cpu:5.2f} x")
    for kind in ("table state", "standings", "projector"):
        values = [ms for name, v in read_run["polls"].items() if name.startswith(kind) for ms, _s in v]
        bad = sum(1 for name, v in read_run["polls"].items() if name.startswith(kind) for _ms, s in v if s != 200)
        print(f"  {kind:12s} polled during a second burst of {n}: {len(values):4d} requests, p50 "
              f"{statistics.median(values) if values else float('nan'):7.1f} ms, p95 {pct(values, 95):7.1f} ms"
              f"{f', {bad} not 200' if bad else ''}")
    read_lat = [o["latency"] * 1000 for o in read_run["ok"]]
    print(f"  second burst (with the readers): {len(read_run['ok'])} confirmed, p95 {pct(read_lat, 95):8.1f} ms, "
          f"{sum(o['busy'] for o in read_run['ok'])} busy answers")
    print(f"  server RSS {rss_rest:6.1f} MB before the burst, {rss_after:6.1f} MB after it, "
          f"{rss_end:6.1f} MB after the second")
    if n_stored != n * len(pairs) or duplicates or mismatched or errors or len(read_run["ok"]) != n:
        raise SystemExit(f"[{label}] FAILED")
    return {"ratio": tput / bare_tput, "p95": pct(lat, 95), "replay": replay_cpu / bare_cpu, "rss": rss_after}


# --------------------------------------------------------------------------- the page's poll


def poll_cost(n_tables: int = 140) -> None:
    """GET /api/v1/table, which an open table page asks every 10 s while its form is
    empty and every 3 s while players sign (own-phone signatures, docs/SYNC.md)."""
    tmp = tempfile.mkdtemp(prefix="listok-bench-")
    app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp}/poll.db", "SECRET_KEY": "bench"})
    _tid, bodies = setup(app, n_tables, scrypt_pins=False)
    client = app.test_client()
    print(f"\n[table state] GET /api/v1/table in-process, SQLite, {n_tables} tables of 3")
    for label, query in (("state", lambda b: {"token": b["token"]}),
                         ("state with a draft's signatures", lambda b: {"token": b["token"],
                                                                        "draft": b["content_hash"]})):
        times = []
        for b in bodies:
            t0 = time.perf_counter()
            assert client.get("/api/v1/table", query_string=query(b)).status_code == 200
            times.append((time.perf_counter() - t0) * 1000)
        print(f"  {label:32s} p50 {statistics.median(times):6.1f} ms   p95 {pct(times, 95):6.1f} ms")


# --------------------------------------------------------------------------- page size


def page_sizes(browser_too: bool) -> None:
    tmp = tempfile.mkdtemp(prefix="listok-bench-")
    app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp}/page.db", "SECRET_KEY": "bench"})
    tid, _bodies = setup(app, 3, scrypt_pins=False)
    with app.test_request_context():
        path = f"/s/{table_token(tid, 1, 1)}"
    with Served(app) as served:
        port = served.server.effective_port
        print("\n[table page] first load over plain HTTP (bytes of the bodies as sent)")
        for enc in ("gzip", "br"):
            total, raw_total, rows = 0, 0, []
            page = _get(port, path, enc)
            html = _decode(page)
            total += len(page[1]); raw_total += len(html)
            rows.append((path.split("?")[0][:14] + "…", len(page[1]), len(html)))
            for asset in re.findall(r'(?:src|href)="(/static/[^"?]+)"', html.decode()):
                resp = _get(port, asset, enc)
                total += len(resp[1]); raw_total += len(_decode(resp))
                rows.append((asset, len(resp[1]), len(_decode(resp))))
            print(f"  Accept-Encoding: {enc:5s} {total / 1024:6.1f} KB transferred ({raw_total / 1024:.1f} KB "
                  f"uncompressed, target under 60 KB)")
            if enc == "gzip":
                for name, sent, raw in rows:
                    print(f"      {name:46s} {sent:7d} B  ({raw} B)")
        if browser_too:
            _browser_sizes(served.url, path)


def _get(port: int, path: str, enc: str):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path, headers={"Accept-Encoding": enc})
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    return resp.getheader("Content-Encoding"), body


def _decode(resp) -> bytes:
    enc, body = resp
    if enc == "gzip":
        return gzip.decompress(body)
    if enc == "br":
        import brotli

        return brotli.decompress(body)
    return body


def _browser_sizes(server_url: str, path: str) -> None:
    from playwright.sync_api import sync_playwright

    from tests.conftest import CHROMIUM, CHROMIUM_ARGS

    proxy = FlakyProxy(server_url).start()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            context = browser.new_context(viewport={"width": 360, "height": 740}, has_touch=True, is_mobile=True)
            page = context.new_page()
            page.goto(proxy.url + path)
            page.wait_for_selector("html[data-offline=ready]", timeout=20_000)
            page.wait_for_function("!!navigator.serviceWorker.controller", timeout=20_000)
            page.wait_for_timeout(3000)  # the worker's own update check after the first load, if any
            first = list(proxy.log)
            second = []
            for _load in range(2):  # the QR code scanned again, twice
                proxy.log.clear()
                page.goto(proxy.url + path)
                page.wait_for_selector("html[data-offline=ready]", timeout=20_000)
                page.wait_for_timeout(2500)  # the state request, and a worker update check were there one
                second.append(list(proxy.log))
            perf = page.evaluate("""(() => {
                const nav = performance.getEntriesByType('navigation')[0];
                const res = performance.getEntriesByType('resource')
                    .filter(e => new URL(e.name).pathname.startsWith('/static/'));
                return {nav: nav.transferSize, worker: nav.workerStart > 0, assets: res.length,
                        assets_bytes: res.reduce((a, e) => a + e.transferSize, 0)}; })()""")
            browser.close()
    finally:
        proxy.stop()

    def show(title, log):
        print(f"  {title}: {sum(b for *_x, b in log) / 1024:6.1f} KB ({sum(b for *_x, b in log)} B) "
              f"in {len(log)} responses")
        for method, p, status, b in log:
            print(f"      {method} {p.split('?')[0][:50]:50s} {status} {b:7d} B")

    print("\n[table page] in chromium at 360 px, bytes that crossed the network (headers included)")
    show("first load (page, assets, service worker and its precache, the page's offline copy)", first)
    print(f"  repeat loads (the QR code scanned again; performance API on the last: navigation transferSize "
          f"{perf['nav']} B, worker: {perf['worker']}, {perf['assets']} assets {perf['assets_bytes']} B)")
    for n, log in enumerate(second, start=1):
        # by who asked: the page and its assets, the page's state request, the browser's check for a
        # new worker (once per registration until /sw.js is older than its max-age; 304 unchanged)
        update = [x for x in log if x[1] == "/sw.js"]
        state = [x for x in log if x[1].startswith("/api/v1/table?")]
        page_and_assets = [x for x in log if x not in update and x not in state]
        print(f"    repeat load {n}: page + assets {sum(x[3] for x in page_and_assets)} B "
              f"({len(page_and_assets)} responses), table state {sum(x[3] for x in state)} B, "
              f"worker update check {sum(x[3] for x in update)} B")


# --------------------------------------------------------------------------- main


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--phones", type=int, default=130)
    ap.add_argument("--drop", type=float, default=0.2)
    ap.add_argument("--database-url", default=os.environ.get("TEST_DATABASE_URL"))
    ap.add_argument("--scrypt-pins", action="store_true", help="the scrypt PIN hashes of an older database")
    ap.add_argument("--pins", choices=("arrival", "proofs", "both"), default="arrival",
                    help="PINs checked when the sheet arrives, PIN proofs from signing online, or both runs")
    ap.add_argument("--threads", type=int, default=8, help="listok serve --threads (and the bare app's)")
    ap.add_argument("--workers", type=int, default=0,
                    help="both servers under gunicorn with this many workers (the many-workers deployment) "
                         "instead of waitress in one process")
    ap.add_argument("--backends", default="sqlite,postgresql", help="which of sqlite,postgresql to run")
    ap.add_argument("--repeat", type=int, default=3, help="pairs of bursts (bare, listok) for the throughput ratio")
    ap.add_argument("--readers", type=int, default=14,
                    help="readers polling during the second burst, each every 0.5 s (table state 8/14, "
                         "standings 4/14, projector the rest)")
    ap.add_argument("--no-pages", action="store_true", help="skip the table page's size and poll cost")
    ap.add_argument("--no-browser", action="store_true", help="skip the chromium page-size measurement")
    args = ap.parse_args()

    for proofs in {"arrival": (False,), "proofs": (True,), "both": (False, True)}[args.pins]:
        options = (args.phones, args.drop, args.scrypt_pins, proofs, args.threads, args.repeat, args.workers,
                   args.readers)
        if "sqlite" in args.backends:
            with tempfile.TemporaryDirectory() as tmp:
                run_submissions(f"sqlite:///{tmp}/sync.db", "SQLite", *options)
        if args.database_url and "postgresql" in args.backends:
            with temporary_schema(args.database_url, "bench") as url:
                run_submissions(url, "PostgreSQL", *options)
    if args.no_pages:
        return
    poll_cost()
    page_sizes(browser_too=not args.no_browser)


if __name__ == "__main__":
    main()
