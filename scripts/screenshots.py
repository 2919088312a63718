#!/usr/bin/env python3
"""The README's screenshots: the demo tournament (round 3 running) served on a
free local port, photographed in Debian's chromium, in Slovak.

    python3 scripts/screenshots.py              # docs/screenshot.png, docs/screenshot-desk.png
    python3 scripts/screenshots.py --phone DIR  # also the public pages at 360 px, into DIR
    python3 scripts/screenshots.py --companion  # "my tournament" (sk, ru) and a referee call at 360 px, into docs/

Needs the test extras (playwright) and /usr/bin/chromium; Playwright's own
browser download is never used.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import threading
from pathlib import Path

from werkzeug.serving import WSGIRequestHandler

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 360, "height": 740}


class QuietHandler(WSGIRequestHandler):
    def log_request(self, *args, **kwargs):
        pass


def serve_demo(db_path: Path):
    from werkzeug.serving import make_server

    from webapp import create_app
    from webapp.demo.seed import create_demo
    from webapp.extensions import db

    app = create_app({"SECRET_KEY": "screenshots", "SQLALCHEMY_DATABASE_URI": f"sqlite:///{db_path}",
                      "WTF_CSRF_ENABLED": True})
    with app.app_context():
        db.create_all()
        tid, login = create_demo()
    server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=QuietHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}", tid, login


def sign_in(page, url: str, login: tuple[str, str]) -> None:
    page.goto(f"{url}/login")
    page.fill("input[name=username]", login[0])
    page.fill("input[name=password]", login[1])
    page.locator("input[name=password]").press("Enter")
    page.wait_for_url(f"{url}/operator/")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs", help="where the README's PNGs go")
    parser.add_argument("--phone", type=Path, help="also save the public pages at 360 px into this folder")
    parser.add_argument("--companion", action="store_true",
                        help="only \"my tournament\" in Slovak and Russian and a referee call, at 360 px")
    args = parser.parse_args(argv)

    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        server, url, tid, login = serve_demo(Path(tmp) / "demo.db")
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            if args.companion:
                companion_shots(browser, server, url, tid, args.out)
                return 0
            # Accept-Language sk: the default locale, as a venue's browser would ask
            ctx = browser.new_context(viewport=DESKTOP, locale="sk-SK", timezone_id="Europe/Bratislava")
            page = ctx.new_page()
            sign_in(page, url, login)
            args.out.mkdir(parents=True, exist_ok=True)

            page.goto(f"{url}/operator/t/{tid}")
            page.screenshot(path=str(args.out / "screenshot.png"))

            # the desk with the first missing table half typed: the running total shows
            page.goto(f"{url}/operator/t/{tid}/round/3/results")
            first = page.locator("article.desk-table:not(.is-in)").first
            first.locator("input[name=sum0]").press_sequentially("14,60")
            first.locator("input[name=sum1]").press_sequentially("9,80")
            first.locator(".desk-total").wait_for()
            first.evaluate("el => window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 140)")
            page.screenshot(path=str(args.out / "screenshot-desk.png"))

            if args.phone:
                round_page = f"{url}/operator/t/{tid}/round/3"
                page.goto(round_page)
                table_link = page.locator(".draw-table:has(.badge.bad) a.table-link").first.get_attribute("href")
                done_link = page.locator(".draw-table:has(.badge.ok) a.table-link").first.get_attribute("href")
                ctx.close()
                phone = browser.new_context(viewport=PHONE, locale="sk-SK", timezone_id="Europe/Bratislava",
                                            device_scale_factor=1, is_mobile=True, has_touch=True)
                page = phone.new_page()
                args.phone.mkdir(parents=True, exist_ok=True)
                shots = {"standings": f"{url}/t/{tid}/standings", "player": f"{url}/t/{tid}/player/1",
                         "home": f"{url}/", "table": table_link, "table-in": done_link,
                         "projector": f"{url}/t/{tid}/projector", "nominations": f"{url}/t/{tid}/nominations"}
                for name, target in shots.items():
                    page.goto(target)
                    page.screenshot(path=str(args.phone / f"{name}.png"), full_page=True)
                    width = page.evaluate("document.documentElement.scrollWidth")
                    print(f"{name}: scroll width {width}px" + ("  <-- overflows" if width > PHONE["width"] else ""))
        finally:
            browser.close()
            server.shutdown()
    print(f"written: {args.out / 'screenshot.png'}, {args.out / 'screenshot-desk.png'}")
    return 0


def companion_shots(browser, server, url: str, tid: int, out: Path) -> None:
    """A player's "my tournament" (opened by the personal link, as its QR code on the PIN slip
    would) in Slovak and Russian; a table's call reaching the referee, and the table seeing it taken."""
    from webapp.demo.seed import DEMO_REFEREE
    from webapp.extensions import db
    from webapp.models import Round
    from webapp.services import companion
    from webapp.services.tokens import table_token

    with server.app.app_context():
        r = db.session.scalar(db.select(Round).where(Round.tournament_id == tid).order_by(Round.number.desc()))
        tab = next(x for x in r.tables if x.sheet is None)
        start_no, token = tab.players[0], table_token(tid, r.number, tab.number)
        key = companion.player_key(tid, start_no)
    out.mkdir(parents=True, exist_ok=True)
    for lang, locale in (("sk", "sk-SK"), ("ru", "ru-RU")):
        ctx = browser.new_context(viewport=PHONE, locale=locale, timezone_id="Europe/Bratislava",
                                  device_scale_factor=1, is_mobile=True, has_touch=True)
        page = ctx.new_page()
        page.goto(f"{url}/t/{tid}/me?lang={lang}#n={start_no}&k={key}")
        page.locator(".me-table-no").wait_for()
        page.locator("#me-age:not([hidden])").wait_for()
        page.screenshot(path=str(out / f"my-tournament-360-{lang}.png"), full_page=True)
        ctx.close()
    phone = browser.new_context(viewport=PHONE, locale="sk-SK", timezone_id="Europe/Bratislava",
                                device_scale_factor=1, is_mobile=True, has_touch=True).new_page()
    phone.goto(f"{url}/s/{token}")
    phone.locator("#call-open").click()
    phone.fill("#call-reason", "Nezhoda pri poslednej hre")
    phone.locator("#call-send").click()
    phone.locator("#call-status.call-open").wait_for()
    referee = browser.new_context(viewport=PHONE, locale="sk-SK", timezone_id="Europe/Bratislava",
                                  device_scale_factor=1, is_mobile=True, has_touch=True).new_page()
    referee.goto(f"{url}/login")
    referee.fill("input[name=username]", DEMO_REFEREE[0])
    referee.fill("input[name=password]", DEMO_REFEREE[1])
    referee.locator("input[name=password]").press("Enter")
    referee.wait_for_url(f"{url}/referee/")
    referee.locator(".call-item").wait_for()
    referee.screenshot(path=str(out / "referee-call-360.png"))
    referee.locator(".call-take button").click()
    phone.locator("#call-status.call-taken").wait_for(timeout=15_000)
    phone.locator("#call-box").scroll_into_view_if_needed()
    phone.screenshot(path=str(out / "referee-call-taken-360.png"))
    print("written: my-tournament-360-sk.png, my-tournament-360-ru.png, referee-call-360.png, "
          "referee-call-taken-360.png in", out)


if __name__ == "__main__":
    sys.exit(main())
