"""No phone keeps a PIN longer than the server needs it (docs/SYNC.md, "What a
phone keeps"): after every step of signing, every IndexedDB store of the page's
origin, localStorage and sessionStorage are read whole and searched for PINs."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_phone import phones, venue  # noqa: F401  (fixtures)

pytestmark = pytest.mark.browser

DUMP = """async () => {
  const out = {local: Object.assign({}, localStorage), session: Object.assign({}, sessionStorage), idb: {}};
  for (const info of await indexedDB.databases()) {
    const db = await new Promise((ok, bad) => {
      const r = indexedDB.open(info.name); r.onsuccess = () => ok(r.result); r.onerror = () => bad(r.error);
    });
    out.idb[info.name] = {};
    for (const name of Array.from(db.objectStoreNames)) {
      out.idb[info.name][name] = await new Promise((ok, bad) => {
        const r = db.transaction(name).objectStore(name).getAll();
        r.onsuccess = () => ok(r.result); r.onerror = () => bad(r.error);
      });
    }
    db.close();
  }
  return out;
}"""


def stored(page) -> dict:
    return page.evaluate(DUMP)


def pins_in(data, pins: set[str]) -> list[tuple[str, str]]:
    """Where a PIN is: any non-empty "pin" value, and any string that is a PIN or holds it as a word."""
    found = []

    def walk(x, path):
        if isinstance(x, dict):
            for k, v in x.items():
                if k == "pin":
                    if v:
                        found.append((f"{path}/pin", v))
                else:
                    walk(v, f"{path}/{k}")
        elif isinstance(x, list):
            for i, v in enumerate(x):
                walk(v, f"{path}[{i}]")
        elif isinstance(x, str) and any(re.search(rf"(?<![\w.-]){p}(?![\w.-])", x) for p in pins):
            found.append((path, x))

    walk(data, "")
    return found


def test_a_sheet_signed_online_leaves_no_pin_on_the_phone(venue, phones):  # noqa: F811
    ph = phones()
    ph.open(venue.sheet_url(1))
    page = ph.page
    ph.enter(["15", "9,50", "5,50"])
    players = venue.tables[0]
    pins = {venue.pins[s] for s in players}
    ph.sign(players[0], venue.pins[players[0]])
    expect(page.locator("#signers li.is-signed")).to_have_count(1)
    data = stored(page)
    draft = data["idb"]["listok"]["drafts"][0]
    assert len(draft["signatures"]) == 1 and len(draft["signatures"][0]["pin_proof"]) == 64  # the proof only
    assert pins_in(data, pins) == []
    assert page.locator("#pin").input_value() == ""
    ph.sign_all(players[1:], venue.pins)
    ph.receipt()
    data = stored(page)
    assert data["idb"]["listok"]["outbox"] == [] and data["idb"]["listok"]["drafts"] == []
    assert pins_in(data, pins) == []


def test_offline_only_the_outbox_entry_holds_the_pins_until_the_sheet_is_sent(venue, phones):  # noqa: F811
    ph = phones()
    ph.open(venue.sheet_url(2))
    page = ph.page
    venue.proxy.down = True
    ph.context.set_offline(True)
    ph.enter(["12", "11", "7"])
    players = venue.tables[1]
    pins = {venue.pins[s] for s in players}
    ph.sign_all(players[:2], venue.pins)
    expect(page.locator("#signers li.is-signed")).to_have_count(2)
    data = stored(page)
    assert [s["start_no"] for s in data["idb"]["listok"]["drafts"][0]["signatures"]] == players[:2]
    assert pins_in(data, pins) == []  # the two PINs wait in the page's memory, not in the draft
    ph.sign(players[2], venue.pins[players[2]])
    expect(ph.status()).to_contain_text("Signed — waiting to send")
    data = stored(page)
    outbox = data["idb"]["listok"]["outbox"]
    assert len(outbox) == 1 and data["idb"]["listok"]["drafts"] == []
    assert sorted(pins_in(data, pins)) == sorted(
        (f"/idb/listok/outbox[0]/body/signatures[{i}]/pin", venue.pins[s]) for i, s in enumerate(players))
    venue.proxy.down = False
    ph.context.set_offline(False)
    ph.receipt()
    data = stored(page)
    assert data["idb"]["listok"]["outbox"] == [] and pins_in(data, pins) == []


def test_an_offline_wrong_pin_goes_to_the_referee_and_leaves_no_pin_on_the_phone(venue, phones):  # noqa: F811
    """A sheet signed offline whose PIN is wrong is not bounced back to the table (its players
    may have gone): the server keeps it for the referee, and the phone drops every PIN with the answer."""
    ph = phones()
    ph.open(venue.sheet_url(3))
    page = ph.page
    venue.proxy.down = True
    ph.context.set_offline(True)
    ph.enter(["14", "10", "6"])
    players = venue.tables[2]
    wrong = "0000" if venue.pins[players[0]] != "0000" else "1111"
    ph.sign_all(players, {**venue.pins, players[0]: wrong})
    expect(ph.status()).to_contain_text("Signed — waiting to send")
    venue.proxy.down = False
    ph.context.set_offline(False)
    expect(ph.status()).to_contain_text(f"The PIN of start number {players[0]} did not match")
    data = stored(page)
    assert data["idb"]["listok"]["outbox"] == []
    assert pins_in(data, {wrong} | {venue.pins[s] for s in players}) == []  # a final answer: the PINs are gone
