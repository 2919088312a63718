"""The demo venue: a tournament in round 3 with realistic players, and demo accounts
(an operator and a referee assigned to it, and an admin)."""
from __future__ import annotations

import random
from datetime import date

from sqlalchemy import select

from ..extensions import db
from ..models import Player, Tournament, User
from ..services import access, pins, rounds
from .simulate import make_players, table_sums

DEMO_NAME = "SEM Demo - Poprad"
DEMO_LOGIN = ("demo", "demo-operator")
DEMO_REFEREE = ("rozhodca", "demo-referee")
DEMO_ADMIN = ("admin", "demo-admin")


def demo_pin(start_no: int) -> str:
    """The demo players' PINs, known in advance (1000 + start number: #7 signs with 1007), issued
    before round 1 as at a real check-in, so a newcomer's phone signature counts at once."""
    return str(1000 + start_no)


def demo_notice(tid: int, login: tuple[str, str]) -> str:
    return f"demo tournament {tid}; sign in as '{login[0]}' / '{login[1]}'; " + demo_pins_line(tid)


def demo_pins_line(tid: int) -> str:
    return (f"every player has a PIN: 1000 + start number (#7 signs with {demo_pin(7)}); PIN slips for new PINs: "
            f"/operator/t/{tid}/pins, a player's own slip from the check-in list (/operator/t/{tid}/checkin)")


def has_demo() -> bool:
    return db.session.scalar(select(Tournament).where(Tournament.name == DEMO_NAME)) is not None


def _account(username: str, password: str, role: str, name: str) -> User:
    user = db.session.scalar(select(User).where(User.username == username))
    if user is None:
        user = User(username=username, role=role, display_name=name)
        user.set_password(password)
        db.session.add(user)
        db.session.flush()
    return user


def create_demo(n_players: int = 45, seed: int = 2026) -> tuple[int, tuple[str, str]]:
    """Rounds 1 and 2 closed, round 3 published and running with some sheets in."""
    staff = [_account(*DEMO_LOGIN, "operator", "Demo operátor"), _account(*DEMO_REFEREE, "referee", "Demo rozhodca")]
    _account(*DEMO_ADMIN, "admin", "Demo admin")
    t = Tournament(name=DEMO_NAME, date=date.today(), venue="Poprad, Hotel Tatra", ruleset="sem")
    for p in make_players(n_players, seed=seed, clubs=8):
        t.players.append(Player(start_no=p.start_no, reg_id=p.id, name=p.name, club=p.club,
                                status=p.status, rating=p.rating, present=True))
    db.session.add(t)
    db.session.flush()
    for user in staff:
        access.assign(user, t.id)
    for p in t.players:
        pins.issue_pin(p, demo_pin(p.start_no), actor="demo")
    rng = random.Random(seed)
    for k in (1, 2, 3):
        r = rounds.draw_round(t, "demo")
        rounds.publish_round(t, r, "demo", t.version)
        rounds.start_clock(t, r, "demo")
        tables = r.tables if k < 3 else r.tables[: len(r.tables) // 2]
        for tab in tables:
            rounds.record_sheet(t, tab, list(table_sums(rng)), "demo")
        if k < 3:
            rounds.close_round(t, r, "demo", t.version)
    db.session.commit()
    return t.id, DEMO_LOGIN
