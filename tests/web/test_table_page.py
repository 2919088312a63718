"""The phone score sheet page (/s/<token>), its service worker (/sw.js), the
insecure-context notice, compression, and the receipts on a player's page.
What the scripts do with it is tested in a real browser (tests/browser/test_phone.py)."""
from __future__ import annotations

import gzip
import json
import re
import shutil
from decimal import Decimal as D
from pathlib import Path

import pytest

from tests.helpers import issue_pins, make_tournament, signed_submission
from webapp.extensions import db
from webapp.models import Tournament
from webapp.services import rounds
from webapp.services.tokens import table_token
from webapp.views import table as table_view


@pytest.fixture
def anon(app):
    return app.test_client()


def text(resp) -> str:
    return resp.get_data(as_text=True)


def published(app, n=9, pins: dict | None = None) -> int:
    """A published round 1; `pins` (a dict) is filled with PINs issued before it."""
    tid = make_tournament(app, n)
    if pins is not None:
        pins.update(issue_pins(app, tid))
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r = rounds.draw_round(t, "test")
        rounds.publish_round(t, r, "test", t.version)
        db.session.commit()
    return tid


def token_for(app, tid, n, table):
    with app.test_request_context():
        return table_token(tid, n, table)


def json_block(page: str, ident: str) -> dict:
    m = re.search(rf'<script type="application/json" id="{ident}">(.*?)</script>', page, re.S)
    assert m, f"no #{ident} block"
    return json.loads(m.group(1))


def seated(app, tid, table=1):
    with app.app_context():
        t = db.session.get(Tournament, tid)
        by_no = {p.start_no: p for p in t.players}
        return [by_no[s] for s in t.rounds[-1].tables[table - 1].players]


# --------------------------------------------------------------------------- the page


def test_sheet_page_has_the_entry_form_signing_and_the_data_its_script_needs(app, anon):
    tid = published(app)
    token = token_for(app, tid, 1, 2)
    resp = anon.get(f"/s/{token}?lang=en")
    page = text(resp)
    assert resp.status_code == 200
    players = seated(app, tid, 2)
    # round, table, the three players and whose cards (SEM-B5a/b, SEM-C3)
    assert "Round 1, table 2" in page and f"Cards of player 3: {players[2].name}" in page
    for p in players:
        surname, first = p.name.split(" ", 1)
        assert f"<b>{surname}</b> {first}" in page and (p.club or "") in page
    # three big numeric fields, a disabled confirm button, the note field, the signature pad and PIN
    assert len(re.findall(r'<input id="sum\d" name="sum\d" type="text" inputmode="decimal"', page)) == 3
    assert re.search(r'<button type="submit" id="confirm" class="primary big" disabled>Confirm sums</button>', page)
    assert 'id="note"' in page and "Last game: type and payment" in page
    assert "the referee must co-sign this sheet (SEM-C8)" in page
    assert '<canvas id="sig-pad"' in page and 'id="pin" type="password" inputmode="numeric"' in page
    assert "Total" in page and "of €30.00" in page

    data = json_block(page, "sheet-data")
    assert data["token"] == token and (data["tournament"], data["round"], data["table"]) == (tid, 1, 2)
    assert [p["start_no"] for p in data["players"]] == [p.start_no for p in players]
    assert [p["name"] for p in data["players"]] == [p.name for p in players]
    assert data["total_cents"] == 3000 and data["place_points"] == [5, 3, 1]
    assert data["protocol"] == "listok-sheet/1" and data["sheet"] is None
    assert data["api"] == {"sheets": "/api/v1/sheets", "pin": "/api/v1/pin", "table": "/api/v1/table",
                           "drafts": "/api/v1/drafts", "signatures": "/api/v1/signatures", "preview": "/api/v1/preview"}
    assert data["sw"] == "/sw.js"
    assert data["money"] == {"decimal": ".", "group": ",", "template": "€{}", "whole": False}
    assert data["rules"] == {"result_kind": "money", "currency": "EUR", "table_size": 3, "negative_note": True,
                             "keeper": None, "premium_line": None, "table_points": True,
                             "late_fee_cents": None, "keeper_by_lot": False}
    strings = json_block(page, "sheet-strings")
    assert strings["sent"] == "Sent — receipt %(receipt)s"
    forms = strings.pop("points_forms")  # by CLDR plural category, as Intl.PluralRules answers
    assert forms["one"] == "%(points)s pt" and forms["other"] == "%(points)s pts"
    assert all(isinstance(v, str) and v for v in strings.values())


def test_sheet_page_writes_money_the_slovak_way(app, anon):
    tid = published(app)
    page = text(anon.get(f"/s/{token_for(app, tid, 1, 1)}?lang=sk"))
    data = json_block(page, "sheet-data")
    assert data["money"]["decimal"] == "," and data["money"]["template"].endswith("€")
    assert 'placeholder="0,00"' in page
    assert '<html lang="sk">' in page


def test_sheet_page_shows_what_the_server_has(app, anon):
    pins = {}
    tid = published(app, pins=pins)
    body = signed_submission(app, tid, 1, 1, [1450, 1000, 550], pins)
    answer = anon.post("/api/v1/sheets", json=body).get_json()
    assert answer["status"] == "accepted"
    page = text(anon.get(f"/s/{token_for(app, tid, 1, 1)}?lang=en"))
    data = json_block(page, "sheet-data")
    assert data["sheet"]["receipt"] == answer["receipt"] and data["sheet"]["sums_cents"] == [1450, 1000, 550]
    assert data["sheet"]["status"] == "accepted" and data["sheet"]["version"] == 1
    assert "Sheet received" in page and f"receipt {answer['receipt']}" in page
    assert "€14.50" in page and "€5.50" in page


def test_sheet_page_loads_only_assets_the_service_worker_precaches(app, anon):
    tid = published(app)
    page = text(anon.get(f"/s/{token_for(app, tid, 1, 1)}"))
    loaded = set(re.findall(r'(?:src|href)="(/static/[^"]+)"', page))  # with their content-hash query
    sw = text(anon.get("/sw.js"))
    precache = json.loads(re.search(r"var PRECACHE = (\[.*?\]);", sw).group(1))
    assert loaded == set(precache)
    for url in precache:
        assert anon.get(url).status_code == 200


def test_every_import_of_the_sheet_modules_is_precached(app, anon):
    """An import resolves against the importing module's URL and drops its query: the worker must
    hold each module under that plain URL, or the page fails offline."""
    sw = text(anon.get("/sw.js"))
    precache = set(json.loads(re.search(r"var PRECACHE = (\[.*?\]);", sw).group(1)))
    folder = Path(app.static_folder) / "js" / "sheet"
    modules = sorted(folder.glob("*.js"))
    assert len(modules) > 1
    imported = set()
    for module in modules:
        for name in re.findall(r'^import .* from "\./([\w-]+\.js)";$', module.read_text(), re.M):
            assert (folder / name).is_file() and f"/static/js/sheet/{name}" in precache, (module.name, name)
            imported.add(name)
    assert imported == {m.name for m in modules} - {"main.js"}  # no module is left unused
    assert any(u.startswith("/static/js/sheet/main.js?v=") for u in precache)  # the entry, by its hash URL


def test_sheet_page_refusals_keep_their_messages(app, anon):
    tid = published(app)
    resp = anon.get("/s/forged.token.here?lang=en")
    assert resp.status_code == 404 and "This table link is not valid" in text(resp)
    assert "sheet-data" not in text(resp)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        for tab in t.rounds[0].tables:
            rounds.record_sheet(t, tab, [D("10"), D("10"), D("10")], "test")
        rounds.close_round(t, t.rounds[0], "test", t.version)
        db.session.commit()
    resp = anon.get(f"/s/{token_for(app, tid, 1, 1)}?lang=en")
    assert resp.status_code == 410 and "Round 1 is over" in text(resp) and "sheet-data" not in text(resp)


# --------------------------------------------------------------------------- offline mode needs HTTPS


def test_plain_http_on_a_lan_shows_that_offline_mode_is_off(app, anon):
    tid = published(app)
    page = text(anon.get(f"/s/{token_for(app, tid, 1, 1)}?lang=en", base_url="http://192.168.1.20:8000"))
    notice = re.search(r'<p id="offline-off"[^>]*>(.*?)</p>', page, re.S)
    assert notice and " hidden" not in notice.group(0)
    assert "Offline mode is off" in notice.group(1) and "HTTPS" in notice.group(1)
    # the script says the same when it finds no secure context
    assert "HTTPS" in json_block(page, "sheet-strings")["offline_insecure"]


@pytest.mark.parametrize("base", ["http://localhost", "http://127.0.0.1:5000", "https://listok.example"])
def test_secure_contexts_do_not_show_the_notice(app, anon, base):
    tid = published(app)
    page = text(anon.get(f"/s/{token_for(app, tid, 1, 1)}", base_url=base))
    assert re.search(r'<p id="offline-off"[^>]* hidden>', page)


# --------------------------------------------------------------------------- the service worker


def test_service_worker_is_served_from_the_root_and_cached_for_five_minutes(app, anon):
    resp = anon.get("/sw.js")
    assert resp.status_code == 200
    assert resp.mimetype == "text/javascript"
    assert resp.headers["Cache-Control"] == "max-age=300"
    assert resp.headers["Service-Worker-Allowed"] == "/"
    source = text(resp)
    version = re.search(r'var VERSION = "([0-9a-f]{16})";', source)
    assert version and "__VERSION__" not in source and "__PRECACHE__" not in source
    assert "importScripts" not in source and "__OUTBOX__" not in source
    assert "root.ListokOutbox = {" in source  # the outbox, inlined
    assert '"listok-static-" + VERSION' in source and '"listok-pages-" + VERSION' in source


def test_an_unchanged_service_worker_answers_304(app, anon):
    first = anon.get("/sw.js", headers={"Accept-Encoding": "gzip"})
    assert first.headers["Content-Encoding"] == "gzip"
    again = anon.get("/sw.js", headers={"Accept-Encoding": "gzip", "If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""


def test_the_table_page_does_not_load_htmx(app, anon):
    tid = published(app)
    page = text(anon.get(f"/s/{token_for(app, tid, 1, 1)}"))
    assert not [src for src in re.findall(r'<script src="([^"]+)"', page) if "htmx" in src]
    assert "vendor/htmx" in text(anon.get("/login"))  # the other pages keep it


def test_service_worker_version_follows_the_static_files(app, anon, tmp_path):
    first = re.search(r'VERSION = "(\w+)"', text(anon.get("/sw.js"))).group(1)
    assert re.search(r'VERSION = "(\w+)"', text(anon.get("/sw.js"))).group(1) == first
    static = tmp_path / "static"
    shutil.copytree(app.static_folder, static)
    app.static_folder = str(static)
    assert re.search(r'VERSION = "(\w+)"', text(anon.get("/sw.js"))).group(1) == first  # same content
    js = static / "js" / "sheet" / "main.js"
    js.write_text(js.read_text() + "\n// a deploy\n")
    assert re.search(r'VERSION = "(\w+)"', text(anon.get("/sw.js"))).group(1) != first
    second = re.search(r'VERSION = "(\w+)"', text(anon.get("/sw.js"))).group(1)
    js = static / "js" / "sheet" / "render.js"  # a module only an import loads
    js.write_text(js.read_text() + "\n// a deploy\n")
    assert re.search(r'VERSION = "(\w+)"', text(anon.get("/sw.js"))).group(1) != second


# --------------------------------------------------------------------------- compression


def test_page_and_assets_are_compressed_and_small(app, anon):
    tid = published(app)
    url = f"/s/{token_for(app, tid, 1, 1)}"
    resp = anon.get(url, headers={"Accept-Encoding": "gzip"})
    assert resp.headers["Content-Encoding"] == "gzip" and "Accept-Encoding" in resp.headers["Vary"]
    page = gzip.decompress(resp.data).decode()
    total = len(resp.data)
    for path in sorted(set(re.findall(r'(?:src|href)="(/static/[^"?]+)"', page))):
        asset = anon.get(path, headers={"Accept-Encoding": "gzip"})
        compressed = path.endswith(".png") or asset.headers.get("Content-Encoding") == "gzip"  # PNG: deflated already
        assert asset.status_code == 200 and compressed, path
        total += len(asset.get_data())
    assert total < 60 * 1024, f"first load {total} bytes"


def test_api_answers_are_not_cached(app, anon):
    tid = published(app)
    resp = anon.get(f"/api/v1/table?token={token_for(app, tid, 1, 1)}")
    assert resp.status_code == 200 and resp.headers["Cache-Control"] == "no-store"


# --------------------------------------------------------------------------- receipts for the players


def test_player_page_lists_the_receipts_of_their_sheets(app, anon):
    pins = {}
    tid = published(app, pins=pins)
    players = seated(app, tid, 1)
    first = anon.post("/api/v1/sheets", json=signed_submission(app, tid, 1, 1, [1450, 1000, 550], pins)).get_json()
    # a second phone with other sums: a dispute, stored beside the first
    second = anon.post("/api/v1/sheets", json=signed_submission(app, tid, 1, 1, [1500, 1000, 500], pins)).get_json()
    assert (first["status"], second["status"]) == ("accepted", "dispute")
    page = text(anon.get(f"/t/{tid}/player/{players[1].start_no}?lang=en"))
    assert "Receipts of your score sheets" in page
    assert first["receipt"] in page and second["receipt"] in page
    assert "counts" in page and "differs from another sheet: the referee decides" in page
    other = next(p for p in seated(app, tid, 2))
    assert first["receipt"] not in text(anon.get(f"/t/{tid}/player/{other.start_no}?lang=en"))


def test_helpers_money_format_matches_the_filters(app):
    with app.test_request_context("/?lang=sk"):
        fmt = table_view.money_format()
        from webapp.i18n import money

        assert fmt["template"].replace("{}", "1" + fmt["group"] + "234" + fmt["decimal"] + "50") == money(D("1234.50"))
