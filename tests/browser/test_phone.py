"""The phone score sheet in a real browser (Debian's chromium) on a 360 px touch
phone, against the threaded venue server behind a proxy that can fail on
purpose (tests/browser/netproxy.py): trial entry, locked sums, three finger
signatures with PINs, and the outbox — offline, with the server down, with an
answer lost after the server stored the sheet, and with two phones that
disagree. localhost is a secure context, so the service worker runs.

Signatures are drawn with real touch strokes (CDP touch events, which
Chromium turns into the pointer events the pad listens to)."""
from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from tests.browser.netproxy import FlakyProxy
from tests.helpers import issue_pins, make_tournament
from webapp.extensions import db
from webapp.models import Case, Round, Submission, Tournament
from webapp.services import rounds
from webapp.services.tokens import table_token
from webapp.sync.protocol import content_hash

pytestmark = pytest.mark.browser

expect.set_options(timeout=15_000)
RECEIPT = re.compile(r"Sent — receipt ([A-Z2-7]{4}-[A-Z2-7]{4}(?:-[A-Z2-7]{2})?)")


@pytest.fixture
def venue(live_server):
    """A published round 1 of 9 players with PINs, and a proxy in front of the server."""
    url, app = live_server
    tid = make_tournament(app, 9)
    pins = issue_pins(app, tid)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r = rounds.draw_round(t, "test")
        rounds.publish_round(t, r, "test", t.version)
        db.session.commit()
        tables = [list(tab.players) for tab in r.tables]
    proxy = FlakyProxy(url).start()
    yield Venue(app, tid, pins, tables, proxy)
    proxy.stop()


class Venue:
    def __init__(self, app, tid, pins, tables, proxy):
        self.app, self.tid, self.pins, self.tables, self.proxy = app, tid, pins, tables, proxy

    def sheet_url(self, table: int) -> str:
        with self.app.test_request_context():
            return f"{self.proxy.url}/s/{table_token(self.tid, 1, table)}?lang=en"

    def sheets(self, table: int) -> list[SimpleNamespace]:
        with self.app.app_context():
            r = db.session.scalar(select(Round).where(Round.tournament_id == self.tid, Round.number == 1))
            tab = next(x for x in r.tables if x.number == table)
            out = [SimpleNamespace(**{c: getattr(s, c) for c in (
                "version", "status", "sums", "receipt", "content_hash", "signatures", "base_version", "note",
                "source")}) for s in tab.sheets]
            db.session.remove()
            return out

    def count(self, model) -> int:
        with self.app.app_context():
            n = len(db.session.scalars(select(model)).all())
            db.session.remove()
            return n


class Phone:
    """One phone: its own browser profile (outbox, service worker), a 360 px touch screen."""

    def __init__(self, browser):
        self.context = browser.new_context(viewport={"width": 360, "height": 740}, has_touch=True,
                                           is_mobile=True, device_scale_factor=2)
        self.page = self.context.new_page()
        self.page.set_default_timeout(15_000)
        self.problems: list[str] = []
        self.page.on("pageerror", lambda e: self.problems.append(f"JS error: {e}"))
        self.page.on("response", lambda r: self.problems.append(f"HTTP {r.status} {r.url}")
                     if r.status >= 500 else None)
        self.cdp = self.context.new_cdp_session(self.page)

    def open(self, url: str, offline_ready: bool = True) -> None:
        self.page.goto(url)
        if offline_ready:  # the service worker runs and holds a copy of this page
            expect(self.page.locator("html")).to_have_attribute("data-offline", "ready")

    def enter(self, sums: list[str], note: str = "") -> None:
        page = self.page
        for i, s in enumerate(sums):
            page.locator(f"#sum{i}").fill(s)
        if note:
            page.locator("#note").fill(note)
        expect(page.locator("#confirm")).to_be_enabled()
        page.locator("#confirm").click()
        expect(page.locator("#signing")).to_be_visible()

    def draw(self, pad: str = "#sig-pad") -> None:
        """A real stroke across the pad: touch down, twenty moves, lift."""
        pad = self.page.locator(pad)
        pad.scroll_into_view_if_needed()
        box = pad.bounding_box()
        x0, y = box["x"] + 20, box["y"] + box["height"] / 2
        points = [(x0 + i * 13, y + (18 if i % 2 else -18)) for i in range(21)]
        send = self.cdp.send
        (x, yy), rest = points[0], points[1:]
        send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": yy}]})
        for x, yy in rest:
            send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": yy}]})
        send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})

    def sign(self, start_no: int, pin: str) -> None:
        page = self.page
        expect(page.locator("#signers li.is-next")).to_contain_text(str(start_no))
        self.draw()
        page.locator("#pin").fill(pin)
        page.locator("#sig-ok").click()

    def sign_all(self, players: list[int], pins: dict[int, str]) -> None:
        signed = self.page.locator("#signers li.is-signed")
        before = signed.count()
        for i, s in enumerate(players):
            self.sign(s, pins[s])
            if i < len(players) - 1:
                expect(signed).to_have_count(before + i + 1)

    def status(self):
        return self.page.locator("#status")

    def receipt(self) -> str:
        expect(self.status()).to_contain_text(RECEIPT)
        return RECEIPT.search(self.status().inner_text()).group(1)

    def outbox(self) -> list[dict]:
        return self.page.evaluate("ListokOutbox.all()")

    def close(self) -> None:
        assert not self.problems, self.problems
        self.context.close()


@pytest.fixture
def phones(browser):
    made: list[Phone] = []

    def make() -> Phone:
        made.append(Phone(browser))
        return made[-1]

    yield make
    for p in made:
        p.context.close()
    problems = [x for p in made for x in p.problems]
    assert not problems, problems


def test_a_round_of_three_tables_is_sent_from_phones(venue, phones):
    # table 1: comma and dot, a trial total that is wrong first, a wrong PIN, a change before signing
    ph = phones()
    ph.open(venue.sheet_url(1))
    page = ph.page
    expect(page.locator("h1")).to_have_text("Round 1, table 1")
    expect(page.locator("#offline-off")).to_be_hidden()
    expect(page.locator("#confirm")).to_be_disabled()
    page.locator("#sum0").fill("14,50")
    page.locator("#sum1").fill("10")
    page.locator("#sum2").fill("6")
    expect(page.locator("#total")).to_have_text("€30.50")
    expect(page.locator("#total-hint")).to_have_text("€0.50 too much: the total must be exactly the table total.")
    expect(page.locator("#confirm")).to_be_disabled()
    expect(page.locator("#points0")).to_have_text("5 pts")
    page.locator("#sum2").fill("5.5")
    expect(page.locator("#total")).to_have_text("€30.00")
    expect(page.locator("#points1")).to_have_text("3 pts")
    expect(page.locator("#points2")).to_have_text("1 pt")
    page.locator("#confirm").click()
    expect(page.locator("#locked-sums")).to_contain_text("€14.50")
    page.locator("#change").click()  # before anyone signs, the sums can still change
    page.locator("#sum0").fill("14.00")
    page.locator("#sum1").fill("10,50")
    page.locator("#confirm").click()
    players = venue.tables[0]
    ph.draw()
    page.locator("#pin").fill("99999")  # wrong: checked at once online
    page.locator("#sig-ok").click()
    expect(page.locator("#sig-error")).to_contain_text("Wrong PIN")
    expect(page.locator("#sig-error")).to_contain_text("Attempts left: 4")
    page.locator("#pin").fill(venue.pins[players[0]])
    page.locator("#sig-ok").click()
    expect(page.locator("#signers li.is-signed")).to_have_count(1)
    expect(page.locator("#change")).to_be_hidden()  # signing has started: no more changes here
    expect(page.locator("#change-gone")).to_be_visible()
    ph.sign_all(players[1:], venue.pins)
    r1 = ph.receipt()
    expect(ph.status()).to_have_class(re.compile(r"\bis-sent\b"))
    assert ph.outbox() == []

    # table 2: all equal, 3 points each (SEM-C6)
    ph2 = phones()
    ph2.open(venue.sheet_url(2))
    for i in range(3):
        ph2.page.locator(f"#sum{i}").fill("10")
    for i in range(3):
        expect(ph2.page.locator(f"#points{i}")).to_have_text("3 pts")
    ph2.page.locator("#confirm").click()
    ph2.sign_all(venue.tables[1], venue.pins)
    r2 = ph2.receipt()

    # table 3: a negative sum needs the last game's note and the referee (SEM-C8); the ± key types the minus
    ph3 = phones()
    ph3.open(venue.sheet_url(3))
    p3 = ph3.page
    p3.locator("#sum0").fill("18,40")
    p3.locator("#sum1").fill("12,90")
    p3.locator("#sum2").fill("1,30")
    p3.locator("#toggle2").click()
    expect(p3.locator("#sum2")).to_have_value("-1,30")
    expect(p3.locator("#note-box")).to_be_visible()
    expect(p3.locator("#note-box")).to_contain_text("the referee must co-sign this sheet (SEM-C8)")
    expect(p3.locator("#total-hint")).to_have_text("Write the type and payment of the last game.")
    expect(p3.locator("#confirm")).to_be_disabled()
    p3.locator("#note").fill("betl, platil 2,40")
    p3.locator("#confirm").click()
    expect(p3.locator("#referee-needed")).to_contain_text("SEM-C8")
    ph3.sign_all(venue.tables[2], venue.pins)
    expect(ph3.status()).to_contain_text("needs the referee: a sum is negative (SEM-C8)")
    expect(ph3.status()).to_have_class(re.compile(r"\bis-referee\b"))

    s1, = venue.sheets(1)
    assert (s1.status, s1.sums, s1.receipt, s1.source) == ("accepted", ["14.00", "10.50", "5.50"], r1, "phone")
    content = {"protocol": "listok-sheet/1", "tournament": venue.tid, "round": 1, "table": 1,
               "players": players, "sums_cents": [1400, 1050, 550], "note": "", "base_version": 0}
    assert s1.content_hash == content_hash(content)  # the browser's canonical form and hash are the server's
    assert [s["start_no"] for s in s1.signatures] == players
    for s in s1.signatures:
        assert s["hash"] == s1.content_hash and re.fullmatch(r"M [\d. L]+", s["drawing"]) and len(s["drawing"]) > 40
    s2, = venue.sheets(2)
    assert (s2.status, s2.sums, s2.receipt) == ("accepted", ["10.00", "10.00", "10.00"], r2)
    s3, = venue.sheets(3)
    assert (s3.status, s3.sums, s3.note) == ("pending", ["18.40", "12.90", "-1.30"], "betl, platil 2,40")

    # the winner of table 1 corrects a sum after sending: a new version for the referee (SEM-C4)
    page.reload()
    expect(ph.status()).to_contain_text(r1)
    page.locator("#correct").click()
    expect(page.locator("#correction-banner")).to_contain_text("Correction of sheet version 1")
    expect(page.locator("#sum0")).to_have_value("14.00")
    page.locator("#sum0").fill("14.50")
    page.locator("#sum1").fill("10")
    expect(page.locator("#sum0")).to_have_class(re.compile(r"\bred-pen\b"))
    expect(page.locator("#confirm")).to_be_disabled()  # the referee needs the reason
    page.locator("#reason").fill("50 cents went to the wrong player")
    page.locator("#confirm").click()
    expect(page.locator("#referee-needed")).to_contain_text("SEM-C4")
    ph.sign_all(players, venue.pins)
    expect(ph.status()).to_contain_text("needs the referee: it is a correction (SEM-C4)")
    first, second = venue.sheets(1)
    assert (first.status, first.sums) == ("accepted", ["14.00", "10.50", "5.50"])
    assert (second.status, second.base_version, second.sums) == ("pending", 1, ["14.50", "10.00", "5.50"])
    assert second.note == "50 cents went to the wrong player"


def test_offline_the_sheet_waits_in_the_outbox_and_goes_when_back(venue, phones):
    ph = phones()
    ph.open(venue.sheet_url(1))
    page = ph.page
    venue.proxy.down = True  # the venue Wi-Fi is gone …
    ph.context.set_offline(True)  # … and the phone knows it
    page.reload()  # served by the service worker from its copy
    expect(page.locator("h1")).to_have_text("Round 1, table 1")
    assert page.evaluate("performance.getEntriesByType('navigation')[0].transferSize") == 0
    ph.enter(["15", "9,50", "5,50"])
    players = venue.tables[0]
    expect(page.locator("#pin-offline")).to_be_visible()  # Said before anybody signs
    # PINs cannot be checked now: the server checks them on arrival (the second player mistypes)
    ph.sign_all(players, {**venue.pins, players[1]: "0000" if venue.pins[players[1]] != "0000" else "1111"})
    expect(ph.status()).to_contain_text("Signed — waiting to send")
    expect(ph.status()).to_have_class(re.compile(r"\bis-waiting\b"))
    items = ph.outbox()
    assert len(items) == 1 and items[0]["state"] == "waiting"
    assert venue.sheets(1) == []

    page.reload()  # still offline: the outbox survives a reload
    expect(ph.status()).to_contain_text("Signed — waiting to send")
    assert len(ph.outbox()) == 1

    # The phone says it is offline, and that "send now" waits for the Wi-Fi
    expect(page.locator("#net-badge")).to_be_visible()
    page.locator("#send-now").click()
    expect(page.locator("#send-offline")).to_have_text(
        "No Wi-Fi: the sheet is kept here and sent by itself as soon as the Wi-Fi returns.")

    venue.proxy.down = False
    ph.context.set_offline(False)  # `online`: the page sends at once
    # The mistyped PIN does not bounce back to a phone whose players may have gone: the
    # sheet goes to the referee as a case, with the drawn signatures
    expect(ph.status()).to_contain_text(f"The PIN of start number {players[1]} did not match")
    expect(ph.status()).to_have_class(re.compile(r"\bis-referee\b"))
    expect(page.locator("#net-badge")).to_be_hidden()
    assert ph.outbox() == []
    sheets = venue.sheets(1)
    assert len(sheets) == 1 and sheets[0].status == "pending" and sheets[0].sums == ["15.00", "9.50", "5.50"]
    assert all(sig["drawing"] for sig in sheets[0].signatures)
    with venue.app.app_context():
        case = db.session.scalar(select(Case).where(Case.kind == "pin-mismatch"))
        assert case is not None and case.payload["pin_failed"] == [{"start_no": players[1], "locked": False}]
    assert venue.count(Submission) == 1


def test_server_down_and_a_lost_answer_still_store_the_sheet_exactly_once(venue, phones):
    ph = phones()
    ph.open(venue.sheet_url(2))
    ph.enter(["12", "11", "7"])
    players = venue.tables[1]
    ph.sign_all(players[:2], venue.pins)
    venue.proxy.down = True  # the server stops answering while the phone is still "online"
    ph.sign(players[2], venue.pins[players[2]])
    expect(ph.status()).to_contain_text("Signed — waiting to send")
    ph.page.wait_for_function("ListokOutbox.all().then(a => a.length && a[0].attempts >= 1)")
    assert venue.sheets(2) == []

    # back, but the first answer is lost after the server has stored the sheet
    venue.proxy.drop_next = 1
    venue.proxy.down = False
    ph.page.locator("#send-now").click()
    receipt = ph.receipt()  # a retry with the same key gets the stored answer
    assert venue.proxy.dropped == 1
    sheets = venue.sheets(2)
    assert len(sheets) == 1 and sheets[0].receipt == receipt and sheets[0].status == "accepted"
    assert venue.count(Submission) == 1
    assert ph.outbox() == []


def test_server_down_then_back_is_retried_on_the_timer(venue, phones):
    ph = phones()
    ph.open(venue.sheet_url(3))
    ph.enter(["10", "10,50", "9,50"])
    venue.proxy.down = True
    ph.sign_all(venue.tables[2], venue.pins)
    expect(ph.status()).to_contain_text("Signed — waiting to send")
    ph.page.wait_for_function("ListokOutbox.all().then(a => a.length && a[0].attempts >= 1)")
    venue.proxy.down = False  # no button pressed: the back-off timer sends it
    receipt = ph.receipt()
    assert [s.receipt for s in venue.sheets(3)] == [receipt]


def test_two_phones_with_different_sums_make_a_dispute_and_overwrite_nothing(venue, phones):
    a, b = phones(), phones()
    a.open(venue.sheet_url(1))
    b.open(venue.sheet_url(1))  # both opened and typed into before either sent
    players = venue.tables[0]
    b.enter(["15", "10", "5"])
    a.enter(["14,50", "10", "5,50"])
    a.sign_all(players, venue.pins)
    ra = a.receipt()
    b.sign_all(players, venue.pins)
    expect(b.status()).to_contain_text("needs the referee: another sheet for this table differs")
    first, second = venue.sheets(1)
    assert (first.status, first.sums, first.receipt) == ("accepted", ["14.50", "10.00", "5.50"], ra)
    assert (second.status, second.sums) == ("dispute", ["15.00", "10.00", "5.00"])
    with venue.app.app_context():
        case = db.session.scalar(select(Case).where(Case.kind == "dispute"))
        assert case is not None and case.table == 1 and case.status == "open"
    # the first phone still shows its own receipt, and a fresh load shows what counts
    a.page.reload()
    expect(a.status()).to_contain_text(ra)
