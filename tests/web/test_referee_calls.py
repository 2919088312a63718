"""A table calls the referee (services/calls.py): the call from the table's
sheet reaches the referees' queue, one referee takes it, the table sees who is
coming, the call is closed with a note. Rate-limited per table, recorded in the
tournament's chain, and never a correction: no result and no version moves."""
from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from tests.helpers import HX, login, make_tournament, make_user, open_round, play_round, text
from webapp.extensions import db
from webapp.models import AuditEntry, Case, RefereeCall, Tournament, utcnow
from webapp.services import calls
from webapp.services.common import ServiceError, StaleError, verify_audit_chain
from webapp.services.tokens import table_token


@pytest.fixture
def field(app):
    """9 players, round 1 played and closed, round 2 published: tables 1–3."""
    tid = make_tournament(app, 9)
    play_round(app, tid, seed=1)
    open_round(app, tid)
    with app.app_context():
        return tid, table_token(tid, 2, 1), table_token(tid, 1, 1)


def chain_kinds(app, tid) -> list[str]:
    with app.app_context():
        return list(db.session.scalars(select(AuditEntry.action).where(AuditEntry.tournament_id == tid)
                                       .order_by(AuditEntry.seq)))


def phone_client(app):
    """The table's phone, pages in English."""
    c = app.test_client()
    c.set_cookie("lang", "en")
    return c


def versions(app, tid) -> tuple:
    with app.app_context():
        t = db.session.get(Tournament, tid)
        return t.version, t.public_version


def test_call_reaches_queue_is_taken_seen_by_table_and_closed_with_note(app, ref, field):
    tid, token, _old = field
    phone = phone_client(app)
    before = versions(app, tid)
    r = phone.post(f"/s/{token}/call", json={"reason": "  dispute  about\nthe last game "})
    assert r.status_code == 200 and r.headers["Cache-Control"] == "no-store"
    state = r.get_json()
    assert state["status"] == "open" and state["reason"] == "dispute about the last game" and state["table"] == 1

    page = text(ref.get("/referee/"))
    assert "1 table is calling" in page and "Round 2, table 1" in page and "dispute about the last game" in page
    call_id = state["id"]
    r = ref.post(f"/referee/call/{call_id}/take")
    assert r.status_code == 302 and r.headers["Location"].endswith(f"/referee/call/{call_id}")
    seen = phone.get(f"/s/{token}/call").get_json()
    assert seen["status"] == "taken" and seen["taken_by"] == "Referee"
    assert "Referee is going" in text(ref.get("/referee/"))

    assert ref.post(f"/referee/call/{call_id}/close", data={"note": ""}).status_code == 422
    r = ref.post(f"/referee/call/{call_id}/close", data={"note": "Explained SEM-C2, play on."})
    assert r.status_code == 302
    seen = phone.get(f"/s/{token}/call").get_json()
    assert seen == {**seen, "status": "closed", "note": "Explained SEM-C2, play on."}
    assert "table is calling" not in text(ref.get("/referee/"))

    # recorded in the chain, intact; decides nothing: no case, no version bump
    assert chain_kinds(app, tid)[-3:] == ["call.open", "call.take", "call.close"]
    with app.app_context():
        assert verify_audit_chain() is None
        assert db.session.scalars(select(Case).where(Case.tournament_id == tid)).all() == []
    assert versions(app, tid) == before


def test_call_rate_limited_per_table(app, field):
    tid, token, _old = field
    phone = phone_client(app)
    first = phone.post(f"/s/{token}/call", json={}).get_json()
    # calling again while it is open: the same call, nothing new
    assert phone.post(f"/s/{token}/call", json={"reason": "again"}).get_json()["id"] == first["id"]
    with app.app_context():
        call = db.session.get(RefereeCall, first["id"])
        calls.close(call, "Referee", "done")
        db.session.commit()
    r = phone.post(f"/s/{token}/call", json={})
    assert r.status_code == 422
    assert "called from table 1 a moment ago" in r.get_json()["message"]
    with app.test_request_context("/?lang=en"):
        t = db.session.get(Tournament, tid)
        later = utcnow() + timedelta(seconds=calls.CALL_GAP_SECONDS + 1)
        made = [first["id"]]
        for k in range(calls.MAX_CALLS_PER_ROUND - 1):
            c = calls.place_call(t, 2, 1, now=later + timedelta(minutes=2 * k))
            made.append(c.id)
            calls.close(c, "Referee", "done")
        with pytest.raises(ServiceError, match="called the referee 6 times"):
            calls.place_call(t, 2, 1, now=later + timedelta(hours=1))
        # another table is not limited by table 1
        assert calls.place_call(t, 2, 2).table == 2
        db.session.commit()
    assert len(set(made)) == calls.MAX_CALLS_PER_ROUND


def test_call_refused_for_a_round_not_played_and_a_foreign_link(app, field):
    tid, _token, old = field
    phone = phone_client(app)
    r = phone.post(f"/s/{old}/call", json={})
    assert r.status_code == 422 and "Round 1 is not being played now" in r.get_json()["message"]
    r = phone.post("/s/not-a-token/call", json={})
    assert r.status_code == 404 and r.get_json()["status"] == "forbidden"
    with app.app_context():
        assert db.session.scalars(select(RefereeCall)).all() == []


def test_queue_poll_answers_204_until_a_table_calls(app, ref, field):
    tid, token, _old = field
    page = text(ref.get("/referee/"))
    fp = page.split('data-fingerprint="', 1)[1].split('"', 1)[0]
    assert ref.get(f"/referee/?seen={fp}", headers=HX).status_code == 204
    phone_client(app).post(f"/s/{token}/call", json={"reason": "cards"})
    r = ref.get(f"/referee/?seen={fp}", headers=HX)
    assert r.status_code == 200 and "data-call-open" in text(r) and "I am going to table 1" in text(r)


def test_two_referees_one_takes_the_other_is_told(app, field):
    tid, token, _old = field
    phone_client(app).post(f"/s/{token}/call", json={})
    with app.app_context():
        call = db.session.scalar(select(RefereeCall))
        calls.take(call, "Novák")
        db.session.commit()
        with pytest.raises(StaleError, match="Novák"):
            calls.take(db.session.get(RefereeCall, call.id), "Horváth")


def test_operator_sees_calls_but_does_not_take_them(app, client, field):
    tid, token, _old = field
    make_user(app)
    login(client)
    client.set_cookie("lang", "en")
    state = phone_client(app).post(f"/s/{token}/call", json={}).get_json()
    page = text(client.get("/referee/"))
    assert "Round 2, table 1" in page and "I am going to table 1" not in page
    assert client.post(f"/referee/call/{state['id']}/take").status_code == 403
    with app.app_context():
        assert db.session.get(RefereeCall, state["id"]).status == "open"
