"""Admission control of the phones' writes (webapp/serve/admission.py), on SQLite and PostgreSQL."""
from __future__ import annotations

import pytest
from sqlalchemy import func, select

from tests.helpers import issue_pins, make_tournament, open_round, signed_submission
from webapp.extensions import db
from webapp.models import Sheet, Submission
from webapp.serve import admission as adm

URL = "/api/v1/sheets"
GOOD = [1450, 1000, 550]


def _counts(app):
    with app.app_context():
        return (db.session.scalar(select(func.count(Sheet.id))),
                db.session.scalar(select(func.count()).select_from(Submission)))


def test_full_write_slots_answer_503_with_retry_after_and_store_nothing(app, client):
    tid = make_tournament(app, 9)
    pins = issue_pins(app, tid)
    open_round(app, tid)
    body = signed_submission(app, tid, 1, 1, GOOD, pins=pins)
    admission = app.extensions["admission"]
    admission.max_writes = 6
    admission.in_flight = admission.max_writes  # as if that many sheets were being answered right now
    resp = client.post(URL, json=body)
    assert resp.status_code == 503
    assert int(resp.headers["Retry-After"]) >= 1
    assert resp.headers["Cache-Control"] == "no-store"
    assert resp.json["status"] == "busy" and resp.json["retry_after"] == int(resp.headers["Retry-After"])
    assert _counts(app) == (0, 0)
    assert admission.refused == 1
    admission.pace = 0.5  # half a second per sheet lately
    later = [int(client.post(URL, json=body).headers["Retry-After"]) for _ in range(6)]
    assert later == sorted(later) and later[-1] > later[0]  # refused together, asked back one after another

    # readers are never refused, and a slot given back lets the same sheet in (same key: stored once)
    assert client.get("/api/v1/table", query_string={"token": body["token"]}).status_code == 200
    admission.in_flight, admission.pace, admission.next_ticket = 0, 0.02, 0.0
    resp = client.post(URL, json=body)
    assert resp.status_code == 200 and resp.json["status"] == "accepted"
    assert admission.in_flight == 0  # the slot is given back after the answer
    assert _counts(app) == (1, 1)


def test_retry_after_grows_with_the_backlog_the_budget_allows(app, client):
    tid = make_tournament(app, 9)
    pins = issue_pins(app, tid)
    open_round(app, tid)
    body = signed_submission(app, tid, 1, 2, GOOD, pins=pins)
    admission = app.extensions["admission"]
    admission.max_writes = 100
    admission.in_flight, admission.pace = 9, 1.0  # 10 s of work ahead at the recent pace, budget 5 s
    resp = client.post(URL, json=body)
    assert resp.status_code == 503 and resp.headers["Retry-After"] == "11"  # after those 10 s, its own turn
    admission.in_flight, admission.pace = 2, 1.0  # 3 s: inside the budget, admitted
    resp = client.post(URL, json=body)
    assert resp.status_code == 200
    assert admission.in_flight == 2


def test_a_replay_is_answered_even_when_every_write_slot_is_taken(app, client):
    tid = make_tournament(app, 9)
    pins = issue_pins(app, tid)
    open_round(app, tid)
    body = signed_submission(app, tid, 1, 3, GOOD, pins=pins)
    first = client.post(URL, json=body)
    assert first.status_code == 200
    admission = app.extensions["admission"]
    admission.in_flight = admission.max_writes
    again = client.post(URL, json=body)  # the answer was lost: the phone sends the same key again
    assert again.status_code == 200 and again.json["replay"] is True
    assert again.json["receipt"] == first.json["receipt"]
    refused = client.post(URL, json={**body, "token": "x" * 40})  # a bad token: refused, not "busy"
    assert refused.status_code == 403
    assert admission.refused == 0 and _counts(app) == (1, 1)


def test_operator_forms_are_never_refused_by_admission_control(app, client):
    admission = app.extensions["admission"]
    admission.in_flight = admission.max_writes
    resp = client.post("/login", data={"username": "nobody", "password": "x"})
    assert resp.status_code != 503


def test_retry_after_is_the_ticket_in_whole_seconds_without_float_noise():
    """A ticket 11 s away, computed from the monotonic clock, can come out as 11.000000000000002
    (at 1013.32 s, for one): Retry-After must still say 11, as its retry_after_ms says 11000."""
    now = 1013.32
    wait = (now + 10 + 1.0) - now
    assert wait != 11.0
    busy = adm.Busy(wait)
    assert (busy.retry_after, busy.retry_ms) == (11, 11000)
    assert adm.Busy(10.2).retry_after == 11 and adm.Busy(0.2).retry_after == 1


@pytest.fixture
def clock(monkeypatch) -> list[float]:
    """Admission's monotonic clock, moved by hand: clock[0] += seconds."""
    now = [100.0]
    monkeypatch.setattr(adm.time, "monotonic", lambda: now[0])
    return now


def test_the_pace_is_the_time_between_writes_answered_not_one_thread_s_cpu(clock):
    """Six writes in flight that the database's lock lets out one every 30 ms (another worker's turn,
    PostgreSQL) set the pace to 30 ms, however little CPU each used: a ticket counted at the CPU's pace
    sent phones back before their turn. A lone write's pace is its own duration, not the idle time before."""
    a = adm.Admission(max_writes=6)
    window = [a.pace] * adm.PACE_WINDOW  # the default pace stands for the writes not seen yet
    slots = [a.slot() for _ in range(6)]
    for s in slots:
        s.__enter__()
    for s in slots:
        clock[0] += 0.030
        s.__exit__(None, None, None)
        window = window[1:] + [0.030]
    assert a.in_flight == 0 and abs(a.pace - sum(window) / len(window)) < 1e-9
    for _ in range(adm.PACE_WINDOW):
        s = a.slot()
        s.__enter__()
        clock[0] += 0.030
        s.__exit__(None, None, None)
    assert abs(a.pace - 0.030) < 1e-9
    clock[0] += 50.0  # idle for almost a minute
    s = a.slot()
    s.__enter__()
    clock[0] += 0.010
    s.__exit__(None, None, None)
    assert abs(a.pace - (0.030 * (adm.PACE_WINDOW - 1) + 0.010) / adm.PACE_WINDOW) < 1e-9


def test_a_group_commit_s_writes_count_at_the_batch_s_time_per_sheet(clock):
    """A batch of eight sheets written together in 40 ms answers them at once: the first one's interval
    is 40 ms, the others' nothing. The pace is 5 ms a sheet however the threads happen to finish, and a
    phone refused then comes back after the writes ahead of it at that pace, not 40 ms per sheet."""
    a = adm.Admission(max_writes=8)
    for _batch in range(adm.PACE_WINDOW // 8):
        slots = [a.slot() for _ in range(8)]
        for s in slots:
            s.__enter__()
        clock[0] += 0.040
        for s in slots:
            s.__exit__(None, None, None)
    assert abs(a.pace - 0.005) < 1e-9
    slots = [a.slot() for _ in range(8)]
    for s in slots:
        s.__enter__()
    try:
        with a.slot():
            raise AssertionError("a ninth write was let in")
    except adm.Busy as e:
        assert e.retry_ms == round((8 + 1) * 0.005 * 1000 + 5)  # its turn behind the 8, then its own


def test_one_slow_first_write_does_not_send_a_round_away_for_seconds(clock):
    """The first write after a start took 300 ms (nothing warm yet): the phones refused behind it are
    asked back within a second, not 300 ms each."""
    a = adm.Admission(max_writes=1)
    with a.slot():
        clock[0] += 0.300
    assert a.pace < 0.02
    with a.slot():
        tickets = []
        for _phone in range(40):
            try:
                with a.slot():
                    pass
            except adm.Busy as e:
                tickets.append(e.retry_ms)
    assert len(tickets) == 40 and tickets == sorted(tickets) and tickets[-1] < 1000
