"""Players' PINs: the service (keyed verifiers, lockout, reset) and the operator's PIN slips."""
from __future__ import annotations

import re
import threading
import time
from datetime import timedelta

import pytest
from sqlalchemy import delete, select, update
from werkzeug.security import generate_password_hash

from tests.helpers import HX, issue_pins, login, make_tournament, make_user
from webapp.extensions import db
from webapp.models import AuditEntry, PinAttempt, Player, Tournament, utcnow
from webapp.services import pins
from webapp.services.common import ServiceError


def player(tid, start_no) -> Player:
    return db.session.scalar(select(Player).where(Player.tournament_id == tid, Player.start_no == start_no))


def is_pin(p: Player, pin: str) -> bool:
    t = db.session.get(Tournament, p.tournament_id)
    return pins.pin_matches(p.pin_hash, pins.pepper(t.id, t.pin_salt), t.id, p.start_no, pin)


@pytest.fixture
def tid(app):
    return make_tournament(app, 9)


@pytest.fixture
def evaluations(monkeypatch):
    """Every PIN evaluation: (stored, pin, matched)."""
    seen, real, lock = [], pins.pin_matches, threading.Lock()

    def counted(stored, key, tid, start_no, pin):
        matched = real(stored, key, tid, start_no, pin)
        with lock:
            seen.append((start_no, pin, matched))
        return matched

    monkeypatch.setattr(pins, "pin_matches", counted)
    return seen


# --------------------------------------------------------------------------- the service


def test_a_random_pin_is_4_digits_stored_only_as_a_keyed_verifier(app, tid):
    with app.app_context():
        p = player(tid, 1)
        pin = pins.issue_pin(p, actor="desk")
        db.session.commit()
        assert re.fullmatch(r"\d{4}", pin)
        assert p.pin_hash.startswith("hmac-sha256$") and pin not in p.pin_hash
        assert is_pin(p, pin) and not is_pin(p, "x" + pin)
        assert p.pin_issued_by == "desk" and utcnow() - p.pin_issued_at < timedelta(seconds=5)
        entry = db.session.scalar(select(AuditEntry).where(AuditEntry.action == "pin.issue"))
        assert entry.actor == "desk"
        assert {k: entry.payload[k] for k in ("start_no", "chosen", "replaced", "during_round")} == \
            {"start_no": 1, "chosen": False, "replaced": False, "during_round": None}
        t = db.session.get(Tournament, tid)
        started = time.perf_counter()
        for _ in range(100):
            pins.check_pin(t, p, pin)
        print(f"\nPIN check (keyed verifier, with its attempt row): {(time.perf_counter() - started) * 10:.2f} ms")


def test_a_stolen_database_without_the_secret_key_reveals_no_pin(app, tid):
    """All 10,000 four-digit PINs tried against the stored verifier with another
    server key: none matches; with the server's key exactly one does."""
    with app.app_context():
        p = player(tid, 2)
        pin = pins.issue_pin(p, actor="desk")
        db.session.commit()
        t = db.session.get(Tournament, tid)
        stolen = (p.pin_hash, t.id, p.start_no, t.pin_salt)
        guesses = [f"{i:04d}" for i in range(10000)]
    with app.app_context():
        app.config["SECRET_KEY"] = "what-the-thief-guesses"
        key = pins.pepper(stolen[1], stolen[3])
        assert not any(pins.pin_matches(stolen[0], key, stolen[1], stolen[2], g) for g in guesses)
        app.config["SECRET_KEY"] = "test-secret"
        key = pins.pepper(stolen[1], stolen[3])
        assert [g for g in guesses if pins.pin_matches(stolen[0], key, stolen[1], stolen[2], g)] == [pin]


def test_verifiers_differ_per_tournament_and_start_number(app, tid):
    other = make_tournament(app, 3, name="Other")
    with app.app_context():
        a, b, c = player(tid, 1), player(tid, 2), player(other, 1)
        for p in (a, b, c):
            pins.issue_pin(p, "4821")
        db.session.commit()
        assert len({a.pin_hash, b.pin_hash, c.pin_hash}) == 3
        assert db.session.get(Tournament, tid).pin_salt != db.session.get(Tournament, other).pin_salt


@pytest.mark.parametrize("method", ["scrypt:16384:8:1", "pbkdf2:sha256:1000"])
def test_a_werkzeug_hash_written_into_the_database_is_no_pin(app, tid, method):
    """Anyone can make a werkzeug hash without the server's key: written into a player's row it
    verifies no PIN, not even the one it was made from (docs/SECURITY.md); a new issue works."""
    with app.app_context():
        t = db.session.get(Tournament, tid)
        p = player(tid, 3)
        p.pin_hash = generate_password_hash("2468", method=method)
        db.session.commit()
        with pytest.raises(pins.PinError) as refused:
            pins.check_pin(t, p, "2468")
        assert refused.value.code == "wrong-pin"
        pins.issue_pin(p, "2468", actor="desk")
        db.session.commit()
        assert p.pin_hash.startswith("hmac-sha256$")
        pins.check_pin(t, p, "2468")


def test_a_tournament_without_a_salt_gets_one_on_first_issue(app, tid):
    with app.app_context():
        db.session.execute(update(Tournament).where(Tournament.id == tid).values(pin_salt=None))
        db.session.commit()
        p = player(tid, 4)
        pin = pins.issue_pin(p, actor="desk")
        db.session.commit()
        t = db.session.get(Tournament, tid)
        assert t.pin_salt and is_pin(p, pin)
        pins.check_pin(t, p, pin)


def test_random_pins_differ(app, tid):
    with app.app_context():
        issued = {pins.issue_pin(player(tid, 1)) for _ in range(30)}
        assert len(issued) > 20


@pytest.mark.parametrize("chosen", ["0042", "12345", "987654", " 4821 "])
def test_a_player_may_choose_4_to_6_digits(app, tid, chosen):
    with app.app_context():
        p = player(tid, 2)
        assert pins.issue_pin(p, chosen) == chosen.strip()
        assert is_pin(p, chosen.strip())


@pytest.mark.parametrize("chosen", ["123", "1234567", "12a4", "", "١٢٣٤", "12 34"])
def test_a_chosen_pin_that_is_not_4_to_6_digits_is_refused(app, tid, chosen):
    with app.app_context():
        p = player(tid, 2)
        with pytest.raises(ServiceError) as e:
            pins.issue_pin(p, chosen)
        assert e.value.field == "pin" and p.pin_hash is None


def test_wrong_pins_count_lock_and_unlock(app, tid):
    pin = issue_pins(app, tid)[3]
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
        assert p.pin_locked_until == until
        assert timedelta(minutes=14, seconds=59) < until - utcnow() <= timedelta(minutes=15)
        with pytest.raises(pins.PinLocked):
            pins.check_pin(t, p, pin)
        pins.check_pin(t, p, pin, now=until)  # the lock is over, and the failures with it
        with pytest.raises(pins.PinError) as e:
            pins.check_pin(t, p, "xxxx", now=until)
        assert e.value.attempts_left == 4


def test_a_right_pin_does_not_wipe_the_wrong_ones_of_the_last_15_minutes(app, tid, evaluations):
    """At most 5 wrong PINs are evaluated per player in any 15 minutes, however
    often the right PIN comes in between (docs/SYNC.md)."""
    pin = issue_pins(app, tid)[4]
    with app.app_context():
        t = db.session.get(Tournament, tid)
        p = player(tid, 4)
        for _ in range(3):
            with pytest.raises(pins.PinError):
                pins.check_pin(t, p, "0")
        pins.check_pin(t, p, pin)
        with pytest.raises(pins.PinError) as e:
            pins.check_pin(t, p, "0")
        assert e.value.attempts_left == 1
        pins.check_pin(t, p, pin)
        with pytest.raises(pins.PinLocked):
            pins.check_pin(t, p, "0")
        with pytest.raises(pins.PinLocked):
            pins.check_pin(t, p, pin)
        assert [m for _s, _p, m in evaluations] == [False] * 3 + [True, False, True, False]


def test_wrong_pins_older_than_15_minutes_no_longer_count(app, tid):
    issue_pins(app, tid)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        p = player(tid, 5)
        start = utcnow()
        for i in range(4):
            with pytest.raises(pins.PinError):
                pins.check_pin(t, p, "0", now=start + timedelta(minutes=i))
        with pytest.raises(pins.PinError) as e:  # the first has expired, the other three count
            pins.check_pin(t, p, "0", now=start + timedelta(minutes=15, seconds=1))
        assert e.value.attempts_left == 1


def test_the_count_is_in_the_database_not_a_copy_in_memory(app, tid):
    """Attempts another request wrote meanwhile are counted on: this request's
    stale copy of the player is never what decides."""
    issue_pins(app, tid)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        p = player(tid, 5)
        now = utcnow()
        for _ in range(3):
            db.session.add(PinAttempt(player_id=p.id, at=now, kept=True))
        db.session.commit()
        with pytest.raises(pins.PinError) as e:
            pins.check_pin(t, p, "0")
        assert e.value.attempts_left == 1
        with pytest.raises(pins.PinLocked):
            pins.check_pin(t, p, "0")


def test_a_locked_player_is_refused_even_with_the_right_pin_until_the_lock_ends(app, tid, evaluations):
    pin = issue_pins(app, tid)[6]
    with app.app_context():
        t = db.session.get(Tournament, tid)
        p = player(tid, 6)
        p.pin_locked_until = utcnow() + timedelta(minutes=3)
        db.session.commit()
        with pytest.raises(pins.PinLocked):
            pins.check_pin(t, p, pin)
        assert evaluations == []  # refused before the PIN is looked at
        p.pin_locked_until = utcnow() - timedelta(seconds=1)
        db.session.commit()
        pins.check_pin(t, p, pin)


def test_a_check_waits_for_the_one_holding_the_player_and_sees_its_lock(app, tid):
    """Lockout step 4 (docs/SYNC.md): a PIN is evaluated with the player's row held
    until the transaction ends, so a right PIN sent while the 5th wrong one is
    being stored waits for it and is then refused as locked (SQLite: the write
    lock; PostgreSQL: the row lock)."""
    pin = issue_pins(app, tid)[6]
    with app.app_context():
        t = db.session.get(Tournament, tid)
        for _ in range(4):
            with pytest.raises(pins.PinError):
                pins.check_pin(t, player(tid, 6), "xxxx")
        db.session.commit()
    evaluated, release, events = threading.Event(), threading.Event(), []

    def fifth_wrong():
        with app.app_context():
            with pytest.raises(pins.PinLocked):
                pins.check_pin(db.session.get(Tournament, tid), player(tid, 6), "xxxx")
            evaluated.set()
            release.wait(10)
            events.append("fifth committed")
            db.session.commit()

    def right_meanwhile():
        with app.app_context():
            try:
                pins.check_pin(db.session.get(Tournament, tid), player(tid, 6), pin)
                events.append("right accepted")
            except pins.PinLocked:
                events.append("right refused: locked")
            db.session.rollback()

    first = threading.Thread(target=fifth_wrong)
    first.start()
    assert evaluated.wait(10)
    second = threading.Thread(target=right_meanwhile)
    second.start()
    second.join(0.5)
    assert second.is_alive() and events == []  # waiting for the player's row
    release.set()
    first.join(10)
    second.join(10)
    assert events == ["fifth committed", "right refused: locked"]


def test_no_pin_yet_and_an_empty_pin_are_not_attempts(app, tid, evaluations):
    issue_pins(app, tid)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        p = player(tid, 7)
        p.pin_hash = None
        db.session.commit()
        with pytest.raises(pins.PinError) as e:
            pins.check_pin(t, p, "1234")
        assert e.value.code == "no-pin"
        with pytest.raises(pins.PinError) as e:
            pins.check_pin(t, player(tid, 8), "")
        assert e.value.code == "pin-needed"
        assert evaluations == [] and db.session.scalar(select(PinAttempt.id)) is None


def test_reset_clears_pin_and_lock_with_an_audit_entry(app, tid):
    issue_pins(app, tid)
    with app.app_context():
        p = player(tid, 8)
        p.pin_locked_until = utcnow() + timedelta(minutes=10)
        db.session.add(PinAttempt(player_id=p.id, at=utcnow(), kept=True))
        pins.reset_pin(p, "Referee")
        db.session.commit()
        assert (p.pin_hash, p.pin_failures, p.pin_locked_until, p.pin_issued_at) == (None, 0, None, None)
        assert db.session.scalar(select(PinAttempt.id).where(PinAttempt.player_id == p.id)) is None
        entry = db.session.scalar(select(AuditEntry).where(AuditEntry.action == "pin.reset"))
        assert entry.actor == "Referee" and entry.payload == {"start_no": 8, "had_pin": True, "during_round": None}


def test_issue_missing_pins_skips_players_who_got_one_meanwhile(app, tid):
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
        assert all(is_pin(p, pin) and p.pin_issued_by == "desk" for p, pin in issued)
        assert pins.players_without_pin(t) == [] and player(tid, 9).pin_hash is None
        assert pins.issue_missing_pins(t, shown, "desk") == []


def test_issuing_pins_for_400_players(app):
    tid = make_tournament(app, 400)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        started = time.perf_counter()
        issued = pins.issue_missing_pins(t, [p.start_no for p in t.players], "desk")
        db.session.commit()
        took = time.perf_counter() - started
        print(f"\nPINs for 400 players (issue_missing_pins + commit): {took * 1000:.0f} ms")
        assert len(issued) == 400 and len({p.pin_hash for p, _pin in issued}) == 400


# --------------------------------------------------------------------------- the lockout under concurrency


def _burst(apps, tid, start_no, pin, wrong_n, right_n):
    """wrong_n wrong PINs and right_n right ones for one player, all at once, each
    thread with its own session on one of `apps` (engines). Returns the outcomes."""
    jobs = ["wrong"] * wrong_n + ["right"] * right_n
    go = threading.Barrier(len(jobs))
    out, lock = [], threading.Lock()

    def run(i, kind):
        a = apps[i % len(apps)]
        with a.app_context():
            t = db.session.get(Tournament, tid)
            p = db.session.scalar(select(Player).where(Player.tournament_id == tid, Player.start_no == start_no))
            db.session.commit()  # SQLite: no write lock held while waiting for the others
            go.wait()
            try:
                pins.check_pin(t, p, pin if kind == "right" else "9" + pin)
                result = "ok"
            except pins.PinLocked:
                result = "locked"
            except pins.PinError:
                result = "wrong"
            db.session.commit()
            with lock:
                out.append((kind, result))

    threads = [threading.Thread(target=run, args=(i, k)) for i, k in enumerate(jobs)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return out


def test_the_lockout_holds_under_concurrent_guesses_from_many_threads_and_engines(app, tid, database_url,
                                                                                  monkeypatch):
    """20 bursts of 12 wrong PINs and 3 right ones for one player, from 15
    threads on two engines (two connection pools) at once: never more than 5
    wrong PINs evaluated per burst, and no right PIN accepted once the 5th wrong
    one locked the player."""
    from webapp import create_app

    other = create_app({"TESTING": True, "SECRET_KEY": "test-secret", "SQLALCHEMY_DATABASE_URI": database_url,
                        "SERVER_NAME": "localhost"})
    pin = issue_pins(app, tid)[2]
    order, real, lock = [], pins.pin_matches, threading.Lock()

    def recorded(stored, key, tid_, start_no, given):
        time.sleep(0.003)  # as slow as an old scrypt hash, so that a race would show
        matched = real(stored, key, tid_, start_no, given)
        with lock:
            order.append(matched)
        return matched

    monkeypatch.setattr(pins, "pin_matches", recorded)
    try:
        for _burst_no in range(20):
            with app.app_context():
                p = player(tid, 2)
                db.session.execute(delete(PinAttempt).where(PinAttempt.player_id == p.id))
                p.pin_locked_until = None
                db.session.commit()
            order.clear()
            out = _burst([app, other], tid, 2, pin, 12, 3)
            wrong_evaluated = order.count(False)
            assert wrong_evaluated <= 5
            # evaluations are in the order the database let them happen: a right PIN
            # evaluated after the 5th wrong one would be one accepted while locked
            if wrong_evaluated == 5:
                fifth = [i for i, m in enumerate(order) if not m][4]
                assert all(m is False for m in order[fifth + 1:])
            assert sum(1 for k, r in out if k == "wrong" and r == "wrong") == min(wrong_evaluated, 4)
            assert sum(1 for k, r in out if k == "right" and r == "ok") == order.count(True)
            assert sum(1 for _k, r in out if r == "locked") == len(out) - len(order) + (wrong_evaluated == 5)
            with app.app_context():
                assert db.session.scalar(select(db.func.count()).select_from(PinAttempt)
                                         .where(PinAttempt.player_id == player(tid, 2).id)) == wrong_evaluated
    finally:
        with other.app_context():
            db.engine.dispose()


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
    # the slip speaks the tournament's paper language (Slovak for SEM), not the operator's (en here)
    assert "Po 5 nesprávnych PIN-och sa podpisovanie na 15 minút zablokuje." in html
    assert "Po 5 chybných PINech se podepisování na 15 minut zablokuje." not in html
    with app.app_context():
        assert is_pin(player(tid, 3), pin)
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
        assert is_pin(player(tid, 4), "240681")


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
    found = dict(re.findall(r'data-start-no="(\d+)"[^>]*>.*?class="pin-slip-digits">(\d+)<', html, re.S))
    assert sorted(map(int, found)) == list(range(2, 9))
    assert "7 PINs issued" in html and "Every checked-in player has a PIN." in html
    with app.app_context():
        assert all(is_pin(player(tid, int(s)), pin) for s, pin in found.items())
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


# --------------------------------------------------------------------------- sheets: cheap work first, PINs issued mid-round


@pytest.fixture
def table1(app, tid):
    """Round 1 published (3 tables of 3), every player with a PIN issued before it: (pins, players of table 1)."""
    from tests.helpers import open_round

    issued = issue_pins(app, tid)
    open_round(app, tid)
    with app.app_context():
        from webapp.models import Round

        r = db.session.scalar(select(Round).where(Round.tournament_id == tid, Round.number == 1))
        return issued, list(r.tables[0].players)


def sheet(app, tid, issued, **kw):
    from tests.helpers import signed_submission

    return signed_submission(app, tid, 1, 1, [1450, 1000, 550], issued, **kw)


def test_a_replay_evaluates_no_pin_and_waits_for_no_writer(app, client, tid, table1, database_url, evaluations):
    """The idempotency key is looked up on a plain read before anything else
    (docs/SYNC.md): a replay costs no PIN evaluation and, on SQLite, is answered
    while another writer holds the write lock."""
    issued, _players = table1
    body = sheet(app, tid, issued)
    first = client.post("/api/v1/sheets", json=body)
    assert first.status_code == 200 and len(evaluations) == 3  # each PIN evaluated once
    evaluations.clear()
    blocker = None
    if database_url.startswith("sqlite"):
        import sqlite3

        blocker = sqlite3.connect(database_url.removeprefix("sqlite:///"), isolation_level=None, timeout=1)
        blocker.execute("BEGIN IMMEDIATE")
    try:
        again = client.post("/api/v1/sheets", json=body)
    finally:
        if blocker is not None:
            blocker.execute("ROLLBACK")
            blocker.close()
    assert again.status_code == 200 and again.json == {**first.json, "replay": True}
    assert evaluations == []


def test_a_phone_sheet_reads_its_players_with_the_statement_that_holds_them(app, client, tid, table1):
    """The table's players are loaded by the UPDATE … RETURNING that takes their rows
    (step 1 of the lockout rule), not by a SELECT before it; a locked player is read apart, not
    held, and the sheet is refused with the lock (423)."""
    from tests.helpers import signed_submission, sql_statements

    def on_players(seen):
        return [x.split()[0].upper() for x in seen if re.search(r"\b(FROM|UPDATE|INTO) player\b", x)]

    issued, players = table1
    with sql_statements(app) as seen:
        assert client.post("/api/v1/sheets", json=sheet(app, tid, issued)).status_code == 200
    assert on_players(seen) == ["UPDATE"], seen
    with app.app_context():
        db.session.execute(update(Player).where(Player.tournament_id == tid, Player.start_no == players[1])
                           .values(pin_locked_until=utcnow() + timedelta(minutes=5)))
        db.session.commit()
    with sql_statements(app) as seen:
        r = client.post("/api/v1/sheets", json=signed_submission(app, tid, 1, 1, [1500, 1000, 500], issued))
    assert r.status_code == 423 and (r.json["status"], r.json["start_no"]) == ("locked", players[1])
    assert on_players(seen) == ["UPDATE", "SELECT"], seen


def test_cheap_refusals_come_before_any_pin_evaluation(app, client, tid, table1, evaluations):
    issued, players = table1
    strangers = [s for s in range(1, 10) if s not in players]
    body = sheet(app, tid, issued)
    body["signatures"] += [dict(body["signatures"][0], start_no=s, pin=issued[s]) for s in strangers[:5]]
    r = client.post("/api/v1/sheets", json=body)
    assert (r.status_code, r.json["error"]) == (422, "not-at-table") and r.json["start_no"] in strangers
    from tests.helpers import signed_submission

    r = client.post("/api/v1/sheets", json=signed_submission(app, tid, 1, 1, [1000, 1000, 999], issued))
    assert (r.status_code, r.json["error"]) == (422, "wrong-total")
    assert evaluations == []
    with app.app_context():
        assert db.session.scalar(select(PinAttempt.id)) is None


def test_a_proof_stands_for_the_pin_and_an_empty_pin_without_one_is_asked_again(app, client, tid, table1,
                                                                                  evaluations):
    issued, players = table1
    body = sheet(app, tid, issued)
    r = client.post("/api/v1/pin", json={"token": body["token"], "start_no": players[0], "pin": issued[players[0]],
                                         "content_hash": body["content_hash"]})
    body["signatures"][0].update(pin="", pin_proof=r.json["proof"])
    body["signatures"][1].update(pin="")
    evaluations.clear()
    refused = client.post("/api/v1/sheets", json=body)
    assert (refused.status_code, refused.json["error"], refused.json["start_no"]) == (422, "pin-needed", players[1])
    assert sorted(refused.json["pin_proofs"]) == sorted([str(players[0]), str(players[2])])
    assert len(evaluations) == 1  # the third PIN; the proof and the empty PIN evaluate nothing
    body["signatures"][1].update(pin=issued[players[1]])
    body["signatures"][2].update(pin="", pin_proof=refused.json["pin_proofs"][str(players[2])])
    assert client.post("/api/v1/sheets", json=body).json["status"] == "accepted"
    with app.app_context():
        assert db.session.scalar(select(PinAttempt.id)) is None  # nothing wrong was ever evaluated


def test_a_sheet_signed_with_a_pin_issued_during_the_round_goes_to_the_referee(app, client, tid, table1):
    """An operator re-issuing players' PINs mid-round cannot make a
    sheet "signed" by them count; the referee sees who issued which PIN when."""
    issued, players = table1
    with app.app_context():
        p = player(tid, players[0])
        new_pin = pins.issue_pin(p, actor="Desk Operator")
        issued_at = p.pin_issued_at
        db.session.commit()
        entry = db.session.scalars(select(AuditEntry).where(AuditEntry.action == "pin.issue")
                                   .order_by(AuditEntry.id.desc())).first()
        assert (entry.actor, entry.payload["during_round"], entry.payload["replaced"]) == ("Desk Operator", 1, True)
    r = client.post("/api/v1/sheets", json=sheet(app, tid, {**issued, players[0]: new_pin}))
    assert r.status_code == 202 and (r.json["status"], r.json["reason"]) == ("needs-referee", "pin-reissued")
    with app.app_context():
        from webapp.models import Case, Sheet
        from webapp.services import cases

        case = db.session.get(Case, r.json["case"])
        assert case.kind == "pin-reissued"
        assert case.payload["pin_reissued"] == [{"start_no": players[0], "issued_by": "Desk Operator",
                                                 "issued_at": issued_at.isoformat(timespec="seconds")}]
        assert db.session.get(Sheet, case.sheet_id).status == "pending"
        assert case.sheet_id and db.session.get(Sheet, case.sheet_id).table.sheet is None  # nothing counts
        cid = case.id
    make_user(app, "ref", role="referee")
    login(client, "ref")
    client.set_cookie("lang", "en")
    page = client.get(f"/referee/case/{cid}").get_data(as_text=True)
    with app.app_context():
        from flask_babel import format_time

        with app.test_request_context():
            shown = format_time(issued_at, "HH:mm")
    assert f"PIN of #{players[0]} was issued at {shown} by Desk Operator, after the round started." in page
    assert "Approve: the signatures are the players’" in page
    assert client.post(f"/referee/case/{cid}/approve", data={"decision": "approve"}).status_code in (200, 302, 303)
    with app.app_context():
        assert db.session.get(Case, cid).status == "approved"
        assert db.session.get(Sheet, db.session.get(Case, cid).sheet_id).status == "accepted"


def test_an_own_phone_signature_with_a_pin_issued_during_the_round_goes_to_the_referee(app, client, tid, table1):
    issued, players = table1
    with app.app_context():
        new_pin = pins.issue_pin(player(tid, players[1]), actor="Desk Operator")
        db.session.commit()
    body = sheet(app, tid, issued)
    draft = {"token": body["token"], "content": body["content"], "content_hash": body["content_hash"]}
    assert client.post("/api/v1/drafts", json=draft).status_code == 200
    own = {"token": body["token"], "content_hash": body["content_hash"], "start_no": players[1], "pin": new_pin,
           "drawing": "M 1 1 L 5 5", "signed_at": "2026-03-14T10:51:02Z"}
    assert client.post("/api/v1/signatures", json=own).status_code == 200
    body["signatures"][1] = {"start_no": players[1], "own_phone": True, "hash": body["content_hash"]}
    r = client.post("/api/v1/sheets", json=body)
    assert (r.json["status"], r.json["reason"]) == ("needs-referee", "pin-reissued")


def test_a_pin_issued_before_the_round_counts_as_before(app, client, tid, table1):
    issued, _players = table1
    assert client.post("/api/v1/sheets", json=sheet(app, tid, issued)).json["status"] == "accepted"


def test_the_pin_pages_warn_before_a_pin_is_issued_during_a_round(app, op, tid):
    with app.app_context():
        pid = player(tid, 3).id
    page = op.get(f"/operator/t/{tid}/players/{pid}/pin").get_data(as_text=True)
    assert "is being played" not in page
    from tests.helpers import open_round

    open_round(app, tid)
    page = op.get(f"/operator/t/{tid}/players/{pid}/pin").get_data(as_text=True)
    assert "Round 1 is being played: a PIN issued now does not make a sheet count." in page
    slips = op.get(f"/operator/t/{tid}/pins").get_data(as_text=True)
    assert "Round 1 is being played: the next sheet signed in this round with a PIN issued now goes to the referee." \
        in slips


def test_wrong_pins_sheets_and_own_phone_signatures_of_one_table_never_deadlock(app, tid, table1, monkeypatch):
    """Lock order, tournament then players, on every path: 20 bursts, each of 8 wrong PINs on
    POST /api/v1/pin for one player, 3 sheets of the same table (the same sums, new keys: each
    takes the tournament, then the players) and 2 own-phone signatures (which chain, so take the
    tournament) at once. No answer is a 5xx, at most 5 wrong PINs are evaluated per burst (one
    15-minute window), and every wrong PIN evaluated is a stored attempt: none was compared and
    then rolled back."""
    from tests.helpers import signed_submission
    from webapp.services.tokens import table_token

    issued, players = table1
    target, signer = players[0], players[1]
    body = signed_submission(app, tid, 1, 1, [1450, 1000, 550], issued)
    with app.app_context():
        token = table_token(tid, 1, 1)
    client = app.test_client()
    assert client.post("/api/v1/sheets", json=body).status_code == 200
    draft = {"token": token, "content": body["content"], "content_hash": body["content_hash"]}
    assert client.post("/api/v1/drafts", json=draft).status_code == 200
    wrong = "0000" if issued[target] != "0000" else "1111"
    seen, real, lock = [], pins.pin_matches, threading.Lock()

    def recorded(stored, key, tid_, start_no, given):
        time.sleep(0.003)  # widen the window a deadlock needs
        matched = real(stored, key, tid_, start_no, given)
        with lock:
            seen.append((start_no, matched))
        return matched

    monkeypatch.setattr(pins, "pin_matches", recorded)
    jobs = ([("/api/v1/pin", {"token": token, "start_no": target, "pin": wrong})] * 8
            + [("/api/v1/sheets", None)] * 3
            + [("/api/v1/signatures", {"token": token, "start_no": signer, "pin": issued[signer],
                                       "content_hash": body["content_hash"], "drawing": "M 1 1 L 2 2",
                                       "signed_at": "2026-03-14T10:51:02Z"})] * 2)
    for _burst_no in range(20):
        with app.app_context():
            p = player(tid, target)
            db.session.execute(delete(PinAttempt).where(PinAttempt.player_id == p.id))
            p.pin_locked_until, p.pin_failures = None, 0
            db.session.commit()
        seen.clear()
        go, statuses = threading.Barrier(len(jobs)), []

        def run(url, data):
            c = app.test_client()
            if data is None:
                data = {**body, "idempotency_key": str(__import__("uuid").uuid4())}
            go.wait()
            r = c.post(url, json=data)
            with lock:
                statuses.append((url, r.status_code))

        threads = [threading.Thread(target=run, args=job) for job in jobs]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        assert len(statuses) == len(jobs) and not [s for s in statuses if s[1] >= 500], statuses
        evaluated = sum(1 for s, matched in seen if s == target and not matched)
        assert evaluated <= 5
        with app.app_context():
            stored = db.session.scalar(select(db.func.count()).select_from(PinAttempt)
                                       .where(PinAttempt.player_id == player(tid, target).id))
        assert stored == evaluated, (stored, evaluated, statuses)
