"""A signed or counted sheet is final: the desk never replaces it,
a desk entry for such a table is a SEM-C4 correction the referee decides, a
SEM-C10 correction is a proposal a referee approves, an operator account
cannot decide cases, and no service ever changes a stored sheet's content."""
from __future__ import annotations

import re
from decimal import Decimal as D

import pytest
from sqlalchemy import event, func, select

from tests.helpers import (HX, stored_cases, issue_pins, login, make_tournament, make_user, play_round, signed_submission,
                           text)
from webapp.extensions import db
from webapp.models import AuditEntry, Case, Correction, Round, Sheet, Tournament
from webapp.services import cases, corrections, loaders, rounds, sheet_submit, standings as standings_service
from webapp.services.common import verify_audit_chain
from webapp.sync import protocol


def submit(app, tid, table, sums_cents, pins, note="", base_version=0, round_no=2) -> dict:
    body = signed_submission(app, tid, round_no, table, sums_cents, pins, note=note, base_version=base_version)
    with app.app_context():
        answer = sheet_submit.submit(protocol.parse_submission(body))
        db.session.commit()
        return answer.body


def table_sheets(app, tid, table, round_no=2) -> list[tuple[int, str, str, list[str]]]:
    with app.app_context():
        r = db.session.scalar(select(Round).where(Round.tournament_id == tid, Round.number == round_no))
        tab = next(x for x in r.tables if x.number == table)
        return [(s.version, s.status, s.source, list(s.sums)) for s in tab.sheets]


def seats(app, tid, table, round_no=2) -> list[int]:
    with app.app_context():
        r = db.session.scalar(select(Round).where(Round.tournament_id == tid, Round.number == round_no))
        return list(next(x for x in r.tables if x.number == table).players)


def tversion(app, tid) -> int:
    with app.app_context():
        return db.session.get(Tournament, tid).version


def open_cases(app, kind=None) -> list[Case]:
    return stored_cases(app, kind=kind, status="open")


def close(app, tid, round_no):
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r = next(x for x in t.rounds if x.number == round_no)
        rounds.close_round(t, r, "test", t.version)
        db.session.commit()


def desk(tid, table, suffix=""):
    return f"/operator/t/{tid}/round/2/results/{table}{suffix}"


@pytest.fixture
def field(app):
    """9 players, round 1 played and closed, round 2 published: tables 1–3 open."""
    tid = make_tournament(app, 9)
    play_round(app, tid, seed=1)
    pins = issue_pins(app, tid)  # before the round: a PIN issued during it needs the referee
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r = rounds.draw_round(t, "test")
        rounds.publish_round(t, r, "test", t.version)
        db.session.commit()
    return tid, pins


@pytest.fixture
def two(app):
    """An operator and a referee, each signed in on a client of their own, pages in English."""
    make_user(app, "operator")
    make_user(app, "referee", role="referee")
    op, ref = app.test_client(), app.test_client()
    login(op, "operator")
    login(ref, "referee")
    op.set_cookie("lang", "en")
    ref.set_cookie("lang", "en")
    return op, ref


# --------------------------------------------------------------------------- the desk (SEM-C4)


def test_sem_c4_desk_double_save_after_phone_sheet_is_refused_and_becomes_a_proposal(app, field, two):
    tid, pins = field
    op, ref = two
    page = text(op.get(f"/operator/t/{tid}/round/2/results"))
    assert re.search(r'name="sheet_version" value="0"', page)
    phone = submit(app, tid, 1, [1450, 1000, 550], pins)  # the phone's sheet comes in while the desk types
    assert phone["status"] == "accepted"
    signed = table_sheets(app, tid, 1)
    typed = {"sum0": "14", "sum1": "10", "sum2": "6", "sheet_version": "0"}
    r = op.post(desk(tid, 1), data=typed, headers=HX)
    body = text(r)
    assert r.status_code == 422 and "<html" not in body
    assert f"receipt {phone['receipt']}" in body and "Counts: version 1 from the table&#39;s phone" in body
    assert "Nothing was saved" in body
    # the typed sums stay in the form, next to the choice
    assert 'value="14"' in body and 'name="base_version" value="1"' in body
    assert "Send these sums to the referee as a correction" in body and "Discard" in body
    assert 'name="sheet_version"' not in body
    # repeating the save, even with the version the refusal showed, changes nothing
    for seen in ("0", "1"):
        r = op.post(desk(tid, 1), data={**typed, "sheet_version": seen}, headers=HX)
        assert r.status_code == 422 and "already has a sheet that counts" in text(r)
    r = op.post(desk(tid, 1), data=typed)  # without JS: the whole page, the card still refused
    assert r.status_code == 422 and "Send these sums to the referee as a correction" in text(r)
    assert table_sheets(app, tid, 1) == signed and open_cases(app) == []
    # "discard" is the card as it is: the phone's sheet
    card = text(op.get(desk(tid, 1), headers=HX))
    assert "14.50" in card and f"receipt {phone['receipt']}" in card and 'name="sum0"' not in card
    # the choice: the typed sums go to the referee
    r = op.post(desk(tid, 1, "/correction"), data={"sum0": "14", "sum1": "10", "sum2": "6", "base_version": "1",
                                                   "reason": "papierový hárok má iné sumy"}, headers=HX)
    body = text(r)
    assert r.status_code == 200 and "went to the referee" in body and "waiting for the referee" in body
    [c] = open_cases(app)
    assert (c.kind, c.created_by, c.payload["source"], c.payload["base_version"]) == ("correction", "Operator",
                                                                                       "desk", 1)
    assert table_sheets(app, tid, 1) == signed + [(2, "pending", "paper", ["14.00", "10.00", "6.00"])]
    # sending it again is refused: one correction waits at a time
    r = op.post(desk(tid, 1, "/correction"), data={"sum0": "14", "sum1": "10", "sum2": "6", "base_version": "1"},
                headers=HX)
    assert r.status_code == 422 and f"already waiting for the referee (case {c.id})" in text(r)
    # the referee sees old and new, and approves: version 2 counts, version 1 is kept, superseded
    page = text(ref.get(f"/referee/case/{c.id}"))
    assert "papierový hárok má iné sumy" in page and "Typed at the results desk" in page
    assert '<s class="red-pen-old">14.50</s>' in page and '<b class="red-pen">14.00</b>' in page
    assert ref.post(f"/referee/case/{c.id}/approve", data={}).status_code == 302
    assert table_sheets(app, tid, 1) == [(1, "superseded", "phone", ["14.50", "10.00", "5.50"]),
                                         (2, "accepted", "paper", ["14.00", "10.00", "6.00"])]
    with app.app_context():
        t = loaders.load_tournament(tid)
        tab = t.rounds[1].tables[0]
        assert standings_service.c4_old_by_seat(tab) == [D("14.50"), None, D("5.50")]
        assert verify_audit_chain() is None
        assert "sheet.desk_correction" in [a.action for a in db.session.scalars(select(AuditEntry))]
    # the public standings show the new sums with the C4 red mark, the old struck through
    for table in (2, 3):
        submit(app, tid, table, [1000, 1200, 800], pins)
    close(app, tid, 2)
    a, _b, c3 = seats(app, tid, 1)
    public = app.test_client()
    public.set_cookie("lang", "en")
    standings = text(public.get(f"/t/{tid}/standings"))
    row = re.search(rf'<tr[^>]*data-start-no="{a}"[^>]*>(.*?)</tr>', standings, re.S).group(1)
    assert '<s class="red-pen-old">14.50</s>' in row
    assert 'title="corrected at the table with the referee (SEM-C4)">14.00*' in row
    row = re.search(rf'<tr[^>]*data-start-no="{c3}"[^>]*>(.*?)</tr>', standings, re.S).group(1)
    assert '<s class="red-pen-old">5.50</s>' in row


def test_sem_c4_rejected_desk_correction_keeps_the_phone_sheet(app, field, two):
    tid, pins = field
    op, ref = two
    submit(app, tid, 1, [1450, 1000, 550], pins)
    r = op.post(desk(tid, 1, "/correction"), data={"sum0": "14", "sum1": "10", "sum2": "6", "base_version": "1"})
    assert r.status_code == 302
    [c] = open_cases(app)
    assert c.payload["reason"]  # a default reason when none was typed
    r = ref.post(f"/referee/case/{c.id}/reject", data={"reason": "hráči podpísali 14,50"})
    assert r.status_code == 302
    assert table_sheets(app, tid, 1) == [(1, "accepted", "phone", ["14.50", "10.00", "5.50"]),
                                         (2, "rejected", "paper", ["14.00", "10.00", "6.00"])]
    card = text(op.get(desk(tid, 1), headers=HX))
    assert "waiting for the referee" not in card and "Propose a correction to the referee" in card
    with app.app_context():
        assert not [m for m in standings_service.correction_marks(loaders.load_tournament(tid)).values() if m == "C4"]


def test_sem_c4_a_desk_sheet_too_is_corrected_only_through_the_referee(app, field, two):
    tid, _pins = field
    op, ref = two
    assert op.post(desk(tid, 2), data={"sum0": "14", "sum1": "10", "sum2": "6", "sheet_version": "0"},
                   headers=HX).status_code == 200
    card = text(op.get(desk(tid, 2), query_string={"edit": "1"}, headers=HX))
    assert 'name="base_version" value="1"' in card and "correction of version 1" in card
    assert "Send these sums to the referee as a correction" in card
    r = op.post(desk(tid, 2), data={"sum0": "12", "sum1": "10", "sum2": "8", "sheet_version": "1"}, headers=HX)
    assert r.status_code == 422 and table_sheets(app, tid, 2) == [(1, "accepted", "paper",
                                                                   ["14.00", "10.00", "6.00"])]
    # the same sums are no correction; wrong input is refused next to the field, nothing sent
    r = op.post(desk(tid, 2, "/correction"), data={"sum0": "14", "sum1": "10", "sum2": "6", "base_version": "1"},
                headers=HX)
    assert r.status_code == 422 and "nothing to correct" in text(r)
    r = op.post(desk(tid, 2, "/correction"), data={"sum0": "15", "sum1": "10", "sum2": "6", "base_version": "1"},
                headers=HX)
    assert r.status_code == 422 and "The sums total €31.00, not €30.00." in text(r)
    assert 'name="correct_total"' in text(r)
    assert open_cases(app) == []
    r = op.post(desk(tid, 2, "/correction"), data={"sum0": "12", "sum1": "10", "sum2": "8", "base_version": "1",
                                                   "reason": "preklep"}, headers=HX)
    assert r.status_code == 200
    assert table_sheets(app, tid, 2)[-1] == (2, "pending", "paper", ["12.00", "10.00", "8.00"])


def test_sem_c4_a_proposal_for_an_outdated_version_is_refused_saying_what_changed(app, field, two):
    tid, pins = field
    op, ref = two
    first = submit(app, tid, 1, [1450, 1000, 550], pins)
    # the table corrects its sheet with the referee (SEM-C4 from the phone) …
    ans = submit(app, tid, 1, [1450, 600, 950], pins, note="zle sčítané", base_version=first["version"])
    with app.app_context():
        cases.approve(db.session.get(Case, ans["case"]), "Referee")
        db.session.commit()
    # … while the desk still had version 1 in front of it
    before = table_sheets(app, tid, 1)
    r = op.post(desk(tid, 1, "/correction"), data={"sum0": "14", "sum1": "10", "sum2": "6", "base_version": "1"},
                headers=HX)
    body = text(r)
    assert r.status_code == 422
    assert "they were for version 1, the sheet that counts is now version 2" in body
    assert "14.50 / 6.00 / 9.50" in body and "Nothing was sent to the referee" in body
    assert 'name="base_version" value="2"' in body and 'value="14"' in body
    assert table_sheets(app, tid, 1) == before and open_cases(app) == []


# --------------------------------------------------------------------------- SEM-C10 through the referee

WORKED_R1 = [("14", "9.50", "6.50"), ("10", "10", "10"), ("12", "12", "6")]


def closed_round_1(app) -> int:
    tid = make_tournament(app, 9)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r = rounds.draw_round(t, "test")
        rounds.publish_round(t, r, "test", t.version)
        for tab, sums in zip(r.tables, WORKED_R1):
            rounds.record_sheet(t, tab, [D(s) for s in sums], "test")
        rounds.close_round(t, r, "test", t.version)
        db.session.commit()
    return tid


def c10_data(app, tid, sums, kind="no-fee", **extra):
    return {"round": 1, "table": 1, "sum0": sums[0], "sum1": sums[1], "sum2": sums[2], "kind": kind,
            "asked_by": "player #1", "version": tversion(app, tid), **extra}


def test_sem_c10_correction_is_a_proposal_the_referee_approves(app, two):
    op, ref = two
    tid = closed_round_1(app)
    a, b, _c = seats(app, tid, 1, 1)
    data = c10_data(app, tid, ("9,50", "14", "6,50"))
    preview = text(op.post(f"/operator/t/{tid}/corrections/preview", data=data, headers=HX))
    assert "harmed" in preview and "Send to the referee for approval" in preview
    assert 'name="approved_by"' not in text(op.get(f"/operator/t/{tid}/corrections",
                                                   query_string={"round": 1, "table": 1}))
    r = op.post(f"/operator/t/{tid}/corrections", data=data)
    assert r.status_code == 302
    page = text(op.get(f"/operator/t/{tid}/corrections"))
    assert "went to the referee" in page and 'id="c10-waiting"' in page
    # nothing changed yet
    assert table_sheets(app, tid, 1, 1) == [(1, "accepted", "paper", ["14.00", "9.50", "6.50"])]
    [c] = open_cases(app, "c10")
    assert c.payload["consequences"]["sums"] == ["9.50", "9.50", "6.50"] and c.payload["asked_by"] == "player #1"
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(Correction)) == 0
    # the referee's queue and case page: old and new sums, the points the correction gives, who asked
    queue = text(ref.get("/referee/"))
    assert "Correction after publication (SEM-C10)" in queue and f'data-case="{c.id}"' in queue
    case = text(ref.get(f"/referee/case/{c.id}"))
    assert "Asked by: player #1" in case and 'id="c10-consequences"' in case
    assert '<s class="red-pen-old">14.00</s>' in case and '<b class="red-pen">9.50</b>' in case
    assert f"#{b}" in case and "Approve the correction (SEM-C10)" in case
    # a second proposal for the same table waits its turn
    r = op.post(f"/operator/t/{tid}/corrections", data=c10_data(app, tid, ("9,50", "14", "6,50"), kind="fee"))
    assert r.status_code == 422 and f"already waiting for the referee (case {c.id})" in text(r)
    assert ref.post(f"/referee/case/{c.id}/approve", data={}).status_code == 302
    with app.app_context():
        tab = db.session.scalar(select(Round).where(Round.tournament_id == tid)).tables[0]
        s = tab.sheet
        assert (s.version, s.source, s.status, s.created_by) == (2, "correction", "accepted", "Referee")
        assert s.sums == ["9.50", "9.50", "6.50"] and s.points == ["3", "3", "1"]
        assert tab.sheets[0].status == "superseded" and tab.sheets[0].sums == ["14.00", "9.50", "6.50"]
        [row] = db.session.scalars(select(Correction)).all()
        assert (row.record["asked_by"], row.record["approved_by"]) == ("player #1", "Referee")
        assert row.record["harmed"] == [b] and row.record["advantaged"] == [a]
        entry = db.session.scalar(select(AuditEntry).where(AuditEntry.action == "sheet.correction"))
        assert entry.actor == "Referee" and entry.payload["proposed_by"] == "Operator"
        assert entry.payload["old_sums"] == ["14.00", "9.50", "6.50"] and entry.payload["case"] == c.id
        assert verify_audit_chain() is None
    body = text(op.get(f"/operator/t/{tid}/standings"))
    assert re.search(r'class="red-pen" title="corrected after publication \(SEM-C10\)">9\.50\*', body)
    assert "Referee" in text(op.get(f"/operator/t/{tid}/corrections"))


def test_sem_c10_proposal_refused_when_the_sheet_changed_and_rejection_changes_nothing(app, two):
    op, ref = two
    tid = closed_round_1(app)
    r = op.post(f"/operator/t/{tid}/corrections", data=c10_data(app, tid, ("9,50", "14", "6,50"), kind="fee"))
    assert r.status_code == 302
    [c] = open_cases(app, "c10")
    r = op.post(f"/operator/t/{tid}/corrections", data=c10_data(app, tid, ("9,50", "14", "6,50"), version=1))
    assert r.status_code == 422 and "Someone changed this tournament" in text(r)
    with app.app_context():  # the sheet changes meanwhile (here: another approved correction, bypassing the queue)
        t = loaders.load_tournament(tid)
        pv = corrections.preview_correction(t, 1, 1, ["14", "6.50", "9.50"], "fee")
        corrections._apply_c10(t, pv, "fee", "x", "Referee", "Referee")
        db.session.commit()
    before = table_sheets(app, tid, 1, 1)
    page = text(ref.get(f"/referee/case/{c.id}"))
    assert "changed since this correction was proposed" in page and "Approve the correction (SEM-C10)" not in page
    r = ref.post(f"/referee/case/{c.id}/approve", data={})
    assert r.status_code == 422 and "it corrects version 1, version 2 counts now" in text(r)
    assert table_sheets(app, tid, 1, 1) == before and open_cases(app, "c10")[0].id == c.id
    assert ref.post(f"/referee/case/{c.id}/reject", data={"reason": "zastarané"}).status_code == 302
    assert table_sheets(app, tid, 1, 1) == before and open_cases(app) == []


def test_sem_c10_with_fee_swaps_places_in_the_published_cut_draw_once_approved(app, two):
    op, ref = two
    from tests.helpers import fee_correction_table

    case_ = fee_correction_table(app)
    tid, table_no, real, before = case_["tid"], case_["table"], case_["real"], case_["before"]
    data = {"round": 3, "table": table_no, "kind": "fee", "asked_by": "player",
            **{f"sum{i}": f"{x:.2f}" for i, x in enumerate(real)}, "version": tversion(app, tid)}
    assert op.post(f"/operator/t/{tid}/corrections", data=data).status_code == 302
    [c] = open_cases(app, "c10")
    assert c.payload["consequences"]["seat_changes"]
    case = text(ref.get(f"/referee/case/{c.id}"))
    assert "Round 4 draw: places swapped (SEM-C10c)" in case and "Fee paid to the delegate: €20.00" in case
    with app.app_context():  # not approved yet: the draw is as it was
        r4 = db.session.get(Tournament, tid).rounds[3]
        assert {x.number: list(x.players) for x in r4.tables} == before
    assert ref.post(f"/referee/case/{c.id}/approve", data={}).status_code == 302
    with app.app_context():
        r4 = db.session.get(Tournament, tid).rounds[3]
        after = {x.number: list(x.players) for x in r4.tables}
        assert after != before
        assert [x["table"] for x in c.payload["consequences"]["seat_changes"]] == \
            [n for n in before if before[n] != after[n]]


# --------------------------------------------------------------------------- who decides


def test_an_operator_cannot_decide_cases(app, field, two):
    tid, pins = field
    op, ref = two
    ans = submit(app, tid, 2, [1950, 1200, -150], pins, note="posledná hra: betl, platil 2,40")
    cid = ans["case"]
    page = text(op.get(f"/referee/case/{cid}"))
    assert op.get("/referee/").status_code == 200 and 'id="case-referee-only"' in page
    assert 'action="/referee/case/%d/approve"' % cid not in page
    assert op.post(f"/referee/case/{cid}/approve", data={"note": "ok"}).status_code == 403
    assert op.post(f"/referee/case/{cid}/reject", data={"reason": "nie"}).status_code == 403
    [c] = open_cases(app)
    assert (c.id, c.status) == (cid, "open")
    assert ref.post(f"/referee/case/{cid}/approve", data={}).status_code == 302
    assert open_cases(app) == []


def test_no_import_or_cli_command_touches_an_existing_tournaments_sheets(app, runner):
    """`listok import` (like the web import) only creates tournaments: importing
    a file again is refused (the tournament is there already) and never replaces
    or edits a stored sheet."""
    from pathlib import Path

    worked = Path(__file__).resolve().parents[1] / "data" / "worked_example.json"
    first = runner.invoke(args=["listok", "import", str(worked)])
    assert first.exit_code == 0, first.output
    with app.app_context():
        stored = [(s.id, s.version, s.status, list(s.sums)) for s in db.session.scalars(select(Sheet))]
    second = runner.invoke(args=["listok", "import", str(worked)])
    assert second.exit_code == 2 and str(int(first.output)) in second.output
    with app.app_context():
        again = [(s.id, s.version, s.status, list(s.sums)) for s in
                 db.session.scalars(select(Sheet).where(Sheet.id.in_([x[0] for x in stored])))]
        assert again == stored


# --------------------------------------------------------------------------- the no-mutation guard


@pytest.fixture
def sheet_writes(app):
    """Every UPDATE of a stored sheet row (one committed before the current
    transaction), as SQL, and every change the ORM would flush to such a row's
    columns other than status and receipt. A row inserted in the same
    transaction may still be completed (its hash-chain seal) before commit."""
    import sqlalchemy as sa
    from sqlalchemy.orm import Session

    seen: dict[str, list] = {"sql": [], "orm": []}
    fresh: set[int] = set()  # sheets inserted in the transaction that is open now

    def after_flush(session, _ctx):
        fresh.update(o.id for o in session.new if isinstance(o, Sheet) and o.id is not None)

    def forget(*_args):
        fresh.clear()

    def before_flush(session, _ctx, _instances):
        for obj in session.dirty:
            if not isinstance(obj, Sheet) or obj.id in fresh:
                continue
            state = sa.inspect(obj)
            for attr in state.mapper.column_attrs:
                if attr.key in ("status", "receipt"):
                    continue
                hist = state.attrs[attr.key].history
                if hist.has_changes():
                    seen["orm"].append((obj.id, attr.key, list(hist.deleted), list(hist.added)))

    def before_cursor(_conn, _cursor, statement, params, _context, many):
        sql = " ".join(statement.split()).lower()
        if not sql.startswith("update sheet set"):
            return
        cols = set(re.findall(r"(\w+)\s*=", sql.split(" where ")[0][len("update sheet set"):]))
        if not cols - {"status", "receipt"}:
            return
        rows = params if many else [params]
        for p in rows:
            target = (p.get("sheet_id", p.get("id_1")) if isinstance(p, dict) else
                      (p[-1] if p else None))
            if target not in fresh:
                seen["sql"].append((statement, p))

    with app.app_context():
        engine = db.engine
    listeners = [(Session, "before_flush", before_flush), (Session, "after_flush", after_flush),
                 (Session, "after_commit", forget), (Session, "after_soft_rollback", forget),
                 (engine, "before_cursor_execute", before_cursor)]
    for target, name, fn in listeners:
        event.listen(target, name, fn)
    try:
        yield seen
    finally:
        for target, name, fn in listeners:
            event.remove(target, name, fn)


def test_no_service_changes_a_stored_sheets_content(app, field, two, sheet_writes):
    """Desk, phone, SEM-C4/C8 referee decisions, disputes, disqualification
    and SEM-D1c red cards (proposed and approved, or the referee's own),
    SEM-C10 proposal and approval: sheets are only added, and stored ones change
    only their status (or get a receipt)."""
    tid, pins = field
    op, ref = two
    # the desk: a sheet, a refused double save, a correction proposal, approved
    assert op.post(desk(tid, 1), data={"sum0": "14", "sum1": "10", "sum2": "6", "sheet_version": "0"},
                   headers=HX).status_code == 200
    assert op.post(desk(tid, 1), data={"sum0": "12", "sum1": "10", "sum2": "8", "sheet_version": "1"},
                   headers=HX).status_code == 422
    op.post(desk(tid, 1, "/correction"), data={"sum0": "12", "sum1": "10", "sum2": "8", "base_version": "1"})
    ref.post(f"/referee/case/{open_cases(app)[0].id}/approve", data={})
    # the table's phone corrects the counted version 2 with the referee (SEM-C4)
    fix = submit(app, tid, 1, [1200, 900, 900], pins, note="zle", base_version=2)
    assert fix["status"] == "needs-referee"
    ref.post(f"/referee/case/{fix['case']}/approve", data={})
    # a negative sum the referee co-signs, a dispute decided
    neg = submit(app, tid, 2, [1950, 1200, -150], pins, note="betl")
    ref.post(f"/referee/case/{neg['case']}/approve", data={})
    assert submit(app, tid, 3, [1000, 1000, 1000], pins)["status"] == "accepted"
    dis = submit(app, tid, 3, [1200, 900, 900], pins)
    with app.app_context():
        c = db.session.get(Case, dis["case"])
        other = c.sheet_id
    ref.post(f"/referee/case/{dis['case']}/approve", data={"choose": other})
    # a disqualification at a table whose sheet is in: the operator's is a case, a referee approves it
    out = seats(app, tid, 2)[0]
    assert op.post(f"/operator/t/{tid}/discipline/disqualify", data={
        "round": 2, "start_no": out, "reason": "karty", "version": tversion(app, tid)}).status_code == 302
    assert ref.post(f"/referee/case/{open_cases(app, 'discipline')[0].id}/approve", data={}).status_code == 302
    close(app, tid, 2)
    # SEM-D1c after the round closed: a red card proposed by the operator, approved; one the referee gives
    red = {"colour": "red", "round": 2, "referee1": "A", "referee2": "B"}
    assert op.post(f"/operator/t/{tid}/discipline/card", data={
        **red, "start_no": seats(app, tid, 1)[0], "version": tversion(app, tid)}).status_code == 302
    assert ref.post(f"/referee/case/{open_cases(app, 'discipline')[0].id}/approve", data={}).status_code == 302
    assert ref.post(f"/operator/t/{tid}/discipline/card", data={
        **red, "start_no": seats(app, tid, 1)[1], "version": tversion(app, tid)}).status_code == 302
    assert [v[1] for v in table_sheets(app, tid, 1)][-1] == "accepted" and open_cases(app) == []
    # SEM-C10 after publication, proposed and approved
    with app.app_context():
        tab3 = db.session.scalar(select(Round).where(Round.tournament_id == tid, Round.number == 2)).tables[2]
        real = [tab3.sheet.sums[1], tab3.sheet.sums[0], tab3.sheet.sums[2]]
    assert op.post(f"/operator/t/{tid}/corrections", data={
        "round": 2, "table": 3, "kind": "fee", "asked_by": "player", "version": tversion(app, tid),
        **{f"sum{i}": x for i, x in enumerate(real)}}).status_code == 302
    ref.post(f"/referee/case/{open_cases(app, 'c10')[0].id}/approve", data={})
    with app.app_context():
        statuses = {s.status for s in db.session.scalars(select(Sheet))}
        assert {"superseded", "rejected", "accepted"} <= statuses
        assert db.session.scalar(select(func.count()).select_from(Correction)) == 1
    assert open_cases(app) == []
    assert sheet_writes == {"sql": [], "orm": []}


def test_the_guard_sees_a_changed_sheet(app, field, sheet_writes):
    """The guard of the test above fails when something does change a stored sheet."""
    tid, pins = field
    submit(app, tid, 1, [1450, 1000, 550], pins)
    with app.app_context():
        s = db.session.scalar(select(Sheet).where(Sheet.source == "phone"))
        s.sums = ["15.00", "10.00", "5.00"]
        db.session.commit()
    assert sheet_writes["orm"] and sheet_writes["orm"][0][1] == "sums"
    assert sheet_writes["sql"]
