"""The referee's phone: the queue of open cases, a case page per kind, approve
and reject (SEM-C4 corrections, SEM-C8 negative sums, disputes), stale
decisions, the SEM-C9 discrepancy report from the public standings page, and
the red marks a referee-approved correction leaves on every page."""
from __future__ import annotations

import re
from datetime import timedelta

import pytest
from flask_babel import force_locale
from sqlalchemy import select, update

from tests.helpers import HX, issue_pins, login, make_tournament, make_user, play_round, signed_submission, text
from webapp.extensions import db
from webapp.models import AuditEntry, Case, Round, Tournament, utcnow
from webapp.services import cases, own_phone, rounds, sheet_submit
from webapp.services.common import StaleError, verify_audit_chain
from webapp.sync import protocol


def submit(app, tid, table, sums_cents, pins, note="", base_version=0, round_no=2) -> dict:
    """A signed sheet from the table's phone, through the sync service."""
    body = signed_submission(app, tid, round_no, table, sums_cents, pins, note=note, base_version=base_version)
    with app.app_context():
        answer = sheet_submit.submit(protocol.parse_submission(body))
        db.session.commit()
        return answer.body


@pytest.fixture
def field(app):
    """9 players, round 1 played and closed, round 2 published: tables 1–3 open."""
    tid = make_tournament(app, 9)
    play_round(app, tid, seed=1)
    pins = issue_pins(app, tid)  # before round 2: a PIN issued during it sends the sheet to the referee
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r = rounds.draw_round(t, "test")
        rounds.publish_round(t, r, "test", t.version)
        db.session.commit()
    return tid, pins


def correction_case(app, tid, pins, table=1) -> int:
    first = submit(app, tid, table, [1450, 1000, 550], pins)
    assert first["status"] == "accepted"
    ans = submit(app, tid, table, [1450, 600, 950], pins, note="zle sčítané v 3. hre", base_version=first["version"])
    assert ans["status"] == "needs-referee" and ans["reason"] == "correction"
    return ans["case"]


def negative_case(app, tid, pins, table=2) -> int:
    ans = submit(app, tid, table, [1950, 1200, -150], pins, note="posledná hra: betl, platil 2,40")
    assert ans["status"] == "needs-referee" and ans["reason"] == "negative-sum"
    return ans["case"]


def dispute_case(app, tid, pins, table=3) -> int:
    assert submit(app, tid, table, [1000, 1000, 1000], pins)["status"] == "accepted"
    ans = submit(app, tid, table, [1200, 900, 900], pins)
    assert ans["status"] == "dispute"
    return ans["case"]


def case_row(app, cid) -> Case:
    with app.app_context():
        c = db.session.get(Case, cid)
        db.session.expunge(c)
        return c


def table_sheets(app, tid, table, round_no=2) -> list[tuple[int, str, list[str]]]:
    with app.app_context():
        r = db.session.scalar(select(Round).where(Round.tournament_id == tid, Round.number == round_no))
        tab = next(x for x in r.tables if x.number == table)
        return [(s.version, s.status, list(s.sums)) for s in tab.sheets]


def tournament_version(app, tid) -> int:
    with app.app_context():
        return db.session.get(Tournament, tid).version


def audit_actions(app) -> list[str]:
    """The record's actions in order, without the "rows" entries that chain the rows an action changed."""
    with app.app_context():
        return [a.action for a in db.session.scalars(select(AuditEntry).where(AuditEntry.action != "rows")
                                                   .order_by(AuditEntry.id))]


def close_round(app, tid, round_no=2):
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r = next(x for x in t.rounds if x.number == round_no)
        rounds.close_round(t, r, "test", t.version)
        db.session.commit()


# --------------------------------------------------------------------------- access


def test_anonymous_is_sent_to_login(app, anon):
    for url in ("/referee/", "/referee/case/1"):
        r = anon.get(url)
        assert r.status_code == 302 and "/login" in r.headers["Location"]
    r = anon.post("/referee/case/1/approve")
    assert r.status_code == 302 and "/login" in r.headers["Location"]


def test_an_operator_may_look_but_not_decide(app, client, field):
    """Only referee accounts decide cases (docs/SECURITY.md, "What an operator cannot do alone")."""
    tid, pins = field
    cid = negative_case(app, tid, pins)
    make_user(app, "operator")
    login(client, "operator")
    client.set_cookie("lang", "en")
    assert client.get("/referee/").status_code == 200
    page = text(client.get(f"/referee/case/{cid}"))
    assert "A referee decides this case" in page and f"/referee/case/{cid}/approve" not in page
    assert client.post(f"/referee/case/{cid}/approve", data={"note": "ok"}).status_code == 403
    assert client.post(f"/referee/case/{cid}/reject", data={"reason": "nie"}).status_code == 403
    assert case_row(app, cid).status == "open"


def test_referee_login_lands_on_the_queue(app, client):
    make_user(app, "referee", role="referee")
    r = login(client, "referee")
    assert r.status_code == 302 and r.headers["Location"].endswith("/referee/")


# --------------------------------------------------------------------------- the queue


def test_queue_groups_open_cases_by_kind_newest_first(app, ref, field):
    tid, pins = field
    neg = negative_case(app, tid, pins)
    cor = correction_case(app, tid, pins)
    dis = dispute_case(app, tid, pins)
    with app.app_context():  # an older second negative sum sorts after the newer one
        db.session.execute(update(Case).where(Case.id == neg).values(created_at=utcnow() - timedelta(minutes=7)))
        db.session.commit()
    body = text(ref.get("/referee/"))
    assert "3 open cases" in body
    headings = re.findall(r'<h2 class="queue-kind">([^<]+)</h2>', body)
    assert headings == ["Two different sheets", "Correction before hand-in (SEM-C4)", "Negative sum (SEM-C8)"]
    assert [int(x) for x in re.findall(r'data-case="(\d+)"', body)] == [dis, cor, neg]
    assert "Round 2, table 1" in body and "Round 2, table 2" in body and "Round 2, table 3" in body
    assert "7 minutes ago" in body and "just now" in body
    assert 'hx-trigger="every 5s"' in body


def test_queue_fragment_is_swapped_only_when_something_changed(app, ref, field, monkeypatch):
    tid, pins = field
    now = utcnow().replace(second=0)  # the fingerprint also changes every minute (the ages shown)
    monkeypatch.setattr(cases, "utcnow", lambda: now)
    r = ref.get("/referee/", headers=HX)
    assert r.status_code == 200 and "<html" not in text(r) and "Nothing to decide" in text(r)
    seen = re.search(r'data-fingerprint="(\w+)"', text(r)).group(1)
    assert f"seen={seen}" in text(r)
    again = ref.get(f"/referee/?seen={seen}", headers=HX)
    assert again.status_code == 204 and again.get_data() == b""
    assert "HX-Request" in again.headers["Vary"]
    cid = negative_case(app, tid, pins)
    changed = ref.get(f"/referee/?seen={seen}", headers=HX)
    assert changed.status_code == 200 and f'data-case="{cid}"' in text(changed)
    # without htmx the fingerprint does not matter: the whole page
    assert "<html" in text(ref.get(f"/referee/?seen={seen}"))


def test_decided_cases_leave_the_queue(app, ref, field):
    tid, pins = field
    cid = negative_case(app, tid, pins)
    ref.post(f"/referee/case/{cid}/approve", data={})
    body = text(ref.get("/referee/"))
    assert "0 open cases" in body and "Nothing to decide" in body
    assert "Decided" in body and "approved" in body


# --------------------------------------------------------------------------- SEM-C4 corrections


def test_correction_page_shows_both_versions_the_changes_and_the_signatures(app, ref, field):
    tid, pins = field
    cid = correction_case(app, tid, pins)
    body = text(ref.get(f"/referee/case/{cid}"))
    assert "Correction before hand-in (SEM-C4)" in body and "Round 2, table 1" in body
    assert "zle sčítané v 3. hre" in body  # why
    assert "Sent from the table’s phone" in body
    # before → after per seat; the changed ones in red, the old struck through
    rows = re.findall(r'<tr data-start-no="(\d+)">(.*?)</tr>', body, re.S)
    assert len(rows) == 3
    first, second, third = (r[1] for r in rows)
    assert "red-pen" not in first and "14.50" in first
    assert '<s class="red-pen-old">10.00</s>' in second and '<b class="red-pen">6.00</b>' in second
    assert '<s class="red-pen-old">5.50</s>' in third and '<b class="red-pen">9.50</b>' in third
    # points before/after, from the engine: 5/3/1 → 5/1/3
    assert re.findall(r"(\d) pts", first) == ["5", "5"]
    assert re.findall(r"(\d) pts", second) == ["3", "1"]
    assert re.findall(r"(\d) pts", third) == ["1", "3"]
    # both versions were signed by all three: six small SVG signatures
    assert body.count('<svg class="sig"') == 6
    assert body.count("signed this version") == 6
    assert 'viewBox="' in body and "<path d=\"M 10 10 C 20 30" in body
    assert "Approve the correction" in body and "Reason for rejecting" in body


def test_approving_a_correction_makes_it_count_and_marks_it_red(app, ref, field):
    tid, pins = field
    cid = correction_case(app, tid, pins)
    v0 = tournament_version(app, tid)
    r = ref.post(f"/referee/case/{cid}/approve", data={"note": "všetci traja súhlasia"})
    assert r.status_code == 302 and r.headers["Location"].endswith("/referee/")
    assert "Case %d approved (round 2, table 1)." % cid in text(ref.get("/referee/"))
    assert table_sheets(app, tid, 1) == [(1, "superseded", ["14.50", "10.00", "5.50"]),
                                         (2, "accepted", ["14.50", "6.00", "9.50"])]
    c = case_row(app, cid)
    assert (c.status, c.resolved_by, c.resolution_note) == ("approved", "Referee", "všetci traja súhlasia")
    assert c.resolved_at is not None
    assert tournament_version(app, tid) > v0  # cached standings are rendered again
    actions = audit_actions(app)
    assert actions[-3:] == ["sheet.accept", "case.approve", "case.decider"]  # the decision, then who decided
    with app.app_context():
        entry = db.session.scalars(select(AuditEntry).where(AuditEntry.action == "case.approve")
                                   .order_by(AuditEntry.id.desc())).first()
        assert entry.actor == "Referee" and entry.payload["case"] == cid
        assert entry.payload["old_sums"] == ["14.50", "10.00", "5.50"]
        assert verify_audit_chain() is None
    # the decided case page says who decided, and offers no buttons any more
    page = text(ref.get(f"/referee/case/{cid}"))
    assert "Approved by Referee at" in page and "Approve the correction" not in page


def test_red_marks_on_desk_print_standings_and_player_page(app, client, field):
    tid, pins = field
    cid = correction_case(app, tid, pins)
    with app.app_context():
        cases.approve(db.session.get(Case, cid), "Referee")
        db.session.commit()
        r = db.session.scalar(select(Round).where(Round.tournament_id == tid, Round.number == 2))
        seats = list(next(x for x in r.tables if x.number == 1).players)
    make_user(app, "operator")
    login(client, "operator")
    client.set_cookie("lang", "en")
    desk = text(client.get(f"/operator/t/{tid}/round/2/results"))
    table1 = desk[desk.index('id="table-1"'):desk.index('id="table-2"')]
    assert "corrected with the referee (SEM-C4)" in table1
    assert '<s class="red-pen-old">10.00</s>' in table1 and '<span class="red-pen">6.00</span>' in table1
    other = desk[desk.index('id="table-2"'):]
    assert "SEM-C4" not in other
    from webapp.services.tokens import table_token

    with app.app_context():
        token = table_token(tid, 2, 1)
    phone = text(client.get(f"/s/{token}"))
    assert '<s class="red-pen-old">€10.00</s> <span class="red-pen">€6.00</span>' in phone
    printed = text(client.get(f"/operator/t/{tid}/round/2/sheets"))  # SEM's paper: Slovak amounts
    assert '<s class="red-pen-old">10,00\xa0€</s> <span class="red-pen">6,00\xa0€</span>' in printed
    assert printed.count("red-pen-old") == 2
    # the rest of the round, then the public standings and the player page
    for table in (2, 3):
        submit(app, tid, table, [1000, 1200, 800], pins)
    close_round(app, tid)
    standings = text(client.get(f"/t/{tid}/standings"))
    row = re.search(rf'<tr[^>]*data-start-no="{seats[1]}"[^>]*>(.*?)</tr>', standings, re.S).group(1)
    assert '<s class="red-pen-old">10.00</s>' in row
    assert 'title="corrected at the table with the referee (SEM-C4)">6.00*' in row
    unchanged = re.search(rf'<tr[^>]*data-start-no="{seats[0]}"[^>]*>(.*?)</tr>', standings, re.S).group(1)
    assert "red-pen-old" not in unchanged
    player = text(client.get(f"/t/{tid}/player/{seats[2]}"))
    assert '<s class="red-pen-old">€5.50</s>' in player and "€9.50*" in player


def test_rejecting_needs_a_reason_and_keeps_the_counted_version(app, ref, field):
    tid, pins = field
    cid = correction_case(app, tid, pins)
    before = table_sheets(app, tid, 1)
    actions = audit_actions(app)
    r = ref.post(f"/referee/case/{cid}/reject", data={"reason": "  "})
    assert r.status_code == 422
    assert "Say why the case is rejected" in text(r) and 'aria-invalid="true"' in text(r)
    assert table_sheets(app, tid, 1) == before and case_row(app, cid).status == "open"
    assert audit_actions(app) == actions
    r = ref.post(f"/referee/case/{cid}/reject", data={"reason": "hráč č. 2 nesúhlasí"})
    assert r.status_code == 302
    assert table_sheets(app, tid, 1) == [(1, "accepted", ["14.50", "10.00", "5.50"]),
                                         (2, "rejected", ["14.50", "6.00", "9.50"])]
    c = case_row(app, cid)
    assert (c.status, c.resolution_note) == ("rejected", "hráč č. 2 nesúhlasí")
    assert audit_actions(app)[-3:] == ["sheet.reject", "case.reject", "case.decider"]
    # nothing marked red: the first version still counts
    with app.app_context():
        from webapp.services.loaders import load_tournament
        from webapp.services.standings import correction_marks

        assert not [m for m in correction_marks(load_tournament(tid)).values() if m == "C4"]


def test_a_correction_of_an_outdated_version_is_refused(app, ref, field):
    tid, pins = field
    cid = correction_case(app, tid, pins)
    # another correction of the same version was approved meanwhile
    other = submit(app, tid, 1, [1500, 1000, 500], pins, note="iná oprava", base_version=1)
    with app.app_context():
        cases.approve(db.session.get(Case, other["case"]), "Referee 2")
        db.session.commit()
    before = table_sheets(app, tid, 1)
    r = ref.post(f"/referee/case/{cid}/approve", data={})
    assert r.status_code == 422 and "changed since this correction was signed" in text(r)
    assert table_sheets(app, tid, 1) == before and case_row(app, cid).status == "open"


# --------------------------------------------------------------------------- stale decisions


def test_a_case_decided_by_another_referee_is_refused(app, ref, field):
    tid, pins = field
    cid = negative_case(app, tid, pins)
    page = text(ref.get(f"/referee/case/{cid}"))  # both referees have the page open
    assert "Approve: I co-sign the negative sum" in page
    with app.app_context():
        cases.approve(db.session.get(Case, cid), "Jana Rozhodcová", note="v poriadku")
        db.session.commit()
    sheets_before, actions = table_sheets(app, tid, 2), audit_actions(app)
    for action, data in (("approve", {}), ("reject", {"reason": "nie"})):
        r = ref.post(f"/referee/case/{cid}/{action}", data=data)
        assert r.status_code == 422
        assert re.search(r"Jana Rozhodcová already approved this case at \d\d:\d\d\. Nothing was changed\.", text(r))
    assert table_sheets(app, tid, 2) == sheets_before and audit_actions(app) == actions
    c = case_row(app, cid)
    assert (c.status, c.resolved_by, c.resolution_note) == ("approved", "Jana Rozhodcová", "v poriadku")


def test_two_decisions_at_the_same_moment_one_is_refused(app, field):
    """The second decision read the case while it was open; the conditional
    update finds it decided and refuses, changing nothing."""
    tid, pins = field
    cid = negative_case(app, tid, pins)
    with app.app_context(), force_locale("en"):
        mine = db.session.get(Case, cid)
        assert mine.status == "open"
        db.session.execute(update(Case).where(Case.id == cid).values(
            status="rejected", resolved_by="Other", resolved_at=utcnow()).execution_options(synchronize_session=False))
        with pytest.raises(StaleError, match="Other already rejected this case"):
            cases.approve(mine, "Me")
        db.session.rollback()
    assert table_sheets(app, tid, 2)[0][1] == "pending"


# --------------------------------------------------------------------------- SEM-C8 negative sums


def test_negative_sum_page_and_approval(app, ref, field):
    tid, pins = field
    cid = negative_case(app, tid, pins)
    body = text(ref.get(f"/referee/case/{cid}"))
    assert "Negative sum (SEM-C8)" in body and "posledná hra: betl, platil 2,40" in body
    assert '<b class="red-pen">-1.50</b>' in body and "19.50" in body
    assert body.count('<svg class="sig"') == 3
    r = ref.post(f"/referee/case/{cid}/approve", data={})
    assert r.status_code == 302
    assert table_sheets(app, tid, 2) == [(1, "accepted", ["19.50", "12.00", "-1.50"])]
    with app.app_context():  # counted, but no correction: nothing red
        from webapp.services.standings import c4_old_by_seat

        r2 = db.session.scalar(select(Round).where(Round.tournament_id == tid, Round.number == 2))
        assert c4_old_by_seat(next(x for x in r2.tables if x.number == 2)) is None


def test_rejected_negative_sum_leaves_the_table_without_a_sheet(app, ref, field):
    tid, pins = field
    cid = negative_case(app, tid, pins)
    assert ref.post(f"/referee/case/{cid}/reject", data={"reason": "poznámka chýba na zadnej strane"}).status_code == 302
    assert table_sheets(app, tid, 2) == [(1, "rejected", ["19.50", "12.00", "-1.50"])]


def test_decisions_are_refused_once_the_round_is_closed(app, ref, field):
    tid, pins = field
    cid = correction_case(app, tid, pins)
    for table in (2, 3):
        submit(app, tid, table, [1000, 1200, 800], pins)
    close_round(app, tid)
    r = ref.post(f"/referee/case/{cid}/approve", data={})
    assert r.status_code == 422 and "SEM-C10" in text(r)
    assert case_row(app, cid).status == "open"


# --------------------------------------------------------------------------- disputes


def test_dispute_page_shows_both_sheets_and_the_chosen_one_counts(app, ref, field):
    tid, pins = field
    cid = dispute_case(app, tid, pins)
    c = case_row(app, cid)
    body = text(ref.get(f"/referee/case/{cid}"))
    assert "Two different sheets" in body and "Sheet 1" in body and "Sheet 2" in body
    assert body.count('<b class="red-pen">') == 6  # every seat differs: both sides red
    assert f'name="choose" value="{c.other_sheet_id}"' in body and f'name="choose" value="{c.sheet_id}"' in body
    assert "Reason for rejecting" not in body
    r = ref.post(f"/referee/case/{cid}/approve", data={})
    assert r.status_code == 422 and "Choose the sheet that counts." in text(r)
    assert ref.post(f"/referee/case/{cid}/approve", data={"choose": "999999"}).status_code == 422
    r = ref.post(f"/referee/case/{cid}/approve", data={"choose": str(c.sheet_id), "note": "hráči potvrdili"})
    assert r.status_code == 302
    assert table_sheets(app, tid, 3) == [(1, "rejected", ["10.00", "10.00", "10.00"]),
                                         (2, "accepted", ["12.00", "9.00", "9.00"])]
    with app.app_context():
        entry = db.session.scalars(select(AuditEntry).where(AuditEntry.action.not_in(["case.decider", "rows"]))
                                   .order_by(AuditEntry.id.desc())).first()
        assert entry.action == "case.approve" and entry.payload["chosen"] == c.sheet_id


def test_dispute_keeping_the_first_sheet(app, ref, field):
    tid, pins = field
    cid = dispute_case(app, tid, pins)
    c = case_row(app, cid)
    v0 = tournament_version(app, tid)
    assert ref.post(f"/referee/case/{cid}/approve", data={"choose": str(c.other_sheet_id)}).status_code == 302
    assert table_sheets(app, tid, 3) == [(1, "accepted", ["10.00", "10.00", "10.00"]),
                                         (2, "rejected", ["12.00", "9.00", "9.00"])]
    assert tournament_version(app, tid) > v0


def test_dispute_against_a_waiting_negative_sum_settles_both_cases(app, ref, field):
    tid, pins = field
    neg = negative_case(app, tid, pins, table=2)
    ans = submit(app, tid, 2, [1900, 1250, -150], pins, note="betl")
    assert ans["status"] == "dispute"
    dis = ans["case"]
    neg_sheet = case_row(app, neg).sheet_id
    assert ref.post(f"/referee/case/{dis}/approve", data={"choose": str(neg_sheet)}).status_code == 302
    assert [s[1] for s in table_sheets(app, tid, 2)] == ["accepted", "rejected"]
    n = case_row(app, neg)
    assert n.status == "approved" and f"case {dis}" in n.resolution_note
    assert "0 open cases" in text(ref.get("/referee/"))


# --------------------------------------------------------------------------- SEM-C9 discrepancy reports


@pytest.fixture
def published(app, field):
    """Round 2 complete and closed: its standings were published just now."""
    tid, pins = field
    for table in (1, 2, 3):
        submit(app, tid, table, [1000, 1200, 800], pins)
    close_round(app, tid)
    with app.app_context():
        r = db.session.scalar(select(Round).where(Round.tournament_id == tid, Round.number == 2))
        return tid, list(r.tables[0].players)


def report_cases(app) -> list[Case]:
    with app.app_context():
        rows = db.session.scalars(select(Case).where(Case.kind == "discrepancy").order_by(Case.id)).all()
        for c in rows:
            db.session.expunge(c)
        return rows


def test_standings_offer_the_report_while_the_window_is_open(app, anon, published):
    tid, seats = published
    body = text(anon.get(f"/t/{tid}/standings"))
    assert f'href="/t/{tid}/discrepancy?round=2"' in body and "Report a discrepancy" in body
    # the polled window keeps polling and keeps the button
    part = anon.get(f"/t/{tid}/standings?after=2&part=window", headers=HX)
    assert "Report a discrepancy" in text(part) and 'hx-trigger="every 30s"' in text(part)
    form = text(anon.get(f"/t/{tid}/discrepancy?round=2&start_no={seats[0]}"))
    assert re.search(r'name="round"[^>]*value="2"', form)
    assert re.search(rf'name="start_no"[^>]*value="{seats[0]}"', form)
    assert "Send to the referees" in form


def test_a_report_lands_in_the_queue(app, anon, published, field, client):
    tid, seats = published
    pins = field[1]
    r = anon.post(f"/t/{tid}/discrepancy", data={"start_no": str(seats[1]), "table": "1", "round": "2",
                                                  "text": "Moja suma je 12,00, nie 10,00.", "pin": pins[seats[1]]})
    assert r.status_code == 200 and "Sent to the referees" in text(r)
    [c] = report_cases(app)
    assert (c.round, c.table, c.status, c.payload) == (2, 1, "open", {"start_no": seats[1], "verified": "pin",
                                                                       "text": "Moja suma je 12,00, nie 10,00."})
    assert audit_actions(app)[-1] == "case.report"
    make_user(app, "referee", role="referee")
    login(client, "referee")
    client.set_cookie("lang", "en")
    assert "Discrepancy reported (SEM-C9)" in text(client.get("/referee/"))
    page = text(client.get(f"/referee/case/{c.id}"))
    assert "Moja suma je 12,00, nie 10,00." in page and f"Reported by #{seats[1]}" in page
    assert "The sheet that counts now" in page and "Confirm the discrepancy" in page
    assert client.post(f"/referee/case/{c.id}/reject", data={"reason": "súčty sedia"}).status_code == 302
    assert report_cases(app)[0].status == "rejected"


def test_the_report_form_over_htmx(app, anon, published, field):
    tid, seats = published
    pin = field[1][seats[0]]
    r = anon.post(f"/t/{tid}/discrepancy", headers=HX,
                  data={"start_no": str(seats[0]), "table": "1", "round": "2", "text": "", "pin": pin})
    assert r.status_code == 422 and "<html" not in text(r)
    assert 'id="report-form"' in text(r) and "Say what is wrong." in text(r)
    r = anon.post(f"/t/{tid}/discrepancy", headers=HX,
                  data={"start_no": str(seats[0]), "table": "1", "round": "2", "text": "zlá suma", "pin": pin})
    assert r.status_code == 200 and "<html" not in text(r) and 'id="report-sent"' in text(r)


@pytest.mark.parametrize("data, message", [
    ({"start_no": "999", "table": "1"}, "There is no player with start number 999."),
    ({"start_no": "x", "table": "1"}, "Enter your start number."),
    ({"table": "7"}, "Round 2 has no table 7."),
    ({"table": "2"}, "played at table 1 in round 2, not at table 2"),
    ({"round": "5"}, "The standings after round 5 are not published."),
])
def test_bad_reports_are_refused_and_nothing_is_stored(app, anon, published, field, data, message):
    tid, seats = published
    form = {"start_no": str(seats[0]), "table": "1", "round": "2", "text": "zlá suma", "pin": field[1][seats[0]],
            **data}
    r = anon.post(f"/t/{tid}/discrepancy", data=form)
    assert r.status_code == 422 and message in text(r)
    assert report_cases(app) == []


def test_after_the_window_the_form_says_so_and_stores_nothing(app, anon, published):
    tid, seats = published
    with app.app_context():
        db.session.execute(update(Round).where(Round.tournament_id == tid, Round.number == 2).values(
            standings_published_at=utcnow() - timedelta(minutes=11)))
        db.session.commit()
    body = text(anon.get(f"/t/{tid}/standings"))
    assert "Report a discrepancy" not in body and "ended at" in body
    form = text(anon.get(f"/t/{tid}/discrepancy?round=2"))
    assert 'id="report-closed"' in form and "<textarea" not in form
    r = anon.post(f"/t/{tid}/discrepancy", data={"start_no": str(seats[0]), "table": "1", "round": "2",
                                                  "text": "neskoro"})
    assert r.status_code == 422 and "ended at" in text(r) and "Nothing was sent" in text(r)
    assert report_cases(app) == []


def test_reports_are_limited_per_start_number_and_round(app, anon, published, field):
    tid, seats = published
    pins = field[1]
    data = {"start_no": str(seats[0]), "table": "1", "round": "2", "text": "znova", "pin": pins[seats[0]]}
    for _i in range(cases.MAX_REPORTS):
        assert anon.post(f"/t/{tid}/discrepancy", data=data).status_code == 200
    r = anon.post(f"/t/{tid}/discrepancy", data=data)
    assert r.status_code == 422 and "has already sent 5 reports for round 2" in text(r)
    assert len(report_cases(app)) == cases.MAX_REPORTS
    other = {**data, "start_no": str(seats[1]), "pin": pins[seats[1]]}
    assert anon.post(f"/t/{tid}/discrepancy", data=other).status_code == 200


def test_signature_rendering_ignores_anything_but_path_data():
    assert cases.signature_svg('M 0 0 L 10 10"/><script>alert(1)</script>') is None
    assert cases.signature_svg("") is None and cases.signature_svg(None) is None
    svg = cases.signature_svg("M 20 30 L 120 70 M 50 50 l 0 0")
    assert svg["view_box"] == "16 26 108 48"


def test_a_signature_given_on_a_players_own_phone_is_marked_on_the_case_page(app, ref, field):
    tid, pins = field
    body = signed_submission(app, tid, 2, 2, [1950, 1200, -150], pins, note="betl, platil 2,40")
    own = body["content"]["players"][1]
    with app.app_context():
        own_phone.publish_draft(protocol.parse_draft(body))
        own_phone.sign_draft(protocol.parse_own_signature({
            "token": body["token"], "content_hash": body["content_hash"], "start_no": own, "pin": pins[own],
            "drawing": "M 1 1 L 30 9", "signed_at": "2026-03-14T10:52:00Z"}))
        db.session.commit()
    body["signatures"][1] = {"start_no": own, "own_phone": True, "hash": body["content_hash"]}
    with app.app_context():
        answer = sheet_submit.submit(protocol.parse_submission(body))
        db.session.commit()
    assert answer.body["reason"] == "negative-sum"
    page = text(ref.get(f"/referee/case/{answer.body['case']}"))
    assert page.count("signed this version") == 3
    own_row = re.search(rf'<li data-start-no="{own}">(.*?)</li>', page, re.S).group(1)
    assert "on own phone" in own_row and '<path d="M 1 1 L 30 9"' in own_row
    assert page.count("on own phone") == 1


def test_a_referee_account_an_admin_makes_during_the_tournament_is_shown_on_its_decisions(app, ref, field):
    """Only a referee decides, and an admin cannot (403); but an admin creates accounts. An
    account the admin creates and assigns after round 1 was published, then decides with, is
    named on the case ("decided by … an account created by Admin at …, during this tournament"),
    in the chain, and in the queue of the tournament's other referees."""
    tid, pins = field
    cid = negative_case(app, tid, pins)
    make_user(app, "boss", role="admin")
    admin = app.test_client()
    login(admin, "boss")
    admin.set_cookie("lang", "en")
    assert admin.post(f"/referee/case/{cid}/approve", data={}).status_code == 403
    r = admin.post("/admin/users", data={"username": "helper", "display_name": "Helper", "role": "referee",
                                         "password": "helper-pass-1"})
    assert r.status_code == 302
    uid = int(r.headers["Location"].rstrip("/").split("/")[-1])
    assert admin.post(f"/admin/user/{uid}/tournaments", data={"tournament": [str(tid)]}).status_code == 302
    queue = text(ref.get("/referee/"))
    assert "Referee accounts new in the tournament" in queue
    assert re.search(r"Helper \(account helper\), an account created by Boss at [\d.]+ \d\d:\d\d; assigned to the "
                     r"tournament by Boss at [\d.]+ \d\d:\d\d <span class=\"badge warn\">during this tournament", queue), queue
    helper = app.test_client()
    login(helper, "helper", "helper-pass-1")
    helper.set_cookie("lang", "en")
    assert helper.post(f"/referee/case/{cid}/approve", data={}).status_code == 302
    page = text(ref.get(f"/referee/case/{cid}"))
    assert re.search(r"Approved by Helper at \d\d:\d\d\..*Decided by <span class=\"referee-provenance\">Helper "
                     r"\(account helper\), an account created by Boss at .*during this tournament", page, re.S), page
    with app.app_context():
        entry = db.session.scalar(select(AuditEntry).where(AuditEntry.action == "case.decider"))
        assert (entry.payload["case"], entry.payload["created_by"], entry.payload["assigned_by"],
                entry.payload["during"]) == (cid, "Boss", "Boss", True)
        assert verify_audit_chain() is None


def test_a_referee_from_before_the_tournament_is_not_flagged(app, ref, field):
    """The fixture's referee was made before round 1: its decision says who it is, without the
    "during this tournament" mark, and the queue lists no new referee account."""
    tid, pins = field
    cid = negative_case(app, tid, pins)
    assert "Referee accounts new in the tournament" not in text(ref.get("/referee/"))
    with app.app_context():  # the fixture made the account before the tournament started
        db.session.execute(update(Round).where(Round.tournament_id == tid)
                           .values(published_at=utcnow() + timedelta(minutes=1)))
        db.session.commit()
    r = ref.post(f"/referee/case/{cid}/approve", data={})
    assert r.status_code == 302 and r.headers["Location"].endswith("/referee/"), r.headers["Location"]
    page = text(ref.get(f"/referee/case/{cid}"))
    assert "Decided by <span class=\"referee-provenance\">Referee (account referee), an account created" in page
    assert "during this tournament" not in page
