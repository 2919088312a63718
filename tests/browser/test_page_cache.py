"""The table page under its service worker: cache-first, yet showing what is current.

Once the worker controls the phone, a repeat load of /s/<token> is answered
from the worker's copy with nothing from the network — neither the page nor
its assets cross the proxy (tests/browser/netproxy.py logs every byte that
does). The page then asks GET /api/v1/table: a sheet another phone sent is
shown at once, and when the page's own fixed data (the players' names and
clubs, the table total, whose cards) is out of date, the worker renews its
copy and the page loads again — once, never in a loop. A link the server no
longer knows makes the worker drop its copy. Without a service worker the
page works as before, from the network each time."""
from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from tests.browser.test_phone import Phone, phones, venue  # noqa: F401 (fixtures)
from tests.helpers import signed_submission
from webapp.extensions import db
from webapp.models import Player, Round

PAGE = re.compile(r"^/s/")


def network(venue, method: str = "GET", path: re.Pattern | str = PAGE) -> list[str]:
    """Paths of the requests that crossed the network (the proxy) and match."""
    pat = re.compile(path) if isinstance(path, str) else path
    return [p for m, p, _status, _size in list(venue.proxy.log) if m == method and pat.search(p)]


def wait_until(check, timeout: float = 15, what: str = "") -> None:
    end = time.monotonic() + timeout
    while not check():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what or check}")
        time.sleep(0.05)


def controlled(ph: Phone) -> None:
    """The worker has a copy of the page and controls it (it claims the page it was registered from)."""
    ph.page.wait_for_function("!!navigator.serviceWorker.controller")


def repeat_load(venue, ph: Phone) -> None:
    """Reload, and wait until the page has asked the server for the table's state (and a moment more)."""
    venue.proxy.log.clear()
    ph.page.reload()
    expect(ph.page.locator("h1")).to_have_text("Round 1, table 1")
    wait_until(lambda: network(venue, path=r"^/api/v1/table\?"), what="the table state request")
    ph.page.wait_for_timeout(500)


def rename(venue, table: int, seat: int, name: str) -> int:
    """The operator corrects a player's name; returns the start number."""
    start_no = venue.tables[table - 1][seat]
    with venue.app.app_context():
        p = db.session.scalar(select(Player).where(Player.tournament_id == venue.tid, Player.start_no == start_no))
        p.name = name
        db.session.commit()
        db.session.remove()
    return start_no


def has_copy(ph: Phone, url: str) -> bool:
    return ph.page.evaluate("""url => caches.keys().then(names => Promise.all(
        names.filter(n => n.startsWith('listok-pages-')).map(n => caches.open(n).then(c => c.match(url)))))
        .then(hits => hits.some(Boolean))""", url)


def documents(ph: Phone) -> list[str]:
    """Counts the page's own loads (each navigation of the main frame)."""
    loads: list[str] = []
    ph.page.on("load", lambda: loads.append(ph.page.url))
    return loads


@pytest.mark.browser
def test_a_repeat_load_takes_nothing_from_the_network(venue, phones):
    ph = phones()
    url = venue.sheet_url(1)
    ph.open(url)
    controlled(ph)
    seen = []
    ph.page.on("response", lambda r: seen.append((r.url, r.from_service_worker, r.request.resource_type)))

    # the first load a fresh registration controls may check once for a new worker (/sw.js, 304): the
    # browser has no time of a last check yet; from then on /sw.js is fresh for its max-age
    repeat_load(venue, ph)
    ph.page.wait_for_timeout(2500)
    repeat_load(venue, ph)
    ph.page.wait_for_timeout(2500)  # long enough for a worker update check, were there one

    assert network(venue) == [], "the page came from the network"
    # all that crossed is the table's state (asked at once, and again by the page's idle poll): the
    # worker itself is kept for 5 minutes (max-age, updateViaCache "all"), so no update check either
    crossed = [(p, status) for _m, p, status, _size in venue.proxy.log]
    assert crossed and all(p.startswith("/api/v1/table?") and status == 200 for p, status in crossed), crossed
    nav = ph.page.evaluate("""(() => { const n = performance.getEntriesByType('navigation')[0];
        return {transfer: n.transferSize, worker: n.workerStart > 0}; })()""")
    assert nav == {"transfer": 0, "worker": True}
    assets = ph.page.evaluate("""performance.getEntriesByType('resource')
        .filter(e => new URL(e.name).pathname.startsWith('/static/')).map(e => [e.name, e.transferSize])""")
    assert len(assets) >= 5 and all(size == 0 for _name, size in assets), assets
    page_and_assets = [(u, sw) for u, sw, kind in seen if kind in ("document", "script", "stylesheet")]
    assert page_and_assets and all(sw for _u, sw in page_and_assets), page_and_assets
    expect(ph.page.locator("#entry")).to_be_visible()  # the page works as ever
    ph.page.locator("#sum0").fill("14,50")
    expect(ph.page.locator("#total")).to_have_text("€14.50")


@pytest.mark.browser
def test_a_cached_page_shows_the_sheet_another_phone_sent(venue, phones):
    ph = phones()
    ph.open(venue.sheet_url(1))
    controlled(ph)
    expect(ph.page.locator("#no-sheet")).to_be_visible()
    expect(ph.page.locator("#entry")).to_be_visible()
    # meanwhile another phone sends the table's sheet
    body = signed_submission(venue.app, venue.tid, 1, 1, [1450, 1000, 550], venue.pins)
    answer = venue.app.test_client().post("/api/v1/sheets", json=body).get_json()
    assert answer["status"] == "accepted"

    repeat_load(venue, ph)

    assert network(venue) == []  # the page is the worker's copy, made before the sheet came …
    status = ph.status()  # … and still shows what the server has now
    expect(status).to_contain_text("Sheet received")
    expect(status).to_contain_text(f"The server has this table's sheet (receipt {answer['receipt']})")
    expect(ph.page.locator("#status-sums")).to_contain_text("€14.50")
    expect(ph.page.locator("#no-sheet")).to_be_hidden()
    expect(ph.page.locator("#entry")).to_be_hidden()  # as a fresh load shows it: nothing left to enter
    expect(ph.page.locator("#correct")).to_be_visible()


@pytest.mark.browser
def test_a_cached_page_with_an_old_name_renews_itself_once(venue, phones):
    ph = phones()
    url = venue.sheet_url(1)
    ph.open(url)
    controlled(ph)
    old = ph.page.locator(".seat-list li").first.inner_text()
    start_no = rename(venue, 1, 0, "Nováková-Zmenená Eva")
    assert "Nováková-Zmenená" not in old
    loads = documents(ph)

    venue.proxy.log.clear()
    ph.page.reload()
    # the copy said the old name: the worker fetches the page again and the page loads once more
    expect(ph.page.locator(".seat-list li").first).to_contain_text("Nováková-Zmenená")
    expect(ph.page.locator(".seat-list li").first).to_contain_text(str(start_no))
    wait_until(lambda: len(network(venue, path=r"^/api/v1/table\?")) >= 2, what="the second state request")
    ph.page.wait_for_timeout(1500)
    assert len(loads) == 2, loads  # the reload, and one renewal: no loop
    assert len(network(venue)) == 1  # the worker's fetch of the new page
    expect(ph.page.locator("#entry")).to_be_visible()
    expect(ph.page.locator("label[for=sum0]")).to_contain_text("Nováková-Zmenená")

    # the new copy is what a repeat load shows now, still with nothing from the network
    repeat_load(venue, ph)
    assert network(venue) == []
    expect(ph.page.locator(".seat-list li").first).to_contain_text("Nováková-Zmenená")
    assert len(loads) == 3


@pytest.mark.browser
def test_a_cached_page_follows_the_language_chosen_since(venue, phones):
    ph = phones()
    url = venue.sheet_url(1).split("?")[0]  # as the QR code has it: the language is the phone's
    ph.open(url)
    controlled(ph)
    expect(ph.page.locator("html")).to_have_attribute("lang", "en")
    ph.open(url + "?lang=sk")  # the language link: a page of its own, and the choice kept in a cookie
    expect(ph.page.locator("html")).to_have_attribute("lang", "sk")
    loads = documents(ph)
    venue.proxy.log.clear()
    ph.page.goto(url)  # the QR code again: the copy is in English, the page renews itself in Slovak
    expect(ph.page.locator("html")).to_have_attribute("lang", "sk")
    ph.page.wait_for_timeout(1000)
    assert len(loads) == 2 and len(network(venue)) == 1
    repeat = len(loads)
    ph.page.reload()
    expect(ph.page.locator("html")).to_have_attribute("lang", "sk")
    ph.page.wait_for_timeout(1000)
    assert len(loads) == repeat + 1 and len(network(venue)) == 1  # the new copy, from the worker


@pytest.mark.browser
def test_the_renewal_never_loops(venue, phones, monkeypatch):
    """The server's page keeps disagreeing with its table state: one renewal, then the page stays."""
    from webapp.services import sheet_state

    real = sheet_state.table_state

    def other_names(*args, **kwargs):
        state = real(*args, **kwargs)
        return {**state, "players": [{**p, "name": p["name"] + " ml."} for p in state["players"]]}

    ph = phones()
    ph.open(venue.sheet_url(1))
    controlled(ph)
    loads = documents(ph)
    monkeypatch.setattr(sheet_state, "table_state", other_names)
    venue.proxy.log.clear()
    ph.page.reload()
    wait_until(lambda: len(network(venue, path=r"^/api/v1/table\?")) >= 2, what="the state after the renewal")
    ph.page.wait_for_timeout(4000)  # the page asks again meanwhile (its idle poll): still no reload
    assert len(loads) == 2, loads
    assert len(network(venue)) == 1  # the worker's one fetch of the page
    expect(ph.page.locator("#entry")).to_be_visible()  # and the page is usable


@pytest.mark.browser
def test_a_link_the_server_no_longer_knows_drops_the_copy(venue, phones):
    ph = phones()
    url = venue.sheet_url(1)
    ph.open(url)
    controlled(ph)
    assert has_copy(ph, url)
    venue.app.config["SECRET_KEY"] = "a reinstalled server"  # every old table link is now refused (403)
    venue.proxy.log.clear()
    ph.page.reload()
    # the worker drops its copy and the page loads again: the server's own message
    expect(ph.page.locator("main")).to_contain_text("This table link is not valid. Scan the QR code on the sheet")
    assert network(venue) and network(venue, path=r"^/api/v1/table\?")
    assert not has_copy(ph, url)
    ph.page.wait_for_timeout(2000)
    # and it stays there: one page load from the network
    assert len(network(venue)) == 1


@pytest.mark.browser
def test_a_cached_page_of_a_closed_round_shows_it_closed(venue, phones):
    ph = phones()
    ph.open(venue.sheet_url(1))
    controlled(ph)
    with venue.app.app_context():
        r = db.session.scalar(select(Round).where(Round.tournament_id == venue.tid, Round.number == 1))
        r.status = "closed"
        db.session.commit()
        db.session.remove()
    repeat_load(venue, ph)
    assert network(venue) == []
    expect(ph.status()).to_contain_text("This sheet is closed")
    expect(ph.status()).to_contain_text("the sheet can no longer be sent from the phone")
    expect(ph.page.locator("#entry")).to_be_hidden()


@pytest.mark.browser
def test_without_a_service_worker_the_page_works_from_the_network(venue, browser):
    """As on plain HTTP at a venue (no secure context, no worker): every load is the server's page."""
    context = browser.new_context(viewport={"width": 360, "height": 740}, has_touch=True, is_mobile=True,
                                  service_workers="block")
    try:
        page = context.new_page()
        problems = []
        page.on("pageerror", lambda e: problems.append(str(e)))
        url = venue.sheet_url(1)
        page.goto(url)
        expect(page.locator("#entry")).to_be_visible()
        rename(venue, 1, 0, "Novák-Nový Peter")
        venue.proxy.log.clear()
        page.reload()
        expect(page.locator(".seat-list li").first).to_contain_text("Novák-Nový")
        assert len(network(venue)) == 1
        for i, s in enumerate(["14,50", "10", "5,50"]):
            page.locator(f"#sum{i}").fill(s)
        expect(page.locator("#confirm")).to_be_enabled()
        assert problems == []
    finally:
        context.close()


def test_service_worker_version_follows_the_table_page_templates(app, anon, tmp_path):
    """The worker answers the page from its copy: a deploy that changes the page's template
    (or its translations) must bring a new worker and drop the old copies."""
    import shutil

    from tests.helpers import text

    def version() -> str:
        return re.search(r'VERSION = "(\w+)"', text(anon.get("/sw.js"))).group(1)

    first = version()
    root = tmp_path / "webapp"
    shutil.copytree(app.root_path, root, ignore=shutil.ignore_patterns("__pycache__"))
    app.root_path = str(root)
    app.static_folder = str(root / "static")
    assert version() == first  # same content
    tpl = root / "templates" / "table" / "sheet.html"
    tpl.write_text(tpl.read_text() + "\n{# a deploy #}\n")
    second = version()
    assert second != first
    mo = next(root.glob("translations/*/LC_MESSAGES/messages.mo"))
    mo.write_bytes(mo.read_bytes() + b"\0")
    assert version() != second
