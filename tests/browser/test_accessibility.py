"""Accessibility of the pages used on phones, in a real browser at 360 px:
axe-core (vendored in tests/browser/vendor/, MPL-2.0) finds no serious or
critical violation; every touch target is at least 48 × 48 px; each page
renders in Slovak, Czech and English with a matching lang attribute.

Pages (every page of the player, referee and public sides): the
public start page, the standings, the player page, the projector, the seating,
the receipt check (empty and with a receipt), the SEM-C9 discrepancy form and
the sign-in page; the table page behind the QR code (/s/<token>) on the
winner's phone (entry, signing step) and on a player's own phone (signing,
then "send this sheet from this phone" when the winner's phone did not send,
and the sent sheet's receipt); the referee's queue (open and decided cases)
and a case page, open (a SEM-C4 correction) and decided (a PIN that did not
match, signed offline)."""
from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.helpers import issue_pins, make_tournament, make_user, play_round, signed_submission
from tests.sync.test_own_phone import DRAWING
from webapp.extensions import db
from webapp.models import Tournament
from webapp.services import cases, rounds, sheet_submit
from webapp.services.tokens import table_token
from webapp.sync import protocol

pytestmark = pytest.mark.browser

AXE = Path(__file__).parent / "vendor" / "axe-4.14.1.min.js"
TAP = 48
LANGS = ("sk", "cs", "en")

# the elements a finger aims at; links inside running text or a table cell
# (computed display: inline) are WCAG 2.5.8's "inline" exception
TARGETS_JS = """() => {
  const out = [];
  const sel = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], [tabindex]:not([tabindex="-1"])';
  for (const el of document.querySelectorAll(sel)) {
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || style.display === 'none' || el.closest('[hidden]')) continue;
    let box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    if (el.tagName === 'A' && style.display === 'inline') continue;
    if (el.matches('input[type=checkbox], input[type=radio]') && el.closest('label')) {
      box = el.closest('label').getBoundingClientRect();  // the label is the target
    }
    out.push({what: el.outerHTML.slice(0, 120), w: Math.round(box.width), h: Math.round(box.height)});
  }
  return out;
}"""


@pytest.fixture
def venue(live_server):
    """Rounds 1–2 closed (public standings, the 10-minute window open), round 3
    published with a correction waiting for the referee at table 1."""
    url, app = live_server
    tid = make_tournament(app, 9)
    pins = issue_pins(app, tid)
    play_round(app, tid, seed=1)
    play_round(app, tid, seed=2)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r = rounds.draw_round(t, "test")
        rounds.publish_round(t, r, "test", t.version)
        db.session.commit()
        first = sheet_submit.submit(protocol.parse_submission(
            signed_submission(app, tid, 3, 1, [1450, 1000, 550], pins)))
        db.session.commit()
        answer = sheet_submit.submit(protocol.parse_submission(signed_submission(
            app, tid, 3, 1, [1450, 600, 950], pins, note="zle sčítané", base_version=first.body["version"])))
        db.session.commit()
        # table 3: signed offline with a mistyped PIN, the referee has decided it
        offline = signed_submission(app, tid, 3, 3, [1200, 1000, 800], pins)
        offline["signatures"][0]["pin"] = "wrong"
        mismatch = sheet_submit.submit(protocol.parse_submission({**offline, "pins_unchecked": True}))
        assert mismatch.body["reason"] == "pin-mismatch", mismatch.body
        cases.approve(cases.get_case(mismatch.body["case"]), "Referee", note="the player confirmed")
        db.session.commit()
        players = list(t.players[0:1])
        start_no = players[0].start_no
        token, token2 = table_token(tid, 3, 1), table_token(tid, 3, 2)
        table2 = list(r.tables[1].players)
        db.session.remove()
    make_user(app, "referee", "secret-pass", role="referee")
    app.config["LISTOK_DRAFT_SEND_AFTER"] = 0  # the own phone's "send this sheet from this phone" at once
    return {"url": url, "tid": tid, "case": answer.body["case"], "token": token, "token2": token2,
            "start_no": start_no, "receipt": first.body["receipt"], "decided": mismatch.body["case"],
            "pins": pins, "table2": table2, "app": app}


@pytest.fixture
def phone(browser):
    context = browser.new_context(viewport={"width": 360, "height": 740}, has_touch=True, is_mobile=True,
                                  device_scale_factor=2)
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page
    context.close()
    assert errors == []


def sign_in(page, url: str) -> None:
    page.goto(f"{url}/login?lang=en")
    page.fill("input[name=username]", "referee")
    page.fill("input[name=password]", "secret-pass")
    page.locator("form:has(input[name=password]) button").click()
    expect(page).to_have_url(f"{url}/referee/")


def axe_problems(page) -> list[str]:
    # evaluated, not added as an inline <script>: the pages' CSP rightly refuses that
    page.evaluate(AXE.read_text() + "\n;void 0")
    result = page.evaluate("""async () => {
      const r = await axe.run(document, {resultTypes: ['violations']});
      return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                                     nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}));
    }""")
    return [f"{v['id']} ({v['impact']}): {v['help']} — {v['nodes']}"
            for v in result if v["impact"] in ("serious", "critical")]


def small_targets(page) -> list[str]:
    return [f"{t['w']}×{t['h']} {t['what']}" for t in page.evaluate(TARGETS_JS) if t["w"] < TAP or t["h"] < TAP]


def check(page, lang: str) -> list[str]:
    """Everything wrong with the page as it is now."""
    problems = []
    if page.locator("html").get_attribute("lang") != lang:
        problems.append(f"lang is {page.locator('html').get_attribute('lang')!r}, not {lang!r}")
    langs = page.locator(".langs")  # the projector (a hall screen) has no language switch
    if lang != "en" and langs.count() and langs.get_attribute("aria-label") == "Language":
        problems.append("the page is not translated")
    problems += axe_problems(page)
    problems += [f"touch target {x}" for x in small_targets(page)]
    return problems


@pytest.mark.parametrize("lang", LANGS)
def test_phone_pages_are_accessible(venue, phone, lang):
    url, tid = venue["url"], venue["tid"]
    pages = {
        "start page": "/",
        "table page": f"/s/{venue['token2']}",
        "standings": f"/t/{tid}/standings",
        "player page": f"/t/{tid}/player/{venue['start_no']}",
        "projector": f"/t/{tid}/projector",
        "seating": f"/t/{tid}/seating",
        "receipt check": f"/t/{tid}/receipt",
        "receipt found": f"/t/{tid}/receipt?code={venue['receipt']}",
        "discrepancy form": f"/t/{tid}/discrepancy?round=2",
        "sign-in page": "/login",
    }
    found = {}
    for name, path in pages.items():
        phone.goto(f"{url}{path}{'&' if '?' in path else '?'}lang={lang}")
        expect(phone.locator("main")).to_be_visible()
        found[name] = check(phone, lang)

    # the signing step: sums confirmed and locked, the signature pad and the PIN
    phone.goto(f"{url}/s/{venue['token2']}?lang={lang}")
    for i, s in enumerate(("12", "10", "8")):
        phone.locator(f"#sum{i}").fill(s)
    phone.locator("#confirm").click()
    expect(phone.locator("#signing")).to_be_visible()
    found["signing step"] = check(phone, lang)

    # another player's own phone: signing the sums the first phone confirmed
    expect(phone.locator("#own-hint")).to_be_visible()
    other = phone.context.browser.new_context(viewport={"width": 360, "height": 740}, has_touch=True,
                                              is_mobile=True, device_scale_factor=2)
    own = other.new_page()
    own.goto(f"{url}/s/{venue['token2']}?lang={lang}")
    expect(own.locator("#own")).to_be_visible()
    found["own-phone signing"] = check(own, lang)
    # everybody signs on their own phones and the winner's phone is gone (it would add their signatures
    # and send): this phone may send the sheet (8.2)
    phone.goto("about:blank")
    api = venue["app"].test_client()
    draft = api.get(f"/api/v1/table?token={venue['token2']}").json["draft"]
    for s in venue["table2"]:
        assert api.post("/api/v1/signatures", json={
            "token": venue["token2"], "content_hash": draft["content_hash"], "start_no": s,
            "pin": venue["pins"][s], "drawing": DRAWING, "signed_at": "2026-03-14T10:52:00Z"}).status_code == 200
    expect(own.locator("#own-send")).to_be_visible(timeout=20_000)
    found["own phone: send this sheet"] = check(own, lang)
    own.locator("#own-send").click()
    expect(own.locator("#status.is-sent")).to_be_visible()
    found["own phone: sent, receipt"] = check(own, lang)
    other.close()

    sign_in(phone, url)
    phone.goto(f"{url}/referee/?lang={lang}")
    expect(phone.locator(f"a[data-case='{venue['case']}']")).to_be_visible()
    expect(phone.locator(f"a[data-case='{venue['decided']}']")).to_be_visible()
    found["referee queue"] = check(phone, lang)
    phone.goto(f"{url}/referee/case/{venue['case']}?lang={lang}")
    expect(phone.locator("table.case-compare")).to_be_visible()
    found["referee case"] = check(phone, lang)
    phone.goto(f"{url}/referee/case/{venue['decided']}?lang={lang}")
    expect(phone.locator(".case-pin-note")).to_be_visible()
    found["referee case, decided (PIN did not match)"] = check(phone, lang)

    report = [f"{name}: {p}" for name, problems in found.items() for p in problems]
    assert not report, "\n".join(report)


# --------------------------------------------------------------------------- the federation's public pages

from tests.browser.test_season_pages import federation_server  # noqa: E402,F401  (the fixture)


@pytest.mark.parametrize("lang", LANGS)
def test_season_pages_are_accessible(federation_server, phone, lang):
    """The federation server's public season pages at 360 px: the list of seasons, the season table
    (SEM-A4), clubs (SEM-A5), the rating list (SEM-B1), the historical tables of players and clubs
    (SEM-A6) and their print view, the received tournaments and one tournament's results."""
    base, sid = federation_server
    pages = {
        "seasons": "/seasons/",
        "season table": f"/seasons/{sid}/",
        "clubs": f"/seasons/{sid}/clubs",
        "rating list": f"/seasons/{sid}/rating",
        "historical tables": f"/seasons/{sid}/historical",
        "historical tables, print": f"/seasons/{sid}/historical/print",
        "tournaments": f"/seasons/{sid}/tournaments",
    }
    found = {}
    for name, path in pages.items():
        phone.goto(f"{base}{path}?lang={lang}")
        expect(phone.locator("main")).to_be_visible()
        found[name] = check(phone, lang)
    phone.goto(f"{base}/seasons/{sid}/tournaments?lang={lang}")
    link = phone.locator(f"main a[href*='/seasons/{sid}/t/']").first
    phone.goto(base + link.get_attribute("href").split("?")[0] + f"?lang={lang}")
    expect(phone.locator("table.season-table")).to_be_visible()
    found["a tournament's results"] = check(phone, lang)
    report = [f"{name}: {p}" for name, problems in found.items() for p in problems]
    assert not report, "\n".join(report)
