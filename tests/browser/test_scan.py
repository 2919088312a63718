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


def camera_video(browser, data: str, path) -> str:
    """A fake camera's film (MJPEG: JPEG frames one after another) of a printed sheet's QR code,
    as Chromium's --use-file-for-fake-video-capture plays it."""
    page = browser.new_page(viewport={"width": 640, "height": 480})
    page.set_content(f'<body style="margin:0;background:#f4f1ea;display:grid;place-items:center;height:480px">'
                     f'<div style="background:#fff;padding:24px;width:300px">{qr_svg(data).replace("mm", "px")}'
                     f'<p style="font:14px sans-serif">Round 2, table 1</p></div></body>')
    frame = page.screenshot(type="jpeg", quality=90)
    page.close()
    path.write_bytes(frame * 30)
    return str(path)


def fake_camera(browser, video: str):
    """A chromium of its own whose camera films `video`, the permission prompt answered yes."""
    from tests.conftest import CHROMIUM, CHROMIUM_ARGS

    return browser.browser_type.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS + [
        "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
        f"--use-file-for-fake-video-capture={video}"])


def test_camera_films_table_qr_and_its_sheet_opens_a_foreign_one_refused(browser, venue, tmp_path):  # noqa: F811
    """The camera path at 360 px: Chromium's fake camera films a table's QR code (decoded on the
    frames by BarcodeDetector where the browser has it, else the vendored jsQR) and its sheet opens;
    a camera filming a foreign QR code is told so and nothing opens."""
    url, app, tid, _pins, _seats = venue
    with app.test_request_context(base_url=url):
        link = sheet_url(tid, 2, 1)
    for data, expected in (("https://example.com/s/WzEsMiwxXQ.x.y", None), (link, link)):
        b = fake_camera(browser, camera_video(browser, data, tmp_path / f"qr-{expected is None}.mjpeg"))
        try:
            ctx = b.new_context(**PHONE, permissions=["camera"])
            page = ctx.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{url}/scan?lang=en")
            page.get_by_role("button", name="Scan the table’s QR code").tap()
            if expected is None:
                expect(page.locator("#scan-status")).to_have_text(
                    "This QR code is not a table of this tournament server: it was not opened.", timeout=15_000)
                expect(page.locator("#scan-video")).to_be_visible()  # still looking for the table's code
                assert page.url.endswith("/scan?lang=en")
            else:
                expect(page).to_have_url(expected, timeout=15_000)
                expect(page.locator("h1")).to_have_text("Round 2, table 1")
            assert errors == []
            ctx.close()
        finally:
            b.close()
