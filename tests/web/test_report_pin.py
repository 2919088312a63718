"""SEM-C9 discrepancy reports need the reporting player's PIN, or a signed-in
referee: nobody files reports in another player's name, and fake reports do
not use up a player's limit."""
from __future__ import annotations

from sqlalchemy import select

from tests.helpers import HX, login, make_user, text
from tests.web.test_referee import field, published, report_cases  # noqa: F401  (fixtures)
from webapp.extensions import db
from webapp.models import Player
from webapp.services import cases, pins as pin_service


def report(client, tid, start_no, pin=None, table="1", text_="zlá suma", headers=None):
    data = {"start_no": str(start_no), "table": table, "round": "2", "text": text_}
    if pin is not None:
        data["pin"] = pin
    return client.post(f"/t/{tid}/discrepancy", data=data, headers=headers or {})


def wrong(pin: str) -> str:
    return "0000" if pin != "0000" else "1111"


def failures(app, tid, start_no) -> int:
    with app.app_context():
        p = db.session.scalar(select(Player).where(Player.tournament_id == tid, Player.start_no == start_no))
        return p.pin_failures


def test_sem_c9_the_form_asks_for_the_pin(app, anon, published):
    tid, seats = published
    form = text(anon.get(f"/t/{tid}/discrepancy?round=2&start_no={seats[0]}"))
    assert 'name="pin"' in form and 'type="password"' in form


def test_sem_c9_a_report_without_a_pin_is_refused(app, anon, published):
    tid, seats = published
    r = report(anon, tid, seats[0])
    assert r.status_code == 422 and "Enter your PIN." in text(r)
    assert report_cases(app) == []
    assert failures(app, tid, seats[0]) == 0  # no PIN typed is no attempt


def test_sem_c9_a_wrong_pin_refuses_the_report_with_attempts_left(app, anon, published, field):
    tid, seats = published
    pins = field[1]
    r = report(anon, tid, seats[0], wrong(pins[seats[0]]), headers=HX)
    body = text(r)
    assert r.status_code == 422 and 'id="report-form"' in body
    assert f"Wrong PIN for start number {seats[0]}. Attempts left: 4." in body and "Nothing was sent." in body
    assert report_cases(app) == []
    # the failure is committed although the report was refused: it counts towards the lockout
    assert failures(app, tid, seats[0]) == 1
    r = report(anon, tid, seats[0], wrong(pins[seats[0]]))
    assert "Attempts left: 3." in text(r)


def test_sem_c9_a_report_in_another_players_name_needs_their_pin(app, anon, published, field):
    tid, seats = published
    pins = field[1]
    reporter, victim = seats[0], seats[1]
    r = report(anon, tid, victim, pins[reporter])  # my own PIN does not make me someone else
    assert r.status_code == 422 and f"Wrong PIN for start number {victim}." in text(r)
    assert report_cases(app) == []


def test_sem_c9_repeated_wrong_pins_lock_and_stop_reports(app, anon, published, field):
    tid, seats = published
    pins = field[1]
    for _i in range(pin_service.MAX_FAILURES):
        report(anon, tid, seats[0], wrong(pins[seats[0]]))
    r = report(anon, tid, seats[0], pins[seats[0]])  # even the right PIN while locked
    assert r.status_code == 422 and "locked" in text(r) and report_cases(app) == []


def test_sem_c9_fake_reports_do_not_block_the_real_player(app, anon, published, field):
    """The old attack: five reports in a player's name blocked them for the
    whole 10 minutes. Refused reports count for nothing, and a referee's report
    for the player does not use up the player's own limit."""
    tid, seats = published
    pins = field[1]
    for _i in range(cases.MAX_REPORTS):
        assert report(anon, tid, seats[0], None).status_code == 422
    make_user(app, "referee", role="referee")
    with app.test_client() as referee:
        login(referee, "referee")
        referee.set_cookie("lang", "en")
        form = text(referee.get(f"/t/{tid}/discrepancy?round=2"))
        assert 'id="report-as-referee"' in form and 'name="pin"' not in form
        r = report(referee, tid, seats[0])
        assert r.status_code == 200 and 'id="report-sent"' in text(r)
    [by_referee] = report_cases(app)
    assert by_referee.payload["verified"] == "referee" and by_referee.created_by == "Referee"
    for _i in range(cases.MAX_REPORTS):
        assert report(anon, tid, seats[0], pins[seats[0]]).status_code == 200
    r = report(anon, tid, seats[0], pins[seats[0]])
    assert r.status_code == 422 and "has already sent 5 reports for round 2" in text(r)
    assert len(report_cases(app)) == cases.MAX_REPORTS + 1


def test_sem_c9_a_player_without_a_pin_is_told_what_to_do(app, anon, published):
    tid, seats = published
    with app.app_context():
        p = db.session.scalar(select(Player).where(Player.tournament_id == tid, Player.start_no == seats[2]))
        pin_service.reset_pin(p, "test")
        db.session.commit()
    r = report(anon, tid, seats[2], "1234")
    assert r.status_code == 422 and "has no PIN yet" in text(r) and report_cases(app) == []


def test_sem_c9_the_pin_form_in_slovak_and_czech(app, client, published, field):
    tid, seats = published
    pins = field[1]
    for lang, expected in (("sk", "Nesprávny PIN"), ("cs", "Chybný PIN")):
        client.set_cookie("lang", lang)
        form = text(client.get(f"/t/{tid}/discrepancy?round=2"))
        assert "Váš PIN" in form
        r = report(client, tid, seats[1], "9" * 40)
        assert r.status_code == 422
        r = report(client, tid, seats[1], wrong(pins[seats[1]]))
        assert expected in text(r), lang
