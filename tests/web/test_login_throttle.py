"""The sign-in throttle (docs/SECURITY.md, "Sign-in"): kept in the database; a growing delay and
then a lock per account for unknown devices, the account's own devices counted apart, no lock
per address; the attempt reserved before the password is checked, so neither concurrent threads
nor several server processes get more password checks."""
from __future__ import annotations

import threading
from datetime import timedelta

from tests.helpers import make_user, text
from webapp.services import login_throttle

WRONG = "Wrong user name or password."
WAIT = "the next try is possible in"
LOCKED = "Too many failed sign-ins for this account from unknown devices"


def attempt(client, username="operator", password="nope", addr="192.0.2.1"):
    return client.post("/login?lang=en", data={"username": username, "password": password},
                       environ_base={"REMOTE_ADDR": addr})


def no_delay(app):
    """Delays off (FREE as high as the lock), so that a test reaches the lock at once."""
    app.config["LISTOK_LOGIN_FREE"] = login_throttle.MAX_PER_ACCOUNT


def test_failures_past_three_make_the_next_try_wait_longer_each_time(app):
    """3 failures cost nothing; then 2 s, 4 s, 8 s …, and a try within the wait is refused
    without checking the password."""
    make_user(app)
    with app.test_request_context():
        from webapp.models import utcnow

        t0 = utcnow()
        for i in range(3):
            login_throttle.finish(login_throttle.reserve("operator", "a", now=t0 + timedelta(seconds=i)), False)
        login_throttle.finish(login_throttle.reserve("operator", "a", now=t0 + timedelta(seconds=3)), False)
        try:
            login_throttle.reserve("operator", "a", now=t0 + timedelta(seconds=4))
            raise AssertionError("no delay after the 4th failure")
        except login_throttle.Throttled as e:
            assert not e.locked and e.retry_at == t0 + timedelta(seconds=3 + 2)
        login_throttle.finish(login_throttle.reserve("operator", "a", now=t0 + timedelta(seconds=7)), False)
        try:
            login_throttle.reserve("operator", "a", now=t0 + timedelta(seconds=8))
            raise AssertionError("no delay after the 5th failure")
        except login_throttle.Throttled as e:
            assert e.retry_at == t0 + timedelta(seconds=7 + 4)
    assert [login_throttle.delay_after(n).total_seconds() for n in range(2, 10)] == [0, 0, 2, 4, 8, 16, 32, 64]


def test_ten_failures_lock_unknown_devices_then_even_the_right_password_is_refused(app, client):
    no_delay(app)
    make_user(app)
    for _ in range(10):
        r = attempt(client)
        assert r.status_code == 200 and WRONG in text(r)
    r = attempt(client, password="secret-pass")
    assert r.status_code == 429
    body = text(r)
    assert LOCKED in body and "Try again at" in body and "(in 15 min)" in body
    # the account is throttled from any address; a different account from this address is not
    assert attempt(client, password="secret-pass", addr="192.0.2.99").status_code == 429
    make_user(app, "other")
    assert attempt(client, "other", "secret-pass").status_code == 302


def test_a_venue_address_is_never_locked(app, client):
    """Behind one NAT address, 40 failures spread over 8 accounts lock none of the others and
    never the address: the desk signs in."""
    no_delay(app)
    make_user(app, "desk")
    for i in range(40):
        attempt(client, f"guess{i % 8}")
    assert attempt(client, "desk", "secret-pass").status_code == 302


def test_the_owners_device_signs_in_while_a_guesser_holds_the_lock(app):
    """The desk laptop signed in before, so it carries the account's device cookie: after a
    guesser locked the account for unknown devices, the laptop still signs in with the right
    password; a stranger with the right password does not."""
    no_delay(app)
    make_user(app)
    laptop, guesser, stranger = app.test_client(), app.test_client(), app.test_client()
    assert attempt(laptop, password="secret-pass").status_code == 302
    laptop.post("/logout")
    for _ in range(10):
        attempt(guesser)
    assert attempt(stranger, password="secret-pass").status_code == 429
    assert attempt(laptop, password="secret-pass").status_code == 302
    # a device that fails 5 times is no longer vouched for
    laptop.post("/logout")
    for _ in range(5):
        assert attempt(laptop).status_code == 200
    assert attempt(laptop, password="secret-pass").status_code == 429
    # a forged device cookie counts as none
    stranger.set_cookie(login_throttle.DEVICE_COOKIE, "eyJvcGVyYXRvciI6Inh4eCJ9.forged")
    assert attempt(stranger, password="secret-pass").status_code == 429


def test_the_owner_signed_in_elsewhere_lifts_the_lock(app):
    """The second factor: on a device with a live session, the owner sees the failures and lifts
    the lock; the next sign-in from a new device works (and the chain's server log records it)."""
    no_delay(app)
    make_user(app)
    phone = app.test_client()
    assert attempt(phone, password="secret-pass").status_code == 302
    guesser = app.test_client()
    for _ in range(10):
        attempt(guesser)
    page = text(phone.get("/account/password?lang=en"))
    assert "10 failed sign-ins from devices this account has not used" in page and "wait until" in page
    assert phone.post("/account/unlock").status_code == 302
    assert attempt(app.test_client(), password="secret-pass").status_code == 302
    for _ in range(10):  # and an admin can lift it too
        attempt(guesser)
    assert attempt(app.test_client(), password="secret-pass").status_code == 429
    make_user(app, "boss", role="admin")
    admin = app.test_client()
    assert attempt(admin, "boss", "secret-pass").status_code == 302
    with app.app_context():
        from sqlalchemy import select

        from webapp.extensions import db
        from webapp.models import User

        uid = db.session.scalar(select(User.id).where(User.username == "operator"))
    assert admin.post(f"/admin/user/{uid}/signin-unlock").status_code == 302
    assert attempt(app.test_client(), password="secret-pass").status_code == 302


def test_the_refusal_is_translated(app, client):
    no_delay(app)
    make_user(app)
    for _ in range(10):
        attempt(client)
    r = client.post("/login?lang=sk", data={"username": "operator", "password": "secret-pass"})
    assert r.status_code == 429 and "Príliš veľa" in text(r)


def test_names_are_counted_case_insensitively(app, client):
    no_delay(app)
    make_user(app)
    for name in ["Operator", "OPERATOR", " operator", "operator "] * 3:
        attempt(client, name)
    assert attempt(client, password="secret-pass").status_code == 429


def test_success_ends_the_account_count(app, client):
    no_delay(app)
    make_user(app)
    for _ in range(9):
        attempt(client)
    assert attempt(client, password="secret-pass").status_code == 302
    client.post("/logout")
    for _ in range(9):
        assert attempt(app.test_client()).status_code == 200


def test_window_passes(app):
    no_delay(app)
    make_user(app)
    with app.test_request_context():
        from webapp.models import utcnow

        start = utcnow() - timedelta(minutes=20)
        for i in range(10):
            login_throttle.finish(login_throttle.reserve("operator", "a", now=start + timedelta(seconds=i)), False)
        try:
            login_throttle.reserve("operator", "a", now=start + timedelta(minutes=1))
            raise AssertionError("not throttled")
        except login_throttle.Throttled as e:
            assert e.locked
        login_throttle.reserve("operator", "a")  # 20 minutes later: the window has passed


def _race(apps, n_per_app) -> list[tuple[int, bool]]:
    """n_per_app threads per app, each one wrong password at the same moment."""
    statuses, lock = [], threading.Lock()
    go = threading.Barrier(len(apps) * n_per_app)

    def run(a):
        c = a.test_client()
        go.wait()
        r = attempt(c)
        with lock:
            statuses.append((r.status_code, WRONG in text(r)))

    threads = [threading.Thread(target=run, args=(a,)) for a in apps for _ in range(n_per_app)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    assert len(statuses) == len(threads)
    return statuses


def _checked(statuses) -> int:
    assert all(s in ((200, True), (429, False)) for s in statuses), statuses
    return sum(1 for s in statuses if s == (200, True))


def test_concurrent_threads_get_no_more_checks_than_the_lock_allows(app):
    no_delay(app)
    make_user(app)
    assert _checked(_race([app], 16)) == 10


def test_concurrent_threads_wait_their_delay(app, monkeypatch):
    """With the delay on, 12 wrong passwords at once: 4 are checked (3 free, then the 4th before
    any wait), the rest are refused for the delay the 4th failure costs (made a minute here, so
    that a thread the machine starts late still falls inside it)."""
    monkeypatch.setattr(login_throttle, "delay_after", lambda failures, free=login_throttle.FREE:
                        timedelta(minutes=1) if failures > free else timedelta(0))
    make_user(app)
    assert _checked(_race([app], 12)) == login_throttle.FREE + 1


def test_two_server_processes_share_the_throttle(app, database_url):
    """Two app instances on one database (as two server processes would be): the lock holds
    across both, also when they race."""
    from webapp import create_app
    from webapp.extensions import db

    no_delay(app)
    other = create_app({"TESTING": True, "SECRET_KEY": "test-secret", "SQLALCHEMY_DATABASE_URI": database_url,
                        "WTF_CSRF_ENABLED": False, "SERVER_NAME": "localhost",
                        "LISTOK_LOGIN_FREE": login_throttle.MAX_PER_ACCOUNT})
    try:
        make_user(app)
        assert _checked(_race([app, other], 8)) == 10
        assert attempt(other.test_client(), password="secret-pass").status_code == 429
        assert attempt(app.test_client(), password="secret-pass").status_code == 429
    finally:
        with other.app_context():
            db.session.remove()
            db.engine.dispose()
