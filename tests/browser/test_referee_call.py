"""A table calls the referee from a 360 px phone, in a real browser against the
threaded venue server with CSRF on: the call reaches a signed-in referee's
queue without a reload, the referee takes it, the table's phone shows who is
coming, and then the note the call was closed with."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_referee import sign_in, venue  # noqa: F401 (fixture)
from webapp.services.tokens import table_token

pytestmark = pytest.mark.browser

expect.set_options(timeout=15_000)
PHONE = {"viewport": {"width": 360, "height": 740}, "has_touch": True, "is_mobile": True, "device_scale_factor": 2}


def test_table_call_reaches_referee_queue_taken_and_seen_by_caller(browser, venue):  # noqa: F811
    url, app, tid, _pins, _seats = venue
    errors: list[str] = []
    ref_ctx = browser.new_context(**PHONE)
    referee = ref_ctx.new_page()
    referee.on("pageerror", lambda e: errors.append(str(e)))
    sign_in(referee, url, "referee")
    expect(referee).to_have_url(f"{url}/referee/")
    referee.evaluate("window.stillTheSamePage = true")
    expect(referee.locator(".call-list")).to_have_count(0)

    with app.app_context():
        token = table_token(tid, 2, 1)
    table_ctx = browser.new_context(**PHONE)
    phone = table_ctx.new_page()
    phone.on("pageerror", lambda e: errors.append(str(e)))
    phone.goto(f"{url}/s/{token}?lang=en")
    call = phone.get_by_role("button", name="Call the referee to table 1")
    expect(call).to_be_visible()
    expect(phone.locator("#call-form")).to_be_hidden()
    call.tap()
    phone.fill("#call-reason", "Misdeal in the last game")
    send = phone.get_by_role("button", name="Call now")
    box = send.bounding_box()
    assert box["height"] >= 44 and box["x"] >= 0 and box["x"] + box["width"] <= 360
    send.tap()
    expect(phone.locator("#call-status")).to_have_text(
        "The referee has been called to table 1. Stay at the table.")

    # the queue polls itself: the call appears, rings (counted by the page), no reload
    item = referee.locator(".call-item[data-call-open]")
    expect(item).to_be_visible(timeout=12_000)
    expect(item).to_contain_text("Round 2, table 1")
    expect(item).to_contain_text("Misdeal in the last game")
    assert referee.evaluate("window.stillTheSamePage") is True
    assert referee.evaluate("document.documentElement.getAttribute('data-calls-rung')") == "1"
    item.get_by_role("button", name="I am going to table 1").tap()
    expect(referee.locator("h1")).to_have_text("Call from table 1")

    # the caller sees who is coming, by itself
    expect(phone.locator("#call-status")).to_have_text("Referee Referee is coming.", timeout=12_000)
    expect(phone.get_by_role("button", name="Call the referee to table 1")).to_be_hidden()

    referee.fill("#call-note", "Redealt with the players' agreement.")
    referee.get_by_role("button", name="Close the call").tap()
    expect(referee).to_have_url(f"{url}/referee/")
    expect(referee.locator(".flash-success")).to_contain_text("call from table 1 (round 2) is closed")
    expect(phone.locator("#call-status")).to_have_text(
        "The referee closed the call: Redealt with the players' agreement.", timeout=12_000)
    assert errors == []
