"""The printed sheets (SEM-B5, CSM-3, TH-3) as Chromium prints them: exactly four to an A4 page,
every table's QR code readable from the rendered page, in the tournament's paper language, and on
ČSM sheets writable lines for the games of 50 PB or more and a referee line inside the sheet.

The PDF (page.pdf) is rendered to images with poppler's pdftoppm and the QR codes are read back
with zbar's zbarimg (Debian's poppler-utils and zbar-tools, installed by scripts/test)."""
from __future__ import annotations

import math
import shutil
import subprocess
import pytest

from tests.browser.test_rulesets_desk import new_tournament, signed_in
from tests.helpers import make_user
from webapp.extensions import db
from webapp.models import Player, Tournament
from webapp.services import rounds

pytestmark = pytest.mark.browser

MM = 96 / 25.4  # CSS pixels per millimetre
# rule set, players (several pages each), the words the sheet's header shows in its paper language
CASES = {
    "sem": (45, "kolo"),  # 15 tables: 4 pages
    "bbliga": (15, "kolo"),
    "smu": (16, "kolo"),  # SMU-1: 3 + 3 + 3 + 3 + 4
    "csm": (22, "kolo"),  # CSM-1: 4 x 4 + 2 x 3
    "thousand": (20, "Тур"),  # TH-1: 4 x 3 + 2 x 4
}


def published_round(app, code: str, n: int) -> tuple[int, int]:
    tid = new_tournament(app, code, n, f"{code} print")
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r = rounds.draw_round(t, "test")
        rounds.publish_round(t, r, "test", t.version)
        db.session.commit()
        tid, tables = t.id, len(r.tables)
        db.session.remove()
    return tid, tables


def qr_codes(pdf: bytes, tmp_path) -> tuple[int, list[set[str]]]:
    """(pages, the QR codes read from each page)."""
    (tmp_path / "sheets.pdf").write_bytes(pdf)
    subprocess.run(["pdftoppm", "-r", "200", "-png", str(tmp_path / "sheets.pdf"), str(tmp_path / "page")],
                   check=True)
    images = sorted(tmp_path.glob("page-*.png"))
    found = []
    for image in images:
        out = subprocess.run(["zbarimg", "--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", str(image)],
                             capture_output=True, text=True)
        found.append({line.strip() for line in out.stdout.splitlines() if line.strip()})
    return len(images), found


@pytest.mark.skipif(not (shutil.which("pdftoppm") and shutil.which("zbarimg")),
                    reason="scripts/test installs poppler-utils and zbar-tools")
@pytest.mark.parametrize("code", list(CASES))
def test_sem_b5_sheets_print_four_to_an_a4_page_with_readable_qr_codes(live_server, browser, tmp_path, code):
    url, app = live_server
    n, word = CASES[code]
    tid, tables = published_round(app, code, n)
    make_user(app)
    page = signed_in(browser, url, "en", 1280)  # the operator's language: the paper keeps the players' own
    page.goto(f"{url}/operator/t/{tid}/round/1/sheets")
    sheets = page.locator("article.paper-sheet")
    assert sheets.count() == tables
    assert word in sheets.first.locator(".ps-where").inner_text()
    urls = {sheets.nth(i).locator(".ps-qr").get_attribute("title") for i in range(tables)}
    assert len(urls) == tables

    page.emulate_media(media="print")
    for i in range(tables):  # nothing written on the sheet is cut off by its 70 mm
        sheet = sheets.nth(i)
        outer = sheet.bounding_box()
        for part in sheet.locator(".ps-box, .ps-line, .ps-qr svg").all():
            box = part.bounding_box()
            assert box["y"] + box["height"] <= outer["y"] + outer["height"] + 0.5, (code, i, part.evaluate("e => e.outerHTML.slice(0, 80)"))
        line = sheet.locator(".ps-referee .ps-line").bounding_box()
        assert line["width"] >= 20 * MM and line["height"] >= 6 * MM
        if code == "csm":  # CSM-3: four writable lines for the games of 50 PB or more
            rows = sheet.locator("tr.ps-premium-row")
            assert rows.count() == 4
            assert all(rows.nth(k).bounding_box()["height"] >= 6 * MM for k in range(4))

    pages, found = qr_codes(page.pdf(format="A4", prefer_css_page_size=True, print_background=True), tmp_path)
    assert pages == math.ceil(tables / 4), (code, tables, pages)
    assert [len(f) for f in found] == [min(4, tables - 4 * k) for k in range(pages)], found
    assert set().union(*found) == urls


def test_thousand_sheets_and_pin_slips_follow_the_paper_language(live_server, browser):
    """TH-6: a Russian-speaking field gets Russian sheets and slips by default; the tournament's
    paper language, chosen on setup, switches both (here to Czech)."""
    url, app = live_server
    tid, _tables = published_round(app, "thousand", 13)
    make_user(app)
    page = signed_in(browser, url, "cs", 1280)
    page.goto(f"{url}/operator/t/{tid}/round/1/sheets")
    assert "Стол" in page.locator("article.paper-sheet").first.inner_text()
    with app.app_context():
        pid = db.session.scalar(db.select(Player.id).where(Player.tournament_id == tid, Player.start_no == 1))
    page.goto(f"{url}/operator/t/{tid}/players/{pid}/pin")
    page.locator("form[action$='/pin'] button.primary").click()
    slip = page.locator("article.pin-slip")
    assert slip.get_attribute("lang") == "ru"
    assert "Или на своём телефоне" in slip.inner_text() and "протокол" in slip.inner_text()
    # the personal QR code as printed reads back as the player's own link ("my tournament")
    import subprocess
    import tempfile

    qr = slip.locator(".pin-slip-qr")
    assert "Отсканируйте" in qr.inner_text()
    with tempfile.NamedTemporaryFile(suffix=".png") as shot:
        shot.write(qr.locator("svg").screenshot())
        shot.flush()
        read = subprocess.run(["zbarimg", "-q", "--raw", shot.name], capture_output=True, text=True).stdout.strip()
    assert read == qr.get_attribute("data-me-link") and read.startswith(f"{url}/t/{tid}/me#n=1&k=1.")
    page.goto(f"{url}/operator/t/{tid}")
    page.select_option("#paper_language", "cs")
    page.locator("form.paper-language button").click()
    page.goto(f"{url}/operator/t/{tid}/round/1/sheets")
    assert "Stůl" in page.locator("article.paper-sheet").first.inner_text()
