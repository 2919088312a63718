"""The per-tournament hash chain, `listok verify`, published heads and receipts
(services/chain.py, docs/SECURITY.md "How a federation checks a tournament").

Every kind of tampering is done the way someone with the database would do it:
SQL on the tables, never through the app's objects."""
from __future__ import annotations

import hashlib
import re
import threading
import time

import pytest
from sqlalchemy import delete, func, select, update

from tests.helpers import issue_pins, make_tournament, open_round, play_round, signed_submission, sql_statements, text
from webapp.extensions import db
from webapp.models import AuditEntry, PublishedHead, Round, RoundTable, Sheet, Tournament
from webapp.services import chain, chain_heads, corrections

HEAD = re.compile(r"#(\d+) · ([A-Z2-7]{4}-){3}[A-Z2-7]{4}")
RECEIPT = re.compile(r"^[A-Z2-7]{4}-[A-Z2-7]{4}(-[A-Z2-7]{2})?$")
SHEETS = Sheet.__table__
ENTRIES = AuditEntry.__table__


@pytest.fixture
def played(app):
    """9 players, rounds 1 and 2 played and closed (their standings published, SEM-C9)."""
    tid = make_tournament(app, 9)
    play_round(app, tid, seed=1)
    play_round(app, tid, seed=2)
    return tid


def verify(runner, tid=None):
    args = ["listok", "verify"] + (["--tournament", str(tid)] if tid is not None else [])
    result = runner.invoke(args=args)
    return result.exit_code, result.output.strip().splitlines()


def sheet_of(app, tid, round_no, table_no, version=None) -> tuple[int, int]:
    """(sheet id, chain seq) of the counted sheet (or of `version`) at a table."""
    with app.app_context():
        r = db.session.scalar(select(Round).where(Round.tournament_id == tid, Round.number == round_no))
        tab = next(x for x in r.tables if x.number == table_no)
        s = tab.sheet if version is None else next(x for x in tab.sheets if x.version == version)
        return s.id, s.chain_seq


def sql(app, *statements):
    with app.app_context():
        for st in statements:
            db.session.execute(st)
        db.session.commit()


def broken(runner, op, tid, round_no, table_no, *words):
    """`listok verify` fails naming the table (and the words), and so does the operator page."""
    code, lines = verify(runner)
    where = f"tournament {tid}, round {round_no}, table {table_no}:"
    named = [line for line in lines if line.startswith(where)]
    assert code == 1 and named, lines
    for w in words:
        assert any(w in line for line in named), (w, lines)
    page = text(op.get(f"/operator/t/{tid}/verify"))
    assert "problem" in page and f"Round {round_no}, table {table_no}:" in page
    return lines


def test_an_untouched_tournament_verifies(app, runner, played, op):
    code, lines = verify(runner)
    assert code == 0
    with app.app_context():
        t = db.session.get(Tournament, played)
        n = db.session.scalar(select(func.count()).select_from(AuditEntry).where(AuditEntry.tournament_id == played))
        assert t.chain_seq == n
        assert lines == [f"tournament {played}: {n} records, chain ok, head {chain.head_code(t.chain_head)}"]
        seqs = db.session.scalars(select(AuditEntry.seq).where(AuditEntry.tournament_id == played)
                                  .order_by(AuditEntry.seq)).all()
        assert seqs == list(range(1, n + 1))
        # every sheet links its own chain entry, which holds its content hash
        for s in db.session.scalars(select(Sheet)):
            e = db.session.scalar(select(AuditEntry).where(AuditEntry.tournament_id == played,
                                                           AuditEntry.seq == s.chain_seq))
            assert e.action == "sheet.store" and e.payload["sheet"]["content_hash"] == s.content_hash
            assert hashlib.sha256(chain.canonical(s.content)).hexdigest() == s.content_hash
    page = text(op.get(f"/operator/t/{played}/verify"))
    assert "The record is intact" in page and chain.head_code(t.chain_head) in page
    assert f"/operator/t/{played}/verify" in text(op.get(f"/operator/t/{played}"))


def test_verify_of_one_tournament_and_of_an_unknown_one(app, runner, played):
    other = make_tournament(app, 9, name="SEM 6 - Nitra")
    code, lines = verify(runner, other)
    assert code == 0 and lines[0].startswith(f"tournament {other}: ") and len(lines) == 1
    code, lines = verify(runner)
    assert code == 0 and len(lines) == 2
    result = runner.invoke(args=["listok", "verify", "--tournament", "999"])
    assert result.exit_code == 2 and "no tournament with id 999" in result.output


def test_sums_edited_in_sql_are_caught(app, runner, op, played):
    sid, _seq = sheet_of(app, played, 1, 2)
    sql(app, SHEETS.update().where(SHEETS.c.id == sid).values(sums=["20.00", "10.00", "0.00"]))
    lines = broken(runner, op, played, 1, 2, "sums")
    assert not any(", table 1:" in line or ", table 3:" in line for line in lines), lines


def test_points_edited_in_sql_are_caught(app, runner, op, played):
    sid, _seq = sheet_of(app, played, 2, 3)
    sql(app, SHEETS.update().where(SHEETS.c.id == sid).values(points=["5", "3", "1"]))
    broken(runner, op, played, 2, 3, "points")


def test_a_status_edited_in_sql_is_caught(app, runner, op, played):
    sid, _seq = sheet_of(app, played, 2, 1)
    sql(app, SHEETS.update().where(SHEETS.c.id == sid).values(status="rejected"))
    broken(runner, op, played, 2, 1, "status", '"accepted" in the chain, "rejected" in the database')


def test_a_deleted_entry_is_caught(app, runner, op, played):
    _sid, seq = sheet_of(app, played, 1, 3)
    sql(app, delete(ENTRIES).where(ENTRIES.c.tournament_id == played, ENTRIES.c.seq == seq))
    lines = broken(runner, op, played, 1, 3, f"record #{seq} is missing")
    assert any(f"#{seq}…#{seq} are missing" in line for line in lines), lines


def test_a_truncated_tail_is_caught(app, runner, op, played):
    """Delete the chain from round 2's last sheet on: the tournament's head, the published heads and
    the sheets whose entry is gone all say so."""
    _sid, seq = sheet_of(app, played, 2, 3)
    sql(app, delete(ENTRIES).where(ENTRIES.c.tournament_id == played, ENTRIES.c.seq >= seq))
    lines = broken(runner, op, played, 2, 3, "missing")
    assert any("were deleted" in line for line in lines), lines
    assert any("was published" in line and "cut" in line for line in lines), lines
    # even with the tournament's head put back to what is left, the published heads remain
    with app.app_context():
        last = db.session.scalar(select(AuditEntry).where(AuditEntry.tournament_id == played)
                                 .order_by(AuditEntry.seq.desc()).limit(1))
        values = {"chain_seq": last.seq, "chain_head": last.hash}
    sql(app, update(Tournament).where(Tournament.id == played).values(**values))
    code, lines = verify(runner)
    assert code == 1 and any("MAC is wrong" in line for line in lines)
    assert any(f"round 2, table 3:" in line for line in lines)


def test_two_reordered_entries_are_caught(app, runner, op, played):
    _a, seq_a = sheet_of(app, played, 1, 1)
    _b, seq_b = sheet_of(app, played, 1, 2)
    e = ENTRIES.c
    sql(app,
        update(ENTRIES).where(e.tournament_id == played, e.seq == seq_a).values(seq=-1),
        update(ENTRIES).where(e.tournament_id == played, e.seq == seq_b).values(seq=seq_a),
        update(ENTRIES).where(e.tournament_id == played, e.seq == -1).values(seq=seq_b))
    lines = broken(runner, op, played, 1, 1, "changed after it was written")
    assert any(line.startswith(f"tournament {played}, round 1, table 2:") for line in lines), lines


def test_an_edited_payload_is_caught(app, runner, op, played):
    _sid, seq = sheet_of(app, played, 2, 2)
    with app.app_context():
        payload = db.session.scalar(select(AuditEntry.payload).where(AuditEntry.tournament_id == played,
                                                                     AuditEntry.seq == seq))
    payload["sheet"]["sums"] = ["0.00", "10.00", "20.00"]
    sql(app, update(ENTRIES).where(ENTRIES.c.tournament_id == played, ENTRIES.c.seq == seq)
        .values(payload=payload))
    broken(runner, op, played, 2, 2, f"record #{seq} (a stored sheet) was changed")


def test_an_entry_appended_after_the_fact_is_caught(app, runner, op, played):
    """A forged record at the end, hashed and linked correctly, but without the server's key."""
    with app.app_context():
        last = db.session.scalar(select(AuditEntry).where(AuditEntry.tournament_id == played)
                                 .order_by(AuditEntry.seq.desc()).limit(1))
        forged = AuditEntry(tournament_id=played, seq=last.seq + 1, at=last.at, actor="desk", action="sheet.update",
                            payload={"sheet": {"round": 2, "table": 2, "version": 1, "status": "rejected"}},
                            prev_hash=last.hash)
        forged.hash = hashlib.sha256(forged.canonical()).hexdigest()
        forged.mac = "0" * 64
        db.session.add(forged)
        db.session.commit()
    lines = broken(runner, op, played, 2, 2, "was not written by this server")
    assert any("added after the tournament's head" in line for line in lines), lines


def test_rechaining_everything_after_an_edit_is_caught(app, runner, op, played):
    """Whoever has the database but not the server's key edits a sheet and its entry, then
    recomputes every later hash and link: the MACs and the published heads give it away."""
    sid, seq = sheet_of(app, played, 1, 2)
    forged = ["20.00", "10.00", "0.00"]
    with app.app_context():
        content = {**db.session.get(Sheet, sid).content, "sums": forged}
        h = hashlib.sha256(chain.canonical(content)).hexdigest()
        db.session.execute(SHEETS.update().where(SHEETS.c.id == sid)
                           .values(sums=forged, content=content, content_hash=h))
        prev = ""
        for e in db.session.scalars(select(AuditEntry).where(AuditEntry.tournament_id == played)
                                    .order_by(AuditEntry.seq)).all():
            if e.seq == seq:
                e.payload = {**e.payload, "content": content,
                             "sheet": {**e.payload["sheet"], "sums": forged, "content_hash": h}}
            e.prev_hash = prev
            e.hash = prev = hashlib.sha256(e.canonical()).hexdigest()
        db.session.execute(update(Tournament).where(Tournament.id == played).values(chain_head=prev))
        db.session.commit()
    lines = broken(runner, op, played, 1, 2, "MAC is wrong")
    assert any("the chain was rewritten" in line for line in lines), lines
    assert not any("content does not give its hash" in line for line in lines), lines


def test_a_chain_entry_belongs_to_its_tournament_and_is_macd_with_its_key(app, played):
    with app.app_context():
        e = db.session.scalar(select(AuditEntry).where(AuditEntry.tournament_id == played, AuditEntry.seq == 1))
        assert e.mac == chain.entry_mac(played, e.hash) != chain.entry_mac(played + 1, e.hash)
        assert e.hash == hashlib.sha256(e.canonical()).hexdigest() and e.prev_hash == ""


# --------------------------------------------------------------------------- published heads


def test_sem_c9_standings_show_the_head_and_the_server_keeps_it_once(app, anon, played):
    with app.app_context():
        before = db.session.scalar(select(func.count()).select_from(PublishedHead))
        assert before == 2  # the two rounds' SEM-C9 publications
    page = text(anon.get(f"/t/{played}/standings"))
    m = HEAD.search(page)
    assert m, page
    with app.app_context():
        t = db.session.get(Tournament, played)
        shown = db.session.scalar(select(AuditEntry).where(AuditEntry.tournament_id == played,
                                                           AuditEntry.seq == t.chain_seq - 1))
        assert m.group(0) == chain.head_label(shown.seq, shown.hash)
        last = db.session.scalar(select(AuditEntry).where(AuditEntry.tournament_id == played,
                                                          AuditEntry.seq == t.chain_seq))
        # the publication is the chain's last entry and names the head shown
        assert last.action == "head.publish" and (last.payload["seq"], last.payload["hash"]) == (shown.seq, shown.hash)
        heads = db.session.scalars(select(PublishedHead)).all()
        assert (shown.seq, shown.hash) in {(h.seq, h.hash) for h in heads}
        n = len(heads)
    for _ in range(3):
        assert HEAD.search(text(anon.get(f"/t/{played}/standings"))).group(0) == m.group(0)
        text(anon.get(f"/t/{played}/projector?slide=0"))
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(PublishedHead)) == n
    assert f"/t/{played}/receipt" in page


def test_the_projector_shows_the_head_with_the_standings(app, anon, played):
    seen = set()
    for slide in range(4):
        page = text(anon.get(f"/t/{played}/projector?slide={slide}"))
        if "Standings after round" in page:
            seen.add(HEAD.search(page).group(0))
    with app.app_context():
        seq, h = chain_heads.current_head(played)
    assert seen == {chain.head_label(seq, h)}


def test_the_operators_printed_standings_show_the_head(app, op, played):
    page = text(op.get(f"/operator/t/{played}/standings"))
    assert HEAD.search(page)


# --------------------------------------------------------------------------- receipts


def test_receipts_are_the_chain_entrys_hash_and_unique(app, played):
    with app.app_context():
        sheets = db.session.scalars(select(Sheet)).all()
        receipts = [s.receipt for s in sheets]
        assert len(set(receipts)) == len(receipts) == 6
        for s in sheets:
            assert RECEIPT.match(s.receipt)
            h = db.session.scalar(select(AuditEntry.hash).where(AuditEntry.tournament_id == played,
                                                                AuditEntry.seq == s.chain_seq))
            assert chain.b32(h).startswith(s.receipt.replace("-", ""))


def test_a_receipt_colliding_with_another_is_extended(app, played):
    with app.app_context():
        s = db.session.scalars(select(Sheet)).first()
        h = db.session.scalar(select(AuditEntry.hash).where(AuditEntry.tournament_id == played,
                                                            AuditEntry.seq == s.chain_seq))
        r = chain.unused_receipt(played, h)  # the same hash again: its 8 characters are taken
        assert r.replace("-", "") == chain.b32(h)[:10] and RECEIPT.match(r)


def test_a_phone_sheet_s_receipt_is_checked_by_its_insert_and_extended_on_a_collision(app, client, played,
                                                                                      runner, monkeypatch):
    """A phone sheet's row goes in with its 8-character receipt only if no other sheet of the
    tournament has it (the INSERT checks, no SELECT before it); when one has, its batch is rolled
    back (serve/together.py), and alone the row goes in with the 10-character one, which the
    phone's answer and the sheet.phone entry carry too."""
    pins = issue_pins(app, played)
    open_round(app, played)
    with app.app_context():
        taken = db.session.scalars(select(Sheet.receipt)).first()  # a round-1 sheet's
    real = chain.receipt_candidates
    monkeypatch.setattr(chain, "receipt_candidates", lambda h: [taken] + real(h)[1:])
    body = signed_submission(app, played, 3, 1, [1450, 1000, 550], pins=pins)
    with sql_statements(app) as seen:
        answer = client.post("/api/v1/sheets", json=body).json
    assert answer["status"] == "accepted" and answer["receipt"] != taken
    inserts = [x for x in seen if x.lstrip().upper().startswith("INSERT INTO SHEET")]
    # refused in the batch, refused alone, then the longer one
    assert len(inserts) == 3 and all("NOT (EXISTS" in x.upper() for x in inserts[:2]), inserts
    with app.app_context():
        new = db.session.scalar(select(Sheet).where(Sheet.receipt == answer["receipt"]))
        h = db.session.scalar(select(AuditEntry.hash).where(AuditEntry.tournament_id == played,
                                                            AuditEntry.seq == new.chain_seq))
        assert new.receipt.replace("-", "") == chain.b32(h)[:10] and RECEIPT.match(new.receipt)
        assert db.session.scalar(select(func.count()).select_from(Sheet).where(Sheet.receipt == taken)) == 1
        phone = db.session.scalar(select(AuditEntry).where(AuditEntry.tournament_id == played)
                                  .order_by(AuditEntry.seq.desc()).limit(1))
        assert phone.action == "sheet.phone" and phone.payload["receipt"] == new.receipt
    assert verify(runner, played)[0] == 0


def test_the_public_receipt_page_shows_what_counts_and_the_published_head(app, anon, played):
    with app.app_context():
        tab = db.session.scalar(select(Round).where(Round.tournament_id == played, Round.number == 1)).tables[1]
        s = tab.sheet
        receipt, sums, seq = s.receipt, list(s.sums), s.chain_seq
        head = db.session.scalar(select(PublishedHead).where(PublishedHead.tournament_id == played)
                                 .order_by(PublishedHead.seq).limit(1))
        label = chain.head_label(head.seq, head.hash)
    page = text(anon.get(f"/t/{played}/receipt?code={receipt.lower().replace('-', ' ')}"))
    assert "Round 1, table 2: sheet version 1" in page and "counts" in page
    assert all(x in page for x in sums)
    assert f"entry #{seq}, under the head {label}" in page


def test_a_receipt_not_yet_under_a_published_head_says_so(app, anon):
    tid = make_tournament(app, 9)
    play_round(app, tid, seed=4, close=False)
    with app.app_context():
        receipt = db.session.scalars(select(Sheet.receipt)).first()
    page = text(anon.get(f"/t/{tid}/receipt?code={receipt}"))
    assert "not yet under a published head" in page


def test_a_wrong_receipt_gets_a_clear_message(app, anon, played):
    r = anon.get(f"/t/{played}/receipt?code=AAAA-BBBB")
    assert r.status_code == 404 and "No sheet has the receipt AAAA-BBBB" in text(r)
    assert anon.get(f"/t/{played}/receipt").status_code == 200


def test_after_a_sql_edit_the_receipt_no_longer_says_counts_as_recorded(app, anon, played):
    sid, _seq = sheet_of(app, played, 1, 2)
    with app.app_context():
        receipt = db.session.get(Sheet, sid).receipt
    sql(app, SHEETS.update().where(SHEETS.c.id == sid).values(sums=["20.00", "10.00", "0.00"]))
    page = text(anon.get(f"/t/{played}/receipt?code={receipt}"))
    assert "is not what the tournament’s record says" in page and "under the head" not in page


def test_sem_c10_a_corrected_sheet_shows_both_versions_on_the_receipt_page(app, anon, runner, played):
    with app.app_context():
        t = db.session.get(Tournament, played)
        tab = db.session.scalar(select(Round).where(Round.tournament_id == played, Round.number == 2)).tables[0]
        old = tab.sheet
        old_receipt, old_sums = old.receipt, list(old.sums)
        new_sums = [old_sums[1], old_sums[0], old_sums[2]]
        case = corrections.propose_correction(t, 2, tab.number, new_sums, "operator-error", "Horváth", "test",
                                          t.version)
        corrections.approve_c10(case, t, "Novák")
        db.session.commit()
        new = db.session.get(RoundTable, tab.id).sheet
        assert new.version == 2 and new.receipt != old_receipt and RECEIPT.match(new.receipt)
        new_receipt = new.receipt
    page = text(anon.get(f"/t/{played}/receipt?code={old_receipt}"))
    assert "replaced by a correction" in page and "A correction replaced the sheet of this receipt" in page
    assert "What counts for table 1 now: version 2" in page and new_receipt in page
    page = text(anon.get(f"/t/{played}/receipt?code={new_receipt}"))
    assert "sheet version 2" in page and "counts" in page
    assert verify(runner)[0] == 0


# --------------------------------------------------------------------------- phones


def test_a_phone_sheet_keeps_the_signed_content_hash_and_gets_its_receipt(app, client, runner):
    tid = make_tournament(app, 9)
    pins = issue_pins(app, tid)
    open_round(app, tid)
    body = signed_submission(app, tid, 1, 1, [1450, 1000, 550], pins=pins)
    r = client.post("/api/v1/sheets", json=body)
    assert r.status_code == 200 and RECEIPT.match(r.json["receipt"]), r.json
    with app.app_context():
        s = db.session.scalar(select(Sheet))
        assert s.content_hash == body["content_hash"] and s.content == body["content"]
        assert s.receipt == r.json["receipt"]
        e = db.session.scalar(select(AuditEntry).where(AuditEntry.seq == s.chain_seq,
                                                       AuditEntry.tournament_id == tid))
        drawing = hashlib.sha256(body["signatures"][0]["drawing"].encode()).hexdigest()
        assert e.payload["sheet"]["signatures"][0]["drawing"] == drawing
        assert "M 10" not in str(e.payload)
    assert verify(runner)[0] == 0


def test_concurrent_phone_submissions_keep_one_linear_chain(app, database_url, runner):
    """Phones of every table at once (threads; on PostgreSQL truly concurrent): one chain, no fork."""
    tid = make_tournament(app, 27)
    pins = issue_pins(app, tid)
    open_round(app, tid)
    bodies = [signed_submission(app, tid, 1, n, [1000 + n, 1000, 1000 - n], pins=pins) for n in range(1, 10)]
    bodies += [signed_submission(app, tid, 1, n, [1000 + n, 1000, 1000 - n], pins=pins) for n in range(1, 10)]
    start = threading.Barrier(len(bodies))
    answers = [None] * len(bodies)

    def run(i):
        c = app.test_client()
        start.wait()
        res = c.post("/api/v1/sheets", json=bodies[i])
        while res.status_code == 503:  # 18 at once, over admission's 16 in flight: back later, as a phone
            time.sleep(res.json["retry_after_ms"] / 1000)
            res = c.post("/api/v1/sheets", json=bodies[i])
        answers[i] = (res.status_code, res.json)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(bodies))]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=120)
    assert all(a is not None and a[0] == 200 for a in answers), answers
    with app.app_context():
        entries = db.session.scalars(select(AuditEntry).where(AuditEntry.tournament_id == tid)
                                     .order_by(AuditEntry.seq)).all()
        assert [e.seq for e in entries] == list(range(1, len(entries) + 1))
        assert all(b.prev_hash == a.hash for a, b in zip(entries, entries[1:]))
        assert db.session.scalar(select(func.count(Sheet.id))) == 9
        assert len({s.receipt for s in db.session.scalars(select(Sheet))}) == 9
    code, lines = verify(runner)
    assert code == 0, lines


def test_a_phone_sheet_writes_its_entries_with_the_sheet_and_the_tournament_row_once(app, client, played, runner):
    """The sheet's two entries (sheet.store, sheet.phone) are held and inserted at the end with the
    sheet's row and move the head kept with the tournament in the same UPDATE as the version: the row ends at the last
    entry."""
    pins = issue_pins(app, played)
    open_round(app, played)
    body = signed_submission(app, played, 3, 1, [1450, 1000, 550], pins=pins)
    with sql_statements(app) as seen:
        assert client.post("/api/v1/sheets", json=body).status_code == 200
    updates = [s for s in seen if s.lstrip().upper().startswith("UPDATE TOURNAMENT")]
    assert len(updates) == 1 and "chain_head" in updates[0] and "version" in updates[0], updates
    inserts = [s for s in seen if s.lstrip().upper().startswith("INSERT INTO AUDIT_ENTRY")]
    assert len(inserts) == 1, inserts  # the sheet's two entries in one executemany
    with app.app_context():
        t = db.session.get(Tournament, played)
        last, before = db.session.scalars(select(AuditEntry).where(AuditEntry.tournament_id == played)
                                          .order_by(AuditEntry.seq.desc()).limit(2)).all()
        assert (last.action, before.action) == ("sheet.phone", "sheet.store")
        assert last.prev_hash == before.hash and (t.chain_seq, t.chain_head) == (last.seq, last.hash)
        assert t.chain_mac == chain.head_mac(played, last.seq, last.hash)
    assert verify(runner, played)[0] == 0


def test_a_held_entry_is_written_at_commit_and_refuses_a_savepoint(app, played, runner):
    """An entry appended with `hold` and no entry after it still reaches the chain (before
    commit); a savepoint begun while one is held is refused, since its rollback would take
    the held row with it."""
    with app.app_context():
        before = db.session.get(Tournament, played).chain_seq
        chain.append(played, "test.held", "test", {"n": 1}, hold=True)
        db.session.commit()
        assert db.session.scalar(select(AuditEntry.action).where(
            AuditEntry.tournament_id == played, AuditEntry.seq == before + 1)) == "test.held"
        chain.append(played, "test.held", "test", {"n": 2}, hold=True)
        with pytest.raises(RuntimeError, match="before a savepoint"):
            db.session.begin_nested()
        db.session.rollback()
        assert db.session.get(Tournament, played).chain_seq == before + 1
    assert verify(runner, played)[0] == 0


def test_a_savepoint_keeps_the_head_in_the_row_and_its_rollback_forks_nothing(app, played, runner):
    """Within a savepoint the head goes to the row at once, so that rolling the savepoint
    back returns the row to the entries that stay and the next entry chains onto them."""
    from webapp.services.common import audit

    with app.app_context():
        before = db.session.get(Tournament, played).chain_seq
        audit("test.outer", "test", {"n": 1}, played)
        with db.session.begin_nested() as sp:
            audit("test.inner", "test", {"n": 2}, played)
            row = db.session.execute(select(Tournament.chain_seq).where(Tournament.id == played)).scalar_one()
            assert row == before + 2
            sp.rollback()
        audit("test.after", "test", {"n": 3}, played)
        db.session.commit()
        entries = db.session.execute(select(AuditEntry.seq, AuditEntry.action).where(
            AuditEntry.tournament_id == played, AuditEntry.seq > before).order_by(AuditEntry.seq)).all()
        assert [tuple(e) for e in entries] == [(before + 1, "test.outer"), (before + 2, "test.after")]
        assert db.session.get(Tournament, played).chain_seq == before + 2
    assert verify(runner, played)[0] == 0
