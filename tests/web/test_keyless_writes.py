"""What a database write without the server's secret key can and cannot do (docs/SECURITY.md,
"A database write without the key"): each write the page lists, tried on both backends."""
from __future__ import annotations

import pytest
from sqlalchemy import delete, func, select, update
from werkzeug.security import generate_password_hash

from tests.helpers import issue_pins, login, make_tournament, make_user, open_round, signed_submission
from webapp.extensions import db
from webapp.models import PinAttempt, Player, Round, RoundTable, Sheet, User


@pytest.fixture
def table1(app):
    """Round 1 published, every player with a PIN: (tid, pins, the players of table 1)."""
    tid = make_tournament(app, 9)
    issued = issue_pins(app, tid)
    open_round(app, tid)
    with app.app_context():
        r = db.session.scalar(select(Round).where(Round.tournament_id == tid, Round.number == 1))
        return tid, issued, list(r.tables[0].players)


def english(app):
    client = app.test_client()
    client.set_cookie("lang", "en")
    return client


def verify(app) -> tuple[int, str]:
    result = app.test_cli_runner().invoke(args=["listok", "verify"])
    return result.exit_code, result.output


def write(app, statement) -> None:
    with app.app_context():
        db.session.execute(statement)
        db.session.commit()


def sheets(app, tid) -> int:
    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(Sheet).join(Sheet.table).join(RoundTable.round)
                                 .where(Round.tournament_id == tid))


@pytest.mark.parametrize("method", ["pbkdf2:sha256:1000", "scrypt:16384:8:1"])
def test_a_werkzeug_pin_hash_written_for_three_players_signs_no_sheet(app, client, table1, method):
    """The attack: three players' pin_hash set to a known werkzeug hash of 1111, then a sheet
    signed with 1111 for all three. Refused (wrong PIN, no receipt), nothing stored."""
    tid, _issued, players = table1
    known = generate_password_hash("1111", method=method)
    write(app, update(Player).where(Player.tournament_id == tid, Player.start_no.in_(players))
          .values(pin_hash=known))
    body = signed_submission(app, tid, 1, 1, [1450, 1000, 550], {s: "1111" for s in players})
    r = client.post("/api/v1/sheets", json=body)
    assert r.status_code == 422 and r.json["error"] == "wrong-pin" and "receipt" not in r.json
    assert sheets(app, tid) == 0
    r = client.post("/api/v1/pin", json={"token": body["token"], "start_no": players[0], "pin": "1111"})
    assert r.status_code == 422 and r.json["error"] == "wrong-pin"


def test_a_verifier_copied_from_another_player_or_made_with_another_key_signs_nothing(app, client, table1):
    """A verifier is bound to its tournament and start number and made with the server's key:
    copying the victim's own into an accomplice's row, or computing one with a guessed key,
    gives no PIN that signs."""
    from webapp.services import pins

    tid, issued, players = table1
    a, b, c = players
    with app.app_context():
        victim = db.session.scalar(select(Player.pin_hash).where(Player.tournament_id == tid, Player.start_no == a))
        forged = pins.verifier(b"guessed-key" * 3, tid, c, "1111")
    write(app, update(Player).where(Player.tournament_id == tid, Player.start_no == b).values(pin_hash=victim))
    write(app, update(Player).where(Player.tournament_id == tid, Player.start_no == c).values(pin_hash=forged))
    body = signed_submission(app, tid, 1, 1, [1450, 1000, 550], {a: issued[a], b: issued[a], c: "1111"})
    r = client.post("/api/v1/sheets", json=body)
    assert r.status_code == 422 and r.json["start_no"] == b and sheets(app, tid) == 0


def test_a_known_password_hash_written_into_an_admins_row_signs_nobody_in(app):
    """The admin's password hash replaced by one of a known password: that password is refused
    at sign-in, `listok verify` names the account (exit 1), signing out of a live session does
    not seal the written row, and an admin's password reset repairs it."""
    make_user(app, "boss", role="admin")
    make_user(app, "second", role="admin")
    boss = app.test_client()
    assert login(boss, "boss").status_code == 302
    write(app, update(User).where(User.username == "boss")
          .values(password_hash=generate_password_hash("attacker-pass")))
    attacker = english(app)
    r = login(attacker, "boss", "attacker-pass")
    assert r.status_code == 403 and "changed outside Listok" in r.get_data(as_text=True)
    assert attacker.get("/admin/").status_code in (302, 401)
    assert boss.get("/admin/").status_code in (302, 401)  # its live session no longer loads either
    code, out = verify(app)
    assert code == 1 and "account 'boss' (admin): changed outside Listok" in out
    with app.app_context():  # an update through the app does not launder the row
        u = db.session.scalar(select(User).where(User.username == "boss"))
        u.end_sessions()
        db.session.commit()
    assert login(app.test_client(), "boss", "attacker-pass").status_code == 403
    second = app.test_client()
    login(second, "second")
    with app.app_context():
        uid = db.session.scalar(select(User.id).where(User.username == "boss"))
    assert second.post(f"/admin/user/{uid}/password", data={"password": "a-new-secret", "confirm": "a-new-secret"}
                       ).status_code == 302
    assert login(app.test_client(), "boss", "a-new-secret").status_code == 302
    assert verify(app)[0] == 0


def test_a_role_raised_or_a_session_token_moved_in_sql_loads_nobody(app):
    """An operator raised to admin in SQL, or the operator's own session token written into the
    admin's row: neither session loads, neither account signs in, and verify names both."""
    make_user(app, "admin", role="admin")
    make_user(app, "op", role="operator")
    op = app.test_client()
    assert login(op, "op").status_code == 302
    write(app, update(User).where(User.username == "op").values(role="admin"))
    assert op.get("/admin/").status_code in (302, 401)
    assert login(app.test_client(), "op").status_code == 403
    make_user(app, "op2", role="operator")
    op2 = app.test_client()
    assert login(op2, "op2").status_code == 302
    with app.app_context():
        token = db.session.scalar(select(User.session_token).where(User.username == "op2"))
    write(app, update(User).where(User.username == "op2").values(session_token="moved-away"))
    write(app, update(User).where(User.username == "admin").values(session_token=token))
    assert op2.get("/admin/").status_code in (302, 401)  # op2's cookie now names the admin's row: refused
    code, out = verify(app)
    assert code == 1 and all(f"account '{n}'" in out for n in ("op", "op2", "admin"))


def test_what_a_write_without_the_key_can_do_is_what_the_page_says(app, client, table1):
    """The page's "can" list, shown: deleting a player's wrong attempts gives a guesser more
    tries (each still needs the PIN, and the writer could as well clear the PIN); sums edited in
    SQL are caught by `listok verify`."""
    tid, issued, players = table1
    a = players[0]
    token = signed_submission(app, tid, 1, 1, [1450, 1000, 550], issued)["token"]
    for _i in range(5):
        client.post("/api/v1/pin", json={"token": token, "start_no": a, "pin": "999999"})
    assert client.post("/api/v1/pin", json={"token": token, "start_no": a, "pin": issued[a]}).status_code == 423
    with app.app_context():
        pid = db.session.scalar(select(Player.id).where(Player.tournament_id == tid, Player.start_no == a))
    write(app, delete(PinAttempt).where(PinAttempt.player_id == pid))
    write(app, update(Player).where(Player.id == pid).values(pin_locked_until=None, pin_failures=0))
    assert client.post("/api/v1/pin", json={"token": token, "start_no": a, "pin": issued[a]}).status_code == 200
    body = signed_submission(app, tid, 1, 1, [1450, 1000, 550], issued)
    assert client.post("/api/v1/sheets", json=body).status_code == 200
    assert verify(app)[0] == 0
    with app.app_context():
        sid = db.session.scalar(select(Sheet.id))
    write(app, update(Sheet).where(Sheet.id == sid).values(sums=["20.00", "10.00", "0.00"]))
    code, out = verify(app)
    assert code == 1 and "sums differs" in out


def test_denial_of_service_and_a_replayed_row_are_what_the_page_says(app, client, table1):
    """The rest of the page's "can" list: a PIN cleared in SQL leaves the player without one
    (no-pin, a new slip needed); an account deactivated in SQL is refused; a whole older row put
    back (hash, token and MAC together) signs in with the older password; an assignment inserted
    in SQL opens the tournament to that operator."""
    from webapp.models import Assignment, Tournament

    tid, issued, players = table1
    token = signed_submission(app, tid, 1, 1, [1450, 1000, 550], issued)["token"]
    write(app, update(Player).where(Player.tournament_id == tid, Player.start_no == players[0]).values(pin_hash=None))
    r = client.post("/api/v1/pin", json={"token": token, "start_no": players[0], "pin": issued[players[0]]})
    assert r.status_code == 422 and r.json["error"] == "no-pin"
    make_user(app, "op", role="operator", everywhere=False)
    write(app, update(User).where(User.username == "op").values(active=False))
    refused = login(english(app), "op")
    assert refused.status_code == 200 and "Wrong user name or password" in refused.get_data(as_text=True)
    write(app, update(User).where(User.username == "op").values(active=True))
    with app.app_context():
        old = db.session.execute(select(User.password_hash, User.session_token, User.account_mac)
                                 .where(User.username == "op")).one()
        u = db.session.scalar(select(User).where(User.username == "op"))
        u.set_password("a-newer-password")
        db.session.commit()
    write(app, update(User).where(User.username == "op").values(password_hash=old[0], session_token=old[1],
                                                               account_mac=old[2]))
    op = app.test_client()
    assert login(op, "op").status_code == 302  # the older password, which the writer must know
    assert op.get(f"/operator/t/{tid}").status_code == 404
    with app.app_context():
        uid = db.session.scalar(select(User.id).where(User.username == "op"))
        db.session.add(Assignment(user_id=uid, tournament_id=tid))
        db.session.commit()
        assert db.session.get(Tournament, tid) is not None
    assert op.get(f"/operator/t/{tid}").status_code == 200
