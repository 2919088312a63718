"""The rules of the seeds that had no implementation, in Chromium at 360 px: BB-1's late fee on the
phone sheet, BB-2's refusal of a jury with two members of one club, SMU-4's referees named from the
players (one who plays at the table of a case does not decide it), CSM-3's scorekeeper chosen by lot."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from tests.browser.test_phone import phones  # noqa: F401  (fixture)
from tests.browser.test_rulesets_phone import Event, enter, receipt_of, sign_here
from tests.helpers import make_user
from webapp.extensions import db
from webapp.models import Official, Round, Sheet

pytestmark = pytest.mark.browser

expect.set_options(timeout=15_000)


def stored(event, table: int) -> Sheet:
    with event.app.app_context():
        r = db.session.scalar(select(Round).where(Round.tournament_id == event.tid, Round.number == 1))
        s = next(x for x in r.tables if x.number == table).sheet
        db.session.expunge(s)
        db.session.remove()
        return s


def fits_the_phone(page) -> None:
    """Nothing wider than the 360 px screen."""
    wide = page.evaluate("""() => Array.from(document.querySelectorAll('body *')).filter(
        e => e.getBoundingClientRect().right > 361).map(e => e.tagName + '.' + e.className + '#' + e.id).slice(0, 8)""")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360, wide


def signed_in(browser, event, username: str, width: int = 360):
    """A browser of `width` px signed in as `username` (password secret-pass), pages in the event's language."""
    ctx = browser.new_context(viewport={"width": width, "height": 800}, has_touch=width <= 400,
                              is_mobile=width <= 400)
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    page.goto(f"{event.url}/login?lang={event.lang}")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", "secret-pass")
    page.locator("input[name=password]").press("Enter")
    expect(page.locator("input[name=password]")).to_have_count(0)
    return page


def test_bb1_late_fee_on_the_phone_sheet(live_server, phones):
    """BB-1: the table ticks the player more than a minute late; the fee (-0.08 for them, +0.04 for each
    other) shows as its own line while entering, on the locked sums and after sending; the total stays
    12 EUR; the stored sheet and its signed content name the late player."""
    ev = Event(live_server, "bbliga", 9, "en")
    p1, p2, p3 = ev.tables[0]
    ph = phones()
    ph.open(ev.sheet_url(1))
    page = ph.page
    box = page.locator("#late-box")
    expect(box).to_contain_text("Late more than a minute (BB-1): pays €0.04 to each other player")
    assert page.locator("#late1").locator("xpath=..").bounding_box()["height"] >= 44  # a touch target
    enter(page, ["4.54", "3.42", "4.04"])
    expect(page.locator("#total-hint")).to_have_text("The total is right.")
    page.locator("#late1").check()
    line = page.locator("#late-entry-line")
    expect(line).to_be_visible()
    expect(line).to_contain_text(f"Late fee (BB-1): {p1} {ev.names[p1]} +€0.04; {p2} {ev.names[p2]} -€0.08; "
                                 f"{p3} {ev.names[p3]} +€0.04")
    expect(page.locator("#total")).to_have_text("€12.00")  # the fee moves money between players only
    fits_the_phone(page)
    page.locator("#confirm").click()
    expect(page.locator("#signing")).to_be_visible()
    expect(page.locator("#locked-sums .late-line")).to_contain_text(f"{p2} {ev.names[p2]} -€0.08")
    for s in (p1, p2, p3):
        sign_here(ph, s, ev.pins[s])
    receipt = receipt_of(ph)
    expect(page.locator("#status-sums .late-line")).to_contain_text("Late fee (BB-1)")
    fits_the_phone(page)
    sheet = stored(ev, 1)
    assert sheet.receipt == receipt and sheet.late == [p2] and sheet.content["late"] == [p2]
    assert sheet.sums == ["4.54", "3.42", "4.04"]
    # a fresh load shows the server's sheet with its fee line
    page.reload()
    expect(page.locator("#status-sums .late-line")).to_contain_text(f"{p2} {ev.names[p2]} -€0.08")


def test_csm3_scorekeeper_chosen_by_lot_on_the_phone(live_server, phones):
    """CSM-3: a player insisted, so the table records the lot's keeper: the sheet cannot be confirmed
    until the keeper is chosen; the locked sheet, the sent sheet and the record name them."""
    ev = Event(live_server, "csm", 11, "en")
    p1, p2, p3, p4 = ev.tables[0]
    ph = phones()
    ph.open(ev.sheet_url(1))
    page = ph.page
    enter(page, ["35", "-10", "-30", "5"], pb=["0", "0", "10", "0"])
    expect(page.locator("#confirm")).to_be_enabled()
    page.locator("#keeper-lot").check()
    expect(page.locator("#total-hint")).to_have_text("Choose who keeps the sheet: the lot chose them (CSM-3).")
    expect(page.locator("#confirm")).to_be_disabled()
    page.locator("#keeper-who").select_option(str(p3))
    expect(page.locator("#confirm")).to_be_enabled()
    fits_the_phone(page)
    page.locator("#confirm").click()
    expect(page.locator("#locked-sums .keeper-line")).to_have_text(
        f"Scorekeeper: {p3} {ev.names[p3]}, chosen by lot (CSM-3)")
    for s in (p1, p2, p3, p4):
        sign_here(ph, s, ev.pins[s])
    receipt_of(ph)
    expect(page.locator("#status-sums .keeper-line")).to_contain_text(f"{p3} {ev.names[p3]}, chosen by lot")
    sheet = stored(ev, 1)
    assert sheet.keeper_by_lot == p3 and sheet.content["keeper_by_lot"] == p3

    # table 2, no lot: player 1 keeps the sheet, and the sheet says so
    q1 = ev.tables[1][0]
    other = phones()
    other.open(ev.sheet_url(2))
    op = other.page
    enter(op, ["1", "-1", "0", "0"], pb=["0", "0", "0", "0"])
    op.locator("#confirm").click()
    expect(op.locator("#locked-sums .keeper-line")).to_have_text(f"Scorekeeper: {q1} {ev.names[q1]}, player 1")


def test_bb2_jury_with_two_members_of_one_club_refused_in_the_browser(live_server, browser):
    """BB-2: the operator names the jury on the setup page; a second member of one club is refused
    with a message naming the club, and the jury stays at the members already named."""
    ev = Event(live_server, "bbliga", 9, "en")
    make_user(ev.app)
    for name in ("jury-a", "jury-b", "jury-c"):
        make_user(ev.app, name, role="referee", everywhere=False)
    page = signed_in(browser, ev, "operator")
    page.goto(f"{ev.url}/operator/t/{ev.tid}/officials")
    expect(page.locator("h1")).to_have_text("The jury of this tournament")
    expect(page.locator(".rule-note")).to_contain_text("BB-2: disputes go to a jury of 3, each member of another club")

    def name(user: str, club: str) -> None:
        page.locator("#official-user").select_option(label=f"{user.title()} ({user})")
        page.locator("#official-club").fill(club)
        page.locator("#official-add").click()

    name("jury-a", "MK Poprad")
    expect(page.locator(".flash-success")).to_be_visible()
    name("jury-b", "MK Poprad")
    expect(page.locator("#officials-error")).to_have_text(
        "Two members of the jury are of the club MK Poprad: each must be of another club (BB-2).")
    fits_the_phone(page)
    expect(page.locator("ul.officials li.official")).to_have_count(1)
    name("jury-b", "KM Zvolen")
    name("jury-c", "Lučenec")
    expect(page.locator("ul.officials li.official")).to_have_count(3)
    expect(page.locator("#official-add")).to_have_count(0)  # the jury is complete
    with ev.app.app_context():
        clubs = sorted(o.club for o in db.session.scalars(select(Official).where(Official.tournament_id == ev.tid)))
        db.session.remove()
    assert clubs == ["KM Zvolen", "Lučenec", "MK Poprad"]


def test_smu4_referees_from_the_players_and_not_at_their_own_table(live_server, browser):
    """SMU-4: the operator names referees by start number; a dispute at the table of one of them shows
    on that referee's phone as another referee's, refused with the reason; the other referee decides it."""
    from tests.web.test_new_rules_server import _body

    ev = Event(live_server, "smu", 9, "en")
    make_user(ev.app)
    make_user(ev.app, "ref-a", role="referee", everywhere=False)
    make_user(ev.app, "ref-b", role="referee", everywhere=False)
    (a1, a2, a3), (b1, _b2, _b3) = ev.tables[0], ev.tables[1]
    page = signed_in(browser, ev, "operator")
    page.goto(f"{ev.url}/operator/t/{ev.tid}/officials")
    expect(page.locator(".rule-note")).to_contain_text("SMU-4: three referees are named from the players")
    page.locator("#official-user").select_option(label="Ref-A (ref-a)")
    page.locator("#official-add").click()
    expect(page.locator("#officials-error")).to_contain_text("The referees are named from the players (SMU-4)")
    page.locator("#official-user").select_option(label="Ref-A (ref-a)")
    page.locator("#official-start").fill(str(a1))
    page.locator("#official-add").click()
    page.locator("#official-user").select_option(label="Ref-B (ref-b)")
    page.locator("#official-start").fill(str(b1))
    page.locator("#official-add").click()
    expect(page.locator("ul.officials li.official")).to_have_count(2)
    expect(page.locator(".flash-warning")).to_contain_text("2 of 3 named")

    # two different sheets for table 1, where ref-a plays: a dispute
    client = ev.app.test_client()
    assert client.post("/api/v1/sheets", json=_body(ev.app, ev.tid, 1, [a1, a2, a3], [100, -100, 0],
                                                     ev.pins)).status_code == 200
    client.post("/api/v1/sheets", json=_body(ev.app, ev.tid, 1, [a1, a2, a3], [300, -100, -200], ev.pins))

    mine = signed_in(browser, ev, "ref-a")
    mine.goto(f"{ev.url}/referee/")
    link = mine.locator(".case-link", has_text="Round 1, table 1").first
    expect(link).to_contain_text("another referee decides")
    link.click()
    expect(mine.locator("#case-not-mine")).to_contain_text(
        f"You play at table 1 of round 1 (start number {a1}): another referee decides this case (SMU-4).")
    expect(mine.locator(".decide-form")).to_have_count(0)
    fits_the_phone(mine)

    other = signed_in(browser, ev, "ref-b")
    other.goto(f"{ev.url}/referee/")
    link = other.locator(".case-link", has_text="Round 1, table 1").first
    expect(link).not_to_contain_text("another referee decides")
    link.click()
    expect(other.locator(".decide-form").first).to_be_visible()
    expect(other.locator("#case-not-mine")).to_have_count(0)
