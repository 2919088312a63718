"""The strict Content-Security-Policy in a real browser: the pages' own scripts
run under it, anything inline is refused, and the browser tests' watcher
(tests/browser/conftest.py) really sees a refusal."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.helpers import make_tournament

pytestmark = pytest.mark.browser


def test_inline_script_and_style_are_refused_and_the_watcher_sees_it(browser, live_server, no_csp_violations):
    url, app = live_server
    tid = make_tournament(app, 9)
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{url}/t/{tid}/standings?lang=en")
    page.evaluate("""() => {
        const s = document.createElement("script");
        s.textContent = "window.injected = 1";
        document.body.appendChild(s);
        const d = document.createElement("div");
        d.id = "styled";
        d.setAttribute("style", "color: rgb(255, 0, 0)");
        document.body.appendChild(d);
    }""")
    expect(page.locator("#styled")).to_be_attached()
    assert page.evaluate("window.injected") is None
    assert page.evaluate("getComputedStyle(document.getElementById('styled')).color") != "rgb(255, 0, 0)"
    page.evaluate("new Promise(r => setTimeout(r, 100))")  # the violation events are queued tasks
    context.close()
    seen = list(no_csp_violations)
    no_csp_violations.clear()  # they were this test's purpose
    assert any("script-src" in v for v in seen), seen
    assert any("style-src" in v for v in seen), seen


def test_htmx_adds_no_style_of_its_own(browser, live_server):
    url, app = live_server
    tid = make_tournament(app, 9)
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{url}/t/{tid}/standings?lang=en")
    page.wait_for_function("window.htmx !== undefined")
    assert page.evaluate("document.querySelectorAll('style').length") == 0
    context.close()
