"""Larger text and high contrast on a 360 px phone: switched in the top bar of
every page, kept on the phone across pages and visits, and with both on the
player's pages pass axe (no serious or critical violation) and the touch-target
check, with no sideways scrolling."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_accessibility import axe_problems, small_targets
from tests.browser.test_referee import venue  # noqa: F401 (fixture)
from webapp.services.tokens import table_token

pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 360, "height": 740}, "has_touch": True, "is_mobile": True, "device_scale_factor": 2}


def test_larger_text_and_high_contrast_kept_and_accessible(browser, venue):  # noqa: F811
    url, app, tid, pins, _seats = venue
    with app.app_context():
        token = table_token(tid, 2, 1)
    errors: list[str] = []
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{url}/t/{tid}/me?lang=en")
    page.fill("#me-start-no", "5")
    page.fill("#me-pin", pins[5])
    page.get_by_role("button", name="Open my page").tap()
    expect(page.locator(".me-table-no")).to_be_visible()
    size = page.locator(".me-table-no").evaluate("e => parseFloat(getComputedStyle(e).fontSize)")

    page.get_by_role("button", name="Larger text").tap()
    page.get_by_role("button", name="High contrast").tap()
    expect(page.get_by_role("button", name="Larger text")).to_have_attribute("aria-pressed", "true")
    assert page.evaluate("document.documentElement.className").split() == ["text-large", "contrast-high"]
    assert page.locator(".me-table-no").evaluate("e => parseFloat(getComputedStyle(e).fontSize)") > size
    assert page.locator("html").evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(255, 255, 255)"

    problems = {}
    for path in (f"/t/{tid}/me", f"/s/{token}", "/scan", f"/t/{tid}/player/5", "/"):
        page.goto(f"{url}{path}?lang=en")  # kept on the phone: every page opens with both on
        page.wait_for_load_state("networkidle")
        found = [f"html class {page.evaluate('document.documentElement.className')!r}"] \
            if "text-large" not in page.evaluate("document.documentElement.className") else []
        found += axe_problems(page) + [f"touch target {x}" for x in small_targets(page)]
        if page.evaluate("document.documentElement.scrollWidth") > 360:
            found.append(f"scrolls sideways: {page.evaluate('document.documentElement.scrollWidth')} px")
        if found:
            problems[path] = found
    assert problems == {}

    page.get_by_role("button", name="Larger text").tap()
    page.reload()
    assert page.evaluate("document.documentElement.className").split() == ["contrast-high"]
    assert errors == []
