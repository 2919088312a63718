"""Builders for web tests: users, logged-in clients, tournaments with players."""
from __future__ import annotations

import os
from contextlib import contextmanager

from flask import current_app, has_app_context
from sqlalchemy import event, select

from webapp.extensions import db
from webapp.models import Assignment, Tournament, User, utcnow

HX = {"HX-Request": "true"}


def make_user(app, username="operator", password="secret-pass", role="operator", everywhere=True) -> int:
    """An account; with `everywhere` an operator or referee is assigned to every
    tournament of the test, those that exist and those created later (by any
    path: builders, HTTP, import), so that tests of other things need not care."""
    from webapp.services import access

    with app.app_context():
        user = User(username=username, role=role, display_name=username.title())
        user.set_password(password)
        db.session.add(user)
        db.session.flush()
        if everywhere and role != "admin":
            for tid in db.session.scalars(select(Tournament.id)):
                access.assign(user, tid)
            app.extensions.setdefault(EVERYWHERE, set()).add(user.id)
        db.session.commit()
        return user.id


EVERYWHERE = "tests-assigned-everywhere"


@event.listens_for(Tournament, "after_insert")
def _assign_everywhere(_mapper, connection, target):
    users = current_app.extensions.get(EVERYWHERE) if has_app_context() else None
    if users:
        connection.execute(Assignment.__table__.insert(),
                           [{"user_id": u, "tournament_id": target.id, "created_at": utcnow()} for u in sorted(users)])


def login(client, username="operator", password="secret-pass"):
    return client.post("/login", data={"username": username, "password": password})


def make_tournament(app, n_players=27, checked_in=True, seed=3, name="SEM 5 - Poprad", clubs=6) -> int:
    """A tournament with `n_players` generated players (realistic names and clubs)."""
    from datetime import date

    from webapp.models import Player, Tournament
    from webapp.demo.simulate import make_players

    with app.app_context():
        t = Tournament(name=name, date=date(2026, 3, 14), venue="Poprad", ruleset="sem")
        for p in make_players(n_players, seed=seed, clubs=clubs):
            t.players.append(Player(start_no=p.start_no, reg_id=p.id, name=p.name, club=p.club, status=p.status,
                                    rating=p.rating, present=checked_in))
        db.session.add(t)
        db.session.commit()
        return t.id


def play_round(app, tid, seed=1, close=True) -> int:
    """Draw, publish and fill the next round with random valid sheets (services, not HTTP)."""
    import random

    from webapp.models import Tournament
    from webapp.services import rounds
    from webapp.demo.simulate import table_sums

    rng = random.Random(seed)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r = rounds.draw_round(t, "test")
        rounds.publish_round(t, r, "test", t.version)
        for tab in r.tables:
            rounds.record_sheet(t, tab, list(table_sums(rng)), "test")
        if close:
            rounds.close_round(t, r, "test", t.version)
        db.session.commit()
        return r.number


# --------------------------------------------------------------------------- phone sheets (docs/SYNC.md)

def issue_pins(app, tid) -> dict[int, str]:
    """A random PIN for every player of the tournament: {start_no: pin}."""
    from webapp.models import Tournament
    from webapp.services.pins import issue_pin

    with app.app_context():
        t = db.session.get(Tournament, tid)
        pins = {p.start_no: issue_pin(p, actor="test") for p in t.players}
        db.session.commit()
        return pins


def signed_submission(app, tid, round_no, table_no, sums_cents, pins=None, key=None, note="",
                      base_version=0, players=None) -> dict:
    """The JSON body of POST /api/v1/sheets for a table of the stored draw, signed
    by its players with `pins` ({start_no: pin}; a player missing there signs with "0000").
    `players`: these, for a table not in the stored draw. Call it outside an app context
    (it opens its own)."""
    pins = pins or {}
    import uuid

    from sqlalchemy import select

    from webapp.models import Round
    from webapp.services.tokens import table_token
    from webapp.sync.protocol import Content

    with app.app_context():
        if players is None:
            r = db.session.scalar(select(Round).where(Round.tournament_id == tid, Round.number == round_no))
            players = list(next(x for x in r.tables if x.number == table_no).players)
        token = table_token(tid, round_no, table_no)
    content = Content(tournament=tid, round=round_no, table=table_no, players=tuple(players),
                      sums_cents=tuple(sums_cents), note=note, base_version=base_version)
    h = content.hash
    return {
        "token": token,
        "idempotency_key": key or str(uuid.uuid4()),
        "content": content.as_dict(),
        "content_hash": h,
        "signatures": [{"start_no": s, "pin": pins.get(s, "0000"), "hash": h,
                        "drawing": f"M 10 {10 + i} C 20 30, 40 30, 50 {12 + i} L 80 20",
                        "signed_at": "2026-03-14T10:51:02Z"} for i, s in enumerate(players)],
    }


def text(response) -> str:
    return response.get_data(as_text=True)


def open_round(app, tid) -> int:
    """Draw and publish the next round, no sheets in."""
    from webapp.models import Tournament
    from webapp.services import rounds

    with app.app_context():
        t = db.session.get(Tournament, tid)
        r = rounds.draw_round(t, "test")
        rounds.publish_round(t, r, "test", t.version)
        db.session.commit()
        return r.number


def fee_correction_table(app) -> dict:
    """A 27-player tournament after round 3 with round 4 published, and a round-3
    table whose two best sums differ and whose best player plays round 4: an SEM-C10
    correction with a fee that swaps those two sums swaps places in the cut draw.
    `real` are the swapped sums, `before` round 4's seating, `seat4` start no → (table, seat)."""
    from decimal import Decimal

    tid = make_tournament(app, 27)
    for k in (1, 2, 3):
        play_round(app, tid, seed=k)
    open_round(app, tid)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r3, r4 = t.rounds[2], t.rounds[3]
        seat4 = {s: (tab.number, i) for tab in r4.tables for i, s in enumerate(tab.players)}
        for tab in r3.tables:
            sums = [Decimal(x) for x in tab.sheet.sums]
            order = sorted(range(3), key=lambda i: sums[i], reverse=True)
            hi, mid = order[0], order[1]
            if sums[hi] != sums[mid] and tab.players[hi] in seat4:
                break
        else:
            raise AssertionError("no round-3 table suits a fee correction")
        real = list(sums)
        real[hi], real[mid] = sums[mid], sums[hi]
        return {"tid": tid, "table": tab.number, "players": list(tab.players), "sums": sums, "real": real,
                "hi": hi, "mid": mid, "seat4": seat4, "before": {x.number: list(x.players) for x in r4.tables}}


def stored_cases(app, *, kind=None, status=None) -> list:
    """The referee's cases, oldest first, detached so they can be read after the app context."""
    from webapp.models import Case

    with app.app_context():
        q = select(Case)
        if kind:
            q = q.where(Case.kind == kind)
        if status:
            q = q.where(Case.status == status)
        rows = db.session.scalars(q.order_by(Case.id)).all()
        for c in rows:
            db.session.expunge(c)
        return rows


def forget_rendered_pages() -> None:
    """Drop every page, slide and shared computation this process keeps for the public pages
    (a new public version misses them all anyway): the next request renders afresh."""
    from webapp.http import caching
    from webapp.http.cache import VersionedCache
    from webapp.views import shared
    from webapp.views.public import projector, standings

    caching.BODIES.clear()
    caching._memo.clear()
    for module in (shared, standings, projector):
        for value in vars(module).values():
            if isinstance(value, VersionedCache):
                value.clear()


@contextmanager
def sql_statements(app):
    """The SQL statements the app's database engine runs inside the block, in order."""
    with app.app_context():
        engine = db.engine
    seen: list[str] = []

    def listen(_conn, _cursor, statement, *_args):
        seen.append(statement)

    event.listen(engine, "before_cursor_execute", listen)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", listen)


@contextmanager
def postgresql_messages(app, tmp_path):
    """The messages libpq sent PostgreSQL inside the block (its trace of each connection checked
    out), by type: `Query` is a simple query (BEGIN, COMMIT, ROLLBACK), `Execute` a statement's
    run. A round trip each, which counting SQL statements does not show. Empty on SQLite."""
    with app.app_context():
        engine = db.engine
    sent: list[str] = []
    if engine.dialect.name != "postgresql":
        yield sent
        return
    trace = str(tmp_path / "libpq.trace")
    fd = os.open(trace, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)

    def on_checkout(dbapi, _record, _proxy):
        dbapi.pgconn.trace(fd)

    def on_checkin(dbapi, _record):
        dbapi.pgconn.untrace()

    event.listen(engine, "checkout", on_checkout)
    event.listen(engine, "checkin", on_checkin)
    try:
        yield sent
    finally:
        event.remove(engine, "checkout", on_checkout)
        event.remove(engine, "checkin", on_checkin)
        os.close(fd)
        with open(trace) as f:
            sent += [line.split("\t")[3].split(" ")[0].strip() for line in f if line.split("\t")[1:2] == ["F"]]


def english_paper(app, tid: int) -> None:
    """Print tournament `tid`'s sheets and slips in English, so a test can read them in one language."""
    with app.app_context():
        db.session.get(Tournament, tid).paper_language = "en"
        db.session.commit()


def make_season(app, tournaments: int = 2, players: int = 27, *, seed: int = 3) -> tuple[int, int]:
    """A federation (szmk) with a venue (Poprad) and a SEM season holding `tournaments`
    finished tournaments of `players` players, received as imports. (season id, venue id)."""
    from webapp.models import Federation, Season, Venue
    from webapp.rules import exchange
    from webapp.services import federation as svc
    from webapp.demo.simulate import make_players, play_tournament

    pool = make_players(players + tournaments, seed=seed)
    with app.app_context():
        f = Federation(code="szmk", name="SZMK")
        db.session.add(f)
        db.session.flush()
        v = Venue(name="Poprad", federation_id=f.id)
        s = Season(federation_id=f.id, ruleset="sem", name="2026", best=11)
        db.session.add_all([v, s])
        db.session.flush()
        for k in range(tournaments):
            rt = play_tournament(pool[k:k + players], seed=k, name=f"SEM {k + 1}", date=f"2026-{k % 12 + 1:02d}-14")
            svc.receive(exchange.dump(rt), season=s, venue=v, source="import", actor="test")
        db.session.commit()
        return s.id, v.id


@contextmanager
def served(app):
    """`app` on a real port of 127.0.0.1 (threaded, like the venue server) while in the block:
    (its base URL, the server)."""
    import threading

    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", server
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()
