"""The admin's accounts page and `listok create-user --role` (issue 7 point 10)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from sqlalchemy import select

from tests.helpers import login, make_tournament, make_user, text


def admin_client(app):
    make_user(app, "boss", role="admin")
    c = app.test_client()
    login(c, "boss")
    c.set_cookie("lang", "en")
    return c


def test_admin_creates_an_operator_and_assigns_a_tournament(app):
    from webapp.extensions import db
    from webapp.models import Assignment, User

    a = make_tournament(app, name="SEM A - Alphaville")
    make_tournament(app, name="SEM B - Betatown")
    boss = admin_client(app)
    assert "Alphaville" in text(boss.get("/operator/"))  # the admin sees every tournament
    r = boss.post("/admin/users", data={"username": "anna", "display_name": "Anna", "role": "operator",
                                        "password": "anna-pass-1"})
    assert r.status_code == 302
    anna = app.test_client()
    assert login(anna, "anna", "anna-pass-1").status_code == 302
    assert "Alphaville" not in text(anna.get("/operator/"))
    with app.app_context():
        uid = db.session.scalar(select(User.id).where(User.username == "anna"))
    assert boss.post(f"/admin/user/{uid}/tournaments", data={"tournament": [str(a)]}).status_code == 302
    hub = text(anna.get("/operator/"))
    assert "Alphaville" in hub and "Betatown" not in hub
    assert anna.get(f"/operator/t/{a}").status_code == 200
    with app.app_context():
        assert db.session.scalars(select(Assignment.tournament_id).where(Assignment.user_id == uid)).all() == [a]
    r = boss.post(f"/admin/user/{uid}/tournaments", data={"tournament": ["99999"]})
    assert r.status_code == 422 and "no longer exists" in text(r)


def test_admin_form_errors_are_named(app):
    boss = admin_client(app)
    r = boss.post("/admin/users", data={"username": "boss", "role": "operator", "password": "long-enough"})
    assert r.status_code == 422 and "taken already" in text(r)
    r = boss.post("/admin/users", data={"username": "new one", "role": "operator", "password": "short"})
    assert r.status_code == 422 and "no spaces" in text(r) and "at least 8" in text(r)


def test_role_change_signs_the_account_out(app):
    uid = make_user(app, "ref", role="referee")
    boss = admin_client(app)
    ref = app.test_client()
    login(ref, "ref")
    assert ref.get("/referee/").status_code == 200
    assert boss.post(f"/admin/user/{uid}/role", data={"role": "operator"}).status_code == 302
    assert ref.get("/referee/").status_code == 302  # signed out: sign in again with the new role
    login(ref, "ref")
    assert ref.get("/operator/").status_code == 200


def test_the_last_admin_cannot_lock_everyone_out(app):
    from webapp.extensions import db
    from webapp.models import User

    boss = admin_client(app)
    with app.app_context():
        uid = db.session.scalar(select(User.id).where(User.username == "boss"))
    r = boss.post(f"/admin/user/{uid}/role", data={"role": "operator"})
    assert r.status_code == 422 and "only active admin" in text(r)
    r = boss.post(f"/admin/user/{uid}/active", data={"active": "0"})
    assert r.status_code == 422 and "only active admin" in text(r)
    assert boss.get("/admin/").status_code == 200


def test_non_admins_get_no_admin_page(op):
    assert op.get("/admin/").status_code == 403


def test_create_user_command_roles_and_tournaments(tmp_path):
    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if k not in ("LISTOK_ENV", "LISTOK_SECRET_KEY_FILE")}
    env.update(PYTHONPATH=str(root), DATABASE_URL=f"sqlite:///{tmp_path / 'cli.db'}", LISTOK_SECRET_KEY="cli-key")

    def listok(*args):
        return subprocess.run([sys.executable, "-m", "webapp.cli", *args], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=120)

    r = listok("create-user", "chief", "--role", "admin", "--password", "chief-pass-1")
    assert r.returncode == 0 and "created admin 'chief'" in r.stdout, r.stderr
    r = listok("create-user", "ref", "--role", "referee", "--tournament", "7", "--password", "ref-pass-12")
    assert r.returncode == 2 and "no tournament 7" in r.stderr
    r = listok("create-user", "x", "--role", "boss", "--password", "whatever-1")
    assert r.returncode == 2 and "'boss' is not one of" in r.stderr
