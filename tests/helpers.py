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


def make_tournament(app, n_players=27, checked_in=True, seed=3, name="SEM 5 - Poprad", clubs=6) -> int:
    """A tournament with `n_players` generated players (realistic names and clubs)."""
    from datetime import date

    from webapp.models import Player, Tournament
    from webapp.simulate import make_players

    with app.app_context():
        t = Tournament(name=name, date=date(2026, 3, 14), venue="Poprad", ruleset="sem")
        for p in make_players(n_players, seed=seed, clubs=clubs):
            t.players.append(Player(start_no=p.start_no, reg_id=p.id, name=p.name, club=p.club, status=p.status,
                                    rating=p.rating, present=checked_in))
        db.session.add(t)
        db.session.commit()
        return t.id


def play_round(app, tid, seed=1, close=True) -> int:
    """Draw, publish and fill the next round with random valid sheets (services, not HTTP)."""
    import random

    from webapp.models import Tournament
    from webapp.services import rounds
    from webapp.simulate import table_sums

    rng = random.Random(seed)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r = rounds.draw_round(t, "test")
        rounds.publish_round(t, r, "test", t.version)
        for tab in r.tables:
            rounds.record_sheet(t, tab, list(table_sums(rng)), "test")
        if close:
            rounds.close_round(t, r, "test", t.version)
        db.session.commit()
        return r.number
