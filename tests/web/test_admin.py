"""The admin's accounts page and `listok create-user --role`."""
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


def test_server_admin_moves_an_account_between_venues(app):
    """Tenancy: the server's admin sets an account's venue from a select of venues; the account's
    assignments to the old venue's tournaments go, its sessions end, the move is in the server log; a
    venue that does not exist is named as the wrong field; the only admin of the whole server cannot
    join a venue (nobody would manage every account)."""
    from webapp.extensions import db
    from webapp.models import Assignment, AuditEntry, Tournament, User, Venue

    ta = make_tournament(app, name="SEM A - Alphaville")
    tb = make_tournament(app, name="SEM B - Betatown", seed=5)
    uid = make_user(app, "anna", everywhere=False)
    with app.app_context():
        va, vb = Venue(name="Alphaville"), Venue(name="Betatown")
        db.session.add_all([va, vb])
        db.session.flush()
        db.session.get(Tournament, ta).venue_id, db.session.get(Tournament, tb).venue_id = va.id, vb.id
        anna = db.session.get(User, uid)
        anna.venue_id = va.id
        db.session.add(Assignment(user_id=uid, tournament_id=ta))
        db.session.commit()
        va_id, vb_id = va.id, vb.id
    boss = admin_client(app)
    anna_client = app.test_client()
    login(anna_client, "anna")
    assert "Alphaville" in text(anna_client.get("/operator/"))
    page = boss.get(f"/admin/user/{uid}").get_data(as_text=True)
    assert 'name="venue"' in page and f'<option selected value="{va_id}">Alphaville</option>' in page
    assert f'<option value="{vb_id}">Betatown</option>' in page
    assert "Alphaville" in text(boss.get("/admin/"))  # the accounts list names each account's venue
    r = boss.post(f"/admin/user/{uid}/venue", data={"venue": str(vb_id)})
    assert r.status_code == 302
    assert "anna now belongs to the venue Betatown." in text(boss.get(r.headers["Location"]))
    with app.app_context():
        assert db.session.get(User, uid).venue_id == vb_id
        assert db.session.scalars(select(Assignment).where(Assignment.user_id == uid)).all() == []
        entry = db.session.scalars(select(AuditEntry).where(AuditEntry.action == "user.venue")).one()
        assert entry.tournament_id is None and entry.payload["from"] == "Alphaville" \
            and entry.payload["to"] == "Betatown"
    assert anna_client.get("/operator/").status_code == 302  # signed out: what the account sees changed
    login(anna_client, "anna")
    assert "Alphaville" not in text(anna_client.get("/operator/"))
    assert anna_client.get(f"/operator/t/{ta}").status_code in (403, 404)
    r = boss.post(f"/admin/user/{uid}/venue", data={"venue": "99999"})
    assert r.status_code == 422 and "Not a valid choice" in text(r)
    with app.app_context():
        assert db.session.get(User, uid).venue_id == vb_id
    assert boss.post(f"/admin/user/{uid}/venue", data={"venue": ""}).status_code == 302
    with app.app_context():
        assert db.session.get(User, uid).venue_id is None
        boss_id = db.session.scalar(select(User.id).where(User.username == "boss"))
    r = boss.post(f"/admin/user/{boss_id}/venue", data={"venue": str(va_id)})
    assert r.status_code == 422 and "only admin of the whole server" in text(r)
    make_user(app, "second-boss", role="admin")
    assert boss.post(f"/admin/user/{boss_id}/venue", data={"venue": str(va_id)}).status_code == 302
    with app.app_context():
        assert db.session.get(User, boss_id).venue_id == va_id


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
