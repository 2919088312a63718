"""The web app manifest on every page, the sign-in link, Flask-Login's
message in the UI language, PIN slips in the players' languages, the CSV header
example, and the dashboard's word on the phones' offline mode."""
from __future__ import annotations

import json
import re
import struct
from pathlib import Path

import pytest

from tests.helpers import login, make_tournament, make_user, open_round, text
from webapp.extensions import db
from webapp.models import Player, Tournament

STATIC = Path(__file__).resolve().parents[2] / "webapp" / "static"


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", path
    return struct.unpack(">II", data[16:24])


# --------------------------------------------------------------------------- manifest


def test_manifest_is_valid_and_its_icons_are_the_sizes_it_says(client):
    r = client.get("/manifest.webmanifest")
    assert r.status_code == 200 and r.mimetype == "application/manifest+json"
    m = json.loads(r.get_data(as_text=True))
    assert m["name"] and m["short_name"] and len(m["short_name"]) <= 12
    assert m["start_url"] == "/" and m["scope"] == "/" and m["display"] == "standalone"
    assert re.fullmatch(r"#[0-9a-f]{6}", m["theme_color"]) and re.fullmatch(r"#[0-9a-f]{6}", m["background_color"])
    seen = set()
    for icon in m["icons"]:
        assert icon["type"] == "image/png" and icon["src"].startswith("/static/icons/")
        w, h = png_size(STATIC / icon["src"].removeprefix("/static/").split("?")[0])  # ?v=: a cache buster
        assert icon["sizes"] == f"{w}x{h}"
        assert client.get(icon["src"]).status_code == 200
        seen.add((w, icon["purpose"]))
    assert {(192, "any"), (512, "any"), (192, "maskable"), (512, "maskable")} <= seen


def test_maskable_icons_fill_the_square_and_plain_ones_have_clear_corners():
    import zlib

    def first_pixel(path: Path) -> tuple[int, ...]:
        data = path.read_bytes()
        idat, pos = b"", 8
        while pos < len(data):
            length, kind = struct.unpack(">I4s", data[pos:pos + 8])
            if kind == b"IDAT":
                idat += data[pos + 8:pos + 8 + length]
            pos += 12 + length
        raw = zlib.decompress(idat)
        return tuple(raw[1:5])  # filter byte, then RGBA of the top-left pixel

    for size in (192, 512):
        assert first_pixel(STATIC / f"icons/icon-maskable-{size}.png")[3] == 255
        assert first_pixel(STATIC / f"icons/icon-{size}.png")[3] == 0


@pytest.fixture
def pages(app, op):
    """One page of each kind: operator, referee, public, the table page, sign-in."""
    tid = make_tournament(app, 9)
    open_round(app, tid)
    from webapp.services.tokens import table_token

    with app.app_context():
        token = table_token(tid, 1, 1)
    return tid, ["/operator/", f"/operator/t/{tid}", f"/operator/t/{tid}/round/1", "/referee/", "/",
                 f"/t/{tid}/standings", f"/t/{tid}/projector", f"/s/{token}"]


def test_manifest_is_linked_from_every_page_type(app, client, pages):
    tid, urls = pages
    for url in urls:
        body = text(client.get(url))
        assert '<link rel="manifest" href="/manifest.webmanifest">' in body, url
        assert '<meta name="theme-color" content="#102a43">' in body, url
    client.post("/logout")
    body = text(client.get("/login"))
    assert '<link rel="manifest" href="/manifest.webmanifest">' in body


# --------------------------------------------------------------------------- sign-in link, Flask-Login


def test_home_page_has_a_visible_sign_in_link_for_visitors(anon):
    body = text(anon.get("/?lang=sk"))
    assert body.count('href="/login"') == 2 and "Prihlásiť sa" in body and "Obsluha a rozhodcovia:" in body
    assert '<a class="signin" href="/login">Prihlásiť sa</a>' in body  # the top bar of every page, for visitors
    assert 'class="signin"' not in text(anon.get("/login"))  # no link to the page one is on


def test_signed_in_users_see_no_sign_in_link(app, op):
    assert 'href="/login"' not in text(op.get("/"))


@pytest.mark.parametrize("lang, words", [
    ("sk", "Na otvorenie tejto stránky sa prihláste."),
    ("cs", "Pro otevření této stránky se přihlaste."),
    ("en", "Please sign in to open this page."),
])
def test_login_required_message_is_in_the_ui_language(client, lang, words):
    client.set_cookie("lang", lang)
    r = client.get("/operator/", follow_redirects=True)
    body = text(r)
    assert r.request.path == "/login" and words in body and "Please log in to access this page." not in body
    assert 'class="flash flash-warning"' in body


# --------------------------------------------------------------------------- PIN slips, CSV header


def test_pin_slips_print_in_the_tournaments_paper_language_and_explain_both_ways_to_sign(app, op):
    """The slip speaks the players' language (SEM: Slovak), not the operator's, and explains signing on
    the sheet keeper's phone and on one's own; a Thousand field gets Russian slips (TH-6), and the
    tournament's paper language, when set, wins."""
    tid = make_tournament(app, 3)
    app.config["LISTOK_PIN_HASH_METHOD"] = "pbkdf2:sha256:1000"
    op.set_cookie("lang", "en")  # the operator's language does not matter
    html = text(op.post(f"/operator/t/{tid}/pins", data={"start_no": ["1", "2", "3"]}))
    slips = re.findall(r'<article class="pin-slip".*?</article>', html, re.S)
    assert len(slips) == 3
    for slip in slips:
        assert 'lang="sk"' in slip and "Váš PIN" in slip
        assert "Na telefóne hráča, ktorý vedie lístok" in slip
        assert "Alebo na vlastnom telefóne: naskenujte QR kód" in slip
        assert "Your PIN" not in slip and "phone" not in slip
    with app.app_context():
        t = db.session.get(Tournament, tid)
        t.ruleset = "thousand"
        pid = db.session.scalar(db.select(Player.id).where(Player.tournament_id == tid, Player.start_no == 1))
        db.session.commit()
    one = text(op.post(f"/operator/t/{tid}/players/{pid}/pin", data={}))
    slip = re.search(r'<article class="pin-slip".*?</article>', one, re.S).group(0)
    assert 'lang="ru"' in slip and "Ваш PIN" in slip and "Или на своём телефоне" in slip
    assert "Issue a new PIN" in one  # the page itself: the operator's English
    with app.app_context():
        db.session.get(Tournament, tid).paper_language = "cs"
        db.session.commit()
    one = text(op.post(f"/operator/t/{tid}/players/{pid}/pin", data={}))
    slip = re.search(r'<article class="pin-slip".*?</article>', one, re.S).group(0)
    assert 'lang="cs"' in slip and "Nebo na vlastním telefonu" in slip


def test_bulk_pin_issue_for_400_players_is_one_request_of_keyed_verifiers(app, op):
    """399 slips in one request, every verifier the keyed HMAC (cheap to make), none a slow
    werkzeug hash: the speed itself is measured in benchmarks, not asserted here."""
    from webapp.services.pins import VERIFIER

    tid = make_tournament(app, 399)
    r = op.post(f"/operator/t/{tid}/pins", data={"start_no": [str(s) for s in range(1, 400)]})
    assert r.status_code == 200 and text(r).count('<article class="pin-slip"') == 399
    with app.app_context():
        stored = db.session.scalars(db.select(Player.pin_hash).where(Player.tournament_id == tid)).all()
    assert len(stored) == 399 and all(h.startswith(VERIFIER) for h in stored)


@pytest.mark.parametrize("lang", ["sk", "cs", "en"])
def test_csv_header_example_is_in_the_ui_language_and_the_importer_reads_it(app, op, lang):
    from webapp.services.players import preview_csv

    tid = make_tournament(app, 0)
    op.set_cookie("lang", lang)
    body = text(op.get(f"/operator/t/{tid}/players/import"))
    header = re.search(r'<pre class="setup-sample">([^<]*)</pre>', body).group(1)
    assert {"sk": "štartové číslo;id;meno;klub;status;rating", "cs": "startovní číslo;id;jméno;klub;stav;hodnocení",
            "en": "start number;id;name;club;status;rating"}[lang] == header
    with app.test_request_context(f"/?lang={lang}"):
        t = db.session.get(Tournament, tid)
        pv = preview_csv(t, header + "\n1;SK-1;Anna Nováková;MK Poprad;registered;1500\n")
        assert not pv.errors and not pv.warnings and pv.rows[0].data.name == "Anna Nováková"


# --------------------------------------------------------------------------- offline mode on the dashboard


@pytest.mark.parametrize("public_url, badge, words", [
    ("https://listok.example.org", "badge ok", "The address is HTTPS"),
    ("http://192.168.1.10:8000", "badge warn", "Phones work only while the Wi-Fi works"),
    ("", "badge bad", "Phones cannot open this address"),  # the test client's host: localhost
])
def test_dashboard_says_whether_phones_get_offline_mode(app, op, public_url, badge, words):
    tid = make_tournament(app, 9)
    app.config["LISTOK_PUBLIC_URL"] = public_url
    body = text(op.get(f"/operator/t/{tid}"))
    block = body[body.index('id="offline-mode"'):]
    block = block[:block.index("</div>")]
    assert (public_url or "http://localhost") + "/" in block and badge in block and words in block
