"""Players' PINs: the service (hash, lockout, reset) and the operator's PIN slips."""
from __future__ import annotations

import re
import time
from datetime import timedelta

import pytest
from sqlalchemy import select, update
from werkzeug.security import check_password_hash

from tests.helpers import HX, issue_pins, login, make_tournament, make_user
from webapp.extensions import db
from webapp.models import AuditEntry, Player, Tournament, utcnow
from webapp.services import pins
from webapp.services.common import ServiceError


def player(tid, start_no) -> Player:
    return db.session.scalar(select(Player).where(Player.tournament_id == tid, Player.start_no == start_no))


@pytest.fixture
def tid(app):
    return make_tournament(app, 9)


# --------------------------------------------------------------------------- the service


def test_a_random_pin_is_4_digits_stored_only_as_a_slow_hash(app, tid):
    with app.app_context():
        p = player(tid, 1)
        pin = pins.issue_pin(p, actor="desk")
        db.session.commit()
        assert re.fullmatch(r"\d{4}", pin)
        assert p.pin_hash.startswith("scrypt:16384:8:1$") and pin not in p.pin_hash
        assert check_password_hash(p.pin_hash, pin)
        entry = db.session.scalar(select(AuditEntry).where(AuditEntry.action == "pin.issue"))
        assert entry.payload == {"start_no": 1, "chosen": False} and entry.actor == "desk"
        started = time.perf_counter()
        pins.check_pin(db.session.get(Tournament, tid), p, pin)
        # three PINs are checked per sheet: a PIN check must stay well under a second
        assert time.perf_counter() - started < 0.5


def test_random_pins_differ(app, tid):
    with app.app_context():
        app.config["LISTOK_PIN_HASH_METHOD"] = "pbkdf2:sha256:1000"
        issued = {pins.issue_pin(player(tid, 1)) for _ in range(30)}
        assert len(issued) > 20


@pytest.mark.parametrize("chosen", ["0042", "12345", "987654", " 4821 "])
def test_a_player_may_choose_4_to_6_digits(app, tid, chosen):
    with app.app_context():
        p = player(tid, 2)
        assert pins.issue_pin(p, chosen) == chosen.strip()
        assert check_password_hash(p.pin_hash, chosen.strip())


@pytest.mark.parametrize("chosen", ["123", "1234567", "12a4", "", "١٢٣٤", "12 34"])
def test_a_chosen_pin_that_is_not_4_to_6_digits_is_refused(app, tid, chosen):
    with app.app_context():
        p = player(tid, 2)
        with pytest.raises(ServiceError) as e:
            pins.issue_pin(p, chosen)
        assert e.value.field == "pin" and p.pin_hash is None


def test_wrong_pins_count_lock_and_unlock(app, tid):
    issue_pins(app, tid)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        p = player(tid, 3)
        for left in (4, 3, 2, 1):
            with pytest.raises(pins.PinError) as e:
                pins.check_pin(t, p, "xxxx")
            assert not isinstance(e.value, pins.PinLocked) and e.value.attempts_left == left
        with pytest.raises(pins.PinLocked) as e:
            pins.check_pin(t, p, "xxxx")
        db.session.commit()
        until = e.value.until
        assert p.pin_locked_until == until and p.pin_failures == 0
        assert timedelta(minutes=14, seconds=59) < until - utcnow() <= timedelta(minutes=15)


def test_a_right_pin_resets_the_count(app, tid):
    pin = issue_pins(app, tid)[4]
    with app.app_context():
        t = db.session.get(Tournament, tid)
        p = player(tid, 4)
        for _ in range(3):
            with pytest.raises(pins.PinError):
                pins.check_pin(t, p, "0")
        db.session.commit()
        assert player(tid, 4).pin_failures == 3
        pins.check_pin(t, p, pin)
        db.session.commit()
        db.session.expire_all()
        assert player(tid, 4).pin_failures == 0


def test_the_count_is_an_update_in_the_database_not_a_copy_in_memory(app, tid):
    """Failures another request wrote meanwhile are counted on: this request's stale copy of
    the player is never written back (no read-modify-write)."""
    issue_pins(app, tid)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        p = player(tid, 5)
        assert p.pin_failures == 0
        db.session.execute(update(Player).where(Player.id == p.id).values(pin_failures=3)
                           .execution_options(synchronize_session=False))
        assert p.pin_failures == 0  # what this request read before
        with pytest.raises(pins.PinError) as e:
            pins.check_pin(t, p, "0")
        assert e.value.attempts_left == 1
        with pytest.raises(pins.PinLocked):
            pins.check_pin(t, p, "0")


def test_a_locked_player_is_refused_even_with_the_right_pin_until_the_lock_ends(app, tid):
    pin = issue_pins(app, tid)[6]
    with app.app_context():
        t = db.session.get(Tournament, tid)
        p = player(tid, 6)
        p.pin_locked_until = utcnow() + timedelta(minutes=3)
        db.session.commit()
        with pytest.raises(pins.PinLocked):
            pins.check_pin(t, p, pin)
        p.pin_locked_until = utcnow() - timedelta(seconds=1)
        db.session.commit()
        pins.check_pin(t, p, pin)


def test_no_pin_yet(app, tid):
    with app.app_context():
        t = db.session.get(Tournament, tid)
        with pytest.raises(pins.PinError) as e:
            pins.check_pin(t, player(tid, 7), "1234")
        assert e.value.code == "no-pin" and player(tid, 7).pin_failures == 0


def test_reset_clears_pin_and_lock_with_an_audit_entry(app, tid):
    issue_pins(app, tid)
    with app.app_context():
        p = player(tid, 8)
        p.pin_locked_until = utcnow() + timedelta(minutes=10)
        p.pin_failures = 2
        pins.reset_pin(p, "Referee")
        db.session.commit()
        assert (p.pin_hash, p.pin_failures, p.pin_locked_until) == (None, 0, None)
        entry = db.session.scalar(select(AuditEntry).where(AuditEntry.action == "pin.reset"))
        assert entry.actor == "Referee" and entry.payload == {"start_no": 8, "had_pin": True}


def test_issue_missing_pins_skips_players_who_got_one_meanwhile(app, tid):
    app.config["LISTOK_PIN_HASH_METHOD"] = "pbkdf2:sha256:1000"
    with app.app_context():
        t = db.session.get(Tournament, tid)
        player(tid, 9).present = False
        db.session.commit()
        shown = [p.start_no for p in pins.players_without_pin(t)]
        assert shown == list(range(1, 9))
        pins.issue_pin(player(tid, 1))  # another desk, meanwhile
        db.session.commit()
        issued = pins.issue_missing_pins(t, shown, "desk")
        db.session.commit()
        assert [p.start_no for p, _pin in issued] == list(range(2, 9))
        assert all(check_password_hash(p.pin_hash, pin) for p, pin in issued)
        assert pins.players_without_pin(t) == [] and player(tid, 9).pin_hash is None
        assert pins.issue_missing_pins(t, shown, "desk") == []


# --------------------------------------------------------------------------- the operator's pages


def test_the_check_in_list_has_a_pin_slip_button_per_player(app, op, tid):
    html = op.get(f"/operator/t/{tid}/checkin").get_data(as_text=True)
    assert html.count('class="pin-slip-button"') == 9
    assert f'/operator/t/{tid}/pins' in html
    fragment = op.get(f"/operator/t/{tid}/checkin", headers=HX).get_data(as_text=True)
    assert fragment.count("pin-slip-button") == 9 and "<html" not in fragment


def test_the_pin_slip_button_issues_a_pin_and_shows_the_printable_slip(app, op, tid):
    with app.app_context():
        pid = player(tid, 3).id
        name = player(tid, 3).name
    r = op.post(f"/operator/t/{tid}/players/{pid}/pin")
    assert r.status_code == 200 and r.headers["Cache-Control"] == "no-store"
    html = r.get_data(as_text=True)
    pin = re.search(r'class="pin-slip-digits">(\d+)<', html).group(1)
    assert name in html and 'class="pin-slip-no">3<' in html and "data-print" in html
    assert "After 5 wrong PINs signing is locked for 15 minutes." in html
    with app.app_context():
        assert check_password_hash(player(tid, 3).pin_hash, pin)
    # now the row links to the page, where a new PIN replaces the old one
    row = op.get(f"/operator/t/{tid}/checkin?q=3", headers=HX).get_data(as_text=True)
    assert "has a PIN" in row
    page = op.get(f"/operator/t/{tid}/players/{pid}/pin").get_data(as_text=True)
    assert "has a PIN" in page and "pin-slip-digits" not in page


def test_the_player_chooses_a_pin(app, op, tid):
    with app.app_context():
        pid = player(tid, 4).id
    r = op.post(f"/operator/t/{tid}/players/{pid}/pin", data={"pin": "240681"})
    assert r.status_code == 200 and 'class="pin-slip-digits">240681<' in r.get_data(as_text=True)
    with app.app_context():
        assert check_password_hash(player(tid, 4).pin_hash, "240681")


def test_a_bad_chosen_pin_is_shown_next_to_the_field_and_nothing_changes(app, op, tid):
    with app.app_context():
        p = player(tid, 5)
        pid, before = p.id, p.pin_hash
    r = op.post(f"/operator/t/{tid}/players/{pid}/pin", data={"pin": "12"})
    assert r.status_code == 422
    html = r.get_data(as_text=True)
    assert re.search(r'has-error">\s*<label for="pin"', html) and "A PIN is 4 to 6 digits." in html
    assert "pin-slip-digits" not in html
    with app.app_context():
        assert player(tid, 5).pin_hash == before


def test_clearing_a_pin_unlocks_the_player(app, op, tid):
    issue_pins(app, tid)
    with app.app_context():
        p = player(tid, 6)
        p.pin_locked_until = utcnow() + timedelta(minutes=9)
        db.session.commit()
        pid = p.id
    page = op.get(f"/operator/t/{tid}/players/{pid}/pin").get_data(as_text=True)
    assert "locked until" in page
    r = op.post(f"/operator/t/{tid}/players/{pid}/pin/reset", follow_redirects=True)
    assert r.status_code == 200 and "cleared and unlocked" in r.get_data(as_text=True)
    with app.app_context():
        p = player(tid, 6)
        assert p.pin_hash is None and p.pin_locked_until is None


def test_print_slips_for_everyone_checked_in_without_a_pin(app, op, tid):
    app.config["LISTOK_PIN_HASH_METHOD"] = "pbkdf2:sha256:1000"
    with app.app_context():
        player(tid, 9).present = False
        pins.issue_pin(player(tid, 1))
        db.session.commit()
    page = op.get(f"/operator/t/{tid}/pins")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "7 players are checked in without a PIN" in html
    assert 'name="start_no" value="1"' not in html and 'name="start_no" value="9"' not in html
    r = op.post(f"/operator/t/{tid}/pins", data={"start_no": [str(s) for s in range(2, 9)]})
    assert r.status_code == 200 and r.headers["Cache-Control"] == "no-store"
    html = r.get_data(as_text=True)
    found = dict(re.findall(r'data-start-no="(\d+)">.*?class="pin-slip-digits">(\d+)<', html, re.S))
    assert sorted(map(int, found)) == list(range(2, 9))
    assert "7 PINs issued" in html and "Every checked-in player has a PIN." in html
    with app.app_context():
        assert all(check_password_hash(player(tid, int(s)).pin_hash, pin) for s, pin in found.items())
    again = op.post(f"/operator/t/{tid}/pins", data={"start_no": [str(s) for s in range(2, 9)]})
    assert "No PIN was issued" in again.get_data(as_text=True)


def test_pin_pages_are_for_operators(app, client, tid):
    with app.app_context():
        pid = player(tid, 1).id
    assert client.post(f"/operator/t/{tid}/players/{pid}/pin").status_code == 302
    make_user(app, "ref", role="referee")
    login(client, "ref")
    assert client.post(f"/operator/t/{tid}/players/{pid}/pin").status_code == 403
    assert client.get(f"/operator/t/{tid}/pins").status_code == 403
    with app.app_context():
        assert player(tid, 1).pin_hash is None
