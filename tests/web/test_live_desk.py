"""The live results desk (8.1), a way forward for every table (8.2),
offline PINs that become referee cases (8.3) and the table state a phone polls (8.4)."""
from __future__ import annotations

import re

from sqlalchemy import select

from tests.helpers import login, make_user, text
from tests.sync.test_own_phone import draft_body, own_signature, wrong
from tests.sync.test_routes import GOOD, game, post  # noqa: F401  (game is a fixture)
from webapp.extensions import db
from webapp.models import AuditEntry, Case, Sheet

LIVE = "/operator/t/{tid}/round/1/results/live"


def live(client, game, etag=None):
    headers = {"If-None-Match": f'"{etag}"'} if etag else {}
    return client.get(LIVE.format(tid=game.tid), headers=headers)


def states(client, game) -> dict[int, str]:
    r = live(client, game)
    assert r.status_code == 200, r.data
    return {int(k): v["state"] for k, v in r.json["tables"].items()}


def sign_all(client, game, table=1):
    d = draft_body(game, table=table)
    assert client.post("/api/v1/drafts", json=d).status_code == 200
    for s in game.players(table):
        assert client.post("/api/v1/signatures", json=own_signature(game, d, s)).status_code == 200
    return d


def test_desk_state_follows_the_phones_with_one_cheap_poll(app, op, game):
    """8.1: waiting → sums confirmed → n of 3 signed → signed draft waiting → in; 304 while nothing moves."""
    first = live(op, game)
    etag = first.json["etag"]
    assert first.headers["ETag"] == f'"{etag}"'
    assert states(op, game) == {1: "waiting", 2: "waiting", 3: "waiting"}
    assert live(op, game, etag).status_code == 304
    d = draft_body(game)
    op.post("/api/v1/drafts", json=d)
    moved = live(op, game, etag)
    assert moved.status_code == 200 and moved.json["etag"] != etag
    assert moved.json["tables"]["1"]["state"] == "confirmed"
    assert moved.json["tables"]["2"]["digest"] == first.json["tables"]["2"]["digest"]  # only table 1 is fetched
    assert "sums confirmed: <b>1</b>" in moved.json["header"] and "waiting: <b>2</b>" in moved.json["header"]
    p1, p2, p3 = game.players()
    op.post("/api/v1/signatures", json=own_signature(game, d, p2))
    assert live(op, game).json["tables"]["1"]["label"] == "1 of 3 signed"
    op.post("/api/v1/signatures", json=own_signature(game, d, p3))
    op.post("/api/v1/signatures", json=own_signature(game, d, p1))
    assert states(op, game)[1] == "draft-signed"
    card = text(op.get("/operator/t/%d/round/1/results/1" % game.tid, headers={"HX-Request": "true"}))
    assert 'data-state="draft-signed"' in card and "Take in the signed draft of table 1" in card
    page = text(op.get("/operator/t/%d/round/1/results" % game.tid))
    assert 'data-live-url="/operator/t/%d/round/1/results/live"' % game.tid in page
    assert re.search(r'data-live-etag="[0-9a-f]{16}"', page)


def test_desk_card_shows_a_phone_sheets_receipt_once(app, op, game):
    """8.1: the state badge says "in (receipt …)"; no second badge or line repeats the receipt."""
    receipt = post(op, game.body()).json["receipt"]
    card = text(op.get("/operator/t/%d/round/1/results/1" % game.tid, headers={"HX-Request": "true"}))
    assert f"in (receipt {receipt})" in card
    assert card.count(receipt) == 1, card


def test_desk_takes_in_a_signed_draft_after_checking_the_sums(app, op, game):
    """8.2: nobody sent the sheet; the desk takes the draft in with the players' own-phone signatures."""
    d = sign_all(op, game)
    r = op.post("/operator/t/%d/round/1/results/1/draft" % game.tid,
                data={"content_hash": d["content_hash"]}, headers={"HX-Request": "true"})
    assert r.status_code == 200, text(r)
    assert "the signed draft is in (receipt" in text(r) and 'data-state="in"' in text(r)
    with app.app_context():
        sheet = db.session.scalar(select(Sheet))
        assert sheet.status == "accepted" and sheet.source == "phone" and sheet.content_hash == d["content_hash"]
        assert [s["start_no"] for s in sheet.signatures] == game.players()
        assert all(s["own_phone"] and s["drawing"] for s in sheet.signatures)
        entry = db.session.scalar(select(AuditEntry).where(AuditEntry.action == "sheet.draft_taken_in"))
        assert entry is not None and entry.actor.lower() == "operator"
    again = op.post("/operator/t/%d/round/1/results/1/draft" % game.tid, data={"content_hash": d["content_hash"]})
    assert again.status_code == 302  # the same sheet again: nothing new stored
    with app.app_context():
        assert len(db.session.scalars(select(Sheet)).all()) == 1
    assert states(op, game)[1] == "in"


def test_a_draft_not_signed_by_everybody_cannot_be_taken_in(app, op, game):
    d = draft_body(game)
    op.post("/api/v1/drafts", json=d)
    op.post("/api/v1/signatures", json=own_signature(game, d, game.players()[0]))
    r = op.post("/operator/t/%d/round/1/results/1/draft" % game.tid, data={"content_hash": d["content_hash"]},
                headers={"HX-Request": "true"})
    assert r.status_code == 422 and "not every player has signed" in text(r)
    with app.app_context():
        assert db.session.scalar(select(Sheet)) is None


def test_any_phone_of_the_table_sends_a_fully_signed_draft(app, client, game):
    """8.2: every player signed on their own phone; another phone sends the sheet made of the draft."""
    d = sign_all(client, game)
    state = client.get("/api/v1/table", query_string={"token": d["token"]}).json["draft"]
    assert state["complete"] and state["missing"] == [] and 0 < state["send_in"] <= 120
    app.config["LISTOK_DRAFT_SEND_AFTER"] = 0
    assert client.get("/api/v1/table", query_string={"token": d["token"]}).json["draft"]["send_in"] == 0
    body = {**d, "idempotency_key": "other-phone-0001",
            "signatures": [{"start_no": s, "own_phone": True, "hash": d["content_hash"]} for s in game.players()]}
    r = post(client, body)
    assert r.status_code == 200 and r.json["status"] == "accepted"


def test_partly_signed_draft_says_who_is_missing(app, client, game):
    d = draft_body(game)
    client.post("/api/v1/drafts", json=d)
    p1, p2, p3 = game.players()
    client.post("/api/v1/signatures", json=own_signature(game, d, p2))
    state = client.get("/api/v1/table", query_string={"token": d["token"]}).json["draft"]
    assert state["missing"] == [p1, p3] and not state["complete"] and state["send_in"] is None


def test_offline_wrong_pin_goes_to_the_referee_not_back_to_the_phone(app, client, game):
    """8.3: a sheet signed offline whose PIN fails is stored pending as a case 'PIN of #n did not match'."""
    p1, p2, p3 = game.players()
    online = game.body(pins={**game.pins, p2: wrong(game.pins[p2])})
    r = post(client, online)
    assert r.status_code == 422 and r.json["error"] == "wrong-pin"  # online: the table types it again
    offline = game.body(pins={**game.pins, p2: wrong(game.pins[p2])})
    offline["pins_unchecked"] = True
    r = post(client, offline)
    assert r.status_code == 202, r.json
    assert (r.json["status"], r.json["reason"], r.json["pin_failed"]) == ("needs-referee", "pin-mismatch", [p2])
    assert post(client, offline).json["replay"] is True
    with app.app_context():
        assert game.player(p2).pin_failures == 2  # both wrong PINs count towards the lockout
        case = db.session.scalar(select(Case))
        sheet = db.session.get(Sheet, case.sheet_id)
        assert case.kind == "pin-mismatch" and sheet.status == "pending"
        assert all(s["drawing"] for s in sheet.signatures)
    state = client.get("/api/v1/table", query_string={"token": offline["token"]}).json
    assert state["open_cases"] == ["pin-mismatch"] and state["sheet"]["status"] == "pending"
    make_user(app, "referee", role="referee")
    login(client, "referee")
    client.set_cookie("lang", "en")
    page = text(client.get(f"/referee/case/{case.id}"))
    assert f"PIN of #{p2} did not match." in page and "Approve: the player confirmed the signature" in page
    assert "A PIN did not match (signed offline)" in text(client.get("/referee/"))
    r = client.post(f"/referee/case/{case.id}/approve", data={"decision": "approve"})
    assert r.status_code == 302
    with app.app_context():
        sheet = db.session.get(Sheet, case.sheet_id)
        assert sheet.status == "accepted"
    # The referee's decided list says which sheet counts
    assert f"counts: version {sheet.version}, receipt {sheet.receipt}" in text(client.get("/referee/"))


def test_first_phone_learns_of_a_dispute_from_the_table_state(app, op, game):
    """8.4: phone 1's sheet is in; phone 2 sends other sums; the state phone 1 polls says dispute."""
    first = post(op, game.body())
    assert first.json["status"] == "accepted"
    second = post(op, game.body(sums=[1500, 1000, 500]))
    assert second.json["status"] == "dispute"
    state = op.get("/api/v1/table", query_string={"token": game.token(1)}).json
    assert state["open_cases"] == ["dispute"] and state["sheet"]["receipt"] == first.json["receipt"]
    assert states(op, game)[1] == "dispute"
