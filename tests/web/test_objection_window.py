"""SEM-C9: drawing or publishing the next round while the 10-minute objection
window of the previous round is open asks the operator first (a real form step)."""
from __future__ import annotations

import re
from datetime import timedelta

from tests.helpers import make_tournament, play_round, text
from webapp.extensions import db
from webapp.models import Tournament
from webapp.services import cases, rounds


def state(app, tid):
    with app.app_context():
        t = db.session.get(Tournament, tid)
        return t.version, [(r.number, r.status) for r in t.rounds]


def age_window(app, tid, round_no, minutes):
    """Pretend the standings after `round_no` were published `minutes` ago."""
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r = next(x for x in t.rounds if x.number == round_no)
        r.standings_published_at = r.standings_published_at - timedelta(minutes=minutes)
        db.session.commit()


def confirm_form(page: str) -> dict:
    """The hidden fields of the confirmation form, as a browser would send them."""
    form = page[page.index('name="confirm_window"') - 400:]
    return {"version": re.search(r'name="version" value="(\d+)"', form).group(1),
            "confirm_window": "1"}


def test_sem_c9_draw_during_the_window_asks_with_minutes_left_and_nothing_changes(app, op):
    tid = make_tournament(app, 9)
    play_round(app, tid)
    age_window(app, tid, 1, 3)  # 7 minutes left
    before = state(app, tid)
    page = op.post(f"/operator/t/{tid}/round/2/draw", data={"version": before[0]})
    body = text(page)
    assert page.status_code == 200 and 'id="objection-window"' in body
    assert "after round 1 are still running: 7 minutes left" in body
    assert "No discrepancy report is waiting for a referee." in body
    assert "Draw round 2 anyway" in body and 'action="/operator/t/%d/round/2/draw"' % tid in body
    assert "<script" not in body.split("</head>")[1] and "onsubmit" not in body  # a form step, not confirm()
    assert state(app, tid) == before

    resp = op.post(f"/operator/t/{tid}/round/2/draw", data=confirm_form(body))
    assert resp.status_code == 302
    assert state(app, tid)[1] == [(1, "closed"), (2, "draft")]


def test_sem_c9_publish_during_the_window_names_the_waiting_reports(app, op):
    tid = make_tournament(app, 9)
    play_round(app, tid)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        tab = t.rounds[0].tables[0]
        cases.report_discrepancy(t, tab.players[0], tab.number, 1, "My sum is 12,50, not 2,50.", referee="Referee")
        cases.report_discrepancy(t, tab.players[1], tab.number, 1, "Mine too.", referee="Referee")
        rounds.draw_round(t, "test")
        db.session.commit()
    age_window(app, tid, 1, 9)  # 1 minute left (rounded up)
    before = state(app, tid)
    body = text(op.post(f"/operator/t/{tid}/round/2/publish", data={"version": before[0]}))
    assert "1 minute left" in body and "2 discrepancy reports are waiting for a referee." in body
    assert "Publish round 2 anyway" in body and 'href="/referee/"' in body
    assert state(app, tid) == before

    resp = op.post(f"/operator/t/{tid}/round/2/publish", data=confirm_form(body))
    assert resp.status_code == 302 and state(app, tid)[1] == [(1, "closed"), (2, "published")]


def test_sem_c9_confirmation_keeps_the_version_check(app, op):
    """The confirming form carries the version the operator saw: a change made
    meanwhile refuses the draw instead of drawing on a state nobody looked at."""
    tid = make_tournament(app, 9)
    play_round(app, tid)
    v = state(app, tid)[0]
    body = text(op.post(f"/operator/t/{tid}/round/2/draw", data={"version": v}))
    with app.app_context():
        t = db.session.get(Tournament, tid)
        t.version += 1
        db.session.commit()
    resp = op.post(f"/operator/t/{tid}/round/2/draw", data=confirm_form(body))
    assert resp.status_code == 422 and state(app, tid)[1] == [(1, "closed")]


def test_sem_c9_no_question_once_the_window_has_closed(app, op):
    tid = make_tournament(app, 9)
    play_round(app, tid)
    age_window(app, tid, 1, 10)
    resp = op.post(f"/operator/t/{tid}/round/2/draw", data={"version": state(app, tid)[0]})
    assert resp.status_code == 302 and state(app, tid)[1] == [(1, "closed"), (2, "draft")]
    resp = op.post(f"/operator/t/{tid}/round/2/publish", data={"version": state(app, tid)[0]})
    assert resp.status_code == 302 and state(app, tid)[1][-1] == (2, "published")


def test_sem_c9_first_round_has_no_window(app, op):
    tid = make_tournament(app, 9)
    resp = op.post(f"/operator/t/{tid}/round/1/draw", data={"version": state(app, tid)[0]})
    assert resp.status_code == 302 and state(app, tid)[1] == [(1, "draft")]


def test_sem_c9_objection_window_service_counts_only_open_reports_of_the_previous_round(app):
    tid = make_tournament(app, 9)
    play_round(app, tid)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        tab = t.rounds[0].tables[0]
        c = cases.report_discrepancy(t, tab.players[0], tab.number, 1, "Wrong sum.", referee="Referee")
        assert rounds.objection_window(t, 2)["pending_reports"] == 1
        cases.reject(c, "referee", "The sheet is right.")
        w = rounds.objection_window(t, 2)
        assert w["pending_reports"] == 0 and w["round"] == 1 and w["minutes_left"] == 10
        assert rounds.objection_window(t, 2, now=w["until"]) is None
        assert rounds.objection_window(t, 1) is None
