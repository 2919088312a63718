"""Builders for web tests: users, logged-in clients, tournaments with players."""
from __future__ import annotations

from webapp.extensions import db
from webapp.models import User


def make_user(app, username="operator", password="secret-pass", role="operator") -> User:
    with app.app_context():
        user = User(username=username, role=role, display_name=username.title())
        user.set_password(password)
        db.session.add(user)
        db.session.commit()
        return user.id


def login(client, username="operator", password="secret-pass"):
    return client.post("/login", data={"username": username, "password": password})
