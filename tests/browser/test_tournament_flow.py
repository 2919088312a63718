"""End to end: a 3-round SEM tournament of 45 players (15 tables a round).

The operator's results desk is a real page at 1280 px that is never reloaded
while a round is played; the referee decides on a real 360 px phone. Most
tables' phones are the JSON API driven from the test (docs/SYNC.md) to keep it
fast; a few are real 360 px phone pages: one signed offline, one whose
winner's phone went away before sending (a player's own phone sends after the
head start), one signed offline with a wrong PIN (a `pin-mismatch` case), one
disputed. The desk also takes in a signed draft nobody sent and a paper sheet.
Between rounds: close, the SEM-C9 objection-window warning confirmed for the
next draw and its publication. After every step the desk's state of every
table is asserted (services/desk_live.py's state keys), and at the end every
table of every round has a counted sheet: none is stuck."""
from __future__ import annotations

import random
import re
import time
from decimal import Decimal

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from tests.browser.test_operator import Operator
from tests.browser.test_phone import phones  # noqa: F401  (fixture)
from tests.browser.test_referee import sign_in
from tests.helpers import issue_pins, make_tournament, make_user
from tests.sync.test_own_phone import draft_body, own_signature
from tests.sync.test_routes import Game
from webapp.extensions import db
from webapp.models import Case, Round
from webapp.services.tokens import table_token
from webapp.demo.simulate import table_sums

pytestmark = pytest.mark.browser

N_PLAYERS = 45
TABLES = N_PLAYERS // 3


def positive_sums(rng: random.Random) -> list[int]:
    """One table's sums in cents, none negative (a negative one is SEM-C8's, tested elsewhere)."""
    while True:
        sums = [int(x * 100) for x in table_sums(rng)]
        if min(sums) >= 0:
            return sums


class Desk:
    """The operator's page at 1280 px: the hub, the draw, the desk."""

    def __init__(self, browser, url: str, tid: int):
        self.url, self.tid = url, tid
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.page = self.context.new_page()
        self.page.set_default_timeout(15_000)
        self.problems: list[str] = []
        self.page.on("pageerror", lambda e: self.problems.append(f"JS error: {e}"))
        self.page.on("response", lambda r: self.problems.append(f"HTTP {r.status} {r.url}")
                     if r.status >= 500 else None)
        self.loads: list[str] = []
        self.page.on("framenavigated", lambda f: self.loads.append(f.url) if f == self.page.main_frame else None)
        sign_in(self.page, url, "operator")
        expect(self.page).to_have_url(f"{url}/operator/")

    def draw_and_publish(self, n: int) -> None:
        page = self.page
        page.goto(f"{self.url}/operator/t/{self.tid}")
        page.click(f"form[action$='/round/{n}/draw'] button")
        if n > 1:  # SEM-C9: round n-1's standings came out moments ago: the desk warns and asks
            window = page.locator("#objection-window")
            expect(window).to_contain_text(re.compile(rf"after round {n - 1} are still running: \d+ minutes? left"))
            expect(window).to_contain_text("No discrepancy report is waiting for a referee.")
            window.locator(f"form[action$='/round/{n}/draw'] button").click()
        expect(page).to_have_url(f"{self.url}/operator/t/{self.tid}/round/{n}")
        page.click(f"form[action$='/round/{n}/publish'] button")
        if n > 1:
            window = page.locator("#objection-window")
            expect(window).to_contain_text(re.compile(r"still running: \d+ minutes? left"))
            window.locator(f"form[action$='/round/{n}/publish'] button").click()
        expect(page.locator(f"form[action$='/round/{n}/clock'] button")).to_be_visible()

    def open_round(self, n: int) -> None:
        self.page.goto(f"{self.url}/operator/t/{self.tid}/round/{n}/results")
        expect(self.page.locator("article.desk-table")).to_have_count(TABLES)
        self.page.evaluate("document.activeElement && document.activeElement.blur()")  # watching, not typing
        self.loads.clear()

    def states(self) -> dict[int, str]:
        return {int(k): v for k, v in self.page.evaluate(
            "Object.fromEntries([...document.querySelectorAll('article.desk-table')]"
            ".map(a => [a.dataset.table, a.querySelector('[data-live-state]').dataset.liveState]))").items()}

    def shows(self, expected: dict[int, str], timeout: float = 15) -> None:
        """Every table's state on the desk is `expected`, within `timeout` s. The desk polls every 2 s
        and at once when it comes back into view: the test says "back into view" rather than wait
        for the timer (test_live_desk watches the timer itself)."""
        deadline = time.monotonic() + timeout
        while (now := self.states()) != expected and time.monotonic() < deadline:
            self.page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
            self.page.wait_for_timeout(150)
        assert now == expected, {k: (now.get(k), v) for k, v in expected.items() if now.get(k) != v}

    def close(self, n: int) -> None:
        assert self.loads == [], f"the desk of round {n} was reloaded: {self.loads}"
        expect(self.page.locator("#progress")).to_contain_text(f"Tables in: {TABLES} / {TABLES}")
        self.page.locator("#progress button[name=close]").click()
        expect(self.page).to_have_url(f"{self.url}/operator/t/{self.tid}/standings?after={n}")


class Referee:
    """The referee's own phone at 360 px."""

    def __init__(self, browser, url: str):
        self.url = url
        self.context = browser.new_context(viewport={"width": 360, "height": 740}, has_touch=True,
                                           is_mobile=True, device_scale_factor=2)
        self.page = self.context.new_page()
        self.page.set_default_timeout(15_000)
        self.problems: list[str] = []
        self.page.on("pageerror", lambda e: self.problems.append(f"JS error: {e}"))
        sign_in(self.page, url, "referee")
        expect(self.page).to_have_url(f"{url}/referee/")

    def decide(self, case: int, button: str, where: str, says: str) -> None:
        page = self.page
        page.goto(f"{self.url}/referee/")
        link = page.locator(f"a.case-link[data-case='{case}']")
        expect(link).to_be_visible()
        link.tap()
        expect(page.locator(".case-meta")).to_contain_text(where)
        expect(page.locator("main")).to_contain_text(says)
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        page.get_by_role("button", name=button).tap()
        expect(page).to_have_url(f"{self.url}/referee/")
        expect(page.locator(".flash-success")).to_contain_text(f"Case {case} approved")


def test_a_45_player_tournament_over_three_rounds_leaves_no_table_stuck(live_server, browser, phones):
    url, app = live_server
    app.config["LISTOK_DRAFT_SEND_AFTER"] = 2  # the winner's phone's head start, short for the test
    make_user(app, "operator", "secret-pass")
    make_user(app, "referee", "secret-pass", role="referee")
    tid = make_tournament(app, N_PLAYERS)
    pins = issue_pins(app, tid)
    game = Game(app, tid, pins)
    api = app.test_client()
    rng = random.Random(8)
    desk = Desk(browser, url, tid)
    referee = Referee(browser, url)

    def seats(n: int) -> dict[int, list[int]]:
        with app.app_context():
            r = db.session.scalar(select(Round).where(Round.tournament_id == tid, Round.number == n))
            out = {tab.number: list(tab.players) for tab in r.tables}
            db.session.remove()
        return out

    def sheet_url(n: int, table: int) -> str:
        with app.test_request_context():
            return f"{url}/s/{table_token(tid, n, table)}?lang=en"

    def send(n: int, table: int, sums: list[int]) -> dict:
        """A table's phone sends its signed sheet through the JSON API."""
        r = api.post("/api/v1/sheets", json=game.body(table=table, sums=sums, round_no=n))
        assert r.status_code in (200, 202), r.json
        return r.json

    def own_sign(draft: dict, start_no: int) -> None:
        assert api.post("/api/v1/signatures", json=own_signature(game, draft, start_no)).status_code == 200

    # ------------------------------------------------------------------ round 1: the phones' hard cases
    desk.draw_and_publish(1)
    at = seats(1)
    assert len(at) == TABLES and sorted(s for p in at.values() for s in p) == list(range(1, N_PLAYERS + 1))
    desk.open_round(1)
    state = {t: "waiting" for t in at}
    desk.shows(state)

    # table 1 signs offline (right PINs), table 3 offline with a mistyped PIN: both wait in their outboxes
    offline, wrong_pin = phones(), phones()
    for ph, table in ((offline, 1), (wrong_pin, 3)):
        ph.open(sheet_url(1, table))
        ph.context.set_offline(True)
        ph.enter(["15", "9,50", "5,50"] if table == 1 else ["12", "10", "8"])
        expect(ph.page.locator("#pin-offline")).to_be_visible()  # said before anybody signs (8.3)
    p3 = at[3]
    offline.sign_all(at[1], pins)
    wrong_pin.sign_all(p3, {**pins, p3[1]: "0000" if pins[p3[1]] != "0000" else "1111"})
    for ph in (offline, wrong_pin):
        expect(ph.status()).to_contain_text("Signed — waiting to send")
        expect(ph.page.locator("#net-badge")).to_be_visible()
    desk.shows(state)  # nothing has reached the server

    # tables 5 … 15: their phones send through the API
    receipts = {}
    for table in range(5, TABLES + 1):
        receipts[table] = send(1, table, positive_sums(rng))["receipt"]
        state[table] = "in"
    desk.shows(state)
    expect(desk.page.locator("#table-5 [data-live-state]")).to_have_text(f"in (receipt {receipts[5]})")

    # table 2: the winner's phone confirms the sums, then goes away before anybody signs on it
    winner = phones()
    winner.open(sheet_url(1, 2))
    winner.enter(["14,50", "10", "5,50"])
    expect(winner.page.locator("#own-hint")).to_be_visible()
    winner.context.close()
    state[2] = "confirmed"
    desk.shows(state)
    a, b, c = at[2]
    own = phones()
    own.open(sheet_url(1, 2))
    own.page.locator(f"#own-who input[value='{a}']").check()
    own.draw("#own-pad")
    own.page.locator("#own-pin").fill(pins[a])
    own.page.locator("#own-ok").click()
    expect(own.page.locator("#own-missing")).to_contain_text(f"Still to sign: {b} ")
    state[2] = "signing"
    desk.shows(state)
    expect(desk.page.locator("#table-2 [data-live-state]")).to_have_text("1 of 3 signed")
    d2 = draft_body(game, table=2, sums=[1450, 1000, 550], round_no=1)
    own_sign(d2, b)
    own_sign(d2, c)
    state[2] = "draft-signed"
    desk.shows(state)
    expect(own.page.locator("#own-send")).to_be_visible(timeout=20_000)  # after the head start
    own.page.locator("#own-send").click()
    expect(own.status()).to_contain_text("Sent — receipt")
    state[2] = "in"
    desk.shows(state)

    # table 4: its phone sends, then another phone of the table sends other sums: a dispute
    first = phones()
    first.open(sheet_url(1, 4))
    first.enter(["11", "10", "9"])
    first.sign_all(at[4], pins)
    first_receipt = first.receipt()
    state[4] = "in"
    desk.shows(state)
    disputed = send(1, 4, [1100, 900, 1000])
    assert disputed["status"] == "dispute"
    state[4] = "dispute"
    desk.shows(state)

    # the Wi-Fi is back: table 1 is in, table 3's wrong PIN goes to the referee, not back to the players
    offline.context.set_offline(False)
    wrong_pin.context.set_offline(False)
    offline_receipt = offline.receipt()
    expect(wrong_pin.status()).to_contain_text(f"The PIN of start number {p3[1]} did not match")
    expect(wrong_pin.status()).to_have_class(re.compile(r"\bis-referee\b"))
    state[1], state[3] = "in", "referee"
    desk.shows(state)
    expect(desk.page.locator("#table-1 [data-live-state]")).to_have_text(f"in (receipt {offline_receipt})")
    # the first phone of the disputed table learns of it (8.4: it polls the table state)
    expect(first.page.locator("#status-case")).to_contain_text("Another sheet with different sums")
    expect(desk.page.locator("#desk-counts")).to_contain_text("dispute: 1")

    with app.app_context():
        cases = {c.kind: c.id for c in db.session.scalars(select(Case).where(Case.status == "open"))}
        db.session.remove()
    assert set(cases) == {"dispute", "pin-mismatch"}, cases
    referee.decide(cases["pin-mismatch"], "Approve: the player confirmed the signature", "Round 1, table 3",
                   f"PIN of #{p3[1]} did not match.")
    state[3] = "in"
    desk.shows(state)
    referee.decide(cases["dispute"], "Sheet 1 counts", "Round 1, table 4", "11.00")
    state[4] = "in"
    desk.shows(state)
    expect(desk.page.locator("#table-4 [data-live-state]")).to_have_text(f"in (receipt {first_receipt})")
    expect(desk.page.locator("#desk-counts")).to_contain_text(f"in from a phone: {TABLES}")
    desk.close(1)

    # ------------------------------------------------------------------ round 2: the desk's own ways in
    desk.draw_and_publish(2)
    at = seats(2)
    desk.open_round(2)
    state = {t: "waiting" for t in at}
    desk.shows(state)
    # table 1: everybody signed on their own phones, no phone sends: the desk checks the sums, takes it in
    d1 = draft_body(game, table=1, sums=[1300, 1000, 700], round_no=2)
    assert api.post("/api/v1/drafts", json=d1).status_code == 200
    state[1] = "confirmed"
    desk.shows(state)
    for s in at[1]:
        own_sign(d1, s)
    state[1] = "draft-signed"
    desk.shows(state)
    expect(desk.page.locator("#table-1 .desk-draft")).to_contain_text("13.00 / 10.00 / 7.00")
    desk.page.locator("#table-1 button[name=take]").click()
    state[1] = "in"
    desk.shows(state)
    # table 2: a paper sheet typed at the desk
    Operator(desk.page, url).enter_table(2, [Decimal("16.00"), Decimal("9.00"), Decimal("5.00")])
    state[2] = "desk"
    desk.shows(state)
    # the desk put the cursor into table 3, the next one to type: its phone's sheet does not replace the
    # card under the operator's hands, the card says so and is refreshed on request
    expect(desk.page.locator("#t3-s0")).to_be_focused()
    send(2, 3, positive_sums(rng))
    expect(desk.page.locator("#table-3 .desk-stale button")).to_have_text("Changed on the server: refresh this card")
    desk.page.locator("#table-3 .desk-stale button").click()
    state[3] = "in"
    desk.shows(state)
    desk.page.evaluate("document.activeElement && document.activeElement.blur()")
    for table in range(4, TABLES + 1):
        send(2, table, positive_sums(rng))
        state[table] = "in"
        if table == 9:
            desk.shows(state)
    desk.shows(state)
    expect(desk.page.locator("#desk-counts")).to_contain_text(f"in from a phone: {TABLES - 1}")
    expect(desk.page.locator("#desk-counts")).to_contain_text("entered at the desk: 1")
    desk.close(2)

    # ------------------------------------------------------------------ round 3: the phones of a calm round
    desk.draw_and_publish(3)
    at = seats(3)
    desk.open_round(3)
    state = {t: "waiting" for t in at}
    desk.shows(state)
    for table in at:
        send(3, table, positive_sums(rng))
        state[table] = "in"
        if table % 5 == 0:
            desk.shows(state)
    desk.close(3)

    # no table is stuck: every table of every round has a counted sheet, no case is open
    with app.app_context():
        rounds = db.session.scalars(select(Round).where(Round.tournament_id == tid).order_by(Round.number)).all()
        assert [r.number for r in rounds] == [1, 2, 3] and all(r.status == "closed" for r in rounds)
        for r in rounds:
            assert len(r.tables) == TABLES
            for tab in r.tables:
                assert tab.sheet is not None and tab.sheet.status == "accepted", (r.number, tab.number)
        assert db.session.scalars(select(Case).where(Case.status == "open")).all() == []
        db.session.remove()
    expect(desk.page.locator("table.standings tbody tr[data-start-no]")).to_have_count(N_PLAYERS)
    assert desk.problems == [] and referee.problems == [], desk.problems + referee.problems
    desk.context.close()
    referee.context.close()
