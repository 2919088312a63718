"""The phone score sheet for rule sets other than SEM in Chromium at 360 px: what the page
takes comes from the server (result kind, unit, table total, table size, who keeps the sheet), the
points and the rule set's checks from POST /api/v1/preview.

- ČSM in Czech (CSM-1..CSM-3): a table of four enters ZB and PB and a line for a game worth 50 PB
  or more, which is refused until its players sign it; all four sign on one phone. A second table of
  four is signed on the players' own phones.
- SMU in Czech (SMU-1..SMU-3): net Kč per player, the table totals 0 Kč, a negative sum is normal
  (no SEM-C8 note), the points 5-3-2-1 with shared places (halves) shown live; a table of four on one
  phone, a table of three on own phones.
- Thousand in Russian (TH-1, TH-3, TH-6): scores in steps of 5 and how the game ended, the points by
  the brackets as the server computes them, the best-placed player submits; a table of four on one
  phone, a table of three on own phones.
The results desk and the standings then show the results."""
from __future__ import annotations

import re
from datetime import date

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from tests.browser.test_phone import phones  # noqa: F401  (fixture)
from tests.helpers import issue_pins, make_user
from webapp.extensions import db
from webapp.models import Player, Round, Tournament
from webapp.services import rounds
from webapp.services.tokens import table_token
from webapp.demo.simulate import make_players

pytestmark = pytest.mark.browser

expect.set_options(timeout=15_000)
THOUSAND = re.compile(r"1\s?000")
RECEIPT = re.compile(r"[A-Z2-7]{4}-[A-Z2-7]{4}(?:-[A-Z2-7]{2})?")


class Event:
    """A published round 1 of a rule set's tournament on the live server."""

    def __init__(self, live_server, ruleset: str, n: int, lang: str):
        self.url, self.app = live_server
        self.lang = lang
        with self.app.app_context():
            t = Tournament(name=f"{ruleset} phones", date=date(2026, 5, 9), venue="Kyjov", ruleset=ruleset)
            for p in make_players(n, seed=11, clubs=4):
                t.players.append(Player(start_no=p.start_no, reg_id=p.id, name=p.name, club=p.club,
                                        status=p.status, rating=p.rating, present=True))
            db.session.add(t)
            db.session.commit()
            self.tid = t.id
        self.pins = issue_pins(self.app, self.tid)
        with self.app.app_context():
            t = db.session.get(Tournament, self.tid)
            r = rounds.draw_round(t, "test")
            rounds.publish_round(t, r, "test", t.version)
            db.session.commit()
            self.tables = [list(tab.players) for tab in r.tables]
            self.names = {p.start_no: p.name for p in t.players}
            db.session.remove()

    def sheet_url(self, table: int) -> str:
        with self.app.test_request_context():
            return f"{self.url}/s/{table_token(self.tid, 1, table)}?lang={self.lang}"

    def sheet(self, table: int):
        with self.app.app_context():
            r = db.session.scalar(select(Round).where(Round.tournament_id == self.tid, Round.number == 1))
            tab = next(x for x in r.tables if x.number == table)
            s = tab.sheet
            out = None if s is None else {"status": s.status, "sums": list(s.sums), "scores": s.scores,
                                          "ended": s.ended, "premium_games": s.premium_games,
                                          "receipt": s.receipt, "signatures": s.signatures,
                                          "content_hash": s.content_hash}
            db.session.remove()
            return out

    def finish_round(self, results: dict[int, tuple]) -> None:
        """The tables not played on phones, entered as the desk would (services), then the round closed."""
        from decimal import Decimal

        with self.app.app_context():
            t = db.session.get(Tournament, self.tid)
            r = t.rounds[0]
            for tab in r.tables:
                if tab.sheet is None:
                    sums, extra = results[len(tab.players)]
                    rounds.record_sheet(t, tab, [Decimal(x) for x in sums], "test", **extra)
            db.session.commit()
            t = db.session.get(Tournament, self.tid)
            rounds.close_round(t, t.rounds[0], "test", t.version)
            db.session.commit()
            db.session.remove()


def sign_here(phone, start_no: int, pin: str) -> None:
    page = phone.page
    expect(page.locator("#signers li.is-next")).to_contain_text(str(start_no))
    phone.draw()
    page.locator("#pin").fill(pin)
    page.locator("#sig-ok").click()


def sign_own(phone, start_no: int, pin: str) -> None:
    page = phone.page
    expect(page.locator("#own")).to_be_visible()
    page.locator(f"#own-who input[value='{start_no}']").check()
    phone.draw("#own-pad")
    page.locator("#own-pin").fill(pin)
    page.locator("#own-ok").click()
    expect(page.locator("#own-done")).to_be_visible()


def enter(page, sums, pb=None) -> None:
    """Types the sums (ZB, Kč, scores) and, for ČSM, the PB into the entry rows."""
    for i, v in enumerate(sums):
        page.locator(f"#sum{i}").fill(v)
        if pb is not None:
            page.locator(f"#pb{i}").fill(pb[i])


def sign_on_own_phones(phones, event, table: int, keeper_phone, keeper: int, others, shows=()) -> str:
    """The keeper's phone has sent the sheet: every other player signs on their own phone, which
    shows `shows`, then the keeper signs last on theirs; the receipt."""
    expect(keeper_phone.page.locator("#own-hint")).to_be_visible()  # published for the players' own phones
    for s in others:
        own = phones()
        own.open(event.sheet_url(table), offline_ready=False)
        for text in shows:
            expect(own.page.locator("#own-sums")).to_contain_text(text)
        sign_own(own, s, event.pins[s])
    expect(keeper_phone.page.locator("#signers li.is-signed")).to_have_count(len(others))
    sign_here(keeper_phone, keeper, event.pins[keeper])
    return receipt_of(keeper_phone)


def receipt_of(phone) -> str:
    status = phone.page.locator("#status")
    expect(status).to_contain_text(RECEIPT)
    return RECEIPT.search(status.inner_text()).group(0)


def operator(browser, event):
    """The operator's browser at 1280 px, signed in, in the event's language."""
    make_user(event.app)
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    page.goto(f"{event.url}/login?lang={event.lang}")
    page.fill("input[name=username]", "operator")
    page.fill("input[name=password]", "secret-pass")
    page.locator("input[name=password]").press("Enter")
    expect(page.locator("input[name=password]")).to_have_count(0)
    return page


def desk_card(page, event, table: int):
    page.goto(f"{event.url}/operator/t/{event.tid}/round/1/results")
    return page.locator(f"#table-{table}")


def standings_row(page, event, start_no: int):
    page.goto(f"{event.url}/operator/t/{event.tid}/standings")
    return page.locator("tr", has_text=event.names[start_no]).first


def test_csm_2_csm_3_a_table_of_four_with_a_premium_game_on_one_phone_in_czech(live_server, phones, browser):
    """CSM-2: ZB (the table totals 0) and PB per player, SB from the server; CSM-3: the line of a game
    worth 50 PB or more needs the signatures of its players; all four sign on one 360 px phone."""
    ev = Event(live_server, "csm", 11, "cs")  # CSM-1: 11 = 4 + 4 + 3
    assert [len(t) for t in ev.tables] == [4, 4, 3]
    p1, p2, p3, p4 = ev.tables[0]
    ph = phones()
    ph.open(ev.sheet_url(1))
    page = ph.page
    expect(page.locator("#entry h2")).to_have_text("Zapište výsledky")
    # CSM-3: player 1 keeps the sheet, said by the server's data, not by a rule-set name in the script
    expect(page.locator("#entry")).to_contain_text(f"Hráč 1, {ev.names[p1]}, vede tento list")
    expect(page.locator(".sum-unit").first).to_have_text("ZB")
    expect(page.locator("#note-box")).to_be_hidden()
    enter(page, ["35", "-10", "-30", "4"], pb=["60", "0", "10", "0"])
    expect(page.locator("#total-hint")).to_contain_text(re.compile(r"1\sZB"))  # 1 too much: ZB total 0 (CSM-2)
    expect(page.locator("#confirm")).to_be_disabled()
    page.locator("#sum3").fill("5")
    expect(page.locator("#total-hint")).to_have_text("Součet souhlasí.")
    # negative ZB are normal here: no SEM-C8 note, no referee
    expect(page.locator("#note-box")).to_be_hidden()
    expect(page.locator("#points0")).to_have_text("SB 95")  # the server's SB = ZB + PB
    expect(page.locator("#points2")).to_have_text("SB -20")

    # a game worth 50 PB or more: a line signed by its players (CSM-3)
    page.locator("#premium-add").click()
    expect(page.locator("#total-hint")).to_contain_text("Prémiová hra 1")
    expect(page.locator("#confirm")).to_be_disabled()
    page.locator("#pg-player0").select_option(str(p1))
    page.locator("#pg-game0").fill("sedma")
    page.locator("#pg-pb0").fill("60")
    expect(page.locator(f"#pg-by0-{p1}")).to_be_checked()  # the player of the game signs the line
    # the server refuses a line without the signatures of its players
    expect(page.locator("#total-hint")).to_contain_text("CSM-3")
    expect(page.locator("#confirm")).to_be_disabled()
    page.locator(f"#pg-by0-{p2}").check()
    page.locator(f"#pg-by0-{p3}").check()
    expect(page.locator("#confirm")).to_be_enabled()
    page.locator("#confirm").click()
    expect(page.locator("#signing")).to_be_visible()
    locked = page.locator("#locked-sums")
    expect(locked).to_contain_text("PB 60")
    expect(locked).to_contain_text("SB 95")
    expect(locked).to_contain_text(f"Prémiová hra 1: {p1} {ev.names[p1]}, sedma, 60 PB; podpisy: {p1}, {p2}, {p3}")
    expect(page.locator("#referee-needed")).to_be_hidden()
    expect(page.locator("#signers li").nth(1)).to_contain_text("podepisuje i prémiovou hru 1")
    expect(page.locator("#signers li").nth(3)).not_to_contain_text("prémiovou")
    for s in (p1, p2, p3, p4):
        sign_here(ph, s, ev.pins[s])
    receipt = receipt_of(ph)
    expect(page.locator("#status-sums")).to_contain_text("SB 95")

    sheet = ev.sheet(1)
    assert sheet["status"] == "accepted" and sheet["receipt"] == receipt
    assert sheet["sums"] == ["35.00", "-10.00", "-30.00", "5.00"] and sheet["scores"] == ["60", "0", "10", "0"]
    assert sheet["premium_games"] == [{"start_no": p1, "game": "sedma", "pb": 60, "signed_by": [p1, p2, p3]}]
    assert [s["start_no"] for s in sheet["signatures"]] == [p1, p2, p3, p4]

    # table 2 of four: player 1's phone enters, the three others sign on their own phones
    q1, q2, q3, q4 = ev.tables[1]
    keeper = phones()
    keeper.open(ev.sheet_url(2))
    kp = keeper.page
    enter(kp, ["12", "-2", "-4", "-6"], pb=["20", "5", "0", "0"])
    expect(kp.locator("#confirm")).to_be_enabled()
    kp.locator("#confirm").click()
    sign_on_own_phones(phones, ev, 2, keeper, q1, (q2, q3, q4), shows=["PB 20"])
    sheet = ev.sheet(2)
    assert sheet["status"] == "accepted" and sheet["scores"] == ["20", "5", "0", "0"]
    assert sheet["premium_games"] is None or sheet["premium_games"] == []
    assert [bool(s.get("own_phone")) for s in sheet["signatures"]] == [False, True, True, True]

    desk = operator(browser, ev)
    card = desk_card(desk, ev, 1)
    expect(card).to_contain_text(receipt)
    expect(card).to_contain_text("60 PB")
    ev.finish_round({3: ([0, 0, 0], {"scores": [0, 0, 0], "premium_games": []})})
    # CSM-4: BP across the field; the standings show the phone's SB (95) and PB (60)
    row = standings_row(desk, ev, p1)
    expect(row).to_contain_text("95")
    expect(row).to_contain_text("60")


def test_th_3_th_6_thousand_on_one_phone_and_on_own_phones_in_russian(live_server, phones, browser):
    """TH-3: scores in steps of 5 and how the game ended, the brackets from the server (1000 → 3,
    880 after another's win → 1, a negative score → -1); a table won by time with a 1000 refused;
    TH-6: the best-placed player submits. A table of four on one phone, a table of three on own phones."""
    ev = Event(live_server, "thousand", 7, "ru")  # TH-1: 7 = 3 + 4
    sizes = [len(t) for t in ev.tables]
    assert sorted(sizes) == [3, 4]
    four = sizes.index(4) + 1
    three = sizes.index(3) + 1
    a, b, c, d = ev.tables[four - 1]
    ph = phones()
    ph.open(ev.sheet_url(four))
    page = ph.page
    expect(page.locator("#entry h2")).to_have_text("Введите результаты")
    expect(page.locator("#entry")).to_contain_text("игрок с лучшим результатом")
    expect(page.locator("#total-line")).to_be_hidden()  # TH-3: no table total
    enter(page, ["880", "1000", "443", "-20"])
    expect(page.locator("#total-hint")).to_contain_text("TH-3")  # how did the game end?
    page.locator("#ended-time").check()
    # the server's checks: 443 is not a multiple of 5 or a 1000 by time — either way refused (TH-3)
    expect(page.locator("#total-hint")).to_contain_text("TH-3")
    expect(page.locator("#confirm")).to_be_disabled()
    page.locator("#sum2").fill("445")
    expect(page.locator("#total-hint")).to_contain_text(str(b))  # a 1000 by time: that player won
    expect(page.locator("#confirm")).to_be_disabled()
    page.locator("#ended-win").check()
    expect(page.locator("#confirm")).to_be_enabled()
    # TH-3 has no table total: the check says every result is in, never that a total is right
    expect(page.locator("#total-hint")).to_have_text("Результаты всех игроков введены.")
    # the brackets as the server computes them: 880 after another's win is 1, not 2
    expect(page.locator("#points0")).to_have_text("1 оч.")
    expect(page.locator("#points1")).to_have_text("3 оч.")
    expect(page.locator("#points2")).to_have_text("1 оч.")
    expect(page.locator("#points3")).to_have_text("-1 оч.")
    page.locator("#confirm").click()
    expect(page.locator("#signing")).to_be_visible()
    expect(page.locator("#locked-sums")).to_contain_text(re.compile(r"Конец игры: игрок набрал 1\s000"))
    expect(page.locator("#keeper-line")).to_contain_text(ev.names[b])  # TH-6
    expect(page.locator("#keeper-line")).to_contain_text("TH-6")
    for s in (a, b, c, d):
        sign_here(ph, s, ev.pins[s])
    receipt = receipt_of(ph)
    expect(page.locator("#status-sums")).to_contain_text("3 оч.")
    sheet = ev.sheet(four)
    assert sheet["status"] == "accepted" and sheet["receipt"] == receipt
    assert sheet["scores"] == ["880", "1000", "445", "-20"] and sheet["ended"] == "win"

    # the table of three: the best-placed player's phone enters and sends, the others sign on their own
    x, y, z = ev.tables[three - 1]
    best = phones()
    best.open(ev.sheet_url(three))
    bp = best.page
    enter(bp, ["300", "880", "5"])
    bp.locator("#ended-time").check()
    expect(bp.locator("#points1")).to_have_text("2 оч.")  # 880 when time ran out (TH-3)
    bp.locator("#confirm").click()
    expect(bp.locator("#keeper-line")).to_contain_text(ev.names[y])
    sign_on_own_phones(phones, ev, three, best, y, (x, z), shows=["Конец игры: истекло время", "2 оч."])
    sheet = ev.sheet(three)
    assert sheet["status"] == "accepted" and sheet["scores"] == ["300", "880", "5"] and sheet["ended"] == "time"
    assert [bool(s.get("own_phone")) for s in sheet["signatures"]] == [True, False, True]

    desk = operator(browser, ev)
    card = desk_card(desk, ev, four)
    expect(card).to_contain_text(receipt)
    expect(card).to_contain_text(THOUSAND)  # grouped by the page's locale: 1 000 in Russian
    ev.finish_round({})
    row = standings_row(desk, ev, b)
    expect(row).to_contain_text(THOUSAND)
    row = standings_row(desk, ev, y)
    expect(row).to_contain_text("880")


def test_smu_1_smu_2_smu_3_net_kc_and_shared_places_on_one_phone_and_on_own_phones_in_czech(
        live_server, phones, browser):
    """SMU-1: 10 players = 4 + 3 + 3, player A keeps the sheet; SMU-2: net Kč per player, the table
    totals 0 Kč, a negative sum needs no note (SEM-C8 does not apply); SMU-3: 5-3-2-1 and 5-3-1 shown
    live, two players tied for 2nd-3rd get 2.5 each. A table of four signed on one 360 px phone, a
    table of three on the players' own phones; the desk shows the receipt, the standings the halves."""
    ev = Event(live_server, "smu", 10, "cs")
    sizes = [len(t) for t in ev.tables]
    assert sizes == [3, 3, 4]  # SMU-1: the table of four last
    four, three = 3, 1
    a, b, c, d = ev.tables[four - 1]
    ph = phones()
    ph.open(ev.sheet_url(four))
    page = ph.page
    expect(page.locator("#entry h2")).to_have_text("Zadejte částky")
    expect(page.locator("#entry")).to_contain_text(f"Hráč 1, {ev.names[a]}, vede tento list")  # SMU-1: A
    expect(page.locator("#total-line")).to_be_visible()
    enter(page, ["20", "5", "5", "-31"])
    expect(page.locator("#total-hint")).to_contain_text(re.compile(r"chybí 1,00\sKč"))  # 1 Kč short of 0 (SMU-2)
    expect(page.locator("#confirm")).to_be_disabled()
    page.locator("#sum3").fill("-30")
    expect(page.locator("#total-hint")).to_have_text("Součet souhlasí.")
    expect(page.locator("#total")).to_contain_text("Kč")
    expect(page.locator("#note-box")).to_be_hidden()  # SMU-2: -30 Kč is normal, no SEM-C8 note
    expect(page.locator("#confirm")).to_be_enabled()
    # SMU-3: 5-3-2-1, the tie for 2nd-3rd shares 3 + 2
    expect(page.locator("#points0")).to_have_text("5 b.")
    expect(page.locator("#points1")).to_have_text("2,5 b.")
    expect(page.locator("#points2")).to_have_text("2,5 b.")
    expect(page.locator("#points3")).to_have_text("1 b.")
    page.locator("#confirm").click()
    expect(page.locator("#signing")).to_be_visible()
    locked = page.locator("#locked-sums")
    expect(locked).to_contain_text("Kč")
    expect(locked).to_contain_text("2,5 b.")
    expect(page.locator("#referee-needed")).to_be_hidden()
    for s in (a, b, c, d):
        sign_here(ph, s, ev.pins[s])
    receipt = receipt_of(ph)
    expect(page.locator("#status-sums")).to_contain_text("2,5 b.")
    sheet = ev.sheet(four)
    assert sheet["status"] == "accepted" and sheet["receipt"] == receipt
    assert sheet["sums"] == ["20.00", "5.00", "5.00", "-30.00"]
    assert [s["start_no"] for s in sheet["signatures"]] == [a, b, c, d]

    # a table of three: player A's phone enters and sends, B and C sign on their own phones
    x, y, z = ev.tables[three - 1]
    keeper = phones()
    keeper.open(ev.sheet_url(three))
    kp = keeper.page
    enter(kp, ["-4", "12", "-8"])
    expect(kp.locator("#note-box")).to_be_hidden()
    expect(kp.locator("#points1")).to_have_text("5 b.")  # SMU-3: 5-3-1
    expect(kp.locator("#points0")).to_have_text("3 b.")
    expect(kp.locator("#points2")).to_have_text("1 b.")
    kp.locator("#confirm").click()
    sign_on_own_phones(phones, ev, three, keeper, x, (y, z), shows=["Kč", "5 b."])
    sheet = ev.sheet(three)
    assert sheet["status"] == "accepted" and sheet["sums"] == ["-4.00", "12.00", "-8.00"]
    assert [bool(s.get("own_phone")) for s in sheet["signatures"]] == [False, True, True]  # by seat: A on the keeping phone

    desk = operator(browser, ev)
    card = desk_card(desk, ev, four)
    expect(card).to_contain_text(receipt)
    expect(card).to_contain_text("-30,00")  # the desk's tables show amounts without the sign
    expect(card.locator("tr", has_text=ev.names[b])).to_contain_text("2,5 b.")
    ev.finish_round({3: (["6", "0", "-6"], {})})
    # SMU-4: points first, then money; the halves from the shared place
    row = standings_row(desk, ev, b)
    expect(row).to_contain_text("2,5")
    row = standings_row(desk, ev, d)
    expect(row).to_contain_text("-30")
