"""A busy server answers 503 with Retry-After (webapp/serve/admission.py)
and the phone's outbox waits that long before it sends the sheet again."""
from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from tests.browser.test_phone import phones, venue  # noqa: F401 - fixtures
from webapp.models import Submission

pytestmark = pytest.mark.browser


def test_outbox_delay_is_short_for_a_lost_answer_and_honours_retry_after(venue, phones):  # noqa: F811
    ph = phones()
    ph.open(venue.sheet_url(1))
    delays = ph.page.evaluate("""() => ({
        lost: [1, 2, 3, 20].map(a => [0, 1, 2, 3, 4, 5, 6, 7].map(() => ListokOutbox.delay(a, 0))),
        busy: [0, 1, 2, 3, 4, 5, 6, 7].map(() => ListokOutbox.delay(1, 10)),
        ticket: [0, 1, 2, 3, 4, 5, 6, 7].map(() => ListokOutbox.delay(1, 1, 320))})""")
    first, second, third, late = delays["lost"]
    assert all(375 <= d <= 625 for d in first)  # a lost answer: about half a second
    assert all(750 <= d <= 1250 for d in second) and all(1500 <= d <= 2500 for d in third)
    assert all(45000 <= d <= 75000 for d in late)  # at most 60 s ± 25 %
    assert all(10000 <= d <= 15000 for d in delays["busy"])  # Retry-After: 10, spread by up to half
    # the server's ticket (retry_after_ms, already spread over the round's phones): kept, 10 % jitter at most
    assert all(320 <= d <= 352 for d in delays["ticket"])


def test_a_sheet_refused_as_busy_waits_its_retry_after_then_is_stored_once(venue, phones):  # noqa: F811
    admission = venue.app.extensions["admission"]
    ph = phones()
    ph.open(venue.sheet_url(2))
    ph.enter(["12", "11", "7"])
    players = venue.tables[1]
    ph.sign_all(players[:2], venue.pins)
    for _ in range(200):  # the phone's earlier writes answered first: one ending later would undo what follows
        if admission.in_flight == 0:
            break
        time.sleep(0.05)
    admission.in_flight = admission.max_writes  # every write slot taken, at a pace that says "4 s"
    admission.pace = 4.0 / (admission.max_writes + 1)
    try:
        ph.sign(players[2], venue.pins[players[2]])
        expect(ph.status()).to_contain_text("Signed — waiting to send")
        item = None
        for _ in range(100):  # a predicate returning a promise is truthy at once for wait_for_function: poll here
            item = ph.page.evaluate("ListokOutbox.all().then(a => a.length && a[0].last_try ? "
                                    "{state: a[0].state, http: a[0].last_try.http, wait: a[0].next_at - Date.now()}"
                                    " : null)")
            if item:
                break
            ph.page.wait_for_timeout(100)
        assert item and item["http"] == 503
        assert item["state"] == "waiting"
        assert item["wait"] > 2500  # not the 1 s of a lost answer: the server's 4 s
        assert venue.sheets(2) == [] and admission.refused >= 1
    finally:
        admission.in_flight = 0
        admission.pace = 0.02
    receipt = ph.receipt()  # the timer sends it once the Retry-After has passed
    ph.problems[:] = [p for p in ph.problems if not p.startswith("HTTP 503 ")]  # the busy answer was expected
    assert [s.receipt for s in venue.sheets(2)] == [receipt]
    assert venue.count(Submission) == 1
