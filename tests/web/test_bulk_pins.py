"""PIN slips for everybody are issued in short transactions, so a
second desk (or a phone's sheet) writes between the batches, on SQLite and PostgreSQL."""
from __future__ import annotations

from sqlalchemy import select, text, update

from tests.helpers import make_tournament
from webapp.extensions import db
from webapp.models import Player, Tournament
from webapp.services import pins as pin_service


def test_issuing_pins_for_everybody_commits_in_batches_and_lets_others_write_between(app):
    tid = make_tournament(app, 250)
    seen = []
    with app.app_context():
        t = db.session.get(Tournament, tid)
        everybody = [p.start_no for p in t.players]
        first_batch = sorted(everybody)[0]

        def progress(done, total):
            # another desk checks a player of the batch just issued in, on a connection of its own that
            # refuses to wait: it succeeds only if the batch's transaction has ended
            with db.engine.connect() as conn:
                if conn.dialect.name == "sqlite":
                    conn.exec_driver_sql("PRAGMA busy_timeout=0")
                else:
                    conn.execute(text("SET lock_timeout = '200ms'"))
                conn.execute(update(Player).where(Player.tournament_id == tid, Player.start_no == first_batch)
                             .values(checked_in_at=None))
                conn.commit()
            seen.append((done, total))

        slips = pin_service.issue_missing_pins_in_batches(t, everybody, "desk", batch=100, progress=progress)
        assert seen == [(100, 250), (200, 250), (250, 250)]
        assert sorted(p.start_no for p, _pin in slips) == sorted(everybody)
        db.session.expire_all()
        stored = db.session.scalars(select(Player).where(Player.tournament_id == tid)).all()
        assert all(p.pin_hash and p.pin_issued_by == "desk" for p in stored)
        key = pin_service.pepper(tid, pin_service.tournament_salt(tid))
        by_no = {p.start_no: p for p in stored}
        assert all(pin_service.pin_matches(by_no[p.start_no].pin_hash, key, tid, p.start_no, pin) for p, pin in slips)
        # a second run (another desk pressing print) issues nobody twice
        assert pin_service.issue_missing_pins_in_batches(db.session.get(Tournament, tid), everybody, "desk") == []
