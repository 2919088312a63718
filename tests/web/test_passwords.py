"""Account passwords: the app's own hashing, which the test session replaces with a fast one
(tests/conftest.py, fast_password_hashes)."""
from __future__ import annotations

from tests.conftest import FAST_PASSWORD_HASH
from tests.helpers import login, make_user
from webapp import models
from webapp.extensions import db
from webapp.models import User


def test_accounts_are_hashed_with_scrypt_outside_the_tests(app, client, fast_password_hashes, monkeypatch):
    monkeypatch.setattr(models, "generate_password_hash", fast_password_hashes)
    make_user(app, "op", "a-long-pass")
    with app.app_context():
        stored = db.session.scalar(db.select(User.password_hash).where(User.username == "op"))
    assert stored.startswith("scrypt:") and "a-long-pass" not in stored
    assert login(client, "op", "a-long-pass").status_code == 302
    assert login(client, "op", "a-wrong-pass").status_code == 200


def test_the_session_uses_the_fast_method(app):
    make_user(app, "op", "a-long-pass")
    with app.app_context():
        stored = db.session.scalar(db.select(User.password_hash).where(User.username == "op"))
    assert stored.startswith(FAST_PASSWORD_HASH + "$")
