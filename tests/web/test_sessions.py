"""Sign-in that holds and ends: sessions and "stay signed in"
cookies die at sign-out and password change, a fresh session at sign-in,
Secure cookies over HTTPS and behind a trusted proxy only."""
from __future__ import annotations

from http.cookies import SimpleCookie

from tests.helpers import login, make_user, text

def signed_in(client) -> bool:
    r = client.get("/operator/")
    return r.status_code == 200


def cookie_value(client, name):
    c = client.get_cookie(name)
    return c.value if c else None


def set_cookies(response) -> dict[str, str]:
    """name → the raw Set-Cookie header of that cookie."""
    found = {}
    for header in response.headers.getlist("Set-Cookie"):
        found[next(iter(SimpleCookie(header).keys()))] = header
    return found


def remembered_login(client):
    return client.post("/login", data={"username": "operator", "password": "secret-pass", "remember": "y"})


def test_logout_kills_session_and_remember_cookie_replayed(app, client):
    make_user(app)
    r = remembered_login(client)
    assert r.status_code == 302
    session_cookie, remember = cookie_value(client, "session"), cookie_value(client, "remember_token")
    assert session_cookie and remember
    assert signed_in(client)
    client.post("/logout")
    assert not signed_in(client)

    thief = app.test_client()  # replays both cookies taken before the sign-out
    thief.set_cookie("session", session_cookie)
    thief.set_cookie("remember_token", remember)
    r = thief.get("/operator/")
    assert r.status_code == 302 and "/login" in r.headers["Location"]

    only_remember = app.test_client()
    only_remember.set_cookie("remember_token", remember)
    assert not signed_in(only_remember)


def test_logout_ends_sessions_on_every_device(app):
    make_user(app)
    phone, laptop = app.test_client(), app.test_client()
    login(phone)
    remembered_login(laptop)
    assert signed_in(phone) and signed_in(laptop)
    phone.post("/logout")
    assert not signed_in(laptop)


def test_remember_cookie_is_not_the_same_at_every_login(app, client):
    make_user(app)
    remembered_login(client)
    first = cookie_value(client, "remember_token")
    client.post("/logout")
    remembered_login(client)
    assert cookie_value(client, "remember_token") != first
    assert not first.startswith(f"{1}|")  # not Flask-Login's user_id|HMAC(user_id)


def test_remember_cookie_alone_signs_in_until_logout(app, client):
    make_user(app)
    remembered_login(client)
    remember = cookie_value(client, "remember_token")
    fresh = app.test_client()
    fresh.set_cookie("remember_token", remember)
    assert signed_in(fresh)


def test_password_change_ends_other_sessions(app, client):
    make_user(app)
    other = app.test_client()
    remembered_login(other)
    remember = cookie_value(other, "remember_token")
    login(client)
    r = client.post("/account/password", data={"current": "secret-pass", "password": "new-secret-9",
                                                "confirm": "new-secret-9"})
    assert r.status_code == 302
    assert signed_in(client)  # the one who changed it stays signed in
    assert not signed_in(other)
    replay = app.test_client()
    replay.set_cookie("remember_token", remember)
    assert not signed_in(replay)
    assert login(app.test_client(), password="secret-pass").status_code == 200  # old password refused
    assert login(app.test_client(), password="new-secret-9").status_code == 302


def test_password_change_needs_current_password(app, client):
    make_user(app)
    login(client)
    client.set_cookie("lang", "en")
    r = client.post("/account/password", data={"current": "wrong", "password": "new-secret-9",
                                                "confirm": "new-secret-9"})
    assert r.status_code == 422 and "Wrong password." in text(r)
    r = client.post("/account/password", data={"current": "secret-pass", "password": "short",
                                                "confirm": "short"})
    assert r.status_code == 422 and "at least 8" in text(r)


def test_admin_password_reset_and_deactivation_end_sessions(app, client):
    uid = make_user(app)
    make_user(app, "boss", role="admin")
    victim = app.test_client()
    remembered_login(victim)
    login(client, "boss")
    assert client.post(f"/admin/user/{uid}/password", data={"password": "reset-by-admin"}).status_code == 302
    assert not signed_in(victim)
    remembered_login(victim)
    assert not signed_in(victim)  # the old password no longer works
    assert login(victim, password="reset-by-admin").status_code == 302
    assert signed_in(victim)
    assert client.post(f"/admin/user/{uid}/active", data={"active": "0"}).status_code == 302
    assert not signed_in(victim)
    assert login(victim, password="reset-by-admin").status_code == 200


def test_fresh_session_at_login(app, client):
    make_user(app)
    with client.session_transaction() as s:
        s["planted"] = "by someone else"
        s["_user_id"] = "forged"
    login(client)
    with client.session_transaction() as s:
        assert "planted" not in s
        assert s["_user_id"] != "forged"


def test_cookies_secure_over_https(app, client):
    make_user(app)
    r = client.post("/login?lang=en", data={"username": "operator", "password": "secret-pass", "remember": "y"},
                    base_url="https://localhost")
    cookies = set_cookies(r)
    assert {"session", "remember_token", "lang"} <= set(cookies)
    for name, header in cookies.items():
        attrs = [a.strip().lower() for a in header.split(";")]
        assert "secure" in attrs, header
        assert "samesite=lax" in attrs, header
        if name != "lang":
            assert "httponly" in attrs, header


def test_cookies_not_secure_over_plain_http(app, client):
    make_user(app)
    r = client.post("/login?lang=en", data={"username": "operator", "password": "secret-pass", "remember": "y"})
    for header in set_cookies(r).values():
        assert "secure" not in [a.strip().lower() for a in header.split(";")]


def test_forwarded_proto_from_trusted_proxy_makes_cookies_secure(app, client):
    make_user(app)
    r = client.post("/login", data={"username": "operator", "password": "secret-pass"},
                    headers={"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.7"},
                    environ_base={"REMOTE_ADDR": "127.0.0.1"})
    assert r.status_code == 302
    assert "secure" in set_cookies(r)["session"].lower()


def test_forwarded_headers_from_untrusted_address_ignored(app, client):
    from webapp.extensions import db
    from webapp.models import LoginAttempt

    make_user(app)
    r = client.post("/login", data={"username": "operator", "password": "secret-pass"},
                    headers={"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.7"},
                    environ_base={"REMOTE_ADDR": "198.51.100.9"})
    assert r.status_code == 302
    assert "secure" not in set_cookies(r)["session"].lower()
    with app.app_context():
        assert [a.address for a in db.session.query(LoginAttempt)] == ["198.51.100.9"]


def test_forwarded_for_from_trusted_proxy_is_the_client_address(app, client):
    from webapp.extensions import db
    from webapp.models import LoginAttempt

    make_user(app)
    client.post("/login", data={"username": "operator", "password": "nope"},
                headers={"X-Forwarded-For": "203.0.113.7"}, environ_base={"REMOTE_ADDR": "::1"})
    with app.app_context():
        assert [a.address for a in db.session.query(LoginAttempt)] == ["203.0.113.7"]


def test_no_trusted_proxies_configured_ignores_forwarded_headers(database_url):
    from webapp import create_app

    app = create_app({"TESTING": True, "SECRET_KEY": "k", "SQLALCHEMY_DATABASE_URI": database_url,
                      "WTF_CSRF_ENABLED": False, "LISTOK_TRUSTED_PROXIES": ""})
    r = app.test_client().get("/login?lang=en", headers={"X-Forwarded-Proto": "https"})
    assert "secure" not in set_cookies(r)["lang"].lower()
    with app.app_context():
        from webapp.extensions import db

        db.engine.dispose()
