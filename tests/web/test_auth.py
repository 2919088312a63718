"""Login, logout, roles and CSRF."""
from tests.helpers import login, make_user


def test_operator_pages_need_login(client):
    r = client.get("/operator/")
    assert r.status_code == 302 and "/login" in r.headers["Location"]


def test_login_logout(app, client):
    make_user(app)
    r = login(client)
    assert r.status_code == 302 and r.headers["Location"].endswith("/operator/")
    assert client.get("/operator/").status_code == 200
    client.post("/logout")
    assert client.get("/operator/").status_code == 302


def test_wrong_password_says_so_next_to_field(app, client):
    make_user(app)
    r = login(client, password="nope")
    assert r.status_code == 200
    assert "Nesprávne" in r.get_data(as_text=True) or "Wrong user name or password" in r.get_data(as_text=True)


def test_referee_cannot_open_operator_desk(app, client):
    make_user(app, "ref", role="referee")
    login(client, "ref")
    assert client.get("/operator/").status_code == 403


def test_public_index_needs_no_login(client):
    assert client.get("/").status_code == 200


def test_csrf_enforced_when_enabled(app, client):
    make_user(app)
    app.config["WTF_CSRF_ENABLED"] = True
    r = client.post("/login", data={"username": "operator", "password": "secret-pass"})
    assert r.status_code == 400 or "/operator" not in r.headers.get("Location", "")
