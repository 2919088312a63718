"""Results desk, standings, player page, discipline and corrections (SEM-B12, C5, C8, C9, C10, D, E)."""
from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal as D

import pytest

from sqlalchemy import func, select, update

from tests.helpers import (HX, forget_rendered_pages, issue_pins, login, make_tournament, make_user, open_round,
                           play_round, sql_statements, text)
from webapp.extensions import db
from webapp.models import AuditEntry, Correction, Event, Player, Round, Sheet, Tournament
from webapp.services import loaders, player_page, rounds
from webapp.services.common import verify_audit_chain


def table_players(app, tid, n, table) -> list[int]:
    with app.app_context():
        r = db.session.scalar(select(Round).where(Round.tournament_id == tid, Round.number == n))
        return list(r.tables[table - 1].players)


def sheets(app, tid=None) -> list[Sheet]:
    with app.app_context():
        return db.session.scalars(select(Sheet).order_by(Sheet.id)).all()


def version(app, tid) -> int:
    with app.app_context():
        return db.session.get(Tournament, tid).version


def desk_url(tid, n, table=None, suffix=""):
    base = f"/operator/t/{tid}/round/{n}/results"
    return base + (f"/{table}" if table else "") + suffix


# --------------------------------------------------------------------------- the results desk


def test_desk_lists_tables_with_players_and_progress(app, op):
    tid = make_tournament(app, 9)
    open_round(app, tid)
    r = op.get(desk_url(tid, 1))
    body = text(r)
    assert r.status_code == 200
    assert body.count('class="card desk-table') == 3
    assert "Tables in: 0 / 3" in body
    with app.app_context():
        first = db.session.get(Tournament, tid).players[0]
        assert first.name in body
    assert 'hx-trigger="input changed delay:300ms"' in body
    assert "/static/js/page.js" in body  # Enter saves and the focus moves on to the next table (htmx:afterSettle)
    # the first missing table's first input has the focus
    assert re.search(r'id="t1-s0"[^>]*autofocus', body)
    # the close button is there but disabled until every table is in
    assert re.search(r'<button class="primary" name="close" value="1" disabled', body)


def test_desk_needs_operator(app, client):
    tid = make_tournament(app, 9)
    open_round(app, tid)
    assert client.get(desk_url(tid, 1)).status_code == 302
    make_user(app, "ref", role="referee")
    login(client, "ref")
    assert client.get(desk_url(tid, 1)).status_code == 403


def test_desk_draft_round_says_publish_first(app, op):
    tid = make_tournament(app, 9)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        rounds.draw_round(t, "test")
        db.session.commit()
    body = text(op.get(desk_url(tid, 1)))
    assert "not published yet" in body and 'name="sum0"' not in body


def test_preview_fragment_shows_total_and_points(app, op):
    tid = make_tournament(app, 9)
    open_round(app, tid)
    r = op.get(desk_url(tid, 1, 1, "/preview"), query_string={"sum0": "14,50", "sum1": "9.5", "sum2": "6"},
               headers=HX)
    body = text(r)
    assert r.status_code == 200 and "<html" not in body
    assert 'id="preview-1"' in body
    assert "€30.00" in body and "<b>5</b> / <b>3</b> / <b>1</b>" in body
    assert "Vary" in r.headers and "HX-Request" in r.headers["Vary"]
    # while typing, the running total of what is there so far
    body = text(op.get(desk_url(tid, 1, 1, "/preview"), query_string={"sum0": "14,50", "sum1": "9.5", "sum2": ""},
                       headers=HX))
    assert "Total so far: <b>€24.00</b> / €30.00" in body and "error" not in body


def test_preview_wrong_total_offers_sem_c5_correction(app, op):
    tid = make_tournament(app, 9)
    open_round(app, tid)
    body = text(op.get(desk_url(tid, 1, 1, "/preview"), query_string={"sum0": "14", "sum1": "9", "sum2": "6"},
                       headers=HX))
    assert "The sums total €29.00, not €30.00." in body
    # SEM-C5: a shortfall is added in equal parts to the two other players
    assert "<b>14.00</b> / <b>9.50</b> / <b>6.50</b>" in body
    assert 'name="correct_total"' in body


def test_preview_negative_sum_asks_for_last_game_note(app, op):
    tid = make_tournament(app, 9)
    open_round(app, tid)
    body = text(op.get(desk_url(tid, 1, 1, "/preview"), query_string={"sum0": "31", "sum1": "0", "sum2": "-1"},
                       headers=HX))
    assert 'name="note"' in body and "SEM-C8" in body


def test_preview_bad_number_and_impossible_sum(app, op):
    tid = make_tournament(app, 9)
    open_round(app, tid)
    body = text(op.get(desk_url(tid, 1, 1, "/preview"), query_string={"sum0": "1x", "sum1": "9", "sum2": "6"},
                       headers=HX))
    assert "Sum 1 is not an amount in euros and cents." in body
    body = text(op.get(desk_url(tid, 1, 1, "/preview"), query_string={"sum0": "45", "sum1": "0", "sum2": "-15"},
                       headers=HX))
    assert "SEM-C11" in body


def test_save_table_htmx_returns_table_and_progress(app, op):
    tid = make_tournament(app, 9)
    open_round(app, tid)
    r = op.post(desk_url(tid, 1, 1), data={"sum0": "14,50", "sum1": "9,50", "sum2": "6", "sheet_version": "0"},
                headers=HX)
    body = text(r)
    assert r.status_code == 200
    assert 'data-saved="1"' in body and 'id="table-1"' in body
    assert 'hx-swap-oob="true"' in body and "Tables in: 1 / 3" in body
    # the round's state counts come along: "waiting: 2" without a reload
    counts = re.search(r'<p class="desk-counts-line" id="desk-counts"[^>]*hx-swap-oob="true">(.*?)</p>', body, re.S)
    assert counts and re.search(r'data-state="waiting">[^<]*<b>2</b>', counts.group(1)), body
    [s] = sheets(app)
    assert s.sums == ["14.50", "9.50", "6.00"] and s.source == "paper" and s.created_by == "Operator"
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(AuditEntry)
                                 .where(AuditEntry.action == "sheet.record")) == 1


def test_save_table_without_js_redirects_to_next_table(app, op):
    tid = make_tournament(app, 9)
    open_round(app, tid)
    r = op.post(desk_url(tid, 1, 1), data={"sum0": "10", "sum1": "10", "sum2": "10", "sheet_version": "0"})
    assert r.status_code == 302 and r.headers["Location"].endswith("#table-2")
    page = text(op.get(r.headers["Location"]))
    assert "Table 1 saved" in page and "Tables in: 1 / 3" in page


def test_wrong_total_refused_without_correction_nothing_stored(app, op):
    tid = make_tournament(app, 9)
    open_round(app, tid)
    r = op.post(desk_url(tid, 1, 1), data={"sum0": "15", "sum1": "10", "sum2": "6", "sheet_version": "0"},
                headers=HX)
    assert r.status_code == 422
    body = text(r)
    assert "The sums total €31.00, not €30.00." in body and "Nothing was saved." in body
    assert "<b>14.00</b> / <b>10.00</b> / <b>6.00</b>" in body
    # the operator's next step is the correction checkbox
    assert re.search(r'name="correct_total" value="1"\s*autofocus', body)
    assert sheets(app) == []
    # the page without JS says the same, next to the table
    r = op.post(desk_url(tid, 1, 1), data={"sum0": "15", "sum1": "10", "sum2": "6", "sheet_version": "0"})
    assert r.status_code == 422 and "Tables in: 0 / 3" in text(r) and sheets(app) == []


def test_wrong_total_with_correction_stored_corrected_and_shown_red(app, op):
    tid = make_tournament(app, 9)
    open_round(app, tid)
    r = op.post(desk_url(tid, 1, 1), data={"sum0": "15", "sum1": "10", "sum2": "6", "sheet_version": "0",
                                           "correct_total": "1"}, headers=HX)
    assert r.status_code == 200
    [s] = sheets(app)
    assert s.sums == ["14.00", "10.00", "6.00"] and s.entered_sums == ["15.00", "10.00", "6.00"]
    body = text(op.get(desk_url(tid, 1)))
    assert "corrected (SEM-C5)" in body
    assert re.search(r'class="red-pen"[^>]*>15\.00</span>', body)


def test_bad_number_refused_next_to_field(app, op):
    tid = make_tournament(app, 9)
    open_round(app, tid)
    r = op.post(desk_url(tid, 1, 1), data={"sum0": "14", "sum1": "abc", "sum2": "6", "sheet_version": "0"},
                headers=HX)
    assert r.status_code == 422
    body = text(r)
    assert "Sum 2 is not an amount in euros and cents." in body
    assert re.search(r'id="t1-s1"[^>]*autofocus', body) and 'aria-invalid="true"' in body
    assert 'value="abc"' in body  # what was typed stays
    r = op.post(desk_url(tid, 1, 1), data={"sum0": "14", "sum1": "", "sum2": "6", "sheet_version": "0"},
                headers=HX)
    assert r.status_code == 422 and "Enter the sum of position 2." in text(r)
    assert sheets(app) == []


def test_negative_sum_needs_note(app, op):
    tid = make_tournament(app, 9)
    open_round(app, tid)
    data = {"sum0": "31", "sum1": "0,50", "sum2": "-1,50", "sheet_version": "0"}
    r = op.post(desk_url(tid, 1, 1), data=data, headers=HX)
    assert r.status_code == 422 and "note of the last game" in text(r) and sheets(app) == []
    r = op.post(desk_url(tid, 1, 1), data={**data, "note": "betl, -2 EUR"}, headers=HX)
    assert r.status_code == 200
    [s] = sheets(app)
    assert s.note == "betl, -2 EUR" and s.sums[2] == "-1.50"


def test_sem_c4_edit_of_a_counted_sheet_is_a_correction_the_referee_decides(app, op):
    tid = make_tournament(app, 9)
    open_round(app, tid)
    op.post(desk_url(tid, 1, 1), data={"sum0": "14", "sum1": "10", "sum2": "6", "sheet_version": "0"})
    r = op.get(desk_url(tid, 1, 1), query_string={"edit": "1"}, headers=HX)
    body = text(r)
    assert r.status_code == 200 and "<html" not in body
    assert 'name="base_version" value="1"' in body and 'value="14.00"' in body
    assert "Send these sums to the referee as a correction" in body
    # without JS the edit link opens the page with the table in edit mode
    r = op.get(desk_url(tid, 1, 1), query_string={"edit": "1"})
    assert r.status_code == 302 and "edit=1" in r.headers["Location"]
    # a save never replaces the counted sheet: not from a stale tab, not naming its version
    for seen in ("0", "1"):
        r = op.post(desk_url(tid, 1, 1), data={"sum0": "12", "sum1": "10", "sum2": "8", "sheet_version": seen},
                    headers=HX)
        assert r.status_code == 422 and "already has a sheet that counts: version 1" in text(r)
    assert [(s.version, s.status) for s in sheets(app)] == [(1, "accepted")]
    r = op.post(desk_url(tid, 1, 1, "/correction"), data={"sum0": "12", "sum1": "10", "sum2": "8",
                                                          "base_version": "1"}, headers=HX)
    assert r.status_code == 200 and "went to the referee" in text(r)
    old, new = sheets(app)
    assert (old.status, new.status, new.version, new.base_version) == ("accepted", "pending", 2, 1)
    from webapp.models import Case
    from webapp.services import cases

    with app.app_context():
        cases.approve(db.session.scalar(select(Case)), "Referee")
        db.session.commit()
    old, new = sheets(app)
    assert (old.status, new.status, new.version, new.sums) == ("superseded", "accepted", 2, ["12.00", "10.00", "8.00"])
    assert "version 2" in text(op.get(desk_url(tid, 1, 1), headers=HX))


def test_missing_only_filter(app, op):
    tid = make_tournament(app, 9)
    open_round(app, tid)
    op.post(desk_url(tid, 1, 1), data={"sum0": "14", "sum1": "10", "sum2": "6", "sheet_version": "0"})
    body = text(op.get(desk_url(tid, 1), query_string={"missing": "1"}))
    assert 'id="table-1"' not in body and 'id="table-2"' in body and 'id="table-3"' in body
    assert "Show all tables" in body


def test_close_round_from_desk(app, op):
    tid = make_tournament(app, 9)
    open_round(app, tid)
    v = version(app, tid)
    r = op.post(f"/operator/t/{tid}/round/1/close", data={"version": v})
    assert r.status_code == 422 and "Sheets missing from tables 1, 2, 3." in text(r)
    for k, sums in enumerate([("14", "10", "6"), ("10", "10", "10"), ("12", "12", "6")], start=1):
        op.post(desk_url(tid, 1, k), data={"sum0": sums[0], "sum1": sums[1], "sum2": sums[2], "sheet_version": "0"})
    body = text(op.get(desk_url(tid, 1)))
    assert "Tables in: 3 / 3" in body and not re.search(r'name="close" value="1" disabled', body)
    r = op.post(f"/operator/t/{tid}/round/1/close", data={"version": v})
    assert r.status_code == 422 and "Someone changed this tournament" in text(r)
    r = op.post(f"/operator/t/{tid}/round/1/close", data={"version": version(app, tid)})
    assert r.status_code == 302 and r.headers["Location"].endswith(f"/operator/t/{tid}/standings?after=1")
    with app.app_context():
        assert db.session.get(Tournament, tid).rounds[0].status == "closed"
    # a closed round is read-only at the desk, with the way to a correction
    body = text(op.get(desk_url(tid, 1)))
    assert 'name="sum0"' not in body and "Correction (SEM-C10)" in body
    r = op.post(desk_url(tid, 1, 1), data={"sum0": "14", "sum1": "10", "sum2": "6", "sheet_version": "1"},
                headers=HX)
    assert r.status_code == 422 and len(sheets(app)) == 3


# --------------------------------------------------------------------------- standings and the player page


def record(app, tid, n, sums_by_table, close=True):
    """Sheets with chosen sums for round n (drawn and published first if needed)."""
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r = next((x for x in t.rounds if x.number == n), None)
        if r is None:
            r = rounds.draw_round(t, "test")
            rounds.publish_round(t, r, "test", t.version)
        for tab, sums in zip(r.tables, sums_by_table):
            rounds.record_sheet(t, tab, [D(s) for s in sums], "test")
        if close:
            rounds.close_round(t, r, "test", t.version)
        db.session.commit()


WORKED_R1 = [("14", "9.50", "6.50"), ("10", "10", "10"), ("12", "12", "6")]


def test_operator_standings_before_any_round(app, op):
    tid = make_tournament(app, 9)
    r = op.get(f"/operator/t/{tid}/standings")
    assert r.status_code == 200 and "No round is closed yet" in text(r)


def test_standings_after_round_1_operator_only(app, op, anon):
    tid = make_tournament(app, 9)
    record(app, tid, 1, WORKED_R1)
    body = text(op.get(f"/operator/t/{tid}/standings"))
    assert "Standings after round 1" in body
    assert "tie: decided by start number" in body and "Order (SEM-B12)" in body
    assert "The public and the projector show the standings from round 2 on (SEM-C9)" in body
    assert body.count('href="/t/') >= 9  # names link to the player pages
    op.post("/logout")
    r = anon.get(f"/t/{tid}/standings")
    assert r.status_code == 200 and "published once round 2 is closed" in text(r) and "<table" not in text(r)
    assert anon.get(f"/t/{tid}/standings?after=1").status_code == 200
    assert "<table" not in text(anon.get(f"/t/{tid}/standings?after=1"))


def test_public_standings_after_round_2_with_discrepancy_window(app, anon):
    tid = make_tournament(app, 9)
    play_round(app, tid, seed=1)
    play_round(app, tid, seed=2)
    r = anon.get(f"/t/{tid}/standings")
    body = text(r)
    assert r.status_code == 200 and "Standings after round 2" in body
    assert "Report a discrepancy at your table to the referees until" in body and "10 min left" in body
    assert 'hx-trigger="every 30s"' in body
    with app.app_context():
        from webapp.rules.report import standings_report
        from webapp.services.engine import rules_tournament

        rep = standings_report(rules_tournament(db.session.get(Tournament, tid), closed_only=True), after_round=2)
    # the same engine function as the CLI: places, start numbers and points in the same order
    rows = re.findall(r'<td class="num" data-col="place"><b>(\d+)</b></td>\s*<td class="num" data-col="start-no">(\d+)</td>', body)
    assert [(int(a), int(b)) for a, b in rows] == [(x["place"], x["start_no"]) for x in rep["standings"]]
    assert anon.get(f"/t/{tid}/standings?after=1").status_code == 404
    assert anon.get(f"/t/{tid}/standings?after=3").status_code == 404
    # the countdown is a small self-polling fragment
    r = anon.get(f"/t/{tid}/standings?after=2&part=window", headers=HX)
    assert r.status_code == 200 and "<html" not in text(r) and 'id="pub-window"' in text(r)
    with app.app_context():
        rnd = db.session.scalar(select(Round).where(Round.tournament_id == tid, Round.number == 2))
        rnd.standings_published_at -= timedelta(minutes=11)
        db.session.commit()
    body = text(anon.get(f"/t/{tid}/standings"))
    assert "The 10 minutes for reporting a discrepancy ended at" in body and "every 30s" not in body


def test_cut_shown_as_preview_then_from_the_drawn_round(app, op):
    tid = make_tournament(app, 27)
    for k in (1, 2, 3):
        play_round(app, tid, seed=k)
    body = text(op.get(f"/operator/t/{tid}/standings"))
    assert "Cut: the players above advance to round 4." in body
    assert "Round 4 is not drawn yet" in body and "advances" in body and "eliminated" in body
    assert "players with 7 or more points advance" in body
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r4 = rounds.draw_round(t, "test")
        advancing = list(r4.advancing)
        db.session.commit()
    body = text(op.get(f"/operator/t/{tid}/standings?after=3"))
    assert "Round 4 is not drawn yet" not in body
    assert body.count('<span class="badge ok">advances</span>') == len(advancing)


def test_final_results_with_tournament_points_and_clubs(app, anon):
    tid = make_tournament(app, 27)
    for k in range(1, 7):
        play_round(app, tid, seed=k)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        assert t.status == "finished"
        from webapp.rules.report import standings_report
        from webapp.services.engine import rules_tournament

        rep = standings_report(rules_tournament(t, closed_only=True))
    assert rep["final"]
    body = text(anon.get(f"/t/{tid}/standings"))
    assert "Final results" in body and "Tournament points" in body and "Club championship (SEM-B3)" in body
    first = rep["standings"][0]["tournament_points"]
    assert first == {"placement": 27, "bonus": 100, "total": 127}
    assert re.search(r'<td class="num">27</td><td class="num">100</td><td class="num"><b>127</b></td>', body)
    for c in rep["clubs"]:
        assert re.search(rf'<td class="num"><b>{c["place"]}</b></td><td>{re.escape(c["club"])}</td>'
                         rf'<td class="num"><b>{c["score"]}</b></td>', body)
    assert "Played up to round 6" in body and "Qualification rounds" in body
    assert "Tournament points (SEM-A3)" in body


def test_player_page_seat_results_place_and_chart(app, anon):
    tid = make_tournament(app, 9)
    play_round(app, tid, seed=1)
    open_round(app, tid)
    s = table_players(app, tid, 2, 2)[1]
    body = text(anon.get(f"/t/{tid}/player/{s}"))
    assert "Round 2: table 2, position 2" in body
    assert "Cards of position 3 are played" in body
    assert "Place " not in body and "<svg" not in body  # no standings before round 2 is closed (SEM-C9)
    assert re.search(r"<td>1</td><td class=\"num\">\d</td>", body)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r = t.rounds[1]
        from webapp.demo.simulate import table_sums
        import random

        rng = random.Random(5)
        for tab in r.tables:
            rounds.record_sheet(t, tab, list(table_sums(rng)), "test")
        rounds.close_round(t, r, "test", t.version)
        db.session.commit()
        from webapp.rules.standings import standings
        from webapp.services.engine import rules_tournament

        places = {k: next(x.place for x in standings(rules_tournament(t), k) if x.player.start_no == s) for k in (1, 2)}
    body = text(anon.get(f"/t/{tid}/player/{s}"))
    assert f"Place {places[2]} of 9 after round 2" in body
    assert '<svg class="place-chart"' in body and 'role="img"' in body
    assert "<title id=\"chart-title\">Place after each round</title>" in body
    assert f"after round 1: place {places[1]} of 9; after round 2: place {places[2]} of 9" in body
    assert body.count('<circle class="dot"') == 2
    # a better place is drawn higher (smaller y)
    ys = [float(y) for y in re.findall(r'<circle class="dot" cx="[\d.]+" cy="([\d.]+)"', body)]
    assert (ys[0] > ys[1]) - (ys[0] < ys[1]) == (places[1] > places[2]) - (places[1] < places[2])
    assert anon.get(f"/t/{tid}/player/99").status_code == 404


def test_standings_and_projector_queries_do_not_grow_with_the_field(app, op):
    """No N+1: the pages load the tournament in a fixed number of queries (the
    projector too: it once asked each table for its sheets)."""
    counts = []
    for n in (9, 27):
        tid = make_tournament(app, n, name=f"T{n}")
        for k in (1, 2, 3):
            play_round(app, tid, seed=k)
        with sql_statements(app) as statements:
            assert op.get(f"/operator/t/{tid}/standings").status_code == 200
            assert op.get(f"/t/{tid}/standings").status_code == 200
            assert op.get(f"/t/{tid}/projector").status_code == 200
        counts.append(len(statements))
    assert counts[0] == counts[1] and counts[0] <= 40, counts


@pytest.mark.parametrize("sample", ["sem27_poprad.json", "sem9_cut_ends.json", "csm14_a.json", "smu10.json",
                                    "thousand13.json"])
def test_the_public_pages_engine_view_reads_what_the_orm_reads(app, sample, monkeypatch):
    """services/results.engine_view (table-level SELECTs, no ORM objects) gives the engine
    the same tournament as load_tournament, every rule set's fields, events and corrections
    included, and the same seating."""
    from pathlib import Path

    from webapp.services.engine import rules_tournament
    from webapp.services.loaders import engine_view, load_tournament
    from webapp.services.tournament_file import import_tournament

    data = (Path(__file__).resolve().parents[1] / "data" / sample).read_text(encoding="utf-8")
    with app.app_context():
        tid = import_tournament(data, sample, "test").id
        db.session.commit()
        db.session.expunge_all()
        orm, view = load_tournament(tid), engine_view(tid)
        for kw in ({}, {"closed_only": True}):
            assert rules_tournament(view, **kw) == rules_tournament(orm, **kw), kw
        assert rules_tournament(view).rounds  # something was compared
        assert [[(tab.number, list(tab.players)) for tab in r.tables] for r in view.rounds] == \
            [[(tab.number, list(tab.players)) for tab in r.tables] for r in orm.rounds]
        assert [(p.start_no, p.name, p.club) for p in view.players] == \
            [(p.start_no, p.name, p.club) for p in orm.players]
    _same_pages_from_both(app, tid, monkeypatch)


def test_the_engine_view_renders_a_running_round_as_the_orm_does(app, monkeypatch):
    """The projector's seating slides and the players' pages while round 3 is played."""
    tid = make_tournament(app, 27)
    play_round(app, tid, seed=1)
    play_round(app, tid, seed=2)
    open_round(app, tid)
    _same_pages_from_both(app, tid, monkeypatch)


def test_the_engine_view_reads_no_pin_and_nothing_players_signed(app):
    """What the public pages keep in process memory (views/shared.VIEWS) holds no PIN
    verifier and no signature, and none of what no public page shows."""
    tid = make_tournament(app, 27)
    issue_pins(app, tid)
    play_round(app, tid, seed=1)
    with app.app_context():
        t = loaders.engine_view(tid)
        sheets = [s for r in t.rounds for tab in r.tables for s in tab.sheets]
        assert len(t.players) == 27 and len(sheets) == 9
        for p in t.players:
            assert not {"pin_hash", "pin_failures", "checked_in_at"} & set(vars(p)), vars(p)
        for s in sheets:
            assert not {"content", "signatures", "note", "created_at"} & set(vars(s)), vars(s)
            assert s.status == "accepted" and len(s.sums) == 3
        stored = db.session.scalars(select(Player.pin_hash).where(Player.tournament_id == tid)).all()
        assert all(stored)  # the PINs are there, the view just does not read them


def test_the_engine_view_is_seven_selects_with_ratings_as_decimal(app):
    """The public pages' view reads seven table-level SELECTs; its ratings come back as Decimal."""
    tid = make_tournament(app, 27)
    play_round(app, tid, seed=1)
    with app.app_context():
        db.session.execute(update(Player).where(Player.tournament_id == tid, Player.start_no == 5)
                           .values(rating=D("1523.50")))
        db.session.commit()
    with app.app_context(), sql_statements(app) as statements:
        t = loaders.engine_view(tid)
        db.session.rollback()
    assert len([s for s in statements if s.lstrip().startswith("SELECT")]) == 7, statements
    assert next(p for p in t.players if p.start_no == 5).rating == D("1523.50")
    assert len(t.rounds[0].tables) == 9 and all(tab.sheet is not None for tab in t.rounds[0].tables)


def test_every_players_page_from_one_shared_closed_rounds_is_their_own(app):
    """The players' pages of one public version share closed_rounds (the standings after each
    round): each page is the one computed for that player alone."""
    tid = make_tournament(app, 27)
    for k in (1, 2, 3):
        play_round(app, tid, seed=k)
    open_round(app, tid)
    with app.app_context():
        t = loaders.engine_view(tid)
        shared = player_page.closed_rounds(t)
        assert shared.after == 3 and set(shared.rankings) == {1, 2, 3}
        for p in t.players:
            own = player_page.player_page(t, p.start_no)
            assert player_page.player_page(t, p.start_no, shared) == own, p.start_no
            assert own["place"] is not None and len(own["history"]) == 3


def _same_pages_from_both(app, tid, monkeypatch):
    with app.app_context():
        players = [p.start_no for p in db.session.get(Tournament, tid).players][:3]
    pages = [f"/t/{tid}/standings", f"/t/{tid}/seating"] + [f"/t/{tid}/player/{s}" for s in players] + \
        [f"/t/{tid}/projector?slide={k}" for k in range(12)]
    client = app.test_client()
    client.set_cookie("lang", "en")

    def bodies():
        forget_rendered_pages()
        return {path: (r.status_code, r.get_data(as_text=True)) for path in pages for r in [client.get(path)]}

    seen = bodies()
    assert {status for status, _body in seen.values()} == {200}
    # the pages as the ORM's objects render them: the same, to the letter
    monkeypatch.setattr(loaders, "engine_view", loaders.load_tournament)
    assert bodies() == seen


def test_place_chart_puts_first_place_on_top():
    from webapp.services.player_page import place_chart

    c = place_chart([(1, 27), (2, 9), (3, 1)], 27)
    ys = [pt["y"] for pt in c["points"]]
    assert ys[2] == c["top"] < ys[1] < ys[0] == c["bottom"]
    assert [pt["x"] for pt in c["points"]] == sorted(pt["x"] for pt in c["points"])


# --------------------------------------------------------------------------- discipline


def disc(op, tid, action, **data):
    return op.post(f"/operator/t/{tid}/discipline/{action}", data=data)


def events(app):
    with app.app_context():
        return db.session.scalars(select(Event).order_by(Event.id)).all()


def last_audit(app, action):
    with app.app_context():
        return db.session.scalar(select(AuditEntry).where(AuditEntry.action == action).order_by(AuditEntry.id.desc()))


def test_discipline_page_and_referee_access(app, client):
    tid = make_tournament(app, 9)
    open_round(app, tid)
    make_user(app, "ref", role="referee")
    login(client, "ref")
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = "en"
    body = text(client.get(f"/operator/t/{tid}/discipline"))
    assert "Disqualification (SEM-D1)" in body and "Card (SEM-E)" in body
    assert "Withdrawal (SEM-D4)" in body and "Substitute (SEM-D1b, D3, D5)" in body


def test_disqualify_before_sheet_then_desk_records_d1c(app, op):
    tid = make_tournament(app, 9)
    open_round(app, tid)
    a, b, c = table_players(app, tid, 1, 1)
    r = disc(op, tid, "disqualify", start_no=a, round=1, reason="cheating", version=version(app, tid))
    assert r.status_code == 302
    assert "Disqualification noted at table 1 (SEM-D1c)" in text(op.get(r.headers["Location"]))
    assert sheets(app) == []
    entry = last_audit(app, "discipline.disqualify")
    assert entry.actor == "Operator" and entry.payload["old"]["disqualified"] == [] \
        and entry.payload["new"]["disqualified"] == [a] and entry.payload["rule"] == "SEM-D1c"
    desk = text(op.get(desk_url(tid, 1)))
    assert "disqualification (SEM-D1c)" in desk and 'placeholder="optional"' in desk
    # the disqualified player's sum may stay empty; the others are what they had at that moment
    body = text(op.get(desk_url(tid, 1, 1, "/preview"), query_string={"sum0": "", "sum1": "12", "sum2": "8"},
                       headers=HX))
    assert "<b>–</b> / <b>5</b> / <b>3</b>" in body
    r = op.post(desk_url(tid, 1, 1), data={"sum0": "", "sum1": "12", "sum2": "8", "sheet_version": "0"}, headers=HX)
    assert r.status_code == 200
    [s] = sheets(app)
    assert s.disqualified == [a] and s.sums == ["10.00", "12.00", "8.00"] and not s.early
    with app.app_context():
        tab = db.session.scalar(select(Round).where(Round.tournament_id == tid)).tables[0]
        assert tab.pending_dq is None
        from webapp.services.desk import sheet_outcome

        out = sheet_outcome(db.session.get(Tournament, tid), tab)
        # SEM-D1c: +1 EUR from the disqualified player, 5 and 3 points by the sums
        assert out.money == (None, D("13.00"), D("9.00")) and out.points == (None, 5, 3)


def test_disqualify_early_gives_4_4_and_sheet_in_gets_new_version(app, op):
    """SEM-D1c at a counted table: from an operator it waits for a referee
    (tests/web/test_discipline_cases.py); a referee's account applies it at once."""
    tid = make_tournament(app, 9)
    open_round(app, tid)
    a, b, c = table_players(app, tid, 1, 1)
    op.post(desk_url(tid, 1, 1), data={"sum0": "14", "sum1": "10", "sum2": "6", "sheet_version": "0"})
    r = disc(op, tid, "disqualify", start_no=b, round=1, early="y", version=version(app, tid))
    assert r.status_code == 302 and "waits for a referee" in text(op.get(r.headers["Location"]))
    assert len(sheets(app)) == 1
    make_user(app, "ref", role="referee")
    op = app.test_client()
    login(op, "ref")
    op.set_cookie("lang", "en")
    r = disc(op, tid, "disqualify", start_no=b, round=1, early="y", version=version(app, tid))
    assert r.status_code == 422 and "already waiting for a referee" in text(r)
    with app.app_context():
        from webapp.models import Case
        from webapp.services import cases

        cases.reject(db.session.scalar(select(Case)), "Ref", "typed twice")
        db.session.commit()
    r = disc(op, tid, "disqualify", start_no=b, round=1, early="y", version=version(app, tid))
    assert r.status_code == 302
    old, new = sheets(app)
    assert old.status == "superseded" and new.version == 2 and new.disqualified == [b] and new.early
    with app.app_context():
        from webapp.services.desk import sheet_outcome

        tab = db.session.scalar(select(Round).where(Round.tournament_id == tid)).tables[0]
        out = sheet_outcome(db.session.get(Tournament, tid), tab)
        assert out.points == (4, None, 4) and out.money == (D("11.00"), None, D("11.00"))
    r = disc(op, tid, "disqualify", start_no=b, round=1, version=version(app, tid))
    assert r.status_code == 422 and "already disqualified" in text(r)
    r = disc(op, tid, "disqualify", start_no=c, round=1, version=version(app, tid))
    assert r.status_code == 302 and "SEM-D1b" in text(op.get(r.headers["Location"]))
    assert sheets(app)[-1].disqualified == [b, c]


def test_disqualify_refusals_change_nothing(app, op):
    tid = make_tournament(app, 9)
    play_round(app, tid, seed=1)
    v = version(app, tid)
    r = disc(op, tid, "disqualify", start_no=1, round=1, version=v)
    assert r.status_code == 422 and "Round 1 is closed" in text(r)
    open_round(app, tid)
    r = disc(op, tid, "disqualify", start_no=77, round=2, version=version(app, tid))
    assert r.status_code == 422 and "no player with start number 77" in text(r)
    r = disc(op, tid, "disqualify", start_no=1, round=2, version=v)
    assert r.status_code == 422 and "Someone changed this tournament" in text(r)
    with app.app_context():
        assert all(tab.pending_dq is None for r in db.session.get(Tournament, tid).rounds for tab in r.tables)


def test_red_card_needs_two_referees(app, op):
    tid = make_tournament(app, 9)
    open_round(app, tid)
    a = table_players(app, tid, 1, 2)[0]
    r = disc(op, tid, "card", start_no=a, colour="red", round=1, referee1="Novák", referee2="",
             version=version(app, tid))
    assert r.status_code == 422
    assert "A red card needs at least two referees" in text(r)
    assert events(app) == []
    # the same name twice is one referee
    r = disc(op, tid, "card", start_no=a, colour="red", round=1, referee1="Novák", referee2=" novák ",
             version=version(app, tid))
    assert r.status_code == 422 and events(app) == []
    r = disc(op, tid, "card", start_no=a, colour="red", round=1, referee1="Novák", referee2="Kováč",
             reason="insult", version=version(app, tid))
    assert r.status_code == 302
    assert "Red card recorded" in text(op.get(r.headers["Location"]))
    [e] = events(app)
    assert (e.type, e.colour, e.round, e.referees, e.start_no) == ("card", "red", 1, ["Novák", "Kováč"], a)
    with app.app_context():
        tab = db.session.scalar(select(Round).where(Round.tournament_id == tid)).tables[1]
        assert tab.pending_dq == {"players": [a], "early": False}
    assert last_audit(app, "discipline.card").payload["referees"] == ["Novák", "Kováč"]


def test_second_yellow_disqualifies(app, op):
    tid = make_tournament(app, 9)
    open_round(app, tid)
    a = table_players(app, tid, 1, 3)[2]
    r = disc(op, tid, "card", start_no=a, colour="yellow", round=1, referee1="Novák", version=version(app, tid))
    assert r.status_code == 302 and "Card recorded." in text(op.get(r.headers["Location"]))
    r = disc(op, tid, "card", start_no=a, colour="yellow", round=1, referee1="Novák", version=version(app, tid))
    body = text(op.get(r.headers["Location"]))
    assert "Second yellow card" in body and "Table 3 marked (SEM-D1c)" in body
    r = disc(op, tid, "card", start_no=a, colour="yellow", round=1, referee1="", version=version(app, tid))
    assert r.status_code == 422 and "Name the referee" in text(r) and len(events(app)) == 2


def test_withdrawal_and_substitutes_d3_d5(app, op):
    tid = make_tournament(app, 12)
    play_round(app, tid, seed=1)
    v = version(app, tid)
    r = disc(op, tid, "withdraw", start_no=4, after_round=1, reason="ill", version=v)
    assert r.status_code == 302
    [e] = events(app)
    assert (e.type, e.start_no, e.after_round, e.reason) == ("withdrawn", 4, 1, "ill")
    r = disc(op, tid, "withdraw", start_no=4, after_round=1, version=version(app, tid))
    assert r.status_code == 422 and "already withdrawn" in text(r)
    r = disc(op, tid, "withdraw", start_no=5, after_round=3, version=version(app, tid))
    assert r.status_code == 422 and "or a round up to 1" in text(r)
    # the substitute for a withdrawn player is not ranked (SEM-D5)
    r = disc(op, tid, "substitute", name="Nový Hráč", club="MK Poprad", substitute_for=4, version=version(app, tid))
    assert r.status_code == 302
    page = text(op.get(r.headers["Location"]))
    assert "Substitute added with start number 13" in page
    assert "not ranked: replaces a withdrawn player (SEM-D5)" in page
    with app.app_context():
        p = db.session.scalar(select(Player).where(Player.tournament_id == tid, Player.start_no == 13))
        assert (p.status, p.substitute_for, p.present) == ("substitute", 4, True)
    r = disc(op, tid, "substitute", name="Iný", substitute_for=4, version=version(app, tid))
    assert r.status_code == 422 and "already has a substitute" in text(r)
    r = disc(op, tid, "substitute", name="", substitute_for=5, version=version(app, tid))
    assert r.status_code == 422 and "Enter the substitute" in text(r)
    # round 2 is drawn with the substitute; a withdrawal is refused while the draft seats the player
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r2 = rounds.draw_round(t, "test")
        seated = [s for tab in r2.tables for s in tab.players]
        assert 13 in seated and 4 not in seated
        rounds.publish_round(t, r2, "test", t.version)
        db.session.commit()
    r = disc(op, tid, "withdraw", start_no=7, after_round=1, version=version(app, tid))
    assert r.status_code == 422 and "the withdrawal can be after round 2 at the earliest" in text(r)
    # the substitute for a disqualified player is ranked (SEM-D3)
    victim = table_players(app, tid, 2, 1)[0]
    disc(op, tid, "card", start_no=victim, colour="red", round=2, referee1="A", referee2="B", version=version(app, tid))
    disc(op, tid, "substitute", name="Náhradník", substitute_for=victim, version=version(app, tid))
    page = text(op.get(f"/operator/t/{tid}/discipline"))
    assert "ranked: replaces a disqualified player (SEM-D3)" in page
    with app.app_context():
        assert verify_audit_chain() is None
        actions = db.session.scalars(select(AuditEntry.action).where(AuditEntry.action.like("discipline.%"))).all()
        assert actions.count("discipline.substitute") == 2 and "discipline.withdraw" in actions


def test_withdrawn_player_marked_in_standings(app, op):
    tid = make_tournament(app, 9)
    play_round(app, tid, seed=1)
    disc(op, tid, "withdraw", start_no=2, after_round=1, version=version(app, tid))
    body = text(op.get(f"/operator/t/{tid}/standings"))
    assert "withdrew" in body


def test_discipline_stale_version_refused(app, op):
    tid = make_tournament(app, 9)
    open_round(app, tid)
    r = disc(op, tid, "card", start_no=1, colour="yellow", round=1, referee1="X", version=1)
    assert r.status_code == 422 and "Someone changed this tournament" in text(r) and events(app) == []


# --------------------------------------------------------------------------- corrections (SEM-C10)


def corr_data(app, tid, round_no, table, sums, kind, **extra):
    return {"round": round_no, "table": table, "sum0": sums[0], "sum1": sums[1], "sum2": sums[2], "kind": kind,
            "asked_by": "player #1", "version": version(app, tid), **extra}


def approve_c10(app, referee="Referee Horák"):
    """The referee approves the SEM-C10 proposal waiting (tests/web/test_sheet_finality.py goes through the pages)."""
    from webapp.models import Case
    from webapp.services import cases

    with app.app_context():
        [c] = db.session.scalars(select(Case).where(Case.kind == "c10", Case.status == "open")).all()
        cases.approve(c, referee)
        db.session.commit()


def test_corrections_page_shows_table_with_recorded_sums(app, op):
    tid = make_tournament(app, 9)
    body = text(op.get(f"/operator/t/{tid}/corrections"))
    assert "No round is closed yet" in body
    record(app, tid, 1, WORKED_R1)
    body = text(op.get(f"/operator/t/{tid}/corrections", query_string={"round": 1, "table": 1}))
    assert "Round 1, table 1" in body
    assert 'name="sum0" type="text" value="14.00"' in body or re.search(r'name="sum0"[^>]*value="14.00"', body)
    assert "SEM-C10b" in body and 'id="correction-form"' in body


def test_correction_preview_and_no_fee_keeps_the_harmed_player(app, op):
    tid = make_tournament(app, 9)
    record(app, tid, 1, WORKED_R1)
    a, b, c = table_players(app, tid, 1, 1)
    # recorded 14 / 9.50 / 6.50; really 9.50 / 14 / 6.50: a advantaged, b harmed
    data = corr_data(app, tid, 1, 1, ("9,50", "14", "6,50"), "no-fee")
    r = op.post(f"/operator/t/{tid}/corrections/preview", data=data, headers=HX)
    body = text(r)
    assert r.status_code == 200 and "<html" not in body and 'id="correction-preview"' in body
    assert "harmed" in body and "advantaged" in body and "Send to the referee for approval" in body
    assert sheets(app)[0].version == 1 and len(sheets(app)) == 3  # a preview stores nothing
    r = op.post(f"/operator/t/{tid}/corrections", data=data)
    assert r.status_code == 302
    assert sheets(app)[0].version == 1 and len(sheets(app)) == 3  # a proposal changes nothing either
    approve_c10(app)
    with app.app_context():
        tab = db.session.scalar(select(Round).where(Round.tournament_id == tid)).tables[0]
        s = tab.sheet
        assert (s.version, s.source, s.status) == (2, "correction", "accepted")
        assert tab.sheets[0].status == "superseded"
        # b) only the advantaged player gets the real values; the harmed one stays as recorded
        assert s.sums == ["9.50", "9.50", "6.50"] and s.points == ["3", "3", "1"]
        [c_row] = db.session.scalars(select(Correction)).all()
        rec = c_row.record
        assert (rec["kind"], rec["fee"], rec["asked_by"], rec["approved_by"]) == ("no-fee", "0.00", "player #1",
                                                                                 "Referee Horák")
        assert rec["harmed"] == [b] and rec["advantaged"] == [a]
        assert rec["old"][str(a)] == {"points": 5, "sum": "14.00"}
        assert rec["new"][str(a)] == {"points": 3, "sum": "9.50"}
        entry = db.session.scalar(select(AuditEntry).where(AuditEntry.action == "sheet.correction"))
        assert entry.payload["old_sums"] == ["14.00", "9.50", "6.50"] and entry.actor == "Referee Horák"
        assert entry.payload["proposed_by"] == "Operator"
        assert verify_audit_chain() is None
    page = text(op.get(f"/operator/t/{tid}/corrections"))
    assert "Referee Horák" in page and 'id="c10-waiting"' not in page
    # the standings and the player page show the corrected value in red
    body = text(op.get(f"/operator/t/{tid}/standings"))
    assert re.search(r'class="red-pen" title="corrected after publication \(SEM-C10\)">9\.50\*', body)
    body = text(op.get(f"/t/{tid}/player/{a}"))
    assert re.search(r'class="red-pen" title="corrected after publication \(SEM-C10\)">€9\.50\*', body)
    assert "corrected (SEM-C10)" in text(op.get(desk_url(tid, 1)))


def test_correction_errors_store_nothing(app, op):
    tid = make_tournament(app, 9)
    record(app, tid, 1, WORKED_R1)
    url = f"/operator/t/{tid}/corrections"
    r = op.post(url + "/preview", data=corr_data(app, tid, 1, 1, ("14", "10", "7"), "fee"), headers=HX)
    assert r.status_code == 422 and "The real sums total €31.00" in text(r)
    r = op.post(url + "/preview", data=corr_data(app, tid, 1, 1, ("14", "x", "7"), "fee"))
    assert r.status_code == 422 and "Sum 2 is not an amount" in text(r)
    r = op.post(url + "/preview", data=corr_data(app, tid, 1, 1, ("14", "9,50", "6,50"), "fee"), headers=HX)
    assert r.status_code == 422 and "nothing to correct" in text(r)
    r = op.post(url + "/preview", data=corr_data(app, tid, 1, 9, ("14", "9,50", "6,50"), "fee"), headers=HX)
    assert r.status_code == 422 and "Round 1 has no table 9" in text(r)
    r = op.post(url, data=corr_data(app, tid, 1, 1, ("9,50", "14", "6,50"), "fee", asked_by=""))
    assert r.status_code == 422 and "Say who asked for the correction." in text(r)
    r = op.post(url, data=corr_data(app, tid, 1, 1, ("9,50", "14", "6,50"), "fee", version=1))
    assert r.status_code == 422 and "Someone changed this tournament" in text(r)
    open_round(app, tid)
    r = op.post(url + "/preview", data=corr_data(app, tid, 2, 1, ("9,50", "14", "6,50"), "fee"), headers=HX)
    assert r.status_code == 422 and "Round 2 is not closed" in text(r)
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(Correction)) == 0
        assert all(s.version == 1 for s in db.session.scalars(select(Sheet)))
        from webapp.models import Case

        assert db.session.scalar(select(func.count()).select_from(Case)) == 0


def test_correction_with_fee_swaps_places_in_published_round_4_draw(app, op):
    from tests.helpers import fee_correction_table

    f = fee_correction_table(app)
    tid, table_no, sums, real, seat4, before = f["tid"], f["table"], f["sums"], f["real"], f["seat4"], f["before"]
    a, b = f["players"][f["hi"]], f["players"][f["mid"]]
    data = corr_data(app, tid, 3, table_no, [f"{x:.2f}" for x in real], "fee")
    r = op.post(f"/operator/t/{tid}/corrections/preview", data=data, headers=HX)
    body = text(r)
    assert r.status_code == 200 and "Round 4 draw: places swapped (SEM-C10c)" in body
    assert "Fee paid to the delegate: €20.00" in body
    r = op.post(f"/operator/t/{tid}/corrections", data=data)
    assert r.status_code == 302
    approve_c10(app)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r4 = t.rounds[3]
        after = {x.number: list(x.players) for x in r4.tables}
        ta, ia = seat4[a]
        # the harmed player b takes the seat the advantaged player a earned with the recorded sums
        assert after[ta][ia] == b
        if b in seat4:
            tb, ib = seat4[b]
            assert after[tb][ib] == a
        else:
            assert a in r4.eliminated and b in r4.advancing
        changed = [n for n in before if before[n] != after[n]]
        assert changed
        s = t.rounds[2].tables[table_no - 1].sheet
        assert s.sums == [f"{x:.2f}" for x in real] and s.points is None and s.source == "correction"
        [c] = db.session.scalars(select(Correction)).all()
        assert c.record["fee"] == "20.00" and c.record["harmed"] == [b] and c.record["advantaged"] == [a]
        entry = db.session.scalar(select(AuditEntry).where(AuditEntry.action == "sheet.correction"))
        assert {d["table"] for d in entry.payload["draw_swapped"]} == set(changed)
        # once a changed table of round 4 has its sheet, the draw can no longer be swapped
        busy = next(x for x in r4.tables if x.number == changed[0])
        rounds.record_sheet(t, busy, [D(14), D(10), D(6)], "test")
        db.session.commit()
    back = corr_data(app, tid, 3, table_no, [f"{x:.2f}" for x in sums], "fee")
    r = op.post(f"/operator/t/{tid}/corrections", data=back)
    assert r.status_code == 422 and f"Round 4 already has sheets at tables {changed[0]}" in text(r)
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(Correction)) == 1


def test_desk_works_with_csrf_on(app, op):
    tid = make_tournament(app, 9)
    open_round(app, tid)
    app.config["WTF_CSRF_ENABLED"] = True
    page = text(op.get(desk_url(tid, 1)))
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    r = op.post(desk_url(tid, 1, 1), data={"sum0": "14", "sum1": "10", "sum2": "6", "sheet_version": "0"}, headers=HX)
    assert r.status_code == 400 and sheets(app) == []
    r = op.post(desk_url(tid, 1, 1), data={"sum0": "14", "sum1": "10", "sum2": "6", "sheet_version": "0",
                                           "csrf_token": token}, headers=HX)
    assert r.status_code == 200 and len(sheets(app)) == 1
    # htmx sends the token as a header (base.html hx-headers)
    r = op.post(desk_url(tid, 1, 2), data={"sum0": "14", "sum1": "10", "sum2": "6", "sheet_version": "0"},
                headers={**HX, "X-CSRFToken": token})
    assert r.status_code == 200 and len(sheets(app)) == 2


def test_public_standings_cached_per_version(app, anon):
    """A cached standings page never outlives a change: every change bumps the version."""
    from webapp.views.shared import STANDINGS

    tid = make_tournament(app, 9)
    play_round(app, tid, seed=1)
    play_round(app, tid, seed=2)
    first = text(anon.get(f"/t/{tid}/standings"))
    assert text(anon.get(f"/t/{tid}/standings")) == first
    with app.app_context():
        from webapp.services.common import bump

        t = db.session.get(Tournament, tid)
        t.players[0].name = "Renamed Player"
        bump(t)
        db.session.commit()
    assert "Renamed Player" in text(anon.get(f"/t/{tid}/standings"))
    STANDINGS.clear()


def test_player_page_shows_receipts_and_a_plain_title(app, anon):
    from tests.helpers import issue_pins, signed_submission

    tid = make_tournament(app, 9)
    pins = issue_pins(app, tid)
    open_round(app, tid)
    body = signed_submission(app, tid, 1, 1, [1400, 950, 650], pins=pins)
    answer = anon.post("/api/v1/sheets", json=body).get_json()
    assert answer["status"] == "accepted"
    start_no = body["content"]["players"][0]
    page = text(anon.get(f"/t/{tid}/player/{start_no}"))
    title = page.split("<title>")[1].split("</title>")[0]
    assert "<" not in title and title.startswith(f"#{start_no} ")
    assert page.count(f">{answer['receipt']}<") == 1


def test_json_texts_are_decoded_in_one_call_as_one_by_one():
    """services/results.decode_all (the public pages' engine view reads ~2,000 JSON values at once):
    SQL NULL and JSON null both give None, and every other text what json.loads gives it."""
    import json

    from webapp.services.loaders import decode_all

    texts = [None, '["14.50", "10.00"]', "null", '{"a": [1, {"b": "č"}]}', "[]", None, '"x"']
    assert decode_all(texts) == [None if t is None else json.loads(t) for t in texts]
    assert decode_all([]) == [] and decode_all([None, None]) == [None, None]
