"""A referee approves a correction from their own phone, in a real browser
(Debian's chromium) against the threaded venue server with CSRF on.

The referee signs in on a 360 px phone and keeps the queue open; the table's
phone sends its sheet and then a correction signed by all three players
(through the real /api/v1/sheets route); the case appears in the queue by
itself (htmx polling, no reload); the referee opens it, sees the old and new
sums with the changes in red, and approves. The operator's desk then shows
the table's new version in red with the old sums struck through, and so do
the public standings once the round is closed."""
from __future__ import annotations

import json
import re
import urllib.request

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from tests.helpers import issue_pins, make_tournament, make_user, play_round, signed_submission
from webapp.extensions import db
from webapp.models import Case, Round, Tournament
from webapp.services import rounds
from webapp.demo.simulate import table_sums

pytestmark = pytest.mark.browser

expect.set_options(timeout=15_000)
RED = "rgb(200, 16, 46)"  # --red-pen


def post_sheet(url: str, body: dict) -> dict:
    req = urllib.request.Request(f"{url}/api/v1/sheets", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=15) as r:
        return json.loads(r.read())


def sign_in(page, url: str, username: str) -> None:
    page.goto(f"{url}/login?lang=en")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", "secret-pass")
    page.locator("form:has(input[name=password]) button").click()


@pytest.fixture
def venue(live_server):
    url, app = live_server
    tid = make_tournament(app, 9)
    pins = issue_pins(app, tid)
    play_round(app, tid, seed=1)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r = rounds.draw_round(t, "test")
        rounds.publish_round(t, r, "test", t.version)
        db.session.commit()
        seats = list(r.tables[0].players)
        db.session.remove()
    make_user(app, "referee", "secret-pass", role="referee")
    make_user(app, "operator", "secret-pass")
    return url, app, tid, pins, seats


def test_referee_approves_a_correction_from_the_phone_and_it_shows_in_red(browser, venue):
    url, app, tid, pins, seats = venue
    ctx = browser.new_context(viewport={"width": 360, "height": 740}, has_touch=True, is_mobile=True,
                              device_scale_factor=2)
    referee = ctx.new_page()
    errors: list[str] = []
    referee.on("pageerror", lambda e: errors.append(str(e)))
    sign_in(referee, url, "referee")
    expect(referee).to_have_url(f"{url}/referee/")
    expect(referee.locator("#referee-queue")).to_contain_text("Nothing to decide")
    referee.evaluate("window.stillTheSamePage = true")

    # the table's phone: the sheet, then a correction before hand-in signed by all three
    first = post_sheet(url, signed_submission(app, tid, 2, 1, [1450, 1000, 550], pins))
    assert first["status"] == "accepted"
    corr = post_sheet(url, signed_submission(app, tid, 2, 1, [1450, 600, 950], pins,
                                             note="zle sčítané v poslednej hre", base_version=first["version"]))
    assert (corr["status"], corr["reason"]) == ("needs-referee", "correction")

    # the queue updates itself (htmx polling), no reload
    link = referee.locator(f"a.case-link[data-case='{corr['case']}']")
    expect(link).to_be_visible(timeout=12_000)
    expect(link).to_contain_text("Round 2, table 1")
    assert referee.evaluate("window.stillTheSamePage") is True
    box = link.bounding_box()
    assert box["height"] >= 48 and box["width"] >= 300  # a big target on the phone

    link.tap()
    expect(referee.locator("h1")).to_have_text("Correction before hand-in (SEM-C4)")
    expect(referee.locator(".case-note")).to_have_text("zle sčítané v poslednej hre")
    second = referee.locator(f"tr[data-start-no='{seats[1]}']")
    expect(second.locator("td[data-col=before] s.red-pen-old")).to_have_text("10.00")
    expect(second.locator("td[data-col=after] .red-pen")).to_have_text("6.00")
    assert second.locator("td[data-col=after] .red-pen").evaluate("e => getComputedStyle(e).color") == RED
    expect(referee.locator(f"tr[data-start-no='{seats[0]}'] .red-pen")).to_have_count(0)
    expect(referee.locator("svg.sig")).to_have_count(6)
    referee.get_by_role("button", name="Approve the correction").tap()

    expect(referee).to_have_url(f"{url}/referee/")
    expect(referee.locator(".flash-success")).to_contain_text("approved (round 2, table 1)")
    expect(referee.locator("#referee-queue")).to_contain_text("0 open cases")
    with app.app_context():
        c = db.session.get(Case, corr["case"])
        assert (c.status, c.resolved_by) == ("approved", "Referee")
        db.session.remove()
    assert errors == []

    # the operator's desk: the new version counts, in red, the old sums struck through
    desk_ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    desk = desk_ctx.new_page()
    sign_in(desk, url, "operator")
    desk.goto(f"{url}/operator/t/{tid}/round/2/results?lang=en")
    table1 = desk.locator("#table-1")
    expect(table1).to_contain_text("corrected with the referee (SEM-C4)")
    expect(table1.locator("s.red-pen-old")).to_have_text(["10.00", "5.50"])
    expect(table1.locator("span.red-pen")).to_have_text(["6.00", "9.50"])
    assert table1.locator("span.red-pen").first.evaluate("e => getComputedStyle(e).color") == RED
    expect(desk.locator("#table-2 s.red-pen-old")).to_have_count(0)

    # the rest of the round comes in, the round closes: the public standings show it too
    import random

    rng = random.Random(5)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r = db.session.scalar(select(Round).where(Round.tournament_id == tid, Round.number == 2))
        for tab in r.tables[1:]:
            rounds.record_sheet(t, tab, list(table_sums(rng)), "test")
        rounds.close_round(t, r, "test", t.version)
        db.session.commit()
        db.session.remove()
    referee.goto(f"{url}/t/{tid}/standings?lang=en")
    row = referee.locator(f"tr[data-start-no='{seats[1]}']")
    expect(row.locator("s.red-pen-old")).to_have_text("10.00")
    expect(row.locator("span.red-pen")).to_have_text(re.compile(r"6\.00\*"))
    assert row.locator("span.red-pen").evaluate("e => getComputedStyle(e).color") == RED
    expect(referee.locator(f"tr[data-start-no='{seats[0]}'] .red-pen")).to_have_count(0)
    desk_ctx.close()
    ctx.close()
