"""The sign-in throttle (issue 7 point 9): kept in the database, per account and
per address, the attempt reserved before the password is checked, so neither
concurrent threads nor several server processes get more password checks."""
from __future__ import annotations

import threading
from datetime import timedelta

from tests.helpers import make_user, text

WRONG = "Wrong user name or password."
TOO_MANY = "Too many failed sign-ins"


def attempt(client, username="operator", password="nope", addr="192.0.2.1"):
    return client.post("/login?lang=en", data={"username": username, "password": password},
                       environ_base={"REMOTE_ADDR": addr})


def test_five_failures_then_even_the_right_password_is_refused(app, client):
    make_user(app)
    for _ in range(5):
        r = attempt(client)
        assert r.status_code == 200 and WRONG in text(r)
    r = attempt(client, password="secret-pass")
    assert r.status_code == 429
    body = text(r)
    assert TOO_MANY in body and "Try again at" in body and "(in 15 min)" in body
    assert "/operator" not in r.headers.get("Location", "")
    # the account is throttled from any address, a different account from this address is not
    assert attempt(client, password="secret-pass", addr="192.0.2.99").status_code == 429
    make_user(app, "other")
    assert attempt(client, "other", "secret-pass").status_code == 302


def test_the_refusal_is_translated(app, client):
    make_user(app)
    for _ in range(5):
        attempt(client)
    r = client.post("/login?lang=sk", data={"username": "operator", "password": "secret-pass"})
    assert r.status_code == 429 and TOO_MANY not in text(r) and "Skúste" in text(r)


def test_names_are_counted_case_insensitively(app, client):
    make_user(app)
    for name in ("operator", "Operator", "OPERATOR ", "operatoR", "operator"):
        attempt(client, name)
    assert attempt(client, password="secret-pass").status_code == 429


def test_address_limit_across_accounts(app, client):
    make_user(app)
    for i in range(20):
        assert attempt(client, f"guess{i}").status_code == 200
    assert attempt(client, password="secret-pass").status_code == 429
    assert attempt(client, password="secret-pass", addr="192.0.2.2").status_code == 302


def test_success_keeps_the_address_evidence(app, client):
    app.config["LISTOK_LOGIN_MAX_PER_ADDRESS"] = 6
    make_user(app)
    for _ in range(4):
        attempt(client)
    assert attempt(client, password="secret-pass").status_code == 302  # resets the account's count only
    client.post("/logout")
    assert attempt(client, "someone").status_code == 200
    assert attempt(client, "someone-else").status_code == 200
    assert attempt(client, "third").status_code == 429  # 6 failures from this address in the window


def test_success_ends_the_account_count(app, client):
    make_user(app)
    for _ in range(4):
        attempt(client)
    assert attempt(client, password="secret-pass").status_code == 302
    client.post("/logout")
    for _ in range(5):
        assert WRONG in text(attempt(client))
    assert attempt(client, password="secret-pass").status_code == 429


def test_window_passes(app):
    from webapp.models import utcnow
    from webapp.services import login_throttle as lt

    with app.app_context():
        t0 = utcnow()
        for i in range(5):
            lt.finish(lt.reserve("operator", "a", now=t0 + timedelta(seconds=i)), ok=False)
        try:
            lt.reserve("operator", "a", now=t0 + timedelta(minutes=14))
            raise AssertionError("not throttled")
        except lt.Throttled as e:
            assert e.retry_at == t0 + timedelta(minutes=15)
        lt.reserve("operator", "a", now=t0 + timedelta(minutes=15, seconds=1))  # the oldest one aged out


def _race(apps, n_per_app, addr_of=lambda i: "192.0.2.1") -> list[int]:
    """n_per_app threads per app, each one wrong password at the same moment."""
    barrier = threading.Barrier(len(apps) * n_per_app)
    statuses, lock = [], threading.Lock()

    def run(app, i):
        client = app.test_client()
        barrier.wait()
        r = attempt(client, addr=addr_of(i))
        with lock:
            statuses.append((r.status_code, WRONG in text(r)))

    threads = [threading.Thread(target=run, args=(a, i)) for a in apps for i in range(n_per_app)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(statuses) == len(threads)
    return statuses


def _checked(statuses) -> int:
    assert all(s in ((200, True), (429, False)) for s in statuses), statuses
    return sum(1 for s in statuses if s == (200, True))


def test_concurrent_threads_get_no_more_than_five_checks(app):
    make_user(app)
    statuses = _race([app], 12, addr_of=lambda i: f"192.0.2.{i}")
    assert _checked(statuses) == 5


def test_two_server_processes_share_the_throttle(app, database_url):
    """Two app instances on one database (as two waitress or gunicorn processes
    would be): the limits hold across both, also when they race."""
    from webapp import create_app
    from webapp.extensions import db

    other = create_app({"TESTING": True, "SECRET_KEY": "test-secret", "SQLALCHEMY_DATABASE_URI": database_url,
                        "WTF_CSRF_ENABLED": False, "SERVER_NAME": "localhost"})
    try:
        make_user(app)
        a, b = app.test_client(), other.test_client()
        assert WRONG in text(attempt(a))
        assert WRONG in text(attempt(b))
        assert WRONG in text(attempt(a))
        statuses = _race([app, other], 5)
        assert _checked(statuses) == 2
        assert attempt(b, password="secret-pass").status_code == 429
        assert attempt(a, password="secret-pass").status_code == 429
    finally:
        with other.app_context():
            db.session.remove()
            db.engine.dispose()
