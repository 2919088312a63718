"""Scanning a table inside the app on a 360 px phone, in a real browser: a
photo (the file input) of a table's printed QR code opens its sheet; a QR code
of a foreign address is refused; the table code typed by hand opens the sheet."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_referee import venue  # noqa: F401 (fixture)
from webapp.services import table_codes
from webapp.views.operator.qr import qr_svg
from webapp.views.shared import sheet_url

pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 360, "height": 740}, "has_touch": True, "is_mobile": True, "device_scale_factor": 2}


def qr_png(browser, data: str) -> bytes:
    """A PNG photo of the QR code as the sheets print it (the operator's SVG, rendered by chromium)."""
    page = browser.new_page(viewport={"width": 400, "height": 400})
    page.set_content(f'<body style="margin:0;background:#fff"><div id="q" style="padding:24px;width:300px">'
                     f'{qr_svg(data).replace("mm", "px")}</div></body>')
    png = page.locator("#q").screenshot()
    page.close()
    return png


def test_photo_of_table_qr_opens_sheet_foreign_refused_code_typed(browser, venue):  # noqa: F811
    url, app, tid, _pins, _seats = venue
    with app.test_request_context(base_url=url):
        link = sheet_url(tid, 2, 1)
        code = table_codes.table_code(tid, 2, 2)
    assert link.startswith(url + "/s/")
    errors: list[str] = []
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))

    page.goto(f"{url}/?lang=en")
    page.get_by_role("link", name="Scan table").tap()
    expect(page.locator("h1")).to_have_text("Scan table")

    # a foreign address in a QR code: refused, the page stays
    page.set_input_files("#scan-file", files=[{"name": "photo.png", "mimeType": "image/png",
                                               "buffer": qr_png(browser, "https://example.com/s/WzEsMiwxXQ.x.y")}])
    expect(page.locator("#scan-status")).to_have_text(
        "This QR code is not a table of this tournament server: it was not opened.")
    assert page.url.endswith("/scan")

    # the table's own QR code: its sheet opens in this window
    page.set_input_files("#scan-file", files=[{"name": "photo.png", "mimeType": "image/png",
                                               "buffer": qr_png(browser, link)}])
    expect(page).to_have_url(link)
    expect(page.locator("h1")).to_have_text("Round 2, table 1")

    # no camera at all: the code printed under the QR code
    page.goto(f"{url}/scan?lang=en")
    page.fill("#scan-code", code.lower().replace("-", " "))
    page.get_by_role("button", name="Open the table").tap()
    expect(page.locator("h1")).to_have_text("Round 2, table 2")
    assert errors == []
