"""A player signs on their own phone, opened with the table's QR code, while the
winner's phone holds the sheet (docs/SYNC.md, "Sign on your own phone";
SEM-B5d: every player signs the sums they checked)."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_phone import phones, venue  # noqa: F401  (fixtures)

pytestmark = pytest.mark.browser


def test_sem_b5_a_player_signs_on_their_own_phone_and_the_winner_sends_the_sheet(venue, phones):
    winner, own = phones(), phones()
    p1, p2, p3 = venue.tables[0]
    winner.open(venue.sheet_url(1))
    sent = []
    winner.page.on("request", lambda r: sent.append(r.post_data_json)
                   if r.method == "POST" and r.url.endswith("/api/v1/sheets") else None)
    winner.enter(["14,50", "10", "5,50"])
    expect(winner.page.locator("#own-hint")).to_be_visible()  # the sums are on the server for own phones

    own.open(venue.sheet_url(1))
    page = own.page
    expect(page.locator("#own")).to_be_visible()
    expect(page.locator("#entry")).to_be_hidden()
    expect(page.locator("#own-sums")).to_contain_text("€14.50")
    page.locator("#own-ok").click()
    expect(page.locator("#own-error")).to_have_text("Choose your name first.")
    page.locator(f"#own-who input[value='{p2}']").check()
    own.draw("#own-pad")
    page.locator("#own-pin").fill("99999")
    page.locator("#own-ok").click()
    expect(page.locator("#own-error")).to_contain_text("Attempts left: 4")
    page.locator("#own-pin").fill(venue.pins[p2])
    page.locator("#own-ok").click()
    expect(page.locator("#own-done")).to_contain_text("your signature is on the server")
    expect(page.locator("#own-form")).to_be_hidden()

    # the winner's phone picks the signature up by itself and skips that player
    signed = winner.page.locator("#signers li.is-signed")
    expect(signed).to_have_count(1)
    expect(signed).to_contain_text("signed on own phone")
    expect(winner.page.locator("#change")).to_be_hidden()
    winner.sign(p1, venue.pins[p1])
    expect(signed).to_have_count(2)
    winner.sign(p3, venue.pins[p3])
    receipt = winner.receipt()

    (sheet,) = venue.sheets(1)
    assert (sheet.status, sheet.receipt, sheet.sums) == ("accepted", receipt, ["14.50", "10.00", "5.50"])
    assert [s["start_no"] for s in sheet.signatures] == [p1, p2, p3]
    assert [bool(s.get("own_phone")) for s in sheet.signatures] == [False, True, False]
    assert all(s["drawing"].startswith("M") and s["hash"] == sheet.content_hash for s in sheet.signatures)
    # the PINs typed on the winner's phone were checked while signing: the sheet carries proofs, not a
    # second slow check; the own-phone signature carries neither PIN nor drawing
    signatures = {s["start_no"]: s for s in sent[0]["signatures"]}
    assert len(signatures[p1]["pin_proof"]) == 64 and len(signatures[p3]["pin_proof"]) == 64
    assert signatures[p2] == {"start_no": p2, "own_phone": True, "hash": sheet.content_hash}
    # the signer's phone learns that the sheet went in
    expect(own.status()).to_contain_text(receipt)
    expect(page.locator("#own")).to_be_hidden()


def test_a_second_phone_can_still_enter_its_own_sums(venue, phones):
    winner, other = phones(), phones()
    winner.open(venue.sheet_url(2))
    winner.enter(["10", "10", "10"])
    other.open(venue.sheet_url(2))
    expect(other.page.locator("#own")).to_be_visible()
    other.page.locator("#own-enter").click()
    expect(other.page.locator("#entry")).to_be_visible()
    other.enter(["12", "10", "8"])
    expect(other.page.locator("#signers li.is-signed")).to_have_count(0)
