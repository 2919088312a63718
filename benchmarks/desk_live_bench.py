"""What an open live results desk costs the server at 140 tables (issue 8.1).

    .venv/bin/python benchmarks/desk_live_bench.py [--tables 140] [--polls 300]

A 420-player round is drawn and published, half of its tables get a phone
sheet, some a draft signed on own phones. Then, in this process (the app's
own work, no network):

- htmx-style polling as built: GET …/results/live every 2 s, answered 304
  while nothing changed (the common case) and 200 with the round header and
  the table digests when something did, plus one card fragment per changed
  table;
- server-sent events, estimated from below: the same state check per tick
  inside one long request (the work SSE cannot avoid without a cross-process
  change feed), minus the HTTP and sign-in cost of a request.

It prints requests/s one core answers, CPU ms per request and CPU seconds
per minute of one open desk. An SSE desk would also hold one of waitress'
threads that answer everyone (listok serve --threads, default 8) for as long
as the desk is open: with a few desks open, readers would queue behind them.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.helpers import issue_pins, login, make_tournament, make_user, open_round, signed_submission  # noqa: E402


def cpu(fn, n):
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n, (time.process_time() - c0) / n


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tables", type=int, default=140)
    ap.add_argument("--polls", type=int, default=300)
    args = ap.parse_args()
    from webapp import create_app
    from webapp.extensions import db
    from webapp.models import Round
    from webapp.services import desk_live

    tmp = tempfile.mkdtemp()
    app = create_app({"SECRET_KEY": "bench", "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp}/bench.db",
                      "WTF_CSRF_ENABLED": False, "SERVER_NAME": "localhost"})
    with app.app_context():
        db.create_all()
    make_user(app)
    tid = make_tournament(app, args.tables * 3, clubs=40)
    pins = issue_pins(app, tid)
    open_round(app, tid)
    client = app.test_client()
    login(client)
    for table in range(1, args.tables // 2 + 1):
        body = signed_submission(app, tid, 1, table, [1450, 1000, 550], pins=pins)
        assert client.post("/api/v1/sheets", json=body).status_code == 200
    url = f"/operator/t/{tid}/round/1/results/live"
    etag = client.get(url).json["etag"]

    wall304, cpu304 = cpu(lambda: client.get(url, headers={"If-None-Match": f'"{etag}"'}), args.polls)
    assert client.get(url, headers={"If-None-Match": f'"{etag}"'}).status_code == 304
    wall200, cpu200 = cpu(lambda: client.get(url), max(20, args.polls // 10))
    card = f"/operator/t/{tid}/round/1/results/{args.tables}"
    wallcard, cpucard = cpu(lambda: client.get(card, headers={"HX-Request": "true"}), max(20, args.polls // 10))

    with app.app_context():
        from sqlalchemy import select
        r = db.session.scalar(select(Round).where(Round.tournament_id == tid, Round.number == 1))

        def tick():
            desk_live.round_etag(r, desk_live.round_states(r), "")
            db.session.rollback()  # each tick reads afresh, as a long-lived SSE request would have to
        walltick, cputick = cpu(tick, args.polls)

    polls_per_min = 30  # every 2 s
    # a busy minute: 140 tables over a 10-minute hand-in, ~14 changes a minute, each one 200 + one card
    changes = args.tables / 10
    poll_min = (polls_per_min - min(changes, polls_per_min)) * cpu304 + min(changes, polls_per_min) * cpu200 \
        + changes * cpucard
    sse_min = polls_per_min * cputick + changes * cpucard
    print(f"live desk, {args.tables} tables, SQLite, one process ({args.polls} polls)")
    print(f"  poll unchanged (304):        {cpu304 * 1000:6.2f} ms CPU  {1 / wall304:7.0f} req/s on one core")
    print(f"  poll changed (200 + header): {cpu200 * 1000:6.2f} ms CPU  {1 / wall200:7.0f} req/s")
    print(f"  one card fragment:           {cpucard * 1000:6.2f} ms CPU  {1 / wallcard:7.0f} req/s")
    print(f"  SSE tick (state check only): {cputick * 1000:6.2f} ms CPU")
    print(f"  open desk, quiet minute:  polling {polls_per_min * cpu304:6.3f} s CPU/min ({polls_per_min} req/min)"
          f"   SSE >= {polls_per_min * cputick:6.3f} s CPU/min + 1 thread held")
    print(f"  open desk, busy minute (~{changes:.0f} changes): polling {poll_min:6.3f} s CPU/min"
          f"   SSE >= {sse_min:6.3f} s CPU/min + 1 thread held")


if __name__ == "__main__":
    main()
