"""My tournament (views/public/me.py, services/companion.py): a player signs on
with start number and PIN, the phone keeps a key; the player's part shows the
seat now (SEM-C3 whose cards), the round clock, results and receipts, and is
revalidated by ETag (304 while nothing changed, a new body once the next round
is drawn). The key lets the player call a referee to their table."""
from __future__ import annotations

import pytest
from sqlalchemy import select, update

from tests.helpers import issue_pins, make_tournament, open_round, play_round, text
from webapp.extensions import db
from webapp.models import Player, RefereeCall, Round, RoundTable, Sheet, Tournament
from webapp.services import companion, rounds


@pytest.fixture
def field(app):
    tid = make_tournament(app, 9)
    pins = issue_pins(app, tid)
    play_round(app, tid, seed=1)
    return tid, pins


def finish_round(app, tid):
    """The round being played: every sheet in, closed."""
    import random

    from webapp.demo.simulate import table_sums

    rng = random.Random(2)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r = t.rounds[-1]
        for tab in r.tables:
            rounds.record_sheet(t, tab, list(table_sums(rng)), "test")
        rounds.close_round(t, r, "test", t.version)
        db.session.commit()


def seat_of(app, tid, start_no):
    with app.app_context():
        r = db.session.scalar(select(Round).where(Round.tournament_id == tid).order_by(Round.number.desc()))
        return r.number, next(t for t in r.tables if start_no in t.players)


def test_sign_on_with_pin_gives_a_key_wrong_pin_refused(app, anon, field):
    tid, pins = field
    r = anon.post(f"/t/{tid}/me", json={"start_no": "3", "pin": "000000" if pins[3] != "000000" else "111111"})
    assert r.status_code == 422 and "Wrong PIN for start number 3" in r.get_json()["message"]
    r = anon.post(f"/t/{tid}/me", json={"start_no": "99", "pin": "1234"})
    assert r.status_code == 422 and "no player with start number 99" in r.get_json()["message"]
    r = anon.post(f"/t/{tid}/me", json={"start_no": "3", "pin": pins[3]})
    body = r.get_json()
    assert r.status_code == 200 and body["start_no"] == 3 and body["now"] == f"/t/{tid}/me/3/now"
    with app.app_context():
        assert companion.read_player_key(body["key"], tid) == 3
        assert companion.read_player_key(body["key"], tid + 1) is None
        assert companion.read_player_key(body["key"] + "x", tid) is None


def test_sem_c3_my_seat_clock_and_next_table_within_one_poll(app, anon, field):
    """The seat of the round being played with whose cards (SEM-C3); after the round
    closes and the next is drawn, the revalidated part shows the new table."""
    tid, _pins = field
    open_round(app, tid)
    n, tab = seat_of(app, tid, 4)
    r = anon.get(f"/t/{tid}/me/4/now")
    page = text(r)
    etag = r.headers["ETag"]
    assert f'data-me-table="{tab.number}"' in page and f"Round {n}" in page
    assert "Cards of player" in page  # SEM-C3: round 2 plays the cards of a position
    assert "The round has not started yet." in page
    assert "player 3 has dealt (SEM-C2)" in page
    assert anon.get(f"/t/{tid}/me/4/now", headers={"If-None-Match": etag}).status_code == 304
    # the clock starts: the part changes (the clock appears)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        rounds.start_clock(t, t.rounds[-1], "test")
        db.session.commit()
    r = anon.get(f"/t/{tid}/me/4/now", headers={"If-None-Match": etag})
    assert r.status_code == 200 and "data-clock " in text(r) and 'data-started-at="20' in text(r)
    # the round is played and closed, the next drawn and published: a new table in one poll
    etag = r.headers["ETag"]
    finish_round(app, tid)
    open_round(app, tid)
    n2, tab2 = seat_of(app, tid, 4)
    assert n2 == n + 1
    r = anon.get(f"/t/{tid}/me/4/now", headers={"If-None-Match": etag})
    assert r.status_code == 200
    page = text(r)
    assert f'data-me-table="{tab2.number}"' in page and f"Round {n2}" in page
    assert 'data-round="2"' in page  # round 2's result, round by round


def test_my_page_shell_is_the_same_for_everyone(app, anon, field):
    tid, _pins = field
    r = app.test_client().get(f"/t/{tid}/me?lang=en")
    assert r.status_code == 200 and r.headers["ETag"]
    r = app.test_client().get(f"/t/{tid}/me")  # no cookie, no session: one body for every visitor
    assert "public" in r.headers["Cache-Control"] and "set-cookie" not in {k.lower() for k in r.headers.keys()}
    assert "Open your page once with your start number" in text(app.test_client().get(f"/t/{tid}/me?lang=en"))


def test_player_calls_referee_to_own_table_with_key_only(app, anon, field):
    tid, pins = field
    open_round(app, tid)
    n, tab = seat_of(app, tid, 5)
    assert anon.post(f"/t/{tid}/me/call?k=forged", json={}).status_code == 403
    key = anon.post(f"/t/{tid}/me", json={"start_no": 5, "pin": pins[5]}).get_json()["key"]
    r = anon.post(f"/t/{tid}/me/call?k={key}", json={"reason": "Karty"})
    assert r.status_code == 200 and r.get_json()["table"] == tab.number
    assert anon.get(f"/t/{tid}/me/call?k={key}").get_json()["status"] == "open"
    # the page sends the key in a header, out of the access log
    assert anon.get(f"/t/{tid}/me/call", headers={"X-Listok-Player-Key": key}).get_json()["status"] == "open"
    assert anon.get(f"/t/{tid}/me/call", headers={"X-Listok-Player-Key": "5.forged"}).status_code == 403
    with app.app_context():
        call = db.session.scalar(select(RefereeCall))
        assert (call.round, call.table, call.caller) == (n, tab.number, "#5")


def test_personal_qr_on_pin_slip_opens_my_page_until_the_pin_is_issued_anew(app, op, field):
    """The PIN slip's personal QR code is /t/<id>/me#n=<start no>&k=<key>: the key is a MAC of the
    stored PIN verifier (never the PIN), good while that PIN is the player's; a new PIN voids
    the old key and the old slip's QR code."""
    import re

    tid, pins = field
    with app.app_context():
        pid = db.session.scalar(select(Player.id).where(Player.tournament_id == tid, Player.start_no == 4))
    slip = text(op.post(f"/operator/t/{tid}/players/{pid}/pin", data={"pin": "482913"}))
    link = re.search(r'data-me-link="([^"]+)"', slip).group(1)
    assert re.fullmatch(rf"http://localhost/t/{tid}/me#n=4&amp;k=4\.[\w-]{{22}}", link), link
    key = link.split("k=")[1]
    assert "482913" not in key and '<svg class="qr"' in slip
    assert op.post(f"/t/{tid}/me/key", json={"key": key}).get_json() == {"status": "ok", "start_no": 4}
    r = op.post(f"/t/{tid}/me", json={"start_no": 4, "pin": "482913"})
    assert r.get_json()["key"] == key  # signing on with the PIN gives the same key
    assert op.post(f"/t/{tid}/me/call?k={key}", json={}).status_code != 403

    op.post(f"/operator/t/{tid}/players/{pid}/pin", data={"pin": "482913"})  # the same digits, a new PIN
    r = op.post(f"/t/{tid}/me/key", json={"key": key})
    assert r.status_code == 403 and "issued anew" in r.get_json()["message"]
    assert r.headers["Cache-Control"] == "no-store"
    assert op.post(f"/t/{tid}/me/call?k={key}", json={}).status_code == 403
    with app.app_context():
        assert companion.read_player_key(key, tid) is None
        assert companion.read_player_key(companion.player_key(tid, 4), tid) == 4
        assert companion.read_player_key(companion.player_key(tid, 4).replace("4.", "5.", 1), tid) is None
    op.post(f"/operator/t/{tid}/players/{pid}/pin/reset")
    with app.app_context():
        assert companion.read_player_key(key, tid) is None
    for bad in (None, "", "x", "4.", "4." + "A" * 22, ["4"], 4):
        assert op.post(f"/t/{tid}/me/key", json={"key": bad}).status_code == 403


def test_sem_c10_my_receipts_checked_against_the_record_and_a_superseded_one_marked(app, anon):
    """Every receipt on "my tournament" (and the player's page) is checked against the chain at each
    update; after a referee-approved correction (SEM-C10) the old one says it was replaced and the new
    one counts; a sheet edited in SQL behind the record's back is flagged."""
    import re

    from tests.helpers import play_round
    from webapp.services import corrections

    tid = make_tournament(app, 9)
    play_round(app, tid, seed=1)
    play_round(app, tid, seed=2)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        tab = db.session.scalar(select(Round).where(Round.tournament_id == tid, Round.number == 2)).tables[0]
        start_no, old = tab.players[0], tab.sheet.receipt
        sums = list(tab.sheet.sums)

    def marks(path):
        html = text(anon.get(path))
        return {m[0]: (m[1], m[2]) for m in re.findall(
            r'data-receipt="([^"]+)" data-status="(\w+)" data-in-record="(\w+)"', html)}, html

    for path in (f"/t/{tid}/me/{start_no}/now", f"/t/{tid}/player/{start_no}"):
        found, html = marks(path)
        assert len(found) == 2 and found[old] == ("accepted", "yes") and "in the record as signed" in html
    with app.app_context():
        t = db.session.get(Tournament, tid)
        case = corrections.propose_correction(t, 2, tab.number, [sums[1], sums[0], sums[2]], "operator-error",
                                          "Horváth", "test", t.version)
        corrections.approve_c10(case, t, "Novák")
        db.session.commit()
        new = db.session.get(RoundTable, tab.id).sheet.receipt
    found, html = marks(f"/t/{tid}/me/{start_no}/now")
    assert found[old] == ("superseded", "yes") and found[new] == ("accepted", "yes")
    assert "replaced by a correction the referee approved: the corrected sheet counts" in html

    with app.app_context():  # an edit behind the record's back
        db.session.execute(update(Sheet).where(Sheet.receipt == new).values(sums=["20.00", "10.00", "0.00"]))
        t = db.session.get(Tournament, tid)
        t.public_version += 1  # what any change the public sees moves
        db.session.commit()
    found, html = marks(f"/t/{tid}/me/{start_no}/now")
    assert found[new] == ("accepted", "no") and found[old] == ("superseded", "yes")
    assert "not in the record as signed: show this receipt to the referee" in html
