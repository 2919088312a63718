"""Phone sheets written together (webapp/serve/together.py, sheet_submit.submit_together):
each sheet checked, chained and answered exactly as alone, the transaction's fixed work once."""
from __future__ import annotations

import threading
import time
from collections import deque
from datetime import timedelta
from contextlib import contextmanager, nullcontext
from types import SimpleNamespace

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError

from tests.helpers import (issue_pins, make_tournament, open_round, postgresql_messages, signed_submission,
                           sql_statements)
from webapp.extensions import db
from webapp.models import AuditEntry, Case, PinAttempt, Player, Sheet, Submission, Tournament, utcnow
from webapp.services import chain, sheet_submit, sheets
from webapp.services.common import verify_audit_chain
from webapp.serve import together as together_module
from webapp.sync import protocol

URL = "/api/v1/sheets"


@pytest.fixture
def six(app):
    """18 players with PINs, round 1 published: 6 tables."""
    tid = make_tournament(app, 18)
    pins = issue_pins(app, tid)
    open_round(app, tid)
    return tid, pins


def _sums(n: int) -> list[int]:
    return [1000 + 50 * n, 1000, 1000 - 50 * n]


def _together(app, tid, bodies, locales=None, trace_dir=None):
    """sheet_submit.submit_together for these bodies in one request of their own, committed. `trace_dir`:
    a folder for libpq's trace: `sent`, what it sent PostgreSQL for the batch (postgresql_messages)."""
    with app.test_request_context(URL, method="POST"):
        subs = [protocol.parse_submission(b) for b in bodies]
        places = []
        for sub in subs:
            answer, place = sheet_submit.early_answer(sub)
            assert answer is None
            places.append(place[1:])
        traced = postgresql_messages(app, trace_dir) if trace_dir else nullcontext([])
        with sql_statements(app) as statements, traced as sent:
            out = sheet_submit.submit_together(tid, subs, places, locales)
            db.session.commit()
        return out, statements, sent


def _version(app, tid) -> int:
    with app.app_context():
        return db.session.get(Tournament, tid).version


def test_sheets_written_together_are_stored_and_chained_as_alone_with_one_lock_and_one_bump(app, six, tmp_path):
    tid, pins = six
    bodies = [signed_submission(app, tid, 1, n, _sums(n), pins=pins) for n in range(1, 6)]
    v0 = _version(app, tid)
    out, statements, sent = _together(app, tid, bodies, trace_dir=tmp_path)
    assert [a.body["status"] for a in out] == ["accepted"] * 5
    locks = [s for s in statements if s.lstrip().startswith("SELECT tournament.")]
    assert len(locks) == 1, statements  # the tournament read (and locked) once for the five
    assert len([s for s in statements if s.lstrip().startswith("UPDATE tournament")]) == 1  # one version bump
    # the ten chain entries and the five submissions each in one executemany
    assert len([s for s in statements if s.lstrip().startswith("INSERT INTO audit_entry")]) == 1
    assert len([s for s in statements if s.lstrip().startswith("INSERT INTO submission")]) == 1
    assert _version(app, tid) == v0 + 1
    with app.app_context():
        for body, answer in zip(bodies, out):
            sub = db.session.get(Submission, body["idempotency_key"])
            sheet = db.session.get(Sheet, sub.sheet_id)
            assert sheet.receipt == answer.body["receipt"] and sheet.content_hash == body["content_hash"]
            assert (sub.http_status, sub.response) == (200, answer.body)
        assert verify_audit_chain() is None
        assert db.session.get(Tournament, tid).chain_seq == 2 * 5 + _seq_before(app, tid, 5)


def _seq_before(app, tid, n_sheets) -> int:
    """The chain's entries before the sheets (the draw, the PINs …): the head less the sheets' two each."""
    return db.session.scalar(select(func.count()).select_from(AuditEntry)
                             .where(AuditEntry.tournament_id == tid)) - 2 * n_sheets


def test_each_sheet_of_a_batch_gets_its_own_answer_and_a_refusal_keeps_only_its_pin_count(app, six):
    """A batch of a good sheet, a wrong PIN (refused, the attempt counted: SEM-C4's signatures), a
    negative sum (SEM-C8: to the referee), a correction of a version that is not there (stale), a
    sheet for a table of a round not drawn (gone) and one signed by a locked player (locked): each
    answered as if alone."""
    tid, pins = six
    with app.app_context():
        t = db.session.get(Tournament, tid)
        seats = {tab.number: list(tab.players) for tab in t.rounds[0].tables}
        db.session.execute(update(Player).where(Player.tournament_id == tid, Player.start_no == seats[6][0])
                           .values(pin_locked_until=utcnow() + timedelta(minutes=10)))
        db.session.commit()
    wrong = dict(pins)
    wrong[seats[2][1]] = "0000" if pins[seats[2][1]] != "0000" else "1111"
    bodies = [signed_submission(app, tid, 1, 1, _sums(1), pins=pins),
              signed_submission(app, tid, 1, 2, _sums(2), pins=wrong),
              signed_submission(app, tid, 1, 3, [1950, 1200, -150], pins=pins, note="posledná hra: betl, platil 2,40"),
              signed_submission(app, tid, 1, 4, _sums(4), pins=pins, base_version=3, note="oprava"),
              signed_submission(app, tid, 2, 5, _sums(5), pins=pins, players=seats[5]),
              signed_submission(app, tid, 1, 6, _sums(6), pins=pins)]
    v0 = _version(app, tid)
    out, _statements, _sent = _together(app, tid, bodies)
    good, pin, negative, stale, not_drawn, locked = out
    assert isinstance(not_drawn, sheets.SyncRefusal) and not_drawn.http_status == 410 and not not_drawn.commit
    assert isinstance(locked, sheets.SyncRefusal) and locked.http_status == 423
    assert locked.body["start_no"] == seats[6][0]
    assert good.http_status == 200 and good.body["status"] == "accepted"
    assert isinstance(pin, sheets.SyncRefusal) and pin.http_status == 422 and pin.commit
    assert (pin.body["error"], pin.body["start_no"], pin.body["attempts_left"]) == ("wrong-pin", seats[2][1], 4)
    assert negative.http_status == 202 and negative.body["reason"] == "negative-sum"
    assert isinstance(stale, sheets.SyncRefusal) and stale.body["error"] == "stale-version" and not stale.commit
    assert _version(app, tid) == v0 + 1
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(Sheet)) == 2
        assert db.session.scalar(select(func.count()).select_from(Submission)) == 2
        assert db.session.get(Case, negative.body["case"]).kind == "negative-sum"
        failed = db.session.scalar(select(Player).where(Player.tournament_id == tid,
                                                        Player.start_no == seats[2][1]))
        assert failed.pin_failures == 1
        assert db.session.scalar(select(func.count()).select_from(PinAttempt)) == 1
        assert verify_audit_chain() is None


def test_a_refusal_in_a_batch_speaks_the_language_of_its_own_phone(app, six):
    tid, pins = six
    with app.app_context():
        seats = {tab.number: list(tab.players) for tab in db.session.get(Tournament, tid).rounds[0].tables}
    wrong = {**pins, seats[2][0]: "0000" if pins[seats[2][0]] != "0000" else "1111"}
    bodies = [signed_submission(app, tid, 1, 1, _sums(1), pins=pins),
              signed_submission(app, tid, 1, 2, _sums(2), pins=wrong)]
    out, _statements, _sent = _together(app, tid, bodies, locales=["en", "sk"])
    assert out[1].body["message"].startswith("Nesprávny PIN"), out[1].body


def _post_all(app, bodies, headers=None):
    answers = [None] * len(bodies)

    def run(i):
        res = app.test_client().post(URL, json=bodies[i], headers=headers or {})
        answers[i] = (res.status_code, res.json)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(bodies))]
    for th in threads:
        th.start()
    return threads, answers


def _queued(app, tid) -> int:
    queue = app.extensions["together"]._waiting.get(tid)
    return len(queue) if queue else 0


@contextmanager
def _first_batch_held(app, monkeypatch, first):
    """`first` posted and held inside its batch (sheet_submit.submit_together) while the block runs, then
    let go and answered. Yields the batches' table numbers, as each batch starts, and the answers."""
    gate, entered = threading.Event(), threading.Event()
    real = sheet_submit.submit_together
    batches = []

    def gated(tid_, subs, places, locales=None):
        batches.append(sorted(p[1] for p in places))
        if len(batches) == 1:
            entered.set()
            assert gate.wait(30)
        return real(tid_, subs, places, locales)

    monkeypatch.setattr(together_module.sheet_submit, "submit_together", gated)
    threads, answers = _post_all(app, [first])
    assert entered.wait(30)
    try:
        yield batches, answers
    finally:
        gate.set()
        for th in threads:
            th.join(30)


def _wait_queued(app, tid, n: int) -> None:
    deadline = time.monotonic() + 30
    while _queued(app, tid) < n and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _queued(app, tid) == n  # the leader took its own; these wait behind it


def _behind_a_batch(app, tid, monkeypatch, first, rest):
    """`first` held inside its batch until all of `rest` (posted meanwhile) wait behind it; then
    all answered. Returns the batches' table numbers and the answers, in body order."""
    with _first_batch_held(app, monkeypatch, first) as (batches, answers):
        more, more_answers = _post_all(app, rest)
        _wait_queued(app, tid, len(rest))
    for th in more:
        th.join(30)
    assert app.extensions["together"]._waiting == {}
    return batches, answers + more_answers


def test_sheets_arriving_while_a_batch_is_written_go_together_and_a_second_sheet_of_a_table_waits(
        app, six, monkeypatch):
    """The first sheet leads alone; the six that arrive while it is written wait, and the first of
    them leads them all in one batch but one: table 1's second sheet waits for the batch after its
    first one's, and so finds it (the same content: one sheet, its receipt for both phones)."""
    tid, pins = six
    first = signed_submission(app, tid, 1, 6, _sums(6), pins=pins)
    rest = [signed_submission(app, tid, 1, n, _sums(n), pins=pins) for n in range(1, 6)]
    twin = signed_submission(app, tid, 1, 1, _sums(1), pins=pins)  # table 1's other phone, same sums
    batches, answers = _behind_a_batch(app, tid, monkeypatch, first, rest + [twin])
    assert all(a is not None and a[0] == 200 for a in answers), answers
    assert batches == [[6], [1, 2, 3, 4, 5], [1]]
    assert answers[1][1]["receipt"] == answers[-1][1]["receipt"]  # table 1's two phones
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(Sheet)) == 6
        assert db.session.scalar(select(func.count()).select_from(Submission)) == 7
        assert verify_audit_chain() is None


def test_a_receipt_taken_in_a_batch_sends_its_sheets_alone_where_the_longer_receipt_is_found(
        app, six, monkeypatch):
    """New sheets of a batch whose receipt (the first 8 characters of their entries' hashes) another
    sheet has: the batch's INSERT of their rows finds it taken and the batch stores nothing; each
    sheet goes alone and gets its 10-character receipt before its answer and its sheet.phone
    entry name it."""
    tid, pins = six
    real = chain.receipt_candidates
    monkeypatch.setattr(chain, "receipt_candidates", lambda h: ["AAAA-AAAA"] + real(h)[1:])
    first = signed_submission(app, tid, 1, 6, _sums(6), pins=pins)
    batches, answers = _behind_a_batch(app, tid, monkeypatch, first,
                                       [signed_submission(app, tid, 1, n, _sums(n), pins=pins) for n in (1, 2)])
    assert batches == [[6], [1, 2]]
    assert all(a is not None and a[0] == 200 for a in answers), answers
    receipts = [a[1]["receipt"] for a in answers]
    assert receipts[0] == "AAAA-AAAA" and len(set(receipts)) == 3
    assert all(len(r) == 12 for r in receipts[1:])
    with app.app_context():
        assert sorted(db.session.scalars(select(Sheet.receipt))) == sorted(receipts)
        phone = {e.payload["receipt"] for e in db.session.scalars(select(AuditEntry).where(
            AuditEntry.tournament_id == tid, AuditEntry.action == "sheet.phone"))}
        assert phone == set(receipts)
        assert verify_audit_chain() is None


def test_a_batch_that_fails_as_a_whole_is_rolled_back_and_each_sheet_goes_alone(app, six, monkeypatch):
    """A batch refused by the database (here: a key stored meanwhile by another process, found
    only at the batch's INSERT) stores nothing of its own; each of its sheets is then written
    by its own request, as before, and answered."""
    tid, pins = six
    bodies = [signed_submission(app, tid, 1, n, _sums(n), pins=pins) for n in range(1, 4)]
    real = sheet_submit.submit_together
    calls = []

    def failing(tid_, subs, places, locales=None):
        calls.append(len(subs))
        real(tid_, subs, places, locales)
        db.session.flush()
        raise IntegrityError("INSERT INTO submission", {}, Exception("duplicate key"))

    monkeypatch.setattr(together_module.sheet_submit, "submit_together", failing)
    client = app.test_client()
    answers = [client.post(URL, json=b) for b in bodies]
    assert calls == [1, 1, 1]
    assert [a.status_code for a in answers] == [200, 200, 200], [a.json for a in answers]
    with app.app_context():
        stored = {s.receipt for s in db.session.scalars(select(Sheet))}
        assert stored == {a.json["receipt"] for a in answers} and len(stored) == 3
        assert verify_audit_chain() is None
    assert app.extensions["together"]._waiting == {}


def test_a_sheet_waiting_for_a_batch_holds_no_transaction(app, six, monkeypatch):
    """A request that read the database before its sheet (a signed-in browser's user, on SQLite
    under BEGIN IMMEDIATE: the write lock) ends that transaction before it waits: the batch it
    waits for must take the lock."""
    tid, pins = six
    first = signed_submission(app, tid, 1, 6, _sums(6), pins=pins)
    second = signed_submission(app, tid, 1, 1, _sums(1), pins=pins)
    out = {}

    def follow():
        with app.test_request_context(URL, method="POST"):
            db.session.execute(select(func.count()).select_from(Tournament))  # a transaction of its own
            sub = protocol.parse_submission(second)
            out["answer"] = app.extensions["together"].submit(sub, (tid, 1, 1))
            db.session.remove()

    follower = threading.Thread(target=follow)
    with _first_batch_held(app, monkeypatch, first) as (_batches, answers):
        follower.start()
        _wait_queued(app, tid, 1)
        started = time.monotonic()
    follower.join(30)
    assert time.monotonic() - started < 10  # no wait for the other's lock (SQLite's busy timeout is 15 s)
    assert answers[0][0] == 200 and out["answer"].body["status"] == "accepted"


def test_the_batch_size_is_set_by_listok_max_together(monkeypatch):
    """docs/SYNC.md names LISTOK_MAX_TOGETHER: the environment sets it, else 32."""
    from webapp import create_app

    monkeypatch.setenv("LISTOK_MAX_TOGETHER", "4")
    assert create_app({"SQLALCHEMY_DATABASE_URI": "sqlite://"}).extensions["together"].max_together == 4
    monkeypatch.delenv("LISTOK_MAX_TOGETHER")
    assert create_app({"SQLALCHEMY_DATABASE_URI": "sqlite://"}).extensions["together"].max_together == \
        together_module.MAX_TOGETHER == 32


def _waiting(key: str, table: int):
    return together_module._Waiting(SimpleNamespace(idempotency_key=key), (1, table), "sk")


def test_a_leader_does_not_wait_when_no_sheet_is_being_read():
    """No other thread is reading a sheet: the leader goes at once, not after the gather time."""
    t = together_module.Together(gather=5.0)
    first = _waiting("a", 1)
    t._waiting[7] = deque([first])
    start = time.monotonic()
    assert t._take(7) == [first]
    assert time.monotonic() - start < 2.5
