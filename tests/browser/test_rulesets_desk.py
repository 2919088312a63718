"""The operator's, the referee's and the public pages of every rule set in its usual language, in
Chromium at 360 px (RULES.md §2: every rule set is first-class in every view).

Each rule set's tournament has round 1 closed (its standings published) and round 2 published. The
referee queue, the operator's draw, results desk, standings, discipline and record check, and the
public standings, seating and projector must show no rule ID or euro sign of SEM outside SEM and BB
liga, no English or raw identifiers ("round-1"), no horizontal scroll, and tap targets of 44 px on
the pages read on a phone. The public standings and the projector agree on the first round they
show (the rule set's publication rule: SEM-C9 from round 2, the others from round 1). At 1280 px the
Thousand desk shows each score once, formatted by the locale, inside its card (TH-3)."""
from __future__ import annotations

import re
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from playwright.sync_api import expect

from tests.browser.test_accessibility import TARGETS_JS
from tests.helpers import issue_pins, make_user
from tests.web.test_i18n import english_in, raw_values_in, visible_text
from webapp.extensions import db
from webapp.models import Player, Tournament
from webapp.services import rounds
from webapp.demo.simulate import make_players

pytestmark = pytest.mark.browser

expect.set_options(timeout=15_000)
ROOT = Path(__file__).resolve().parents[2]
TAP = 44

# rule set, players, usual language, a result per table size (sums, extra fields of the sheet)
RULESETS = {
    "sem": (9, "sk", {3: (["14.00", "10.00", "6.00"], {})}),
    "bbliga": (9, "sk", {3: (["5.00", "4.00", "3.00"], {})}),
    "smu": (10, "cs", {3: (["12.00", "-2.00", "-10.00"], {}), 4: (["10", "2", "-4", "-8"], {})}),
    "csm": (14, "cs", {4: (["12", "3", "-5", "-10"], {"scores": [60, 10, 0, 5], "premium_games": []}),
                       3: (["8", "-3", "-5"], {"scores": [0, 20, 0], "premium_games": []})}),
    "thousand": (13, "ru", {3: (["600", "300", "-100"], {"ended": "time"}),
                            4: (["600", "300", "100", "-100"], {"ended": "time"})}),
}
SEM_FAMILY = ("sem", "bbliga")  # BB liga follows SEM's draw, publication and discipline (BB-2)


def new_tournament(app, code: str, n: int, name: str) -> int:
    """A tournament of `n` checked-in players under rule set `code`."""
    with app.app_context():
        t = Tournament(name=name, date=date(2026, 5, 9), venue="Brno", ruleset=code)
        for p in make_players(n, seed=5, clubs=4):
            t.players.append(Player(start_no=p.start_no, reg_id=p.id, name=p.name, club=p.club,
                                    status=p.status, rating=p.rating, present=True))
        db.session.add(t)
        db.session.commit()
        return t.id


def make_event(app, code: str) -> int:
    """Round 1 played and closed (its standings published), round 2 drawn and published."""
    n, _lang, results = RULESETS[code]
    tid = new_tournament(app, code, n, f"{code} 360")
    issue_pins(app, tid)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r = rounds.draw_round(t, "test")
        rounds.publish_round(t, r, "test", t.version)
        for tab in r.tables:
            sums, extra = results[len(tab.players)]
            if code == "thousand":
                extra = {**extra, "scores": [Decimal(x) for x in sums]}
            rounds.record_sheet(t, tab, [Decimal(x) for x in sums], "test", **extra)
        rounds.close_round(t, r, "test", t.version)
        r2 = rounds.draw_round(t, "test")
        rounds.publish_round(t, r2, "test", t.version)
        db.session.commit()
        db.session.remove()
    return tid


def catalogue_english(lang: str) -> set[str]:
    catalog = read_po((ROOT / f"webapp/translations/{lang}/LC_MESSAGES/messages.po").open("rb"))
    return {m.id for m in catalog if isinstance(m.id, str) and m.string != m.id and len(m.id.split()) >= 3
            and "%" not in m.id}


def signed_in(browser, url: str, lang: str, width: int, username: str = "operator"):
    ctx = browser.new_context(viewport={"width": width, "height": 800}, has_touch=width < 600,
                              is_mobile=width < 600)
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    page.goto(f"{url}/login?lang={lang}")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", "secret-pass")
    page.locator("input[name=password]").press("Enter")
    expect(page.locator("input[name=password]")).to_have_count(0)
    return page


def page_problems(page, code: str, english: set[str], phone: bool) -> list[str]:
    html = page.content()
    text = visible_text(html)
    problems = []
    if code not in SEM_FAMILY:
        problems += [f"SEM rule ID: {line}" for line in text.split("\n") if "SEM-" in line]
        problems += [f"euro sign: {line}" for line in text.split("\n") if "€" in line or "EUR" in line]
    problems += [f"English: {line}" for line in english_in(text, english)]
    problems += [f"raw value: {line}" for line in raw_values_in(text)]
    if page.evaluate("document.documentElement.scrollWidth") > page.evaluate("window.innerWidth"):
        problems.append(f"horizontal scroll: {page.evaluate('document.documentElement.scrollWidth')} px")
    # a table scrolling inside its box hides its last columns just as well (Thousand's final score)
    hidden = page.evaluate("[...document.querySelectorAll('.scroll')].map(s => s.scrollWidth - s.clientWidth)"
                           ".filter(d => d > 1)")
    if phone and hidden:
        problems.append(f"columns scrolled out of view: {hidden} px")
    if phone:
        problems += [f"tap target {t['w']}×{t['h']}: {t['what']}" for t in page.evaluate(TARGETS_JS)
                     if t["w"] < TAP or t["h"] < TAP]
    return problems


@pytest.mark.parametrize("code", list(RULESETS))
def test_rulesets_pages_at_360px_speak_the_rule_set_and_its_language(live_server, browser, code):
    """RULES.md §2, SEM-C9, SEM-D/E, CSM-5, TH-2, TH-5: the draw cites the rule set's own rules, the
    discipline page offers the rule set's own steps, standings and projector agree, all at 360 px."""
    url, app = live_server
    n, lang, _results = RULESETS[code]
    tid = make_event(app, code)
    make_user(app)
    make_user(app, "referee", "secret-pass", role="referee")
    english = catalogue_english(lang)
    operator = signed_in(browser, url, lang, 360)
    referee = signed_in(browser, url, lang, 360, "referee")
    anon = browser.new_context(viewport={"width": 360, "height": 800}, has_touch=True, is_mobile=True).new_page()
    anon.goto(f"{url}/?lang={lang}")
    pages = [
        (referee, "/referee/", True),
        (operator, f"/operator/t/{tid}", False),
        (operator, f"/operator/t/{tid}/round/2", False),
        (operator, f"/operator/t/{tid}/round/2/results", False),
        (operator, f"/operator/t/{tid}/standings", False),
        (operator, f"/operator/t/{tid}/discipline", False),
        (operator, f"/operator/t/{tid}/verify", False),
        (anon, f"/t/{tid}/standings", True),
        (anon, f"/t/{tid}/seating", True),
        (anon, f"/t/{tid}/projector", False),
    ]
    problems = {}
    for page, path, phone in pages:
        page.goto(url + path)
        found = page_problems(page, code, english, phone)
        if found:
            problems[path] = found[:4]
    assert not problems, "\n".join(f"{k}: {v}" for k, v in problems.items())

    # the draw cites the rule set's seating rule; the discipline page offers the rule set's steps
    operator.goto(f"{url}/operator/t/{tid}/round/2")
    kind = operator.locator(".round-kind").inner_text()
    cited = {"sem": "SEM-B6", "bbliga": "BB-2", "smu": "SMU-4", "csm": "CSM-5", "thousand": "TH-2"}[code]
    assert cited in kind, kind
    operator.goto(f"{url}/operator/t/{tid}/discipline")
    assert (operator.locator("#card").count() == 1) == (code in SEM_FAMILY)
    assert operator.locator("#withdraw").count() == 1
    if code == "thousand":
        expect(operator.locator("#withdraw h2")).to_contain_text("TH-5")

    # the public standings and the projector show the same round (the rule set's publication rule)
    anon.goto(f"{url}/t/{tid}/standings")
    standings_public = anon.locator("table.standings").count() == 1
    anon.goto(f"{url}/t/{tid}/projector?slide=1")
    projector_standings = False
    for slide in range(4):
        anon.goto(f"{url}/t/{tid}/projector?slide={slide}")
        projector_standings = projector_standings or anon.locator(".pj-standings").count() > 0
    assert standings_public == projector_standings == (code not in SEM_FAMILY)


def test_th_3_thousand_desk_at_1280px_shows_each_score_once_inside_its_card(live_server, browser):
    """TH-3: a score is shown once, grouped by the locale (1 000 in Russian), never as money, and the
    sheet's table with its points column stays inside the desk card at 1280 px."""
    url, app = live_server
    tid = new_tournament(app, "thousand", 13, "Тысяча 1280")
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r = rounds.draw_round(t, "test")
        rounds.publish_round(t, r, "test", t.version)
        tab = r.tables[0]
        scores = [Decimal(x) for x in ("1000", "300", "-100")]
        rounds.record_sheet(t, tab, scores, "test", scores=scores, ended="win")
        db.session.commit()
        tid, table = t.id, tab.number
        db.session.remove()
    make_user(app)
    page = signed_in(browser, url, "ru", 1280)
    page.goto(f"{url}/operator/t/{tid}/round/1/results")
    card = page.locator(f"#table-{table}")
    sheet = card.locator("table.desk-sheet")
    text = sheet.inner_text()
    assert "1\u00a0000" in text or "1 000" in text, text
    assert "1 000,00" not in text and "1\u00a0000,00" not in text and "очки" not in text, text
    assert text.count("300") == 1, text
    card_box, sheet_box = card.bounding_box(), sheet.bounding_box()
    assert sheet_box["x"] + sheet_box["width"] <= card_box["x"] + card_box["width"] + 1
    points = sheet.locator("tr").first.locator("td").last
    box = points.bounding_box()
    assert box["x"] + box["width"] <= card_box["x"] + card_box["width"] + 1
    expect(points).to_contain_text("3")
