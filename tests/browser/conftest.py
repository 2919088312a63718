"""Every page a browser test opens watches for Content-Security-Policy
violations, and the test fails at teardown if there was one: the strict policy
(webapp/http/headers.py) must never block anything the pages themselves do.

Browser.new_context / new_page are wrapped for the whole session, so every
context counts, also one made from `page.context.browser`.
"""
from __future__ import annotations

import pytest

CSP_PREFIX = "CSP violation: "
# what the page itself sees (the event fires before the console message Chromium writes)
WATCH_SCRIPT = """
document.addEventListener("securitypolicyviolation", function (e) {
  console.error(%r + e.effectiveDirective + " blocked " + (e.blockedURI || "inline") +
                " in " + (e.sourceFile || e.documentURI) + ":" + e.lineNumber +
                (e.sample ? " (" + e.sample + ")" : ""));
}, true);
""" % CSP_PREFIX

violations: list[str] = []


def _watch_page(page) -> None:
    def on_console(msg):
        text = msg.text
        if msg.type == "error" and (text.startswith(CSP_PREFIX) or text.startswith("Refused to")):
            violations.append(f"{page.url}: {text}")

    page.on("console", on_console)


def _watch_context(context) -> None:
    context.add_init_script(WATCH_SCRIPT)
    context.on("page", _watch_page)
    for page in context.pages:
        _watch_page(page)


@pytest.fixture(scope="session", autouse=True)
def _csp_watch():
    try:
        from playwright.sync_api import Browser
    except ImportError:  # the browser tests fail on their own then
        yield
        return
    new_context, new_page = Browser.new_context, Browser.new_page

    def watched_context(self, *args, **kwargs):
        context = new_context(self, *args, **kwargs)
        _watch_context(context)
        return context

    def watched_page(self, *args, **kwargs):
        page = new_page(self, *args, **kwargs)  # a context of its own, made below the wrapper
        _watch_context(page.context)
        return page

    mp = pytest.MonkeyPatch()
    mp.setattr(Browser, "new_context", watched_context)
    mp.setattr(Browser, "new_page", watched_page)
    yield
    mp.undo()


@pytest.fixture(autouse=True)
def no_csp_violations(_csp_watch):
    """Fails a browser test whose pages broke the Content-Security-Policy."""
    violations.clear()
    yield violations
    found, violations[:] = list(violations), []
    if found:
        pytest.fail("Content-Security-Policy violations:\n" + "\n".join(found), pytrace=False)
