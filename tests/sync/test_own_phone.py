"""Signing on one's own phone (docs/SYNC.md): POST /api/v1/drafts, POST
/api/v1/signatures, GET /api/v1/table?draft=…, and sheets that carry
`own_phone` signatures (SEM-B5d: every player signs the sums they checked)."""
from __future__ import annotations

from sqlalchemy import func, select

from tests.sync.test_routes import GOOD, game, post  # noqa: F401  (game is a fixture)
from webapp.extensions import db
from webapp.models import AuditEntry, DraftSignature, Player, Sheet, SheetDraft
from webapp.services.common import verify_audit_chain

DRAWING = "M 5 5 L 40 22 L 70 8"


def draft_body(game, table=1, sums=GOOD, **kw) -> dict:
    body = game.body(table=table, sums=sums, **kw)
    return {"token": body["token"], "content": body["content"], "content_hash": body["content_hash"]}


def own_signature(game, draft, start_no, pin=None) -> dict:
    return {"token": draft["token"], "content_hash": draft["content_hash"], "start_no": start_no,
            "pin": game.pins[start_no] if pin is None else pin, "drawing": DRAWING,
            "signed_at": "2026-03-14T10:52:00Z"}


def drafts(app) -> tuple[int, int]:
    with app.app_context():
        return (db.session.scalar(select(func.count(SheetDraft.id))),
                db.session.scalar(select(func.count(DraftSignature.id))))


def wrong(pin: str) -> str:
    return "0000" if pin != "0000" else "1111"


def test_published_sums_are_offered_to_the_players_own_phones(app, client, game):
    d = draft_body(game)
    r = client.post("/api/v1/drafts", json=d)
    assert r.status_code == 200
    assert r.json == {"status": "ok", "content": d["content"], "content_hash": d["content_hash"], "sent": False,
                      "signed": [], "signed_here": [], "missing": game.players(), "complete": False, "send_in": None}
    assert client.post("/api/v1/drafts", json=d).status_code == 200  # publishing again is harmless
    assert drafts(app) == (1, 0)
    state = client.get("/api/v1/table", query_string={"token": d["token"]}).json
    assert state["draft"]["content_hash"] == d["content_hash"] and state["draft"]["signed"] == []
    other_table = client.get("/api/v1/table", query_string={"token": game.token(2)}).json
    assert other_table["draft"] is None


def test_sems_c5_c8_sums_the_server_would_refuse_cannot_be_published(app, client, game):
    r = client.post("/api/v1/drafts", json=draft_body(game, sums=[1450, 1000, 500]))
    assert r.status_code == 422 and r.json["error"] == "wrong-total"
    r = client.post("/api/v1/drafts", json=draft_body(game, sums=[-150, 2000, 1150]))
    assert r.status_code == 422 and r.json["error"] == "note-required"
    d = draft_body(game)
    d["content"] = {**d["content"], "sums_cents": [1500, 1000, 500]}
    r = client.post("/api/v1/drafts", json=d)
    assert r.status_code == 422 and r.json["error"] == "hash-mismatch"
    other = draft_body(game, table=2)
    r = client.post("/api/v1/drafts", json={**other, "token": game.token(1)})
    assert r.status_code == 403 and r.json["status"] == "forbidden"
    r = client.post("/api/v1/drafts", json={"token": game.token(1), "content": {}})
    assert r.status_code == 400 and r.json["field"] == "content_hash"
    assert drafts(app) == (0, 0)


def test_a_player_signs_on_their_own_phone_with_their_pin(app, client, game):
    d = draft_body(game)
    client.post("/api/v1/drafts", json=d)
    p1, p2, _p3 = game.players()
    bad = client.post("/api/v1/signatures", json=own_signature(game, d, p2, wrong(game.pins[p2])))
    assert bad.status_code == 422
    assert (bad.json["error"], bad.json["start_no"], bad.json["attempts_left"]) == ("wrong-pin", p2, 4)
    assert drafts(app) == (1, 0)
    with app.app_context():
        assert game.player(p2).pin_failures == 1  # counted, like a wrong PIN on a sheet
    ok = client.post("/api/v1/signatures", json=own_signature(game, d, p2))
    assert ok.status_code == 200 and ok.json["signed"] == [p2]
    again = client.post("/api/v1/signatures", json=own_signature(game, d, p2))
    assert again.status_code == 200 and again.json["signed"] == [p2]
    assert drafts(app) == (1, 1)
    with app.app_context():
        assert game.player(p2).pin_failures == 1  # the right PIN does not wipe the wrong one (docs/SYNC.md)
        entry = db.session.scalar(select(AuditEntry).where(AuditEntry.action == "sheet.own_phone_signature"))
        assert entry.payload == {"round": 1, "table": 1, "start_no": p2, "content_hash": d["content_hash"]}
        assert verify_audit_chain() is None
    state = client.get("/api/v1/table", query_string={"token": d["token"], "draft": d["content_hash"]}).json
    assert state["draft"]["signed"] == [p2]


def test_own_phone_signatures_need_a_published_draft_and_a_seat_at_the_table(app, client, game):
    d = draft_body(game)
    p1 = game.players()[0]
    r = client.post("/api/v1/signatures", json=own_signature(game, d, p1))
    assert r.status_code == 422 and r.json["error"] == "no-draft"
    client.post("/api/v1/drafts", json=d)
    stranger = game.players(2)[0]
    r = client.post("/api/v1/signatures", json=own_signature(game, d, stranger))
    assert r.status_code == 422 and (r.json["error"], r.json["start_no"]) == ("not-at-table", stranger)
    r = client.post("/api/v1/signatures", json={**own_signature(game, d, p1), "drawing": "<svg/>"})
    assert r.status_code == 400 and r.json["field"] == "drawing"
    assert drafts(app) == (1, 0)


def test_five_wrong_pins_on_own_phones_lock_the_player(app, client, game):
    d = draft_body(game)
    client.post("/api/v1/drafts", json=d)
    p = game.players()[1]
    for left in (4, 3, 2, 1):
        r = client.post("/api/v1/signatures", json=own_signature(game, d, p, wrong(game.pins[p])))
        assert r.json["attempts_left"] == left
    r = client.post("/api/v1/signatures", json=own_signature(game, d, p, wrong(game.pins[p])))
    assert r.status_code == 423 and r.json["status"] == "locked"
    r = client.post("/api/v1/signatures", json=own_signature(game, d, p))  # the right PIN waits too
    assert r.status_code == 423
    assert drafts(app) == (1, 0)


def test_a_sheet_with_own_phone_signatures_is_stored_with_the_drawings_the_server_has(app, client, game):
    d = draft_body(game)
    client.post("/api/v1/drafts", json=d)
    p1, p2, p3 = game.players()
    for p in (p2, p3):
        assert client.post("/api/v1/signatures", json=own_signature(game, d, p)).status_code == 200
    body = game.body()
    body["signatures"] = [body["signatures"][0],
                          {"start_no": p2, "own_phone": True, "hash": d["content_hash"]},
                          {"start_no": p3, "own_phone": True, "hash": d["content_hash"]}]
    r = post(client, body)
    assert r.status_code == 200 and r.json["status"] == "accepted"
    with app.app_context():
        sheet = db.session.scalar(select(Sheet))
        assert [s["start_no"] for s in sheet.signatures] == [p1, p2, p3]
        assert [s.get("own_phone", False) for s in sheet.signatures] == [False, True, True]
        assert sheet.signatures[1]["drawing"] == DRAWING and sheet.signatures[1]["hash"] == sheet.content_hash
        entry = db.session.scalar(select(AuditEntry).where(AuditEntry.action == "sheet.phone"))
        assert entry.payload["own_phone"] == sorted([p2, p3])
    state = client.get("/api/v1/table", query_string={"token": d["token"]}).json
    assert state["draft"] is None and state["sheet"]["receipt"] == r.json["receipt"]
    sent = client.get("/api/v1/table", query_string={"token": d["token"], "draft": d["content_hash"]}).json
    assert sent["draft"]["sent"] is True


def test_an_own_phone_signature_counts_only_for_the_sums_it_signed(app, client, game):
    old = draft_body(game, sums=[1500, 1000, 500])
    client.post("/api/v1/drafts", json=old)
    p1, p2, _p3 = game.players()
    client.post("/api/v1/signatures", json=own_signature(game, old, p2))
    body = game.body()  # other sums: the winner's phone changed them after p2 signed
    client.post("/api/v1/drafts", json=draft_body(game))
    body["signatures"][1] = {"start_no": p2, "own_phone": True, "hash": body["content_hash"]}
    r = post(client, body)
    assert r.status_code == 422 and (r.json["error"], r.json["start_no"]) == ("signature-missing", p2)
    assert game.counts() == (0, 0, 0)
    with app.app_context():
        assert db.session.scalar(select(func.count(Player.id)).where(Player.pin_failures > 0)) == 0


def test_an_own_phone_signature_without_a_draft_is_missing(client, game):
    body = game.body()
    p2 = game.players()[1]
    body["signatures"][1] = {"start_no": p2, "own_phone": True, "hash": body["content_hash"]}
    r = post(client, body)
    assert r.status_code == 422 and r.json["error"] == "signature-missing"
    assert game.counts() == (0, 0, 0)


def test_a_malformed_draft_hash_in_the_table_state_is_a_bad_request(client, game):
    r = client.get("/api/v1/table", query_string={"token": game.token(1), "draft": "XYZ"})
    assert r.status_code == 400 and r.json["field"] == "draft"


# --------------------------------------------------------------------------- PIN proofs


def pin_check(client, game, start_no, pin, content_hash):
    return client.post("/api/v1/pin", json={"token": game.token(1), "start_no": start_no, "pin": pin,
                                            "content_hash": content_hash})


def count_slow_checks(monkeypatch) -> list[int]:
    from webapp.services import pins

    calls = []
    real = pins.pin_matches
    monkeypatch.setattr(pins, "pin_matches", lambda *a: calls.append(1) or real(*a))
    return calls


def test_a_pin_checked_while_signing_is_not_hashed_again_when_the_sheet_comes(app, client, game, monkeypatch):
    body = game.body()
    for sig in body["signatures"]:
        r = pin_check(client, game, sig["start_no"], game.pins[sig["start_no"]], body["content_hash"])
        assert r.status_code == 200 and len(r.json["proof"]) == 64
        sig["pin_proof"] = r.json["proof"]
    slow = count_slow_checks(monkeypatch)
    r = post(client, body)
    assert r.status_code == 200 and r.json["status"] == "accepted"
    assert slow == []
    with app.app_context():
        assert "pin_proof" not in str(db.session.scalar(select(Sheet)).signatures)


def test_a_proof_stands_only_for_its_player_its_sums_and_the_pin_it_was_given_for(app, client, game):
    p1, p2, p3 = game.players()
    body = game.body()
    proof = pin_check(client, game, p1, game.pins[p1], body["content_hash"]).json["proof"]
    other_sums = game.body(sums=[1500, 1000, 500])["content_hash"]
    other_proof = pin_check(client, game, p1, game.pins[p1], other_sums).json["proof"]
    assert "proof" not in client.post("/api/v1/pin", json={"token": game.token(1), "start_no": p1,
                                                            "pin": game.pins[p1]}).json
    wrong_pin = wrong(game.pins[p1])
    for bad_proof in (other_proof, "0" * 64, pin_check(client, game, p2, game.pins[p2], body["content_hash"])
                      .json["proof"]):
        body["signatures"][0].update(pin=wrong_pin, pin_proof=bad_proof)
        r = post(client, body)
        assert r.status_code == 422 and (r.json["error"], r.json["start_no"]) == ("wrong-pin", p1)
    # the operator resets the PIN and issues a new one: the old proof is void
    body["signatures"][0].update(pin=wrong_pin, pin_proof=proof)
    with app.app_context():
        from webapp.services.pins import issue_pin, reset_pin

        player = game.player(p1)
        player.pin_failures = 0
        reset_pin(player, "desk")
        new_pin = issue_pin(player, actor="desk")
        db.session.commit()
    r = post(client, body)
    assert r.status_code == 422 and r.json["error"] == "wrong-pin"
    body["signatures"][0].update(pin=new_pin)
    r = post(client, body)  # the PIN itself is right, but it was issued during the round
    assert (r.json["status"], r.json["reason"]) == ("needs-referee", "pin-reissued")


def test_a_wrong_pin_earns_no_proof(client, game):
    p1 = game.players()[0]
    r = pin_check(client, game, p1, wrong(game.pins[p1]), game.body()["content_hash"])
    assert r.status_code == 422 and "proof" not in r.json
    r = client.post("/api/v1/pin", json={"token": game.token(1), "start_no": p1, "pin": game.pins[p1],
                                         "content_hash": "nope"})
    assert r.status_code == 400 and r.json["field"] == "content_hash"


def test_players_signed_on_the_keepers_phone_are_not_listed_as_missing_on_own_phones(app, client, game):
    """SEM-B5d: who signed on the phone that published the sums (`signed_here`, its PINs checked when the
    sheet is sent) is not "still to sign" on the others' own phones; nobody may send in its place then."""
    d = draft_body(game)
    p1, p2, p3 = game.players()
    assert client.post("/api/v1/drafts", json={**d, "signed_here": [p1]}).json["missing"] == [p2, p3]
    state = client.get("/api/v1/table", query_string={"token": d["token"]}).json["draft"]
    assert (state["signed_here"], state["missing"]) == ([p1], [p2, p3])
    ok = client.post("/api/v1/signatures", json=own_signature(game, d, p2)).json
    assert (ok["signed"], ok["signed_here"], ok["missing"]) == ([p2], [p1], [p3])
    # the keeper's phone says again who signed on it: a start number not at the table is ignored
    again = client.post("/api/v1/drafts", json={**d, "signed_here": [p1, p3, 999]}).json
    assert (again["signed_here"], again["missing"]) == ([p1, p3], [])
    assert again["complete"] is False and again["send_in"] is None  # the keeper's phone holds two signatures
    # a draft published without the field keeps what it had
    assert client.post("/api/v1/drafts", json=d).json["signed_here"] == [p1, p3]
    bad = client.post("/api/v1/drafts", json={**d, "signed_here": "p1"})
    assert bad.status_code == 400 and bad.json["field"] == "signed_here"


def test_the_sending_phone_asks_what_became_of_its_receipt(app, client, game):
    """The table state answers what became of the sheet with the asked receipt (`mine`), so the phone that
    sent a sheet waiting for the referee learns the decision; a malformed receipt is a bad request."""
    body = game.body()
    r = post(client, body)
    assert r.status_code == 200
    receipt = r.json["receipt"]
    state = client.get("/api/v1/table", query_string={"token": body["token"], "receipt": receipt}).json
    assert state["mine"] == {"receipt": receipt, "status": "accepted"}
    other = client.get("/api/v1/table", query_string={"token": body["token"], "receipt": "ABCD-EFGH"}).json
    assert other["mine"] is None
    bad = client.get("/api/v1/table", query_string={"token": body["token"], "receipt": "<x>"})
    assert bad.status_code == 400 and bad.json["field"] == "receipt"
