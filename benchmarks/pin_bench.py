"""What PINs cost the server: one request at a time, in-process, on SQLite.

    python benchmarks/pin_bench.py [--repeat 15]

Printed, as the median wall and CPU time of a request to POST /api/v1/sheets
(Flask test client, a temp SQLite file): a first sheet with 3 PINs checked on
arrival, the same sheet again (a replay), a sheet refused for its total
(carrying 3 PINs), a sheet with 8 signatures of which 5 are from players not
at the table, and a sheet with a wrong PIN; then issuing PIN slips for 400
checked-in players (`issue_missing_pins` and its commit). Uses only what the
service has always offered, so it runs against older code too.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from webapp import create_app  # noqa: E402
from webapp.extensions import db  # noqa: E402
from webapp.models import Player, Tournament  # noqa: E402
from webapp.services import pins, rounds  # noqa: E402
from webapp.services.tokens import table_token  # noqa: E402
from webapp.demo.simulate import make_players  # noqa: E402
from webapp.sync.protocol import Content  # noqa: E402

SUMS = (1450, 1000, 550)


def field(app, n: int) -> tuple[int, dict[int, str], list[tuple[int, list[int]]]]:
    with app.app_context():
        db.create_all()
        t = Tournament(name="PIN bench", ruleset="sem")
        for p in make_players(n, seed=5):
            t.players.append(Player(start_no=p.start_no, reg_id=p.id, name=p.name, club=p.club, status=p.status,
                                    rating=p.rating, present=True))
        db.session.add(t)
        db.session.commit()
        issued = pins.issue_missing_pins(t, [p.start_no for p in t.players], "bench")
        db.session.commit()
        r = rounds.draw_round(t, "bench")
        rounds.publish_round(t, r, "bench", t.version)
        db.session.commit()
        return t.id, {p.start_no: pin for p, pin in issued}, [(tab.number, list(tab.players)) for tab in r.tables]


def body(app, tid, table, players, pin_of, sums=SUMS, extra=()) -> dict:
    with app.test_request_context():
        token = table_token(tid, 1, table)
    c = Content(tournament=tid, round=1, table=table, players=tuple(players), sums_cents=tuple(sums))
    h = c.hash
    return {"token": token, "idempotency_key": str(uuid.uuid4()), "content": c.as_dict(), "content_hash": h,
            "signatures": [{"start_no": s, "pin": pin_of(s), "hash": h, "drawing": "M 10 10 L 80 20",
                            "signed_at": "2026-03-14T10:51:02Z"} for s in list(players) + list(extra)]}


def timed(client, bodies) -> tuple[list[float], list[float], set[int]]:
    wall, cpu, codes = [], [], set()
    for b in bodies:
        w0, c0 = time.perf_counter(), time.process_time()
        r = client.post("/api/v1/sheets", json=b)
        wall.append((time.perf_counter() - w0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
        codes.add(r.status_code)
    return wall, cpu, codes


def line(label: str, measured) -> None:
    wall, cpu, codes = measured
    print(f"  {label:44s} wall {statistics.median(wall):7.1f} ms   cpu {statistics.median(cpu):7.1f} ms"
          f"   (HTTP {', '.join(map(str, sorted(codes)))})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=15)
    n = ap.parse_args().repeat
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp}/pins.db", "SECRET_KEY": "bench"})
        tid, pin, tables = field(app, 3 * (3 * n + 2))
        client = app.test_client()
        first = tables[:n]
        print(f"\n[PIN cost] POST /api/v1/sheets on SQLite, median of {n}")
        stored = [body(app, tid, t, ps, pin.get) for t, ps in first]
        line("first sheet, 3 PINs checked on arrival", timed(client, stored))
        line("the same sheet again (replay)", timed(client, stored))
        line("refused for its total, carrying 3 PINs",
             timed(client, [body(app, tid, t, ps, pin.get, sums=(1000, 1000, 999)) for t, ps in tables[n:2 * n]]))
        strangers = [s for _t, ps in tables[2 * n:] for s in ps][:5]
        line("8 signatures, 5 not at the table",
             timed(client, [body(app, tid, t, ps, pin.get, extra=strangers) for t, ps in tables[n:2 * n]]))
        line("a wrong PIN (3rd signer)",
             timed(client, [body(app, tid, t, ps, lambda s, last=ps[-1]: "9" + pin[s] if s == last else pin[s])
                            for t, ps in tables[2 * n:3 * n]]))
        app2 = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp}/slips.db", "SECRET_KEY": "bench"})
        with app2.app_context():
            db.create_all()
            t = Tournament(name="400", ruleset="sem")
            for p in make_players(400, seed=6):
                t.players.append(Player(start_no=p.start_no, reg_id=p.id, name=p.name, club=p.club,
                                        status=p.status, rating=p.rating, present=True))
            db.session.add(t)
            db.session.commit()
            w0 = time.perf_counter()
            issued = pins.issue_missing_pins(t, [p.start_no for p in t.players], "bench")
            db.session.commit()
            print(f"  PIN slips for {len(issued)} players (issue_missing_pins + commit)   "
                  f"{(time.perf_counter() - w0) * 1000:8.0f} ms")
        for a in (app, app2):
            with a.app_context():
                db.engine.dispose()


if __name__ == "__main__":
    main()
