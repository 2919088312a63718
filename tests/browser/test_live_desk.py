"""The live desk and the way forward in real browsers: the operator's desk (1280 px) changes by itself
as phones (360 px) and the JSON API send, a card being typed in is left alone,
and a table whose winner's phone went away still gets its sheet in — from a
player's own phone, or taken in at the desk. LISTOK_SCREENSHOTS=1 writes the
screenshots of docs/ (the desk, the stuck-table recovery)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.test_phone import phones, venue  # noqa: F401  (fixtures)
from tests.helpers import make_user, signed_submission
from tests.sync.test_own_phone import DRAWING
from webapp.services.tokens import table_token
from webapp.sync.protocol import Content

pytestmark = pytest.mark.browser
DOCS = Path(__file__).resolve().parents[2] / "docs"


def shot(page, name: str) -> None:
    if os.environ.get("LISTOK_SCREENSHOTS") == "1":
        page.screenshot(path=str(DOCS / name), full_page=True)


def draft_of(venue, table: int, sums: list[int]) -> dict:
    players = venue.tables[table - 1]
    with venue.app.test_request_context():
        token = table_token(venue.tid, 1, table)
    c = Content(tournament=venue.tid, round=1, table=table, players=tuple(players), sums_cents=tuple(sums))
    return {"token": token, "content": c.as_dict(), "content_hash": c.hash}


def own_sign(api, venue, draft: dict, start_no: int) -> None:
    r = api.post("/api/v1/signatures", json={
        "token": draft["token"], "content_hash": draft["content_hash"], "start_no": start_no,
        "pin": venue.pins[start_no], "drawing": DRAWING, "signed_at": "2026-03-14T10:52:00Z"})
    assert r.status_code == 200, r.json


def test_live_desk_follows_the_tables_and_no_table_stays_stuck(venue, phones, browser):
    app = venue.app
    app.config["LISTOK_DRAFT_SEND_AFTER"] = 3  # the winner's phone's head start, short for the test
    make_user(app)
    api = app.test_client()
    desk_ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    desk = desk_ctx.new_page()
    desk.set_default_timeout(15_000)
    desk.goto(f"{venue.proxy.url}/login?lang=en")
    desk.fill("input[name=username]", "operator")
    desk.fill("input[name=password]", "secret-pass")
    desk.locator("input[name=password]").press("Enter")
    desk.goto(f"{venue.proxy.url}/operator/t/{venue.tid}/round/1/results")
    desk.evaluate("document.activeElement && document.activeElement.blur()")  # watching, not typing
    reloads = []
    desk.on("framenavigated", lambda f: reloads.append(f.url) if f == desk.main_frame else None)

    def state(table: int):
        return desk.locator(f"#table-{table} [data-live-state]")

    for n in (1, 2, 3):
        expect(state(n)).to_have_text("waiting")
    expect(desk.locator("#desk-counts")).to_contain_text("waiting: 3")

    # table 1: the winner's phone confirms the sums, then goes away before anybody signs on it
    winner = phones()
    winner.open(venue.sheet_url(1))
    winner.enter(["14,50", "10", "5,50"])
    expect(winner.page.locator("#own-hint")).to_be_visible()
    winner.context.close()
    expect(state(1)).to_have_text("sums confirmed on a phone")
    p1, p2, p3 = venue.tables[0]
    own = phones()
    own.open(venue.sheet_url(1))
    page = own.page
    expect(page.locator("#own")).to_be_visible()
    page.locator(f"#own-who input[value='{p1}']").check()
    own.draw("#own-pad")
    page.locator("#own-pin").fill(venue.pins[p1])
    page.locator("#own-ok").click()
    expect(page.locator("#own-missing")).to_contain_text(f"Still to sign: {p2} ")
    expect(state(1)).to_have_text("1 of 3 signed")
    d1 = draft_of(venue, 1, [1450, 1000, 550])
    own_sign(api, venue, d1, p2)
    own_sign(api, venue, d1, p3)
    expect(state(1)).to_have_text("signed draft waiting")
    expect(page.locator("#own-send")).to_be_visible(timeout=20_000)  # after the winner's head start
    expect(page.locator("#own-missing")).to_contain_text("the phone of the table winner has not sent the sheet")
    shot(page, "stuck-table-recovery.png")
    page.locator("#own-send").click()
    expect(own.status()).to_contain_text("Sent — receipt")
    (sheet,) = venue.sheets(1)
    assert sheet.status == "accepted" and all(s.get("own_phone") for s in sheet.signatures)
    expect(state(1)).to_have_text(f"in (receipt {sheet.receipt})")

    # table 2: everybody signed on their own phones, no phone sends: the desk takes the draft in
    d2 = draft_of(venue, 2, [1200, 1100, 700])
    assert api.post("/api/v1/drafts", json=d2).status_code == 200
    for s in venue.tables[1]:
        own_sign(api, venue, d2, s)
    expect(state(2)).to_have_text("signed draft waiting")
    expect(desk.locator("#table-2 .desk-draft")).to_contain_text("12.00 / 11.00 / 7.00")
    shot(desk, "desk-live.png")
    desk.locator("#table-2 button[name=take]").click()
    expect(state(2)).to_contain_text("in (receipt")

    # table 3: the operator is typing its paper sheet when a phone sheet arrives: the card is left alone
    desk.locator("#t3-s0").fill("15")
    body = signed_submission(app, venue.tid, 1, 3, [1500, 900, 600], pins=venue.pins)
    assert api.post("/api/v1/sheets", json=body).status_code == 200
    expect(desk.locator("#table-3 .desk-stale button")).to_have_text("Changed on the server: refresh this card")
    expect(desk.locator("#t3-s0")).to_have_value("15")
    expect(desk.locator("#desk-counts")).to_contain_text("in from a phone: 3")
    desk.locator("#table-3 .desk-stale button").click()
    expect(state(3)).to_contain_text("in (receipt")
    expect(desk.locator("#progress")).to_contain_text("Tables in: 3 / 3")
    expect(desk.locator("#progress button[name=close]")).to_be_enabled()

    # a dispute on table 3 reaches the desk and the first phone's table state
    other = signed_submission(app, venue.tid, 1, 3, [1400, 1000, 600], pins=venue.pins)
    assert api.post("/api/v1/sheets", json=other).json["status"] == "dispute"
    expect(state(3)).to_have_text("dispute")
    assert reloads == [], reloads  # every change arrived without a reload
    desk_ctx.close()


@pytest.mark.parametrize("lang", ["sk", "cs", "en"])
def test_public_standings_fit_a_360px_phone_and_find_ones_row(live_server, browser, lang):
    """Rank, name, points and money in one row without sideways scrolling or anything cut
    at the right edge (the SEM-B9 cut's badge sits under the name); the name links
    to the player's details; 'find my row' jumps to the start number's row."""
    from tests.helpers import make_tournament, play_round

    url, app = live_server
    tid = make_tournament(app, 27)
    for seed in (1, 2, 3):
        play_round(app, tid, seed=seed)
    ctx = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True,
                              device_scale_factor=2)
    page = ctx.new_page()
    page.goto(f"{url}/t/{tid}/standings?lang={lang}")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    # nothing of the table is cut at the right edge: not its box, not the cut's badge (sk "postupuje")
    assert page.evaluate("(() => { const s = document.querySelector('.scroll'); "
                         "return s.scrollWidth - s.clientWidth; })()") == 0
    cut = page.evaluate("Math.max(...[...document.querySelectorAll('table.standings .badge')]"
                        ".filter(b => b.offsetParent).map(b => b.getBoundingClientRect().right))")
    assert cut <= page.evaluate("document.querySelector('.scroll').getBoundingClientRect().right"), cut
    row = page.locator("table.standings tbody tr[data-start-no]").first
    for col in ("place", "points", "money"):
        expect(row.locator(f"[data-col={col}]")).to_be_visible()
    expect(row.locator("a")).to_be_visible()
    expect(row.locator(".badge.ok.cut-narrow")).to_be_visible()  # the cut (advances), under the name
    assert row.locator("a").get_attribute("href").startswith(f"/t/{tid}/player/")
    page.locator("#find-no").fill("21")
    page.locator("#find-no").press("Enter")
    expect(page).to_have_url(f"{url}/t/{tid}/standings?lang={lang}#p21")
    expect(page.locator("#p21")).to_be_in_viewport()
    if lang == "sk":
        shot(page, "standings-360.png")
    ctx.close()
