"""The players' phone pages in every rule set, each in its usual language, in Chromium at 360 px (RULES.md
§2: every rule set is first-class): the phone sheet (entry and signing), signing on one's own phone, the
sent sheet, the receipt page and the player's page. Each page is checked for a SEM rule ID or a € sign
outside SEM and BB liga, a text of another language, an input narrower than its longest valid value, a
tap target under 44 px and horizontal scrolling.

Then the phone flows that were wrong: the sending phone learns the referee's decision (also after a
reload), a correction's reason reaches the referee's case, own phones do not list players who signed on
the keeper's phone as missing, and an offline reload of a half-signed sheet says whose signatures went.

LISTOK_SCREENSHOTS=1 also writes docs/csm-phone-360.png and docs/thousand-player-ru-360.png."""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from playwright.sync_api import expect

from tests.browser.test_accessibility import TARGETS_JS
from tests.browser.test_live_desk import shot
from tests.browser.test_phone import phones  # noqa: F401  (fixture)
from tests.browser.test_rulesets_phone import Event, enter, receipt_of, sign_here, sign_own
from webapp.extensions import db
from webapp.models import Case, Tournament
from webapp.services import cases as case_service, rounds

pytestmark = pytest.mark.browser
expect.set_options(timeout=15_000)
TRANSLATIONS = Path(__file__).resolve().parents[2] / "webapp" / "translations"
TAP = 44
# the longest value a field takes (SEM-C11 keeps money far below; ZB, PB and scores in the thousands)
LONGEST = {"decimal": "-1 234,50", "numeric": "-1 234"}


@lru_cache(maxsize=None)
def foreign_texts(lang: str) -> tuple[str, ...]:
    """Texts of the other languages (English source texts, the other translations) that this language
    words differently: long enough to be a sentence of the interface, not a name or a number."""
    mine = {}
    cats = {}
    for code in ("sk", "cs", "ru"):
        with open(TRANSLATIONS / code / "LC_MESSAGES" / "messages.po", "rb") as f:
            cats[code] = read_po(f, locale=code)
    for m in cats.get(lang, []):
        if m.id and m.string:
            mine[m.id if isinstance(m.id, str) else m.id[0]] = m.string
    out = set()
    for code, cat in cats.items():
        for m in cat:
            if not m.id or not m.string:
                continue
            src = m.id if isinstance(m.id, str) else m.id[0]
            texts = [src] + ([m.string] if isinstance(m.string, str) else list(m.string))
            if lang == "en":
                texts = texts[1:]  # English is the source text
            elif code == lang:
                texts = [src]  # this language's own translations are its texts
            for x in texts:
                plain = re.sub(r"%\(\w+\)[sd]", "", x)
                if len(plain) >= 24 and "%" not in plain and " " in plain and x not in mine.values():
                    out.add(re.split(r"[.:(]", plain)[0].strip())
    return tuple(sorted(t for t in out if len(t) >= 24))


SCROLL_JS = """() => document.documentElement.scrollWidth > window.innerWidth + 1
  ? ['horizontal scroll: ' + document.documentElement.scrollWidth + ' px'] : []"""

# every text input of the sheet holds its longest valid value without scrolling inside
WIDTH_JS = """([longest]) => {
  const out = [];
  for (const el of document.querySelectorAll('input[type=text], input[inputmode]')) {
    if (el.closest('[hidden]') || el.type === 'password' || el.offsetParent === null) continue;
    const keep = el.value;
    el.value = longest[el.inputMode === 'decimal' ? 'decimal' : 'numeric'];
    if (el.scrollWidth > el.clientWidth) out.push(el.id + ': ' + el.clientWidth + ' px holds not ' + el.value);
    el.value = keep;
  }
  return out;
}"""


def page_problems(page, lang: str, money: bool) -> list[str]:
    text = page.locator("body").inner_text()
    problems = page.evaluate(SCROLL_JS) + page.evaluate(WIDTH_JS, [LONGEST])
    problems += [f"tap target {t['w']}×{t['h']} {t['what']}" for t in page.evaluate(TARGETS_JS)
                 if t["w"] < TAP or t["h"] < TAP]
    if page.locator("html").get_attribute("lang") != lang:
        problems.append(f"lang {page.locator('html').get_attribute('lang')}")
    if not money:
        problems += [f"{what} in {line!r}" for line in text.splitlines() for what in ("SEM-", "€") if what in line]
    problems += [f"another language: {t!r}" for t in foreign_texts(lang) if t in text]
    return problems


RULESETS = {
    # code: (players, language, money, table 1's results, PB or None, how the game ended)
    "sem": (9, "sk", True, ["12", "10", "8"], None, None),
    "bbliga": (9, "sk", True, ["6", "4", "2"], None, None),
    "smu": (9, "cs", False, ["6", "0", "-6"], None, None),
    "csm": (14, "cs", False, ["35", "-10", "-30", "5"], ["60", "0", "10", "0"], None),
    "thousand": (13, "ru", False, ["1000", "445", "-20"], None, "win"),
}


@pytest.mark.parametrize("code", list(RULESETS))
def test_rules_2_the_players_phone_pages_speak_each_rule_sets_language_and_units(live_server, phones, code):
    """RULES.md §2, SEM-B5, CSM-2/CSM-3, TH-3/TH-6: the phone sheet, own-phone signing, the sent sheet,
    the receipt and the player's page of table 1, in the rule set's language at 360 px."""
    n, lang, money, sums, pb, ended = RULESETS[code]
    ev = Event(live_server, code, n, lang)
    players = ev.tables[0]
    found: dict[str, list[str]] = {}
    keeper = phones()
    keeper.open(ev.sheet_url(1))
    page = keeper.page
    enter(page, sums, pb=pb)
    if ended:
        page.locator(f"#ended-{ended}").check()
    if pb:  # CSM-3: a game worth 60 PB, signed by its player (locked) and two more
        page.locator("#premium-add").click()
        page.locator("#pg-player0").select_option(str(players[0]))
        page.locator("#pg-game0").fill("sedma")
        page.locator("#pg-pb0").fill("60")
        box = page.locator(f"#pg-by0-{players[0]}")
        expect(box).to_be_checked()
        expect(box).to_be_disabled()  # the player of the game signs the line: a tap cannot untick it
        page.locator(f"#pg-by0-{players[1]}").check()
        page.locator(f"#pg-by0-{players[2]}").check()
    expect(page.locator("#confirm")).to_be_enabled()
    found["phone sheet"] = page_problems(page, lang, money)
    if code == "csm":
        shot(page, "csm-phone-360.png")
    page.locator("#confirm").click()
    expect(page.locator("#signing")).to_be_visible()
    found["signing"] = page_problems(page, lang, money)
    expect(page.locator("#own-hint")).to_be_visible()
    own = phones()
    own.open(ev.sheet_url(1), offline_ready=False)
    expect(own.page.locator("#own")).to_be_visible()
    found["own phone"] = page_problems(own.page, lang, money)
    sign_own(own, players[1], ev.pins[players[1]])
    found["own phone, signed"] = page_problems(own.page, lang, money)
    expect(page.locator("#signers li.is-signed")).to_have_count(1)
    for s in players:
        if s != players[1]:
            sign_here(keeper, s, ev.pins[s])
    receipt = receipt_of(keeper)
    found["sent"] = page_problems(page, lang, money)

    ev.finish_round({3: (["10", "10", "10"] if code == "sem" else (["4", "4", "4"] if code == "bbliga" else
                                                                    ["0", "0", "0"]),
                         {"scores": [0, 0, 0], "premium_games": []} if code == "csm" else
                         ({"scores": [500, 300, 100], "ended": "time"} if code == "thousand" else {})),
                     4: (["0", "0", "0", "0"], {"scores": [0, 0, 0, 0], "premium_games": []} if code == "csm" else
                         ({"scores": [500, 300, 100, 0], "ended": "time"} if code == "thousand" else {}))})
    viewer = phones()
    vp = viewer.page
    vp.goto(f"{ev.url}/t/{ev.tid}/receipt?code={receipt}&lang={lang}")
    expect(vp.locator(".receipt-sheet")).to_be_visible()
    found["receipt"] = page_problems(vp, lang, money)
    if code == "csm":
        expect(vp.locator(".receipt-sheet")).to_contain_text("60 PB")
        expect(vp.locator(".receipt-sheet")).to_contain_text("95 SB")
    if code == "thousand":
        expect(vp.locator(".receipt-sheet")).to_contain_text("1 000 очков")
    vp.goto(f"{ev.url}/t/{ev.tid}/player/{players[0]}?lang={lang}")
    expect(vp.locator("h1")).to_contain_text(ev.names[players[0]])
    found["player page"] = page_problems(vp, lang, money)
    report = [f"{name}: {p}" for name, problems in found.items() for p in problems]
    assert not report, "\n".join(report)


# --------------------------------------------------------------------------- the phone flows


def sem_event(live_server, lang="en") -> Event:
    return Event(live_server, "sem", 9, lang)


def sign_all_here(phone, ev, players) -> None:
    for s in players:
        sign_here(phone, s, ev.pins[s])


def the_case(ev, kind: str) -> Case:
    with ev.app.app_context():
        c = db.session.query(Case).filter_by(tournament_id=ev.tid, kind=kind).one()
        db.session.expunge(c)
        return c


def test_sem_c8_the_sending_phone_learns_that_the_referee_approved_its_sheet(live_server, phones):
    """SEM-C8: a sheet with a negative sum waits for the referee; the phone that sent it learns the
    approval by itself and still says so after a reload (it said "needs the referee" for ever)."""
    ev = sem_event(live_server)
    players = ev.tables[0]
    ph = phones()
    ph.open(ev.sheet_url(1))
    page = ph.page
    enter(page, ["-2", "20", "12"])
    page.locator("#note").fill("betl, 2 €")
    page.locator("#confirm").click()
    sign_all_here(ph, ev, players)
    expect(page.locator("#status-title")).to_have_text("Sent — needs the referee")
    receipt = receipt_of(ph)
    c = the_case(ev, "negative-sum")
    with ev.app.app_context():
        case_service.approve(db.session.get(Case, c.id), "referee")
        db.session.commit()
    status = page.locator("#status-text")
    expect(status).to_have_text(f"Receipt {receipt}. The referee approved this sheet: it counts.", timeout=25_000)
    expect(page.locator("#status")).to_have_class(re.compile(r"\bis-sent\b"))
    page.reload()
    expect(status).to_have_text(f"Receipt {receipt}. The referee approved this sheet: it counts.")
    ph.context.set_offline(True)  # kept on the phone: also said without Wi-Fi
    page.reload()
    expect(status).to_have_text(f"Receipt {receipt}. The referee approved this sheet: it counts.")


def test_sem_c4_a_correction_carries_its_reason_to_the_referees_case(live_server, phones):
    """SEM-C4: the players' correction of a sent sheet asks why; the reason is signed with the results
    and is the note the referee reads in the case (it said "No note")."""
    ev = sem_event(live_server)
    players = ev.tables[0]
    ph = phones()
    ph.open(ev.sheet_url(1))
    page = ph.page
    ph.enter(["12", "10", "8"])
    sign_all_here(ph, ev, players)
    receipt_of(ph)
    page.locator("#correct").click()
    expect(page.locator("#reason-box")).to_be_visible()
    page.locator("#sum0").fill("13")
    page.locator("#sum1").fill("9")
    expect(page.locator("#total-hint")).to_have_text("Write why the results are corrected: the referee reads it.")
    expect(page.locator("#confirm")).to_be_disabled()
    page.locator("#reason").fill("Player 2 paid player 1 a seven twice")
    expect(page.locator("#confirm")).to_be_enabled()
    found = page_problems(page, "en", True)
    page.locator("#confirm").click()
    expect(page.locator("#locked-note")).to_contain_text("Player 2 paid player 1 a seven twice")
    sign_all_here(ph, ev, players)
    expect(page.locator("#status-text")).to_contain_text("it is a correction (SEM-C4)")
    c = the_case(ev, "correction")
    assert c.payload["note"] == "Player 2 paid player 1 a seven twice"
    with ev.app.app_context():
        sheet = db.session.get(Tournament, ev.tid).rounds[0].tables[0].sheets[-1]
        assert sheet.note == "Player 2 paid player 1 a seven twice" and sheet.base_version == 1
    # the referee's case page shows it as the note
    from tests.browser.test_rulesets_phone import operator

    desk = operator(ph.context.browser, ev)
    with ev.app.app_context():
        from tests.helpers import make_user  # noqa: F401  (the operator may decide cases as referee)
    desk.goto(f"{ev.url}/referee/case/{c.id}?lang=en")
    expect(desk.locator(".case-note")).to_have_text("Player 2 paid player 1 a seven twice")
    assert not found, found


def test_sem_b5d_own_phones_do_not_list_players_signed_on_the_keepers_phone_as_missing(live_server, phones):
    """SEM-B5d, CSM-3: who signed on the phone that keeps the sheet shows as signed there on the others'
    own phones, not as still to sign, and in the rule set's words (ČSM: player 1 keeps the sheet)."""
    ev = Event(live_server, "csm", 8, "cs")
    p1, p2, p3, p4 = ev.tables[0]
    keeper = phones()
    keeper.open(ev.sheet_url(1))
    kp = keeper.page
    enter(kp, ["12", "-2", "-4", "-6"], pb=["20", "5", "0", "0"])
    kp.locator("#confirm").click()
    sign_here(keeper, p1, ev.pins[p1])
    expect(kp.locator("#signers li.is-signed")).to_have_count(1)
    own = phones()
    own.open(ev.sheet_url(1), offline_ready=False)
    op = own.page
    expect(op.locator("#own")).to_contain_text("Telefon hráče 1 potvrdil tyto výsledky")
    expect(op.locator("#own")).not_to_contain_text("vítěze")
    mine = op.locator(f"#own-who input[value='{p1}']")
    expect(mine).to_be_disabled()
    expect(op.locator("#own-who label", has=op.locator(f"input[value='{p1}']"))).to_contain_text(
        "podepsal na telefonu hráče 1")
    missing = op.locator("#own-missing")
    expect(missing).to_contain_text(f"Ještě nepodepsali: {p2} ")
    expect(missing).not_to_contain_text(ev.names[p1])
    sign_own(own, p2, ev.pins[p2])
    expect(op.locator("#own-done")).to_contain_text("Telefon hráče 1 ho přidá k listu")
    expect(missing).not_to_contain_text(ev.names[p2])
    expect(missing).to_contain_text(ev.names[p3])
    sign_here(keeper, p3, ev.pins[p3])  # p2's own-phone signature came in meanwhile
    expect(missing).to_contain_text(ev.names[p4])
    expect(missing).not_to_contain_text(ev.names[p3], timeout=20_000)


@pytest.mark.parametrize("lang,says", [("en", "were given without Wi-Fi and are not kept"),
                                       ("ru", "были даны без Wi-Fi и не сохранились")])
def test_sem_b5d_an_offline_reload_of_a_half_signed_sheet_says_whose_signatures_went(live_server, phones,
                                                                                        lang, says):
    """docs/SYNC.md "What a phone keeps": a PIN given offline stays only in the open page, so a reload
    drops that signature; the page says whose, in its language, and that player signs again."""
    ev = Event(live_server, "sem", 9, lang)
    p1, p2, _p3 = ev.tables[0]
    ph = phones()
    ph.open(ev.sheet_url(1))
    page = ph.page
    ph.enter(["12", "10", "8"])
    ph.context.set_offline(True)
    sign_here(ph, p1, ev.pins[p1])
    expect(page.locator("#signers li.is-signed")).to_have_count(1)
    expect(page.locator("#sig-lost")).to_be_hidden()
    page.reload()
    lost = page.locator("#sig-lost")
    expect(lost).to_be_visible()
    expect(lost).to_contain_text(says)
    expect(lost).to_contain_text(ev.names[p1])
    expect(page.locator("#signers li.is-next")).to_contain_text(str(p1))  # signs again
    sign_here(ph, p1, ev.pins[p1])
    expect(lost).to_be_hidden()
    expect(page.locator("#signers li.is-next")).to_contain_text(str(p2))


@pytest.mark.parametrize("sample,lang,start_no", [("thousand13.json", "ru", 6), ("csm14_a.json", "cs", 4),
                                                  ("smu10.json", "cs", 1), ("sem27_poprad.json", "sk", 1)])
def test_rules_2_a_finished_tournaments_player_page_and_receipts_at_360_px(live_server, phones, sample, lang,
                                                                            start_no):
    """RULES.md §2, TH-2: a finished tournament's player page (a Thousand finalist: the final's score,
    not "–") and each of its receipts, in the rule set's language at 360 px."""
    from webapp.services.tournament_file import import_tournament

    url, app = live_server
    with app.app_context():
        data = (Path(__file__).resolve().parents[1] / "data" / sample).read_text(encoding="utf-8")
        t = import_tournament(data, sample, "test")
        db.session.commit()
        tid, money = t.id, t.ruleset in ("sem", "bbliga")
    viewer = phones()
    page = viewer.page
    page.goto(f"{url}/t/{tid}/player/{start_no}?lang={lang}")
    found = {"player page": page_problems(page, lang, money)}
    if sample.startswith("thousand"):
        expect(page.locator(".player-place")).to_contain_text("Финал (TH-2): 1 000 очков")
        expect(page.locator("tr", has_text="финал")).to_contain_text("1 000 очков")
        shot(page, "thousand-player-ru-360.png")
    codes = [a.inner_text() for a in page.locator(".player-receipts code").all()]
    assert codes
    for code in codes:
        page.goto(f"{url}/t/{tid}/receipt?code={code}&lang={lang}")
        expect(page.locator(".receipt-sheet")).to_be_visible()
        found[f"receipt {code}"] = page_problems(page, lang, money)
    report = [f"{name}: {p}" for name, problems in found.items() for p in problems]
    assert not report, "\n".join(report)
