"""Discipline that changes a counted result is referee-approved
(promise 1): an operator's (or an admin's) disqualification at a table whose
sheet counts, directly or through a red card / second yellow, also a red card
after the round closed (SEM-D1c), is a "discipline" case; a referee of the
tournament applies it directly. What changes no counted result stays direct."""
from __future__ import annotations

import json
import re
from decimal import Decimal as D

import pytest
from sqlalchemy import select

from tests.helpers import login, make_tournament, make_user, open_round, play_round, stored_cases, text
from webapp.extensions import db
from webapp.models import AuditEntry, Case, Event, Round, Sheet, Tournament
from webapp.services import chain_verify, desk, rounds


@pytest.fixture
def people(app):
    """An operator, a referee and an admin, each signed in on a client of their own, pages in English."""
    clients = {}
    for name, role in (("operator", "operator"), ("referee", "referee"), ("boss", "admin")):
        make_user(app, name, role=role)
        c = app.test_client()
        login(c, name)
        c.set_cookie("lang", "en")
        clients[name] = c
    return clients["operator"], clients["referee"], clients["boss"]


def tversion(app, tid) -> int:
    with app.app_context():
        return db.session.get(Tournament, tid).version


def table(app, tid, round_no, n=1):
    """(players, [(version, status, disqualified, created_by)], outcome) of a table."""
    with app.app_context():
        t = db.session.get(Tournament, tid)
        tab = next(x for x in next(r for r in t.rounds if r.number == round_no).tables if x.number == n)
        return (list(tab.players), [(s.version, s.status, list(s.disqualified or ()), s.created_by)
                                    for s in sorted(tab.sheets, key=lambda s: s.version)],
                desk.sheet_outcome(t, tab))


def discipline_cases(app, status=None) -> list[Case]:
    return stored_cases(app, kind="discipline", status=status)


def post(client, tid, action, **data):
    return client.post(f"/operator/t/{tid}/discipline/{action}", data=data)


def chain_ok(app, tid) -> bool:
    with app.app_context():
        return chain_verify.verify(db.session.get(Tournament, tid)).ok


def standings(op, tid, after=1) -> str:
    body = text(op.get(f"/operator/t/{tid}/standings", query_string={"after": after}))
    return re.search(r"<table.*?</table>", body, re.S).group(0)


@pytest.fixture
def counted(app):
    """9 players, round 1 published, table 1's sheet in from the desk (14 / 10 / 6)."""
    tid = make_tournament(app, 9)
    open_round(app, tid)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        tab = t.rounds[0].tables[0]
        rounds.record_sheet(t, tab, [D(14), D(10), D(6)], "desk")
        db.session.commit()
    return tid


def test_sem_d1c_operator_disqualification_at_a_counted_table_waits_for_the_referee(app, counted, people):
    tid = counted
    op, ref, _boss = people
    (a, b, c), sheets_before, before = table(app, tid, 1)
    r = post(op, tid, "disqualify", round=1, start_no=b, reason="looked at cards", version=tversion(app, tid))
    assert r.status_code == 302
    page = text(op.get(r.headers["Location"]))
    assert "the disqualification (SEM-D1c) waits for a referee as case" in page
    assert 'id="discipline-referee-note"' in page and 'id="discipline-waiting"' in page
    [case] = discipline_cases(app)
    assert (case.status, case.round, case.table, case.created_by) == ("open", 1, 1, "Operator")
    assert f'href="/referee/case/{case.id}"' in page
    # nothing changed: the sheet, its result, the disqualification list
    assert table(app, tid, 1)[1:] == (sheets_before, before)
    assert f"#{b}" not in text(op.get(f"/operator/t/{tid}/discipline")).split("<h2>Disqualifications</h2>")[1] \
        .split("</section>")[0]
    pv = case.payload["preview"]
    assert pv["old"]["points"] == ["5", "3", "1"] and pv["new"]["points"] == ["5", None, "3"]
    assert pv["new"]["money"] == ["15.00", None, "7.00"] and pv["rule"] == "D1c"
    # the referee's queue and case page show it, with what changes
    assert "Disqualification at a counted table (SEM-D1)" in text(ref.get("/referee/"))
    body = text(ref.get(f"/referee/case/{case.id}"))
    assert 'id="discipline-consequences"' in body and "looked at cards" in body and "Approve the disqualification" in body
    row = re.search(rf'<tr data-start-no="{c}" class="changed">.*?</tr>', body, re.S).group(0)
    assert 'class="red-pen-old"' in row and "€" in row
    # the operator looks but cannot decide; a second proposal at the table is refused
    assert 'id="case-referee-only"' in text(op.get(f"/referee/case/{case.id}"))
    assert op.post(f"/referee/case/{case.id}/approve", data={}).status_code == 403
    r = post(op, tid, "disqualify", round=1, start_no=c, version=tversion(app, tid))
    assert r.status_code == 422 and f"already waiting for a referee (case {case.id})" in text(r)
    # approved: exactly the D1c a referee's own entry gives, in the referee's name
    assert ref.post(f"/referee/case/{case.id}/approve", data={"note": "seen"}).status_code == 302
    _p, sheets_after, after = table(app, tid, 1)
    assert sheets_after == [(1, "superseded", [], "desk"), (2, "accepted", [b], "Referee")]
    assert after.points == (5, None, 3) and after.money == (D("15.00"), None, D("7.00"))
    [done] = discipline_cases(app)
    assert done.status == "approved" and done.resolved_by == "Referee"
    with app.app_context():
        assert db.session.get(Sheet, done.sheet_id).version == 2
        audit = db.session.scalar(select(AuditEntry).where(AuditEntry.action == "discipline.disqualify"))
        assert audit.actor == "Referee" and audit.payload["new"]["disqualified"] == [b]
        assert db.session.scalar(select(AuditEntry).where(AuditEntry.action == "discipline.propose")).actor \
            == "Operator"
    # the case page now shows the new version with the disqualification in red
    body = text(ref.get(f"/referee/case/{case.id}"))
    assert 'id="case-decided"' in body and "version 2" in body
    cell = re.search(rf'<tr data-start-no="{b}">.*?</tr>', body, re.S).group(0)
    assert 'data-col="after"' in cell and '<span class="badge bad red-pen">disqualified</span>' in cell
    assert chain_ok(app, tid)


def test_sem_d1c_red_card_after_close_waits_then_changes_the_standings(app, people):
    """A red card after round 1 closed (SEM-D1c at that table): the standings
    stay as they are until the referee approves the case."""
    tid = make_tournament(app, 9)
    play_round(app, tid, seed=1)
    op, ref, _boss = people
    (a, b, c), sheets_before, before = table(app, tid, 1)
    shown = standings(op, tid)
    r = post(op, tid, "card", start_no=a, colour="red", round=1, referee1="Novák", referee2="Kováč",
             reason="insult", version=tversion(app, tid))
    assert r.status_code == 302
    assert "the card and the disqualification it means (SEM-D1c) wait for a referee" in \
        text(op.get(r.headers["Location"]))
    with app.app_context():
        assert db.session.scalars(select(Event)).all() == []
    assert standings(op, tid) == shown and table(app, tid, 1)[1:] == (sheets_before, before)
    [case] = discipline_cases(app)
    body = text(ref.get(f"/referee/case/{case.id}"))
    assert "red card" in body and "Novák, Kováč" in body
    assert ref.post(f"/referee/case/{case.id}/approve", data={}).status_code == 302
    with app.app_context():
        [ev] = db.session.scalars(select(Event)).all()
        assert (ev.colour, ev.start_no, ev.round, ev.referees) == ("red", a, 1, ["Novák", "Kováč"])
    _p, sheets_after, after = table(app, tid, 1)
    assert [s[:3] for s in sheets_after] == [(1, "superseded", []), (2, "accepted", [a])]
    assert after.points[0] is None and after.money[1] == before.money[1] + D("1.00")
    assert standings(op, tid) != shown
    assert chain_ok(app, tid)


def test_sem_d1c_rejected_proposal_changes_nothing(app, people):
    tid = make_tournament(app, 9)
    play_round(app, tid, seed=1)
    op, ref, _boss = people
    (a, b, c), sheets_before, before = table(app, tid, 1, 2)
    shown, v = standings(op, tid), tversion(app, tid)
    r = post(op, tid, "card", start_no=c, colour="red", round=1, referee1="A", referee2="B", version=v)
    assert r.status_code == 302
    [case] = discipline_cases(app)
    assert ref.post(f"/referee/case/{case.id}/reject", data={"reason": ""}).status_code == 422
    assert ref.post(f"/referee/case/{case.id}/reject", data={"reason": "wrong player"}).status_code == 302
    assert discipline_cases(app)[0].status == "rejected"
    assert table(app, tid, 1, 2)[1:] == (sheets_before, before) and standings(op, tid) == shown
    with app.app_context():
        assert db.session.scalars(select(Event)).all() == []
        rejected = db.session.scalar(select(AuditEntry).where(AuditEntry.action == "case.reject"))
        assert rejected.payload["proposal"]["start_no"] == c
    assert tversion(app, tid) == v  # neither the proposal nor its rejection changed the tournament
    page = text(op.get(f"/operator/t/{tid}/discipline"))
    assert 'id="discipline-waiting"' not in page
    # the same card can be proposed again
    assert post(op, tid, "card", start_no=c, colour="red", round=1, referee1="A", referee2="B",
                version=tversion(app, tid)).status_code == 302
    assert chain_ok(app, tid)


def test_sem_d1_a_referee_applies_directly_and_an_admin_is_no_referee(app, counted, people):
    tid = counted
    op, ref, boss = people
    (a, b, c), _s, _o = table(app, tid, 1)
    r = post(boss, tid, "disqualify", round=1, start_no=a, version=tversion(app, tid))
    assert r.status_code == 302 and "waits for a referee" in text(boss.get(r.headers["Location"]))
    [case] = discipline_cases(app)
    assert boss.post(f"/referee/case/{case.id}/approve", data={}).status_code == 403
    # the referee's own entry waits for the open case first, then applies at once
    r = post(ref, tid, "disqualify", round=1, start_no=a, version=tversion(app, tid))
    assert r.status_code == 422 and "already waiting for a referee" in text(r)
    assert ref.post(f"/referee/case/{case.id}/reject", data={"reason": "typed twice"}).status_code == 302
    r = post(ref, tid, "disqualify", round=1, start_no=a, early="y", version=tversion(app, tid))
    assert r.status_code == 302
    page = text(ref.get(r.headers["Location"]))
    assert "Disqualification recorded at table 1 (SEM-D1c): a new sheet version." in page
    assert 'id="discipline-referee-note"' not in page
    _p, sheets_after, after = table(app, tid, 1)
    assert sheets_after[-1] == (2, "accepted", [a], "Referee") and after.points == (None, 4, 4)
    assert len(discipline_cases(app)) == 1
    # a referee's red card after the round closed: at once too
    with app.app_context():
        t = db.session.get(Tournament, tid)
        for tab in t.rounds[0].tables[1:]:
            rounds.record_sheet(t, tab, [D(10), D(10), D(10)], "desk")
        rounds.close_round(t, t.rounds[0], "desk", t.version)
        db.session.commit()
    (x, y, z), _s, _o = table(app, tid, 1, 2)
    assert post(ref, tid, "card", start_no=y, colour="red", round=1, referee1="A", referee2="B",
                version=tversion(app, tid)).status_code == 302
    assert table(app, tid, 1, 2)[1][-1] == (2, "accepted", [y], "Referee")
    assert len(discipline_cases(app)) == 1 and chain_ok(app, tid)


def test_sem_d1_what_changes_no_counted_result_stays_direct_for_operators(app, counted, people):
    """A yellow card, a disqualification before the sheet is in (pending), a
    withdrawal; a second yellow at a counted table is a case."""
    tid = counted
    op, ref, _boss = people
    (a, b, c), sheets_before, _o = table(app, tid, 1)
    (x, y, z), _s, _o = table(app, tid, 1, 2)
    assert post(op, tid, "card", start_no=a, colour="yellow", round=1, referee1="A",
                version=tversion(app, tid)).status_code == 302
    r = post(op, tid, "disqualify", round=1, start_no=x, version=tversion(app, tid))
    assert r.status_code == 302 and "Disqualification noted at table 2" in text(op.get(r.headers["Location"]))
    with app.app_context():
        assert db.session.scalars(select(Event.colour)).all() == ["yellow"]
        r1 = db.session.scalar(select(Round).where(Round.tournament_id == tid))
        assert r1.tables[1].pending_dq == {"players": [x], "early": False}
    assert discipline_cases(app) == []
    r = post(op, tid, "card", start_no=a, colour="yellow", round=1, referee1="A", version=tversion(app, tid))
    assert r.status_code == 302 and "wait for a referee" in text(op.get(r.headers["Location"]))
    with app.app_context():
        assert db.session.scalars(select(Event.colour)).all() == ["yellow"]
    assert table(app, tid, 1)[1] == sheets_before
    [case] = discipline_cases(app)
    assert ref.post(f"/referee/case/{case.id}/approve", data={}).status_code == 302
    with app.app_context():
        assert db.session.scalars(select(Event.colour)).all() == ["yellow", "yellow"]
    assert table(app, tid, 1)[1][-1][:3] == (2, "accepted", [a])


def test_sem_d1_proposal_for_a_changed_sheet_is_refused_until_rejected(app, counted, people):
    """The sheet changed under the case (an SEM-C4 correction approved): the
    case says so, offers no approval, and approving is refused with nothing changed."""
    tid = counted
    op, ref, _boss = people
    (a, b, c), _s, _o = table(app, tid, 1)
    post(op, tid, "disqualify", round=1, start_no=c, version=tversion(app, tid))
    [case] = discipline_cases(app)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        tab = t.rounds[0].tables[0]
        desk.propose_desk_correction(t, tab, ["12", "10", "8"], "Operator", base_version=1, reason="zle")
        db.session.commit()
        c4 = db.session.scalar(select(Case).where(Case.kind == "correction"))
    assert ref.post(f"/referee/case/{c4.id}/approve", data={}).status_code == 302
    sheets_now = table(app, tid, 1)[1]
    body = text(ref.get(f"/referee/case/{case.id}"))
    assert 'id="discipline-error"' in body and "Approve the disqualification" not in body
    r = ref.post(f"/referee/case/{case.id}/approve", data={})
    assert r.status_code == 422 and "changed since this was proposed" in text(r)
    assert discipline_cases(app)[0].status == "open" and table(app, tid, 1)[1] == sheets_now
    assert ref.post(f"/referee/case/{case.id}/reject", data={"reason": "sheet changed"}).status_code == 302


def test_sem_d1_proposal_approved_after_the_round_closed_keeps_the_sums(app, counted, people):
    """Proposed during round 1, approved after it closed: the new version keeps
    the sums as they count (as a red card after the round would)."""
    tid = counted
    op, ref, _boss = people
    (a, b, c), _s, before = table(app, tid, 1)
    post(op, tid, "disqualify", round=1, start_no=a, early="y", version=tversion(app, tid))
    with app.app_context():
        t = db.session.get(Tournament, tid)
        for tab in t.rounds[0].tables[1:]:
            rounds.record_sheet(t, tab, [D(10), D(10), D(10)], "desk")
        rounds.close_round(t, t.rounds[0], "desk", t.version)
        db.session.commit()
    [case] = discipline_cases(app)
    assert ref.post(f"/referee/case/{case.id}/approve", data={}).status_code == 302
    _p, sheets_after, after = table(app, tid, 1)
    assert [s[:3] for s in sheets_after] == [(1, "superseded", []), (2, "accepted", [a])]
    assert after.points == (None, 4, 4)
    with app.app_context():
        s = db.session.scalar(select(Sheet).where(Sheet.version == 2))
        assert s.sums == ["14.00", "10.00", "6.00"] and s.early
    assert chain_ok(app, tid)


def test_sem_d1c_card_after_close_the_server_and_a_file_agree(app, people):
    """SEM-E8 "Červená karta … znamená automaticky stop v aktuálnom turnaji", SEM-D1c:
    the referee's red card after round 1 closed gives table 1 a new sheet version; the
    exported file with the card only as an event (no `disqualified` on the table) reads
    to the same tournament and standings, and imported it stores the disqualification
    and shows it on the standings as the server's own tournament does."""
    from io import BytesIO

    from webapp.rules import exchange
    from webapp.rules.report import standings_report

    tid = make_tournament(app, 9)
    play_round(app, tid, seed=1)
    op, ref, _boss = people
    (a, b, c), _s, before = table(app, tid, 1)
    r = post(ref, tid, "card", start_no=a, colour="red", round=1, referee1="Novák", referee2="Kováč",
             version=tversion(app, tid))
    assert r.status_code == 302
    served = exchange.loads(op.get(f"/operator/t/{tid}/export.json").data, "export.json")
    d = exchange.to_dict(served)
    tb = d["rounds"][0]["tables"][0]
    assert tb["disqualified"] == [a]
    del tb["disqualified"]
    del d["id"]
    from_card = exchange.from_dict(d, "card.json")
    assert from_card.rounds == served.rounds
    assert standings_report(from_card) == standings_report(served)
    note = f"Start number {a} was disqualified by a card in round 1 (SEM-E): table 1 of that round counts as SEM-D1c says"
    assert note in text(op.get(f"/operator/t/{tid}/standings"))

    r = op.post("/operator/import", data={"file": (BytesIO(json.dumps(d).encode()), "card.json")},
                content_type="multipart/form-data")
    assert r.status_code == 302, text(r)
    imported = int(r.headers["Location"].rstrip("/").split("/")[-1])
    with app.app_context():
        t = db.session.get(Tournament, imported)
        stored = next(x for x in t.rounds[0].tables if x.number == 1)
        assert stored.sheet.disqualified == [a]
        outcome = desk.sheet_outcome(t, stored)
        assert outcome.points[0] is None and outcome.money[1] == before.money[1] + D("1.00")
    assert note in text(op.get(f"/operator/t/{imported}/standings"))
