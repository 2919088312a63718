"""A phone is the last replica of its own sheet (docs/SYNC.md, "When the server lost a sheet"): it
sent a sheet, the server was restored to a copy from before it, and the phone, on its own, sends it
again with the server's acknowledgement and says in words what happened."""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from tests.browser import test_phone
from tests.browser.test_phone import Phone
from webapp.extensions import db
from webapp.models import AuditEntry, Sheet
from webapp.services import restore

pytestmark = pytest.mark.browser
venue = test_phone.venue  # the fixture: round 1 of 9 players with PINs, a proxy in front


def _database(app) -> Path:
    return Path(app.config["SQLALCHEMY_DATABASE_URI"].removeprefix("sqlite:///"))


def test_a_phone_resends_a_sheet_the_restored_server_lost(venue, browser):
    path = _database(venue.app)
    copy = path.with_name("replica-copy.db")
    with sqlite3.connect(path) as live, sqlite3.connect(copy) as snap:
        live.backup(snap)  # the replica's last second: before the sheet
    ph = Phone(browser)
    try:
        ph.open(venue.sheet_url(1))
        ph.enter(["14,50", "10", "5,50"])
        ph.sign_all(venue.tables[0], venue.pins)
        first = ph.receipt()
        kept = ph.page.evaluate("ListokOutbox.kept()")
        assert len(kept) == 1 and len(kept[0]["ack"]) == 64
        assert all(s["pin"] == "" for s in kept[0]["body"]["signatures"])  # never a PIN
        assert "pin\": \"1" not in json.dumps(kept)

        # the laptop died; the standby runs the copy, the restore recorded
        with sqlite3.connect(copy) as snap, sqlite3.connect(path) as live:
            snap.backup(live)
        with venue.app.app_context():
            db.engine.dispose()
            assert db.session.scalars(select(Sheet)).all() == []
            restore.record(str(copy), "listok restore", "sqlite")
            db.session.remove()

        ph.page.reload()  # on load the phone asks for its receipt, hears nothing of it, and sends again
        expect(ph.status()).to_contain_text("The server lost your sheet in a breakdown; your phone sent it "
                                            "again and it is counted.")
        sheets = venue.sheets(1)
        assert len(sheets) == 1 and sheets[0].status == "accepted" and sheets[0].receipt != first
        expect(ph.status()).to_contain_text(sheets[0].receipt)
        assert [s["start_no"] for s in sheets[0].signatures] == venue.tables[0]
        with venue.app.app_context():
            phone = db.session.scalar(select(AuditEntry).where(AuditEntry.action == "sheet.phone"))
            assert phone.payload["retaken"] is True
            db.session.remove()
        assert ph.outbox() == []
        ph.page.set_viewport_size({"width": 360, "height": 740})
    finally:
        ph.close()
