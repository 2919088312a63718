"""My tournament on a 360 px phone, in a real browser against the threaded venue
server: the player signs on once with start number and PIN, sees their table,
the next table appears within one poll after the round changes, and offline
the page keeps what it last loaded and says how old it is."""
from __future__ import annotations

import random

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from tests.browser.test_referee import venue  # noqa: F401 (fixture)
from webapp.extensions import db
from webapp.models import Round, Tournament
from webapp.services import rounds
from webapp.demo.simulate import table_sums

pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 360, "height": 740}, "has_touch": True, "is_mobile": True, "device_scale_factor": 2}


def next_round(app, tid) -> int:
    """Every sheet of the round being played in, the round closed, the next drawn and published."""
    rng = random.Random(7)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r = t.rounds[-1]
        for tab in r.tables:
            rounds.record_sheet(t, tab, list(table_sums(rng)), "test")
        rounds.close_round(t, r, "test", t.version)
        nxt = rounds.draw_round(t, "test")
        rounds.publish_round(t, nxt, "test", t.version)
        db.session.commit()
        table = next(x.number for x in nxt.tables if 5 in x.players)
        db.session.remove()
        return table


def test_my_tournament_remembered_next_table_in_one_poll_and_offline_age(browser, venue):  # noqa: F811
    url, app, tid, pins, _seats = venue
    app.config["LISTOK_PLAYER_POLL_SECONDS"] = 3  # a venue's setting: shorter than the default for the test
    with app.app_context():
        r2 = db.session.scalar(select(Round).where(Round.tournament_id == tid, Round.number == 2))
        table2 = next(x.number for x in r2.tables if 5 in x.players)
        db.session.remove()
    errors: list[str] = []
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{url}/t/{tid}/me?lang=en")
    page.fill("#me-start-no", "5")
    page.fill("#me-pin", pins[5])
    page.get_by_role("button", name="Open my page").tap()
    table = page.locator("[data-me-table]")
    expect(table).to_have_attribute("data-me-table", str(table2))
    expect(page.locator(".me-table-no")).to_have_text(f"Table {table2}")
    expect(page.locator(".me-round")).to_have_text("Round 2")
    expect(page.locator("#me-age")).to_contain_text("Updated at")
    assert page.locator(".me-table-no").evaluate("e => parseFloat(getComputedStyle(e).fontSize)") >= 36
    assert page.evaluate("document.documentElement.scrollWidth") <= 360

    # remembered: a new visit opens the player's page, no sign-on
    page.goto(f"{url}/t/{tid}/me?lang=en")
    expect(page.locator("#me-sign-on")).to_be_hidden()
    expect(page.locator(".me-table-no")).to_have_text(f"Table {table2}")

    assert page.locator("#me").get_attribute("data-poll") == "3"
    # the round changes: the next table within one poll
    table3 = next_round(app, tid)
    expect(page.locator(".me-round")).to_have_text("Round 3", timeout=5_000)
    expect(page.locator(".me-table-no")).to_have_text(f"Table {table3}")
    expect(page.locator(".player-results tr[data-round='2']")).to_have_count(1)

    # offline: what it last loaded, with its age
    ctx.set_offline(True)
    expect(page.locator("#me-age")).to_contain_text("Offline: shown as loaded at", timeout=5_000)
    expect(page.locator(".me-table-no")).to_have_text(f"Table {table3}")
    ctx.set_offline(False)
    assert errors == []


def test_pin_slips_personal_link_opens_my_page_and_stops_when_the_pin_is_issued_anew(browser, venue):  # noqa: F811
    """The personal QR code of the PIN slip (/t/<id>/me#n=…&k=…) opens the player's page with no
    sign-on and the key leaves the address bar; once the PIN is issued anew the phone forgets the key
    and asks for start number and PIN, saying why."""
    from webapp.models import Player
    from webapp.services import pins as pin_service
    from webapp.views.shared import personal_link

    url, app, tid, _pins, _seats = venue
    with app.test_request_context(base_url=url):
        t = db.session.get(Tournament, tid)
        player = db.session.scalar(select(Player).where(Player.tournament_id == tid, Player.start_no == 5))
        link = personal_link(t, player)
        db.session.remove()
    assert link.startswith(f"{url}/t/{tid}/me#n=5&k=5.")
    errors: list[str] = []
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(link.replace("/me#", "/me?lang=en#"))
    expect(page.locator(".me-table-no")).to_be_visible()
    expect(page.locator("#me-sign-on")).to_be_hidden()
    assert "k=" not in page.url

    with app.app_context():
        player = db.session.scalar(select(Player).where(Player.tournament_id == tid, Player.start_no == 5))
        new_pin = pin_service.issue_pin(player, actor="test")
        db.session.commit()
        db.session.remove()
    page.reload()
    expect(page.locator("#me-sign-on")).to_be_visible()
    expect(page.locator("#me-error")).to_contain_text("your PIN was issued anew")
    expect(page.locator(".me-table-no")).to_have_count(0)
    page.fill("#me-start-no", "5")
    page.fill("#me-pin", new_pin)
    page.get_by_role("button", name="Open my page").tap()
    expect(page.locator(".me-table-no")).to_be_visible()
    assert errors == []


def test_a_call_from_my_tournament_sends_the_key_in_a_header_not_the_address(browser, venue):  # noqa: F811
    url, app, tid, pins, _seats = venue
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    calls: list[tuple[str, str | None]] = []
    page.on("request", lambda r: calls.append((r.url, r.headers.get("x-listok-player-key")))
            if "/me/call" in r.url else None)
    page.goto(f"{url}/t/{tid}/me?lang=en")
    page.fill("#me-start-no", "5")
    page.fill("#me-pin", pins[5])
    page.get_by_role("button", name="Open my page").tap()
    expect(page.locator(".me-table-no")).to_be_visible()
    page.locator("#call-open").tap()
    page.fill("#call-reason", "Cards missing")
    page.locator("#call-send").tap()
    expect(page.locator("#call-status")).to_contain_text("The referee has been called")
    assert calls and all("k=" not in u and key and key.startswith("5.") for u, key in calls), calls
    assert errors == []
