"""The table page is installable — Chromium reads its web app manifest
without errors (CDP Page.getAppManifest), and the service worker still runs."""
from __future__ import annotations

import json

import pytest

from tests.helpers import make_tournament
from webapp.extensions import db
from webapp.models import Tournament
from webapp.services import rounds
from webapp.services.tokens import table_token

pytestmark = pytest.mark.browser


def test_chromium_reads_the_manifest_of_the_table_page_without_errors(browser, live_server):
    url, app = live_server
    tid = make_tournament(app, 9)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r = rounds.draw_round(t, "test")
        rounds.publish_round(t, r, "test", t.version)
        db.session.commit()
    with app.test_request_context():
        page_url = f"{url}/s/{table_token(tid, 1, 1)}?lang=sk"
    context = browser.new_context(viewport={"width": 360, "height": 740}, has_touch=True, is_mobile=True)
    try:
        page = context.new_page()
        page.goto(page_url)
        page.wait_for_load_state("networkidle")
        cdp = context.new_cdp_session(page)
        got = cdp.send("Page.getAppManifest")
        assert got["url"] == f"{url}/manifest.webmanifest"
        assert got["errors"] == [], got["errors"]
        manifest = json.loads(got["data"])
        assert manifest["display"] == "standalone" and manifest["start_url"] == "/"
        assert got["parsed"]["scope"] == f"{url}/"
        assert {i["purpose"] for i in manifest["icons"]} == {"any", "maskable"}
        # what keeps Chromium from offering "Install app" / "Add to home screen": only that a test
        # browser context is incognito (a missing icon, display or start_url would be listed here)
        errors = {e["errorId"] for e in cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]}
        assert errors <= {"in-incognito"}, errors
        for icon in manifest["icons"]:
            # the icons load and decode to the size the manifest says
            size = page.evaluate("""src => new Promise((ok, no) => { const i = new Image();
                i.onload = () => ok([i.naturalWidth, i.naturalHeight]); i.onerror = no; i.src = src; })""",
                                 icon["src"])
            assert f"{size[0]}x{size[1]}" == icon["sizes"]
        # the service worker still takes the page (offline mode), manifest or not
        assert page.evaluate("navigator.serviceWorker.ready.then(r => !!r.active)") is True
    finally:
        context.close()
