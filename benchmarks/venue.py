"""What sync_bench.py and spectators.py share: a venue database made through the
services (rounds 1 and 2 closed, round 3 published, keyed PIN verifiers), the
server as a process of its own (`listok serve`, a bare Flask app, gunicorn),
its CPU time and RSS read from /proc, and the phone's retry rules (outbox.js).

Everything listens on and connects to 127.0.0.1 only.
"""
from __future__ import annotations

import http.client
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SECRET = "bench-secret-key-0123456789abcdef0123456789abcdef"
PYTHON = sys.executable
CONFIRMED = {"accepted", "needs-referee", "dispute"}
SEND_TIMEOUT = 20.0  # outbox.js SEND_TIMEOUT
MAX_DELAY = 60.0  # outbox.js MAX_DELAY
FIRST_DELAY = float(os.environ.get("BENCH_FIRST_DELAY", "0.5"))  # outbox.js FIRST_DELAY (2 s, then 1 s before)


def phone_delay(attempts: int, rng: random.Random, retry_after: float | None = None,
                ticket_ms: float | None = None) -> float:
    """outbox.js delay(): a busy server's ticket (retry_after_ms) waited out with up to 10 % jitter; a bare
    Retry-After spread by up to half of it; else FIRST_DELAY doubling to 60 s, ±25 %. Never under
    0.1 s (outbox.js' timer)."""
    if ticket_ms:
        return max(0.1, min(MAX_DELAY, ticket_ms / 1000) * (1 + 0.1 * rng.random()))
    if retry_after:
        return min(MAX_DELAY, retry_after) * (1 + 0.5 * rng.random())
    base = min(MAX_DELAY, FIRST_DELAY * 2 ** max(0, attempts - 1))
    return base * (0.75 + rng.random() * 0.5)


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --------------------------------------------------------------------------- the venue's database


def drawing(rng: random.Random) -> str:
    """A finger signature's path data as the phone sends it: a few strokes, ~150 points."""
    parts = []
    for _ in range(rng.randint(2, 4)):
        x, y = rng.uniform(10, 60), rng.uniform(40, 150)
        pts = []
        for _ in range(rng.randint(30, 60)):
            x, y = x + rng.uniform(1, 6), min(180, max(5, y + rng.uniform(-9, 9)))
            pts.append(f"{x:.1f} {y:.1f}")
        parts.append("M " + pts[0] + " L " + " ".join(pts[1:]))
    return " ".join(parts)


def make_venue(url: str, n_players: int, *, seed: int = 11, closed_rounds: int = 2,
               bodies: bool = True, proofs: bool = False, scrypt_pins: bool = False):
    """Migrate `url` to head (as `listok db upgrade`), then a tournament with
    `closed_rounds` rounds played at the desk and closed, the next round drawn and
    published, a PIN per player, and (with `bodies`) each table's signed sheet of
    that round as a phone sends it. Returns (tournament id, bodies)."""
    from werkzeug.security import generate_password_hash

    from webapp import create_app
    from webapp.extensions import db
    from webapp.models import Player, Tournament
    from webapp.cli.server import upgrade_database
    from webapp.services import pins as pin_service, rounds
    from webapp.services.loaders import load_tournament
    from webapp.services.tokens import table_token
    from webapp.demo.simulate import make_players, table_sums
    from webapp.sync.protocol import Content
    from sqlalchemy import text

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": SECRET})
    upgrade_database(app)
    rng = random.Random(seed)
    with app.app_context():
        t = Tournament(name="Bench venue", ruleset="sem")
        for p in make_players(n_players, seed=seed):
            t.players.append(Player(start_no=p.start_no, reg_id=p.id, name=p.name, club=p.club, status=p.status,
                                    rating=p.rating, present=True))
        db.session.add(t)
        db.session.commit()
        tid = t.id
        pins = {p.start_no: f"{rng.randrange(10000):04d}" for p in t.players}
        if scrypt_pins:
            hashes = {s: generate_password_hash(pin, method="scrypt:16384:8:1") for s, pin in pins.items()}
        else:
            key = pin_service.pepper(t.id, pin_service.tournament_salt(t.id))
            hashes = {s: pin_service.verifier(key, t.id, s, pin) for s, pin in pins.items()}
        for p in t.players:
            p.pin_hash = hashes[p.start_no]
        db.session.commit()
        for _k in range(closed_rounds):
            t = load_tournament(tid)
            r = rounds.draw_round(t, "bench")
            rounds.publish_round(t, r, "bench", t.version)
            for tab in r.tables:
                rounds.record_sheet(t, tab, list(table_sums(rng)), "bench")
            rounds.close_round(t, r, "bench", t.version)
            db.session.commit()
            db.session.expire_all()
        t = load_tournament(tid)
        r = rounds.draw_round(t, "bench")
        rounds.publish_round(t, r, "bench", t.version)
        rounds.start_clock(t, r, "bench")
        db.session.commit()
        out = []
        if bodies:
            from webapp.services.pins import pin_proof

            with app.test_request_context():
                for tab in r.tables:
                    sums = [int(s * 100) for s in table_sums(rng)]
                    c = Content(tournament=tid, round=r.number, table=tab.number, players=tuple(tab.players),
                                sums_cents=tuple(sums),
                                note="posledná hra: betl, platil 2,40" if min(sums) < 0 else "")
                    h = c.hash
                    out.append({
                        "token": table_token(tid, r.number, tab.number), "idempotency_key": str(uuid.uuid4()),
                        "content": c.as_dict(), "content_hash": h,
                        "signatures": [{"start_no": s, "pin": "" if proofs else pins[s], "hash": h,
                                        "drawing": drawing(rng), "signed_at": "2026-03-14T10:51:02Z",
                                        **({"pin_proof": pin_proof(tid, s, h, hashes[s])} if proofs else {})}
                                       for s in tab.players]})
        if db.engine.dialect.name == "postgresql":
            # as at a real round's end: autovacuum analyses a table a minute after 10 % of it changed, and a
            # round lasts 50; with no statistics the planner walks every table of the tournament to check a
            # new receipt (0.9 ms a sheet, inside the tournament's lock)
            db.session.execute(text("ANALYZE"))
            db.session.commit()
        db.session.remove()
        db.engine.dispose()
    return tid, out


# --------------------------------------------------------------------------- the server, a process of its own


class ServerProcess:
    """`kind`: 'listok' (`listok serve --threads N`, as the README runs it),
    'bare' (benchmarks/bare_app.py under the same waitress, same threads) or
    'gunicorn' (webapp/serve/gunicorn_conf.py with `workers` workers) or 'bare-gunicorn' (the bare app under
    that same configuration)."""

    def __init__(self, kind: str, url: str, *, threads: int = 8, workers: int = 1, extra_env: dict | None = None):
        self.kind, self.url, self.threads, self.workers = kind, url, threads, workers
        self.port = free_port()
        self.env = {**os.environ, "DATABASE_URL": url, "LISTOK_SECRET_KEY": SECRET, "PYTHONPATH": str(ROOT),
                    "LISTOK_THREADS": str(threads), **(extra_env or {})}
        self.proc: subprocess.Popen | None = None

    def command(self) -> list[str]:
        if self.kind == "listok":
            return [PYTHON, "-m", "webapp.cli", "serve", "--port", str(self.port), "--threads", str(self.threads)]
        if self.kind == "bare":
            return [PYTHON, str(ROOT / "benchmarks" / "bare_app.py"), "--port", str(self.port),
                    "--threads", str(self.threads)]
        if self.kind in ("gunicorn", "bare-gunicorn"):
            app = "webapp:create_app()" if self.kind == "gunicorn" else "benchmarks.bare_app:app_from_env()"
            # LISTOK_THREADS, not --threads: the configuration adds a thread per write slot
            return [PYTHON, "-m", "gunicorn", "-c", "python:webapp.serve.gunicorn_conf",
                    "--bind", f"127.0.0.1:{self.port}", "--workers", str(self.workers), app]
        raise ValueError(self.kind)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self):
        self.log = open(os.devnull, "w") if not os.environ.get("BENCH_SERVER_LOG") else None
        self.proc = subprocess.Popen(self.command(), env=self.env, cwd=ROOT, stdout=self.log, stderr=self.log,
                                     start_new_session=True)
        deadline = time.monotonic() + 60
        path = "/hello" if self.kind.startswith("bare") else "/healthz"
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"{self.kind} server exited with {self.proc.returncode}")
            try:
                status, _b, _h = get(self.port, path, timeout=2)
                if status == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.2)
        self.stop()
        raise SystemExit(f"{self.kind} server did not answer on port {self.port}")

    def __exit__(self, *exc):
        self.stop()

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        if self.log:
            self.log.close()

    def pids(self) -> list[int]:
        """The server process and its children (gunicorn's workers)."""
        out = [self.proc.pid]
        try:
            children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text().split()
            out += [int(c) for c in children]
        except OSError:
            pass
        return out

    def cpu(self) -> float:
        """CPU seconds (user + system) used so far by the server and its workers."""
        tick = os.sysconf("SC_CLK_TCK")
        total = 0
        for pid in self.pids():
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += int(fields[11]) + int(fields[12])  # utime, stime
        return total / tick

    def rss_mb(self) -> float:
        """Resident memory of the server and its workers, MB."""
        total = 0
        for pid in self.pids():
            try:
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
            except OSError:
                continue
        return total / 1024


def get(port: int, path: str, *, timeout: float = 30, headers: dict | None = None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, resp.read(), dict(resp.getheaders())
    finally:
        conn.close()


def post_json(port: int, path: str, payload: bytes, *, timeout: float = SEND_TIMEOUT):
    """(status, answer, Retry-After seconds or None); raises OSError/HTTPException on a lost answer."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("POST", path, body=payload, headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        data = resp.read()
        retry_after = resp.getheader("Retry-After")
        try:
            answer = json.loads(data)
        except ValueError:
            answer = None
        return resp.status, answer, float(retry_after) if retry_after else None
    finally:
        conn.close()
