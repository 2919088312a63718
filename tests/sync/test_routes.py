"""POST /api/v1/sheets, POST /api/v1/pin, GET /api/v1/table (docs/SYNC.md) on SQLite and PostgreSQL."""
from __future__ import annotations

import re
from decimal import Decimal as D
import threading
from datetime import timedelta

import pytest
from itsdangerous import URLSafeTimedSerializer
from sqlalchemy import event, func, select, update

from tests.helpers import (issue_pins, login, make_tournament, make_user, open_round, play_round,
                           postgresql_messages, signed_submission, sql_statements)
from webapp.extensions import db
from webapp.models import (AuditEntry, Case, PinAttempt, Player, Round, RoundTable, Sheet, Submission, Tournament,
                           utcnow)
from webapp.services import referee_decisions, rounds, sheet_submit
from webapp.services.common import ServiceError, StaleError, verify_audit_chain
from webapp.services.tokens import table_token
from webapp.sync.protocol import content_hash

URL = "/api/v1/sheets"
RECEIPT = re.compile(r"[A-Z2-7]{4}-[A-Z2-7]{4}(-[A-Z2-7]{2})?")  # a prefix of the chain entry's hash
GOOD = [1450, 1000, 550]


@pytest.fixture
def game(app):
    """9 players with PINs, round 1 drawn and published (3 tables), no sheet in."""
    tid = make_tournament(app, 9)
    pins = issue_pins(app, tid)
    open_round(app, tid)
    game = Game(app, tid, pins)
    game.players()
    return game


class Game:
    def __init__(self, app, tid, pins):
        self.app, self.tid, self.pins = app, tid, pins

    def body(self, table=1, sums=GOOD, round_no=1, **kw):
        kw.setdefault("pins", self.pins)
        return signed_submission(self.app, self.tid, round_no, table, sums, **kw)

    def players(self, table=1) -> list[int]:
        """Seat order in round 1 (read once: no app context of its own, so usable inside one)."""
        if not hasattr(self, "_seats"):
            with self.app.app_context():
                self._seats = {n: list(self.table(n).players) for n in (1, 2, 3)}
        return self._seats[table]

    def table(self, table=1, round_no=1) -> RoundTable:
        r = db.session.scalar(select(Round).where(Round.tournament_id == self.tid, Round.number == round_no))
        return next(x for x in r.tables if x.number == table)

    def token(self, table=1, round_no=1) -> str:
        with self.app.app_context():
            return table_token(self.tid, round_no, table)

    def version(self) -> int:
        with self.app.app_context():
            return db.session.get(Tournament, self.tid).version

    def counts(self) -> tuple[int, int, int]:
        with self.app.app_context():
            return (db.session.scalar(select(func.count(Sheet.id))),
                    db.session.scalar(select(func.count()).select_from(Submission)),
                    db.session.scalar(select(func.count(Case.id))))

    def player(self, start_no) -> Player:
        return db.session.scalar(select(Player).where(Player.tournament_id == self.tid, Player.start_no == start_no))


def post(client, body):
    r = client.post(URL, json=body)
    assert r.is_json, r.data
    return r


def refused_nothing_stored(game, before_counts, before_version):
    assert game.counts() == before_counts
    assert game.version() == before_version


# --------------------------------------------------------------------------- accepted, replays, duplicates


def test_a_replay_is_one_read_on_a_connection_of_its_own(app, client, game, tmp_path):
    """The replay check (peek_submission) reads the key on a connection of its own: on SQLite it
    never takes the write lock (a replay waits for nobody); on PostgreSQL in autocommit, so a
    replay costs the database one round trip, its SELECT, with no BEGIN before it and no ROLLBACK
    after (database.read_row)."""
    with app.app_context():
        engine = db.engine
    checkouts = []
    listen = lambda *a: checkouts.append(1)  # noqa: E731
    body = game.body()
    event.listen(engine, "checkout", listen)
    try:
        assert post(client, body).json["status"] == "accepted"
        first = len(checkouts)
        with postgresql_messages(app, tmp_path) as sent:
            assert post(client, body).json["replay"] is True
    finally:
        event.remove(engine, "checkout", listen)
    assert (first, len(checkouts) - first) == (2, 1)
    if engine.dialect.name == "postgresql":
        assert sent.count("Execute") == 1 and "Query" not in sent, sent


def test_a_phone_sheet_and_a_poll_in_round_3_load_that_round_alone(app, client):
    """A sheet or a table poll reads its own round and table in one statement, not the
    tournament's earlier rounds: the cost of a sheet does not grow as the tournament goes on."""
    tid = make_tournament(app, 9)
    pins = issue_pins(app, tid)
    play_round(app, tid, seed=1)
    play_round(app, tid, seed=2)
    open_round(app, tid)
    loaded = []

    def on_load(target, _context):
        loaded.append(target.number)

    event.listen(Round, "load", on_load)
    try:
        body = signed_submission(app, tid, 3, 1, GOOD, pins=pins)
        loaded.clear()
        with sql_statements(app) as statements:
            assert post(client, body).json["status"] == "accepted"
        assert loaded == [3]
        tables = [s for s in statements if "FROM round JOIN round_table" in s]
        assert len(tables) == 1 and "round.number = " in tables[0], statements  # round 3 alone
        alone = [s for s in statements if s.lstrip().startswith("SELECT tournament.")]
        # the tournament (its lock) in a statement of its own, once for the sheets written together, then
        # their tables (sheet_submit.submit_together): on PostgreSQL a statement's snapshot predates its lock wait
        assert len(alone) == 1, statements
        assert statements.index(alone[0]) < statements.index(tables[0])
        assert ("FOR NO KEY UPDATE" in alone[0]) == (not app.config["SQLALCHEMY_DATABASE_URI"].startswith("sqlite"))
        loaded.clear()
        with sql_statements(app) as statements:
            state = client.get(f"/api/v1/table?token={body['token']}")
        assert state.json["round"] == 3 and state.json["sheet"]["status"] == "accepted"
        assert loaded == [3]
        # the poll reads the tournament with its round and table, in one statement
        assert not [s for s in statements if s.lstrip().startswith("SELECT tournament.")], statements
    finally:
        event.remove(Round, "load", on_load)


def test_a_signed_sheet_is_accepted_and_stored_once_with_an_audit_entry(app, client, game):
    v0 = game.version()
    body = game.body()
    r = post(client, body)
    assert r.status_code == 200
    assert set(r.json) == {"status", "receipt", "version", "ack"}
    assert r.json["status"] == "accepted" and r.json["version"] == 1 and RECEIPT.fullmatch(r.json["receipt"])
    assert r.headers["Cache-Control"] == "no-store"
    with app.app_context():
        sheet = db.session.scalar(select(Sheet))
        assert (sheet.status, sheet.source, sheet.version, sheet.sums) == ("accepted", "phone", 1,
                                                                            ["14.50", "10.00", "5.50"])
        assert sheet.content_hash == body["content_hash"] == content_hash(body["content"])
        assert sheet.receipt == r.json["receipt"] and sheet.base_version == 0
        assert [s["start_no"] for s in sheet.signatures] == game.players()
        assert all("pin" not in s and s["hash"] == sheet.content_hash and s["drawing"].startswith("M")
                   for s in sheet.signatures)
        sub = db.session.get(Submission, body["idempotency_key"])
        assert (sub.sheet_id, sub.http_status, sub.response) == (sheet.id, 200, r.json)
        entry = db.session.scalar(select(AuditEntry).where(AuditEntry.action == "sheet.phone"))
        assert entry.payload["receipt"] == sheet.receipt and entry.payload["status"] == "accepted"
        assert "pin" not in str(entry.payload) and entry.payload["signed_by"] == game.players()
        assert verify_audit_chain() is None
        assert rounds.tables_in(game.table().round) == (1, 3)
    assert game.version() == v0 + 1


def test_the_same_key_with_the_same_content_replays_the_stored_answer(client, game):
    body = game.body()
    first = post(client, body)
    again = post(client, body)
    assert again.status_code == 200
    assert again.json == {**first.json, "replay": True}
    assert game.counts() == (1, 1, 0)


def test_the_same_key_with_other_content_is_refused(client, game):
    body = game.body(key="key-0000-0001")
    post(client, body)
    v = game.version()
    other = game.body(sums=[1500, 1000, 500], key="key-0000-0001")
    r = post(client, other)
    assert r.status_code == 409
    assert set(r.json) == {"status", "error", "message"}
    assert (r.json["status"], r.json["error"]) == ("refused", "idempotency-conflict")
    refused_nothing_stored(game, (1, 1, 0), v)


def test_a_second_phone_with_the_same_sheet_gets_the_same_receipt(app, client, game):
    first = post(client, game.body())
    second = post(client, game.body())
    # each phone's key has an acknowledgement of its own (services/acks.py); the rest is the same answer
    assert second.status_code == 200 and second.json["ack"] != first.json["ack"]
    assert {k: v for k, v in second.json.items() if k != "ack"} == {k: v for k, v in first.json.items() if k != "ack"}
    assert game.counts() == (1, 2, 0)


def test_a_replay_after_the_round_closed_still_gets_its_answer(app, client, game):
    body = game.body()
    first = post(client, body)
    with app.app_context():
        t = db.session.get(Tournament, game.tid)
        r = t.rounds[0]
        for tab in r.tables[1:]:
            rounds.record_sheet(t, tab, [D("10")] * 3, "desk")
        rounds.close_round(t, r, "test", t.version)
        db.session.commit()
    again = post(client, body)
    assert again.status_code == 200 and again.json == {**first.json, "replay": True}
    late = post(client, game.body(table=2))
    assert late.status_code == 410 and late.json["status"] == "gone"


# --------------------------------------------------------------------------- disputes


def test_a_different_first_sheet_is_a_dispute_and_overwrites_nothing(app, client, game):
    first = post(client, game.body())
    v = game.version()
    r = post(client, game.body(sums=[1500, 1000, 500]))
    assert r.status_code == 202
    assert set(r.json) == {"status", "receipt", "case", "version", "ack"}
    assert r.json["status"] == "dispute" and r.json["version"] == 2 and r.json["receipt"] != first.json["receipt"]
    with app.app_context():
        a, b = db.session.scalars(select(Sheet).order_by(Sheet.version)).all()
        assert (a.status, a.sums) == ("accepted", ["14.50", "10.00", "5.50"])
        assert (b.status, b.sums, b.source) == ("dispute", ["15.00", "10.00", "5.00"], "phone")
        case = db.session.get(Case, r.json["case"])
        assert (case.kind, case.status, case.sheet_id, case.other_sheet_id) == ("dispute", "open", b.id, a.id)
        assert (case.round, case.table) == (1, 1)
        tab = game.table()
        assert tab.sheet.id == a.id and rounds.tables_in(tab.round) == (1, 3)
    assert game.version() == v + 1
    # the disputing phone retrying gets its own stored answer
    assert post(client, game.body(sums=[1500, 1000, 500])).json["case"] == r.json["case"]


def test_a_first_sheet_against_a_pending_one_is_a_dispute(app, client, game):
    pending = post(client, game.body(sums=[-150, 2000, 1150], note="betl 1.50"))
    assert pending.json["status"] == "needs-referee"
    r = post(client, game.body())
    assert r.status_code == 202 and r.json["status"] == "dispute"
    with app.app_context():
        case = db.session.get(Case, r.json["case"])
        other = db.session.get(Sheet, case.other_sheet_id)
        assert other.receipt == pending.json["receipt"] and other.status == "pending"


def test_a_paper_sheet_at_the_desk_counts_as_the_existing_sheet(app, client, game):
    with app.app_context():
        t = db.session.get(Tournament, game.tid)
        paper = rounds.record_sheet(t, game.table(1), [D("14.50"), D("10"),
                                                        D("5.50")], "desk")
        rounds.record_sheet(t, game.table(2), [D("10")] * 3, "desk")
        db.session.commit()
        paper_id = paper.id
    same = post(client, game.body(table=1))
    assert same.status_code == 200 and same.json["status"] == "accepted" and same.json["version"] == 1
    differs = post(client, game.body(table=2))
    assert differs.status_code == 202 and differs.json["status"] == "dispute"
    with app.app_context():
        assert db.session.get(Sheet, paper_id).receipt == same.json["receipt"]
        assert db.session.scalar(select(func.count(Sheet.id))) == 3  # two paper, one disputing phone sheet
        assert game.table(2).sheet.source == "paper"


def test_the_desk_can_still_replace_a_table_that_has_a_pending_phone_sheet(app, client, game):
    post(client, game.body(sums=[-150, 2000, 1150], note="betl"))
    with app.app_context():
        t = db.session.get(Tournament, game.tid)
        sheet = rounds.record_sheet(t, game.table(1), [D("10")] * 3, "desk")
        db.session.commit()
        assert sheet.version == 2 and game.table(1).sheet.id == sheet.id


# --------------------------------------------------------------------------- corrections and negative sums


def test_a_correction_with_base_version_waits_for_the_referee(app, client, game):
    first = post(client, game.body())
    r = post(client, game.body(sums=[1400, 1050, 550], base_version=1))
    assert r.status_code == 202
    assert set(r.json) == {"status", "reason", "receipt", "case", "version", "ack"}
    assert (r.json["status"], r.json["reason"], r.json["version"]) == ("needs-referee", "correction", 2)
    with app.app_context():
        tab = game.table()
        assert tab.sheet.receipt == first.json["receipt"]  # still counts until approved
        pending = db.session.scalar(select(Sheet).where(Sheet.receipt == r.json["receipt"]))
        assert (pending.status, pending.base_version) == ("pending", 1)
        case = db.session.get(Case, r.json["case"])
        assert (case.kind, case.sheet_id) == ("correction", pending.id)
        referee_decisions.accept_pending(pending, "referee")
        db.session.commit()
        tab = game.table()
        assert tab.sheet.version == 2 and [s.status for s in tab.sheets] == ["superseded", "accepted"]
    state = client.get("/api/v1/table", query_string={"token": game.token()}).json
    assert state["sheet"] == {"version": 2, "receipt": r.json["receipt"], "sums_cents": [1400, 1050, 550],
                              "status": "accepted", "corrected": True}


def test_a_correction_of_an_old_version_is_stale(app, client, game):
    v = game.version()
    r = post(client, game.body(base_version=1))
    assert r.status_code == 409 and (r.json["status"], r.json["error"]) == ("refused", "stale-version")
    assert r.json["current_version"] == 0
    refused_nothing_stored(game, (0, 0, 0), v)
    post(client, game.body())
    v = game.version()
    r = post(client, game.body(sums=[1400, 1050, 550], base_version=2))
    assert r.status_code == 409 and r.json["error"] == "stale-version" and r.json["current_version"] == 1
    refused_nothing_stored(game, (1, 1, 0), v)


def test_accepting_a_correction_made_to_a_version_that_is_no_longer_counted_is_refused(app, client, game):
    post(client, game.body())
    c1 = post(client, game.body(sums=[1400, 1050, 550], base_version=1)).json
    c2 = post(client, game.body(sums=[1300, 1150, 550], base_version=1)).json
    with app.app_context():
        first = db.session.scalar(select(Sheet).where(Sheet.receipt == c1["receipt"]))
        referee_decisions.accept_pending(first, "referee")
        db.session.commit()
        second = db.session.scalar(select(Sheet).where(Sheet.receipt == c2["receipt"]))
        with pytest.raises(StaleError):
            referee_decisions.accept_pending(second, "referee")
        db.session.rollback()
        referee_decisions.reject_pending(second, "referee", "superseded by the other correction")
        db.session.commit()
        assert [s.status for s in game.table().sheets] == ["superseded", "accepted", "rejected"]


def test_a_negative_sum_needs_the_note(client, game):
    v = game.version()
    r = post(client, game.body(sums=[-150, 2000, 1150]))
    assert r.status_code == 422
    assert set(r.json) == {"status", "error", "message", "field"}
    assert (r.json["status"], r.json["error"], r.json["field"]) == ("invalid", "note-required", "content.note")
    refused_nothing_stored(game, (0, 0, 0), v)
    assert post(client, game.body(sums=[-150, 2000, 1150], note="   ")).json["error"] == "note-required"


def test_a_negative_sum_with_its_note_is_stored_pending_until_the_referee_approves(app, client, game):
    r = post(client, game.body(sums=[-150, 2000, 1150], note="Betl, 7 € — paid by #%d" % game.players()[0]))
    assert r.status_code == 202
    assert set(r.json) == {"status", "reason", "receipt", "case", "version", "ack"}
    assert (r.json["status"], r.json["reason"], r.json["version"]) == ("needs-referee", "negative-sum", 1)
    with app.app_context():
        tab = game.table()
        pending = tab.sheets[0]
        assert pending.status == "pending" and pending.note.startswith("Betl, 7 €")
        assert tab.sheet is None and rounds.tables_in(tab.round) == (0, 3)
        case = db.session.get(Case, r.json["case"])
        assert (case.kind, case.status, case.sheet_id, case.other_sheet_id) == ("negative-sum", "open", pending.id,
                                                                                 None)
        referee_decisions.accept_pending(pending, "referee")
        db.session.commit()
        tab = game.table()
        assert tab.sheet.id == pending.id and rounds.tables_in(tab.round) == (1, 3)
        with pytest.raises(ServiceError):
            referee_decisions.accept_pending(tab.sheet, "referee")
    # the same sheet sent again is answered with what it is now
    again = post(client, game.body(sums=[-150, 2000, 1150], note="Betl, 7 € — paid by #%d" % game.players()[0]))
    assert again.status_code == 200 and again.json == {"status": "accepted", "receipt": r.json["receipt"],
                                                       "version": 1, "ack": again.json["ack"]}


def test_a_wrong_total_is_refused(client, game):
    v = game.version()
    r = post(client, game.body(sums=[1450, 1000, 500]))
    assert r.status_code == 422 and (r.json["error"], r.json["field"]) == ("wrong-total", "content.sums_cents")
    assert "29,50" in r.json["message"] and "30,00" in r.json["message"]  # Slovak unless the phone asks
    refused_nothing_stored(game, (0, 0, 0), v)


def test_the_refusal_writes_amounts_in_the_phones_language(client, game):
    r = client.post(URL, json=game.body(sums=[1450, 1000, 500]), headers={"Accept-Language": "en"})
    assert r.status_code == 422 and "29.50" in r.json["message"] and "30.00" in r.json["message"]
    r = client.post(URL, json=game.body(sums=[-1500, 2000, 2500], note="?"), headers={"Accept-Language": "sk"})
    assert r.json["error"] == "impossible-sum" and "-15,00" in r.json["message"], r.json


def test_an_impossible_sum_is_refused(client, game):
    r = post(client, game.body(sums=[-1500, 2000, 2500], note="?"))
    assert r.status_code == 422 and r.json["error"] == "impossible-sum"
    assert r.json["start_no"] == game.players()[0]


def test_a_table_with_a_disqualification_goes_to_the_desk(app, client, game):
    with app.app_context():
        game.table().pending_dq = {"players": [game.table().players[0]], "early": False}
        db.session.commit()
    r = post(client, game.body())
    assert r.status_code == 422 and r.json["error"] == "desk-only"


# --------------------------------------------------------------------------- hashes, signatures, seating


def test_content_changed_after_signing_is_a_hash_mismatch(client, game):
    body = game.body()
    body["content"]["sums_cents"] = [1550, 900, 550]
    r = post(client, body)
    assert r.status_code == 422 and (r.json["status"], r.json["error"]) == ("invalid", "hash-mismatch")
    assert game.counts() == (0, 0, 0)


def test_a_signature_over_other_sums_is_named(client, game):
    body = game.body()
    body["signatures"][1]["hash"] = content_hash({**body["content"], "sums_cents": [1550, 900, 550]})
    r = post(client, body)
    assert r.status_code == 422
    assert set(r.json) == {"status", "error", "message", "start_no", "field"}
    assert (r.json["error"], r.json["start_no"]) == ("signature-hash", game.players()[1])


def test_every_player_must_sign(client, game):
    body = game.body()
    missing = body["signatures"].pop(2)["start_no"]
    r = post(client, body)
    assert r.status_code == 422 and (r.json["error"], r.json["start_no"]) == ("signature-missing", missing)


def test_a_signature_from_another_table_is_refused(client, game):
    body = game.body()
    stranger = game.players(table=2)[0]
    body["signatures"].append({**body["signatures"][0], "start_no": stranger, "pin": game.pins[stranger]})
    r = post(client, body)
    assert r.status_code == 422 and (r.json["error"], r.json["start_no"]) == ("not-at-table", stranger)


def test_the_players_must_be_the_tables_in_seat_order(app, client, game):
    body = game.body()
    for players in (list(reversed(body["content"]["players"])), game.players(table=2)):
        b = dict(body, content={**body["content"], "players": players})
        b["content_hash"] = content_hash(b["content"])
        r = post(client, b)
        assert r.status_code == 422 and r.json["error"] == "not-at-table"
        assert r.json["field"] == "content.players"


# --------------------------------------------------------------------------- tokens


def test_a_forged_or_altered_token_is_forbidden(app, client, game):
    body = game.body()
    forged = dict(body, token="eyJ0YWJsZSI6MX0.Zx1Zx1.forgedforgedforged")
    altered_token = ("X" if body["token"][0] != "X" else "Y") + body["token"][1:]
    with app.app_context():
        other_server = URLSafeTimedSerializer("another-secret", salt="table-sheet").dumps([game.tid, 1, 1])
    for b in (forged, dict(body, token=altered_token), dict(body, token=other_server)):
        r = post(client, b)
        assert r.status_code == 403
        assert set(r.json) == {"status", "message"} and r.json["status"] == "forbidden"
    assert game.counts() == (0, 0, 0)


def test_a_token_of_another_table_or_tournament_is_forbidden(app, client, game):
    other_tid = make_tournament(app, 9, name="SEM 6 - Žilina")
    issue_pins(app, other_tid)
    open_round(app, other_tid)
    body = game.body()
    with app.app_context():
        tokens = (table_token(other_tid, 1, 1), table_token(game.tid, 1, 2))
    for token in tokens:
        r = post(client, dict(body, token=token))
        assert r.status_code == 403 and r.json["status"] == "forbidden"
    assert game.counts() == (0, 0, 0)


def test_an_expired_token_is_gone(app, client, game):
    app.config["LISTOK_TABLE_TOKEN_MAX_AGE"] = -1
    r = post(client, game.body())
    assert r.status_code == 410 and set(r.json) == {"status", "message"} and r.json["status"] == "gone"


def test_a_token_found_genuine_before_still_expires_and_a_forged_one_is_never_kept(app, client, game, monkeypatch):
    """Tokens are checked once per process and kept (tokens._GENUINE): a kept one is still
    refused once older than the limit, and one with a bad signature is never kept."""
    from webapp.services import tokens

    body = game.body()
    state = client.get(f"/api/v1/table?token={body['token']}")
    assert state.status_code == 200
    assert any(token == body["token"] for _secret, token in tokens._GENUINE)
    later = tokens.time.time() + tokens.DEFAULT_MAX_AGE + 5
    monkeypatch.setattr(tokens.time, "time", lambda: later)
    r = post(client, body)
    assert r.status_code == 410 and r.json["status"] == "gone"
    forged = body["token"][:-2] + ("AA" if not body["token"].endswith("AA") else "BB")
    assert client.get(f"/api/v1/table?token={forged}").status_code == 403
    assert not any(token == forged for _secret, token in tokens._GENUINE)


def test_a_token_of_a_round_not_being_played_is_gone(app, client, game):
    with app.app_context():
        t = db.session.get(Tournament, game.tid)
        r1 = t.rounds[0]
        for tab in r1.tables:
            rounds.record_sheet(t, tab, [D("10")] * 3, "desk")
        rounds.close_round(t, r1, "test", t.version)
        rounds.draw_round(t, "test")  # round 2 drawn, not published
        db.session.commit()
    closed = post(client, game.body())
    assert closed.status_code == 410 and closed.json["status"] == "gone"
    draft = post(client, game.body(round_no=2))
    assert draft.status_code == 410 and draft.json["status"] == "gone"
    assert client.get("/api/v1/table", query_string={"token": game.token(round_no=2)}).status_code == 410


# --------------------------------------------------------------------------- PINs


def test_a_wrong_pin_is_named_counted_and_stores_nothing(app, client, game):
    victim = game.players()[1]
    v = game.version()
    body = game.body(pins={**game.pins, victim: "0000" if game.pins[victim] != "0000" else "1111"})
    r = post(client, body)
    assert r.status_code == 422
    assert set(r.json) == {"status", "error", "message", "start_no", "attempts_left", "pin_proofs"}
    assert (r.json["error"], r.json["start_no"], r.json["attempts_left"]) == ("wrong-pin", victim, 4)
    # the other two PINs were right: their proofs, so the phone can forget those PINs
    assert sorted(r.json["pin_proofs"]) == sorted(str(s) for s in game.players() if s != victim)
    refused_nothing_stored(game, (0, 0, 0), v)
    with app.app_context():
        assert game.player(victim).pin_failures == 1
    # the right PIN for the victim, proofs for the others (no PIN), same key: stored now
    again = game.body()
    for sig in again["signatures"]:
        if sig["start_no"] != victim:
            sig.update(pin="", pin_proof=r.json["pin_proofs"][str(sig["start_no"])])
    ok = post(client, dict(again, idempotency_key=body["idempotency_key"]))
    assert ok.status_code == 200
    with app.app_context():
        assert db.session.scalar(select(func.count(PinAttempt.id)).where(PinAttempt.kept)) == 1


def test_five_wrong_pins_lock_the_player_for_15_minutes(app, client, game):
    victim = game.players()[0]
    wrong = {**game.pins, victim: "9" * 5}
    answers = [post(client, game.body(pins=wrong)) for _ in range(5)]
    assert [a.status_code for a in answers] == [422, 422, 422, 422, 423]
    assert [a.json.get("attempts_left") for a in answers[:4]] == [4, 3, 2, 1]
    locked = answers[-1].json
    assert set(locked) == {"status", "start_no", "until", "message", "pin_proofs"}
    assert (locked["status"], locked["start_no"]) == ("locked", victim)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", locked["until"])
    with app.app_context():
        p = game.player(victim)
        assert timedelta(minutes=14) < p.pin_locked_until - utcnow() <= timedelta(minutes=15)
    # locked: even the right PIN is refused, and nothing is stored
    right = post(client, game.body())
    assert right.status_code == 423 and right.json["until"] == locked["until"]
    assert game.counts() == (0, 0, 0)
    # 15 minutes later
    with app.app_context():
        db.session.execute(update(Player).where(Player.tournament_id == game.tid, Player.start_no == victim)
                           .values(pin_locked_until=utcnow() - timedelta(seconds=1)))
        db.session.execute(update(PinAttempt).values(at=PinAttempt.at - timedelta(minutes=15)))
        db.session.commit()
    assert post(client, game.body()).status_code == 200
    with app.app_context():
        assert db.session.scalar(select(func.count(AuditEntry.id)).where(AuditEntry.action == "pin.locked")) == 1


def test_a_player_without_a_pin_is_told_so(app, client, game):
    victim = game.players()[2]
    with app.app_context():
        game.player(victim).pin_hash = None
        db.session.commit()
    r = post(client, game.body())
    assert r.status_code == 422 and (r.json["error"], r.json["start_no"]) == ("no-pin", victim)


def test_pin_check_at_once(app, client, game):
    token = game.body()["token"]
    s = game.players()[0]
    ok = client.post("/api/v1/pin", json={"token": token, "start_no": s, "pin": game.pins[s]})
    assert ok.status_code == 200 and ok.json == {"status": "ok"}
    wrong = client.post("/api/v1/pin", json={"token": token, "start_no": s, "pin": "77777"})
    assert wrong.status_code == 422
    assert {k: wrong.json[k] for k in ("status", "error", "attempts_left")} == \
        {"status": "invalid", "error": "wrong-pin", "attempts_left": 4}
    for _ in range(3):
        client.post("/api/v1/pin", json={"token": token, "start_no": s, "pin": "77777"})
    locked = client.post("/api/v1/pin", json={"token": token, "start_no": s, "pin": "77777"})
    assert locked.status_code == 423 and locked.json["status"] == "locked" and locked.json["until"]
    # the lock counts for sheets too
    assert post(client, game.body()).status_code == 423
    stranger = game.players(table=2)[0]
    r = client.post("/api/v1/pin", json={"token": token, "start_no": stranger, "pin": game.pins[stranger]})
    assert r.status_code == 422 and r.json["error"] == "not-at-table"
    assert client.post("/api/v1/pin", json={"token": "forged", "start_no": s, "pin": "1"}).status_code == 403
    assert client.post("/api/v1/pin", json={"token": token, "start_no": "x", "pin": "1"}).status_code == 400


# --------------------------------------------------------------------------- table state


def test_table_state_shape(app, client, game):
    token = game.body()["token"]
    r = client.get("/api/v1/table", query_string={"token": token})
    assert r.status_code == 200 and r.headers["Cache-Control"] == "no-store"
    assert set(r.json) == {"status", "round", "table", "players", "cards_position", "total_cents", "sheet", "draft",
                           "open_cases", "rules", "mine"}
    assert r.json["mine"] is None  # no receipt asked about
    assert r.json["rules"] == {"result_kind": "money", "currency": "EUR", "table_size": 3, "negative_note": True,
                               "keeper": None, "premium_line": None, "table_points": True,
                               "late_fee_cents": None, "keeper_by_lot": False}
    assert r.json["open_cases"] == []
    assert (r.json["status"], r.json["round"], r.json["table"]) == ("ok", 1, 1)
    assert [p["start_no"] for p in r.json["players"]] == game.players()
    assert all(set(p) == {"start_no", "name", "club"} and p["name"] for p in r.json["players"])
    assert r.json["cards_position"] == 3 and r.json["total_cents"] == 3000 and r.json["sheet"] is None
    sent = post(client, game.body()).json
    sheet = client.get("/api/v1/table", query_string={"token": token}).json["sheet"]
    assert sheet == {"version": 1, "receipt": sent["receipt"], "sums_cents": GOOD, "status": "accepted",
                     "corrected": False}


def test_table_state_shows_a_sheet_waiting_for_the_referee(client, game):
    sent = post(client, game.body(sums=[-150, 2000, 1150], note="betl")).json
    sheet = client.get("/api/v1/table", query_string={"token": game.body()["token"]}).json["sheet"]
    assert (sheet["status"], sheet["receipt"], sheet["sums_cents"]) == ("pending", sent["receipt"], [-150, 2000, 1150])


def test_table_state_refusals(client, game):
    assert client.get("/api/v1/table").json["status"] == "bad-request"
    r = client.get("/api/v1/table", query_string={"token": "forged"})
    assert r.status_code == 403 and r.json["status"] == "forbidden"


# --------------------------------------------------------------------------- bad requests, atomicity


def test_bad_requests_are_json_400s(client, game):
    for kwargs in ({"data": "not json", "content_type": "application/json"}, {"data": "{"}, {"json": [1, 2]},
                   {"json": {"token": "x"}}):
        r = client.post(URL, **kwargs)
        assert r.status_code == 400 and r.is_json and r.json["status"] == "bad-request" and r.json["message"]
    body = game.body()
    body["content"]["sums_cents"][0] = 14.5
    r = client.post(URL, json=body)
    assert r.status_code == 400 and r.json["field"] == "content.sums_cents[0]"
    huge = client.post(URL, data=b"{" + b" " * (2 * 1024 * 1024) + b"}", content_type="application/json")
    assert huge.status_code == 413 and huge.json["status"] == "bad-request"
    assert client.get(URL).status_code == 405
    assert client.get(URL).json["status"] == "bad-request"
    assert game.counts() == (0, 0, 0)


def test_no_csrf_token_is_needed(app, game):
    app.config["WTF_CSRF_ENABLED"] = True
    client = app.test_client()
    assert post(client, game.body()).status_code == 200


def test_a_failure_while_storing_leaves_nothing_half_stored(app, client, game, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    v = game.version()
    # the last step, of a batch and of a sheet alone: everything before it is in the transaction
    monkeypatch.setattr(sheet_submit, "bump", broken)
    with pytest.raises(RuntimeError):
        client.post(URL, json=game.body())
    monkeypatch.undo()
    refused_nothing_stored(game, (0, 0, 0), v)


def test_losing_the_race_for_a_key_answers_what_the_winner_stored(app, client, game, monkeypatch):
    body = game.body()
    first = post(client, body)
    # the key was not there when this request looked, and is when it stores (a concurrent twin that
    # held the lock first): the submission's primary key refuses it at commit
    monkeypatch.setattr(sheet_submit, "peek_submission", lambda key: None)
    again = post(client, body)
    assert again.status_code == 200 and again.json == {**first.json, "replay": True}
    assert game.counts() == (1, 1, 0)


# --------------------------------------------------------------------------- the desk sees phone sheets


def test_phone_sheets_count_at_the_results_desk_and_close_the_round(app, client, game):
    receipts = [post(client, game.body(table=n)).json["receipt"] for n in (1, 2, 3)]
    with app.app_context():
        r = game.table().round
        assert rounds.tables_in(r) == (3, 3)
    make_user(app)
    login(client)
    page = client.get(f"/operator/t/{game.tid}/round/1/results")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert all(receipt in html for receipt in receipts)
    with app.app_context():
        t = db.session.get(Tournament, game.tid)
        rounds.close_round(t, t.rounds[0], "test", t.version)
        db.session.commit()
        assert t.rounds[0].status == "closed"


# --------------------------------------------------------------------------- concurrency


def _parallel(app, bodies, url=URL):
    """POST every body at once from its own thread and client."""
    start = threading.Barrier(len(bodies))
    answers: list = [None] * len(bodies)

    def run(i):
        client = app.test_client()
        start.wait()
        r = client.post(url, json=bodies[i])
        answers[i] = (r.status_code, r.json)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(bodies))]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=60)
    return answers


def test_ten_phones_sending_the_same_key_at_once_store_one_sheet(app, game):
    body = game.body()
    answers = _parallel(app, [body] * 10)
    assert all(status == 200 for status, _ in answers), answers
    bodies = [{k: v for k, v in a.items() if k != "replay"} for _, a in answers]
    assert all(b == bodies[0] for b in bodies) and bodies[0]["status"] == "accepted"
    assert sum(1 for _, a in answers if not a.get("replay")) == 1
    assert game.counts() == (1, 1, 0)
    with app.app_context():
        assert verify_audit_chain() is None


def test_phones_of_every_table_at_once(app, game):
    """Three tables, three phones each (different keys, same sheet): one sheet per table, no refusal."""
    bodies = [game.body(table=n, sums=[1000 + n, 1000, 1000 - n]) for n in (1, 2, 3) for _ in range(3)]
    answers = _parallel(app, bodies)
    assert all(status == 200 and a["status"] == "accepted" for status, a in answers), answers
    by_table = {}
    for b, (_, a) in zip(bodies, answers):
        by_table.setdefault(b["content"]["table"], set()).add(a["receipt"])
    assert all(len(receipts) == 1 for receipts in by_table.values()) and len(by_table) == 3
    assert game.counts() == (3, 9, 0)
    with app.app_context():
        assert rounds.tables_in(game.table().round) == (3, 3)
        assert verify_audit_chain() is None


def test_concurrent_wrong_pins_are_all_counted(app, game):
    s = game.players()[0]
    token = game.body()["token"]
    answers = _parallel(app, [{"token": token, "start_no": s, "pin": "55555"}] * 8, url="/api/v1/pin")
    statuses = sorted(status for status, _ in answers)
    assert statuses == [422] * 4 + [423] * 4, answers
    assert sorted(a["attempts_left"] for status, a in answers if status == 422) == [1, 2, 3, 4]
    with app.app_context():
        assert game.player(s).pin_locked_until is not None
