"""An operator runs a whole 27-player SEM tournament in a real browser (Debian's
chromium) against the threaded venue server with CSRF on: sign in, create the
tournament, import the players from a CSV file, check in, and for every round
draw, publish, start the clock and type the paper sheets at the results desk,
then close the round. The final results shown must be the rules engine's
ranking of the very sums that were typed.

Elements are found by name, id, data-* and form actions (Slovak is the default
locale and the catalogs change); the page runs in English (?lang=en)."""
from __future__ import annotations

import csv
import io
import random
import re
from decimal import Decimal

import pytest
from playwright.sync_api import expect

from tests.helpers import make_user
from webapp.rules.model import Round as RulesRound, TableResult, Tournament as RulesTournament
from webapp.rules.points import administrative_correction
from webapp.rules.ruleset import get_ruleset
from webapp.rules.standings import standings
from webapp.demo.simulate import make_players, table_sums

pytestmark = pytest.mark.browser

SEED = 7
N_PLAYERS = 27
NOTE = "posledná hra: betl, platil 2,40"
NEGATIVE = (Decimal("18.40"), Decimal("12.90"), Decimal("-1.30"))


def players_csv(players) -> bytes:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["start_no", "id", "name", "club", "status", "rating"])
    for p in players:
        w.writerow([p.start_no, p.id, p.name, p.club or "", p.status, "" if p.rating is None else p.rating])
    return out.getvalue().encode("utf-8")


def as_typed(value: Decimal, comma: bool) -> str:
    text = f"{value:.2f}"
    return text.replace(".", ",") if comma else text


def shown_amount(value: Decimal) -> str:
    """The `amount` filter in English."""
    return f"{value:,.2f}"


def shown_points(value) -> str:
    assert value.denominator == 1, "SEM points are whole"
    return str(value.numerator)


class Operator:
    """The operator's hands on one page of the live server."""

    def __init__(self, page, url: str):
        self.page = page
        self.url = url
        self.tid: int | None = None

    def hub(self):
        self.page.click(f"a[href='/operator/t/{self.tid}']")
        expect(self.page).to_have_url(f"{self.url}/operator/t/{self.tid}")

    def desk_tables(self) -> list[tuple[int, tuple[int, ...]]]:
        # the click that opened the desk may still be navigating: wait for its tables
        expect(self.page.locator("article.desk-table").first).to_be_visible()
        rows = self.page.eval_on_selector_all(
            "article.desk-table",
            "els => els.map(a => [a.id, Array.from(a.querySelectorAll('.desk-seat')).map(d => +d.dataset.startNo)])")
        return [(int(ident.removeprefix("table-")), tuple(seats)) for ident, seats in rows]

    def save(self, number: int, press) -> int:
        """Press Enter (or click) on a desk table; the status of the save it posts."""
        with self.page.expect_response(
                lambda r: r.request.method == "POST" and r.url.split("?")[0].endswith(f"/results/{number}")) as info:
            press()
        return info.value.status

    def enter_table(self, number: int, sums, *, keyboard: bool = False) -> None:
        """Type one sheet's three sums and Enter; a negative sum also needs the
        last game's note (SEM-C8), which the desk asks for once the sums are in."""
        page = self.page
        art = page.locator(f"#table-{number}")
        negative = any(s < 0 for s in sums)
        if keyboard:
            # the desk has put the cursor into the next table still to enter
            expect(art.locator("input[name=sum0]")).to_be_focused()
            for i, s in enumerate(sums):
                page.keyboard.type(as_typed(s, comma=True))
                if i < len(sums) - 1:
                    page.keyboard.press("Tab")
            if negative:
                # as the operator does: the live check shows the note field for the negative sum, the
                # note is typed, then Enter (pressing Enter while that check is still on its way raced it)
                note = art.locator("input[name=note]")
                expect(note).to_be_visible()
                note.fill(NOTE)
                status = self.save(number, lambda: note.press("Enter"))
            else:
                status = self.save(number, lambda: page.keyboard.press("Enter"))
        else:
            for i, s in enumerate(sums):
                art.locator(f"input[name=sum{i}]").fill(as_typed(s, comma=False))
            status = None if negative else self.save(number, lambda: art.locator("input[name=sum2]").press("Enter"))
        for _ in range(3):
            if status == 200:
                break
            assert negative, f"table {number}: the desk refused valid sums {sums} ({status})"
            if status == 422:  # Enter came before the note field: the desk asks for it
                expect(art.locator(".has-error input[name=note]")).to_be_visible()
            note = art.locator("input[name=note]")
            note.fill(NOTE)
            status = self.save(number, lambda: note.press("Enter"))
        assert status == 200, f"table {number} not saved"
        expect(page.locator(f"#table-{number}.is-in")).to_be_visible()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.problems = []
    page.on("pageerror", lambda e: page.problems.append(f"JS error: {e}"))
    page.on("response", lambda r: page.problems.append(f"HTTP {r.status} {r.request.method} {r.url}")
            if r.status >= 500 else None)
    yield page
    context.close()


def test_operator_runs_a_sem_tournament_in_the_browser(page, live_server):
    url, app = live_server
    make_user(app, "operator", "secret-pass")
    players = make_players(N_PLAYERS, seed=SEED, clubs=8)
    rs = get_ruleset("sem")
    rng = random.Random(SEED)
    op = Operator(page, url)

    # --- sign in (English from the first page on; the cookie keeps it)
    page.goto(f"{url}/login?lang=en")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    page.fill("input[name=username]", "operator")
    page.fill("input[name=password]", "wrong")
    page.locator("input[name=password]").press("Enter")
    expect(page.locator(".field.has-error")).to_be_visible()
    page.fill("input[name=password]", "secret-pass")
    page.locator("input[name=password]").press("Enter")
    expect(page).to_have_url(f"{url}/operator/")

    # --- the tournament
    page.fill("input[name=name]", "SEM 7 - Nitra")
    page.fill("input[name=date]", "2026-04-18")
    page.fill("input[name=venue]", "Nitra, Hotel Zobor")
    page.select_option("select[name=ruleset]", "sem")
    page.click("form[action='/operator/tournaments'] button")
    expect(page).to_have_url(re.compile(r"/operator/t/\d+$"))
    op.tid = int(page.url.rsplit("/", 1)[1])

    # --- players from a CSV file: preview first, then confirm
    page.click(f"a[href='/operator/t/{op.tid}/players/import']")
    page.set_input_files("input[name=file]", files=[
        {"name": "hraci.csv", "mimeType": "text/csv", "buffer": players_csv(players)}])
    page.click("form.setup-upload button")
    expect(page.locator("#csv-preview table.csv-preview tbody tr")).to_have_count(N_PLAYERS)
    expect(page.locator("#csv-preview .row-error")).to_have_count(0)
    page.click(f"form[action='/operator/t/{op.tid}/players/import/confirm'] button.primary")
    expect(page).to_have_url(f"{url}/operator/t/{op.tid}/players")
    for p in (players[0], players[-1]):
        expect(page.locator("main")).to_contain_text(p.name)

    # --- check-in: everybody, then one player tapped out and in again
    page.click(f".setup-nav a[href='/operator/t/{op.tid}/checkin']")
    summary = page.locator("#checkin-summary .big").first
    expect(summary).to_have_text("0")
    page.click(f"form[action='/operator/t/{op.tid}/checkin/all'] button")
    expect(summary).to_have_text(str(N_PLAYERS))
    row = page.locator(".checkin-row[data-start-no='5']")
    expect(row).to_have_class(re.compile(r"\bis-present\b"))
    row.locator("button.checkin-button").click()
    expect(row).not_to_have_class(re.compile(r"\bis-present\b"))
    expect(summary).to_have_text(str(N_PLAYERS - 1))
    row.locator("button.checkin-button").click()
    expect(row).to_have_class(re.compile(r"\bis-present\b"))
    expect(summary).to_have_text(str(N_PLAYERS))

    op.hub()
    expect(page.locator("main")).to_contain_text(f"{N_PLAYERS} of {N_PLAYERS} players checked in")

    # --- the rounds
    played: list[RulesRound] = []
    n = 1
    while page.locator(f"form[action$='/round/{n}/draw'] button").count():
        page.click(f"form[action$='/round/{n}/draw'] button")
        if n > 1:  # SEM-C9: the standings of round n-1 came out seconds ago, the operator confirms
            window = page.locator("#objection-window")
            expect(window).to_contain_text(re.compile(rf"after round {n - 1} are still running: \d+ minutes? left"))
            expect(window).to_contain_text("No discrepancy report is waiting for a referee.")
            window.locator(f"form[action$='/round/{n}/draw'] button").click()
        expect(page).to_have_url(f"{url}/operator/t/{op.tid}/round/{n}")
        page.click(f"form[action$='/round/{n}/publish'] button")
        if n > 1:
            page.locator(f"#objection-window form[action$='/round/{n}/publish'] button").click()
        expect(page.locator("[data-clock]")).to_have_count(0)
        page.click(f"form[action$='/round/{n}/clock'] button")
        expect(page.locator("[data-clock]")).to_be_visible()
        expect(page.locator("[data-clock-display]")).to_have_text(re.compile(r"\d+:\d\d"))

        op.hub()
        page.click(f"a[href='/operator/t/{op.tid}/round/{n}/results']")
        expect(page).to_have_url(f"{url}/operator/t/{op.tid}/round/{n}/results")
        tables = op.desk_tables()
        assert tables and all(len(seats) == 3 for _, seats in tables)
        seated = sorted(s for _, seats in tables for s in seats)
        assert len(seated) == len(set(seated))
        if n == 1:
            assert seated == list(range(1, N_PLAYERS + 1))

        results = []
        for i, (number, seats) in enumerate(tables):
            sums = table_sums(rng, 3, rs.expected_total(3))
            if n == 2 and i == 0:
                sums = NEGATIVE  # typed, Enter: the desk asks for the last game's note (SEM-C8)
            if n == 1 and i == len(tables) - 1:
                sums = check_wrong_total(op, app, number, sums)
            else:
                op.enter_table(number, sums, keyboard=i < 2)
            results.append(TableResult(number, seats, tuple(sums)))
        played.append(RulesRound(n, tuple(results)))

        progress = page.locator("#progress [role=progressbar]")
        expect(progress).to_have_attribute("aria-valuenow", str(len(tables)))
        close = page.locator("#progress button[name=close]")
        expect(close).to_be_enabled()
        close.click()
        expect(page).to_have_url(f"{url}/operator/t/{op.tid}/standings?after={n}")
        op.hub()
        n += 1

    # the cut ends the tournament after round 6 at the latest
    assert 4 <= len(played) <= rs.rounds
    with app.app_context():
        from webapp.extensions import db
        from webapp.models import Tournament

        assert db.session.get(Tournament, op.tid).status == "finished"

    # --- the final results against the rules engine on the typed sums
    page.click(f"a[href='/operator/t/{op.tid}/standings']")
    expect(page.locator("table.standings")).to_be_visible()
    shown = page.eval_on_selector_all(
        "table.standings tbody tr[data-start-no]",
        """rows => rows.map(r => [+r.dataset.startNo,
              r.querySelector('[data-col=place]').textContent.trim(),
              r.querySelector('[data-col=points]').textContent.trim(),
              r.querySelector('[data-col=money]').textContent.trim()])""")
    expected = standings(RulesTournament(players=list(players), rounds=played, ruleset="sem"))
    assert [row[0] for row in shown] == [st.player.start_no for st in expected]
    assert shown == [[st.player.start_no, str(st.place), shown_points(st.stats.points), shown_amount(st.stats.money)]
                     for st in expected]
    assert len(shown) == N_PLAYERS
    assert not page.problems, page.problems


def check_wrong_total(op: Operator, app, number: int, sums) -> tuple[Decimal, ...]:
    """SEM-C5 at the desk: a sheet totalling 31 € shows the correction and is not
    stored until the operator applies it; then the winner bears the difference."""
    page = op.page
    art = page.locator(f"#table-{number}")
    typed = (sums[0], sums[1], sums[2] + 1)
    if any(s < 0 for s in typed):  # keep the note rule (SEM-C8) out of this check
        typed = (Decimal("12.00"), Decimal("10.50"), Decimal("8.50"))
    for i, s in enumerate(typed):
        art.locator(f"input[name=sum{i}]").fill(as_typed(s, comma=False))
    c5 = art.locator(".desk-c5")
    expect(c5).to_be_visible()
    expect(c5).to_contain_text("SEM-C5")
    before = page.locator("#progress [role=progressbar]").get_attribute("aria-valuenow")

    assert op.save(number, lambda: art.locator("input[name=sum2]").press("Enter")) == 422
    expect(art.locator(".desk-c5.has-error")).to_be_visible()
    expect(art).not_to_have_class(re.compile(r"\bis-in\b"))
    expect(page.locator("#progress [role=progressbar]")).to_have_attribute("aria-valuenow", before)
    with app.app_context():
        from sqlalchemy import select

        from webapp.extensions import db
        from webapp.models import Round, RoundTable

        tab = db.session.scalar(select(RoundTable).join(Round).where(
            Round.tournament_id == op.tid, Round.number == 1, RoundTable.number == number))
        assert tab.sheet is None

    art.locator("input[name=correct_total]").check()
    assert op.save(number, lambda: art.locator("input[name=sum2]").press("Enter")) == 200
    expect(page.locator(f"#table-{number}.is-in")).to_be_visible()
    corrected = administrative_correction(get_ruleset("sem"), typed)
    assert sum(corrected) == Decimal("30.00")
    sheet_text = page.locator(f"#table-{number} .desk-sheet").inner_text()
    for entered, counted in zip(typed, corrected):
        assert shown_amount(entered) in sheet_text and shown_amount(counted) in sheet_text
    expect(page.locator(f"#table-{number} .desk-sheet .red-pen").first).to_be_visible()
    return corrected
