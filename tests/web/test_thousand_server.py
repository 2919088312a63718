"""Thousand and the other rule sets on the venue server: the final report per rule set, and Thousand's late entry,
withdrawal with a frozen table of two, the recorded lot, the lot's seed and the final
(TH-2, TH-4, TH-5), each checked against `listok standings` of the exported file."""
from __future__ import annotations

import json
import random
from datetime import date

import pytest
from click.testing import CliRunner

from tests.helpers import text
from tests.web.test_rulesets_web import make, result_for
from webapp.extensions import db
from webapp.models import Player, Tournament
from webapp.rules.seating import draw as engine_draw
from webapp.rules.report import standings_report
from webapp.rules.ruleset import get_ruleset
from webapp.services import desk as desk_service, loaders, rounds, standings
from webapp.services.engine import rules_tournament
from webapp.demo.simulate import make_players, table_sums


def _version(app, tid) -> int:
    with app.app_context():
        return db.session.get(Tournament, tid).version


def unrated(app, code: str, n: int, seed: int | None = None) -> int:
    """A field without ratings: Thousand's round 1 goes by lot (TH-2)."""
    with app.app_context():
        t = Tournament(name=f"{code} lot", date=date(2026, 5, 9), venue="Brno", ruleset=code, seed=seed)
        for p in make_players(n, seed=3, clubs=4):
            t.players.append(Player(start_no=p.start_no, reg_id=p.id, name=p.name, club=p.club, status=p.status,
                                    rating=None, present=True))
        db.session.add(t)
        db.session.commit()
        return t.id


def open_next(app, tid) -> tuple[int, list[tuple[int, list[int]]]]:
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r = rounds.draw_round(t, "test")
        rounds.publish_round(t, r, "test", t.version)
        db.session.commit()
        return r.number, [(tab.number, list(tab.players)) for tab in r.tables]


def close(app, tid) -> None:
    with app.app_context():
        t = db.session.get(Tournament, tid)
        rounds.close_round(t, t.rounds[-1], "test", t.version)
        db.session.commit()


def desk(op, tid, rnd, table, form):
    r = op.post(f"/operator/t/{tid}/round/{rnd}/results/{table}", data={"sheet_version": "0", **form})
    assert r.status_code in (200, 302), text(r)[:3000]
    return r


def sem_form(rng, k: int, total) -> dict:
    sums = table_sums(rng, k, total)
    return {**{f"sum{i}": str(s) for i, s in enumerate(sums)}, "note": "betl, 1 €"}


def play_round(app, op, tid, code, rng, skip=()) -> tuple[int, list]:
    rs = get_ruleset(code)
    rnd, tabs = open_next(app, tid)
    for number, players in tabs:
        if number in skip:
            continue
        if rs.result_kind == "money":
            form = sem_form(rng, len(players), rs.expected_total(len(players)))
        else:
            form = result_for(code, len(players), rng, rs.final_size is not None and rnd == rs.rounds)
        desk(op, tid, rnd, number, form)
    return rnd, tabs


def exported_standings(op, tid, tmp_path) -> dict:
    from webapp.cli import listok

    exported = op.get(f"/operator/t/{tid}/export.json")
    assert exported.status_code == 200
    path = tmp_path / f"t{tid}.json"
    path.write_bytes(exported.data)
    out = CliRunner().invoke(listok, ["standings", str(path)])
    assert out.exit_code == 0, out.output
    return json.loads(exported.data), json.loads(out.output)


# ----------------------------------------------------------------- the final report per rule set

REPORTS = [("sem", 9, ["Points", "Money (EUR)", "Tournament points"]),
           ("smu", 10, ["Points", "Money (Kč)"]),
           ("bbliga", 9, ["Points", "Money (EUR)"]),
           ("csm", 14, ["BP", "SB", "ZB", "PB"]),
           ("thousand", 13, ["Points", "Score", "Final score"])]


@pytest.mark.parametrize("code,n,headers", REPORTS)
def test_final_report_in_the_rule_sets_columns(app, op, code, n, headers):
    """SEM-A3, SMU-4, BB-2, CSM-4, TH-2/TH-4: the final report shows the rule set's own
    standings report (the `listok standings` answer) in its columns and unit, printable."""
    rs = get_ruleset(code)
    tid = make(app, code, n)
    rng = random.Random(11)
    empty = op.get(f"/operator/t/{tid}/report")
    assert empty.status_code == 200 and "No round is closed yet" in text(empty)
    while True:
        play_round(app, op, tid, code, rng)
        close(app, tid)
        with app.app_context():
            if db.session.get(Tournament, tid).status == "finished":
                break
    body = text(op.get(f"/operator/t/{tid}/report"))
    assert "print-report" in body and "data-print" in body and "Final results" in body
    for h in headers:
        assert f">{h}<" in body or f">{h.split(' (')[0]} ({h.split('(')[-1]}" in body or h in body, h
    others = {"zb+pb": ["Money", "Score"], "score": ["Money", "BP", "Tournament points"],
              "money": ["BP", "Final score"]}[rs.result_kind]
    for h in others:
        assert f'data-col="{h.lower().replace(" ", "_")}"' not in body, h
    with app.app_context():
        t = loaders.load_tournament(tid)
        report = standings_report(rules_tournament(t, closed_only=True))
    assert report["final"] is True
    # every row in the report's order, with the report's own figures
    rows = body.split('id="report-standings"')[1].split("<tbody>")[1].split("</tbody>")[0].split("<tr ")[1:]
    assert len(rows) == len(report["standings"])
    key = {"money": "money", "zb+pb": "sb", "score": "score"}[rs.result_kind]
    for html, row in zip(rows, report["standings"]):
        assert f'data-start-no="{row["start_no"]}"' in html
        assert f"<b>{row['place']}</b>" in html
        cell = html.split(f'data-col="{key}">')[1].split("</td>")[0]
        if rs.result_kind == "money":
            assert cell.replace("\xa0", " ").replace(",", ".").replace("€", "").replace("Kč", "").strip().lstrip(
                "-").replace(" ", "") == row["money"].lstrip("-"), (cell, row)
        else:
            assert cell == str(row[key])
    if rs.final_size:  # TH-2: the final's places 1-4 by its score
        final = body.split('id="report-final"')[1].split("</section>")[0]
        finalists = [r for r in report["standings"] if r["final_score"] is not None]
        assert [r["place"] for r in finalists] == [1, 2, 3, 4]
        assert final.count("data-start-no=") == 4
        for r in finalists:
            assert f'data-start-no="{r["start_no"]}"' in final and f"<b>{r['final_score']}</b>" in final
    else:
        assert 'id="report-final"' not in body
    # the standings page links the report once the tournament is over
    assert f"/operator/t/{tid}/report" in text(op.get(f"/operator/t/{tid}/standings"))


def test_final_report_in_russian_for_thousand(app, op):
    """TH-6: the interface speaks Russian; the report's columns too."""
    tid = make(app, "thousand", 13)
    rng = random.Random(2)
    play_round(app, op, tid, "thousand", rng)
    close(app, tid)
    op.set_cookie("lang", "ru")
    body = text(op.get(f"/operator/t/{tid}/report"))
    assert "Final score" not in body and "Points" not in body and "Print" not in body


# ----------------------------------------------------------------- TH-2: the lot's seed


def test_th2_round_one_by_lot_uses_the_recorded_seed(app, op):
    """TH-2: round 1 by lot is the shuffle of the tournament's seed (the file's `seed`); a
    tournament without one gets a seed drawn and kept at the round-1 draw."""
    tid = unrated(app, "thousand", 13, seed=424242)
    _rnd, tabs = open_next(app, tid)
    order = sorted(range(1, 14))
    random.Random(424242).shuffle(order)
    assert [p for _n, players in tabs for p in players] == order
    assert [len(p) for _n, p in tabs] == [3, 3, 3, 4]  # TH-1
    page = text(op.get(f"/operator/t/{tid}/round/1"))
    assert "424242" in page
    data = json.loads(op.get(f"/operator/t/{tid}/export.json").data)
    assert data["seed"] == 424242

    other = unrated(app, "thousand", 13)
    with app.app_context():
        assert db.session.get(Tournament, other).seed is None
    _rnd, tabs2 = open_next(app, other)
    with app.app_context():
        t = db.session.get(Tournament, other)
        assert isinstance(t.seed, int)
        rt = rules_tournament(t)
        assert rt.extra["seed"] == t.seed
        again = engine_draw(rules_tournament(t, closed_only=True), 1, get_ruleset("thousand"))
    assert [list(st.players) for st in again.tables] == [p for _n, p in tabs2]


def test_th2_draw_page_flags_repeated_opponents_and_states_the_fallback(app, op):
    """TH-2 / SEM-B7: four players meet again in round 2 (one table of 4), so the
    table is flagged "repeat"; the draw page shows it and says how conflicts are
    resolved at tables of 3 and 4 (not SEM's refill of tables of three)."""
    tid = unrated(app, "thousand", 4, seed=7)
    play_round(app, op, tid, "thousand", random.Random(7))
    close(app, tid)
    _rnd, tabs = open_next(app, tid)
    with app.app_context():
        [tab] = db.session.get(Tournament, tid).rounds[1].tables
        assert tab.flags == ["repeat"]
    page = text(op.get(f"/operator/t/{tid}/round/2"))
    assert ">repeated opponents<" in page and "already met in an earlier round" in page
    assert "The leader leaves table 1 only for their own conflict." in page
    assert "refilled from the top" not in page


def test_smu_4_draw_page_of_a_standings_round_states_the_fallback_of_tables_of_3_and_4(app, op):
    """SMU-4's club rule in round 2 is `tables.py`'s fallback, not SEM-B7's refill."""
    tid = make(app, "smu", 10)
    play_round(app, op, tid, "smu", random.Random(3))
    close(app, tid)
    open_next(app, tid)
    page = text(op.get(f"/operator/t/{tid}/round/2"))
    assert "Conflicts (SMU-4)" in page and "SEM-B7" not in page
    assert "refilled from the top" not in page


def test_th2_manual_swap_flags_and_clears_repeated_opponents(app, op):
    """TH-2: a manual swap in a draft that seats two players of one round-1 table
    together flags that table "repeat" and says so; swapping back clears it."""
    tid = unrated(app, "thousand", 9, seed=5)
    play_round(app, op, tid, "thousand", random.Random(5))
    close(app, tid)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        first = {s: tab.number for tab in t.rounds[0].tables for s in tab.players}
        r = rounds.draw_round(t, "test")
        db.session.commit()
        tables = [list(tab.players) for tab in r.tables]
        assert all(tab.flags == [] for tab in r.tables)
    a = tables[0][1]
    b = next(s for s in tables[1] if first[s] == first[tables[0][0]])  # met tables[0][0] in round 1
    resp = op.post(f"/operator/t/{tid}/round/2/swap", data={"version": _version(app, tid), "a": a, "b": b},
                   headers={"HX-Request": "true"})
    body = text(resp)
    assert resp.status_code == 200
    assert "Table 1: two players who already met now sit together (round 2)." in body
    assert ">repeated opponents<" in body
    with app.app_context():
        flags = [tab.flags for tab in db.session.get(Tournament, tid).rounds[1].tables]
    assert "repeat" in flags[0] and "manual" in flags[0]
    op.post(f"/operator/t/{tid}/round/2/swap", data={"version": _version(app, tid), "a": a, "b": b},
            headers={"HX-Request": "true"})
    with app.app_context():
        flags = [tab.flags for tab in db.session.get(Tournament, tid).rounds[1].tables]
    assert flags[0] == ["manual"] and flags[1] == ["manual"]


def test_th2_seed_imported_from_the_file_and_refused_when_not_whole(app, op, tmp_path):
    from webapp.services.common import ServiceError
    from webapp.services.tournament_file import import_tournament

    players = [{"start_no": i, "name": f"Игрок {i}", "club": None, "status": "registered", "rating": None}
               for i in range(1, 10)]
    doc = {"format": "listok-tournament/1", "name": "Тысяча", "ruleset": "thousand", "seed": 77, "players": players, "rounds": []}
    with app.app_context():
        t = import_tournament(json.dumps(doc), "t.json", "test")
        db.session.commit()
        assert t.seed == 77
        with pytest.raises(ServiceError, match="seed"):
            import_tournament(json.dumps({**doc, "seed": "77", "id": "x-1"}), "t.json", "test")
        db.session.rollback()


# ----------------------------------------------------------------- TH-5: late entry


def test_th5_late_entry_after_round_one_is_seated_from_round_two(app, op):
    """TH-5: a late entry is accepted after round 1 with 0 and seated from round 2, never later;
    SEM takes nobody once round 1 is drawn."""
    tid = make(app, "thousand", 12)
    rng = random.Random(4)
    play_round(app, op, tid, "thousand", rng)
    page = text(op.get(f"/operator/t/{tid}/players"))
    assert 'id="late-entry-note"' in page
    r = op.post(f"/operator/t/{tid}/players", data={"start_no": "13", "name": "Поздний Игрок", "status": "registered",
                                                    "version": _version(app, tid)})
    assert r.status_code == 302, text(r)[:2000]
    with app.app_context():
        p = db.session.scalar(db.select(Player).where(Player.tournament_id == tid, Player.start_no == 13))
        assert p.from_round == 2 and p.present
    close(app, tid)
    with app.app_context():
        page = standings.standings_page(loaders.load_tournament(tid))
        assert 13 not in [row["start_no"] for row in page["rows"]]  # no result yet
    _rnd, tabs = play_round(app, op, tid, "thousand", rng)
    assert any(13 in players for _n, players in tabs)
    assert sorted(len(p) for _n, p in tabs) == [3, 3, 3, 4]  # 13 players: TH-1
    # after round 2 is drawn: never later
    r = op.post(f"/operator/t/{tid}/players", data={"start_no": "14", "name": "Ещё Один", "status": "registered",
                                                    "version": _version(app, tid)})
    assert r.status_code == 422 and "Round 1 is drawn" in text(r)

    sem = make(app, "sem", 9)
    open_next(app, sem)
    r = op.post(f"/operator/t/{sem}/players", data={"start_no": "10", "name": "Neskoro Prišiel",
                                                    "status": "registered", "version": _version(app, sem)})
    assert r.status_code == 422 and "Round 1 is drawn" in text(r)


# ----------------------------------------------------------------- TH-5: the frozen table of two


def _withdraw(op, app, tid, s, after):
    return op.post(f"/operator/t/{tid}/discipline/withdraw",
                   data={"start_no": str(s), "after_round": str(after), "version": _version(app, tid)})


def test_th5_withdrawal_during_a_round_leaves_a_frozen_table_of_two(app, op):
    """TH-5: a player withdraws during round 2 at a table of 3: the two left get 2 points each,
    their scores as they froze; the sheet is entered for the two with `frozen`. SEM refuses
    a withdrawal from a round being played."""
    tid = make(app, "thousand", 12)
    rng = random.Random(5)
    play_round(app, op, tid, "thousand", rng)
    close(app, tid)
    rnd, tabs = open_next(app, tid)
    number, players = tabs[0]
    gone = players[1]
    r = _withdraw(op, app, tid, gone, 1)
    assert r.status_code in (200, 302), text(r)[:2000]
    with app.app_context():
        t = db.session.get(Tournament, tid)
        tab = t.rounds[-1].tables[0]
        assert tab.players == [players[0], players[2]]
    desk_page = text(op.get(f"/operator/t/{tid}/round/{rnd}/results"))
    assert "TH-5" in desk_page
    desk(op, tid, rnd, number, {"sum0": "345", "sum1": "-20"})
    for n2, p2 in tabs[1:]:
        desk(op, tid, rnd, n2, result_for("thousand", len(p2), rng))
    with app.app_context():
        t = db.session.get(Tournament, tid)
        sheet = t.rounds[-1].tables[0].sheet
        assert sheet.frozen is True and sheet.ended is None and sheet.scores == ["345", "-20"]
        outcome = desk_service.sheet_outcome(t, t.rounds[-1].tables[0])
        assert list(outcome.points) == [2, 2]
    close(app, tid)
    with app.app_context():
        t = loaders.load_tournament(tid)
        rows = {row["start_no"]: row for row in standings.standings_page(t)["rows"]}
        assert rows[players[0]]["cells"][1].points == 2 and rows[players[2]]["cells"][1].points == 2
        assert rows[gone]["withdrawn"]
        _, r3 = rounds.draw_round(t, "test"), None
        assert all(gone not in tab.players for tab in t.rounds[-1].tables)  # cannot return
        db.session.rollback()
    # a second withdrawal from a table of two is refused with what to do
    sem = make(app, "sem", 9)
    open_next(app, sem)
    with app.app_context():
        s = db.session.get(Tournament, sem).rounds[0].tables[0].players[0]
    r = _withdraw(op, app, sem, s, 0)
    assert r.status_code == 422 and "plays in round 1" in text(r)


def test_th5_frozen_table_refuses_a_winner_and_two_left_cannot_lose_another(app, op):
    tid = make(app, "thousand", 12)
    rnd, tabs = open_next(app, tid)
    number, players = tabs[0]
    assert _withdraw(op, app, tid, players[0], 0).status_code in (200, 302)
    r = op.post(f"/operator/t/{tid}/round/{rnd}/results/{number}",
                data={"sheet_version": "0", "sum0": "1000", "sum1": "200"})
    assert r.status_code == 422
    with app.app_context():
        assert db.session.get(Tournament, tid).rounds[0].tables[0].sheet is None
    r = _withdraw(op, app, tid, players[1], 0)
    assert r.status_code == 422 and "only two players" in text(r)


# ----------------------------------------------------------------- TH-4: the recorded lot


def _tied_round(app, op, tid, tabs, rnd=1):
    """Every table ends the same way: the player at position 2 of each table 300, at 3 100."""
    for number, players in tabs:
        k = len(players)
        scores = [1000, 300, 100, 50][:k]
        desk(op, tid, rnd, number, {**{f"sum{i}": str(v) for i, v in enumerate(scores)}, "ended": "win"})


def test_th4_a_lot_recorded_on_the_standings_page_decides_the_tie(app, op):
    tid = make(app, "thousand", 12)  # 4 tables of 3
    _rnd, tabs = open_next(app, tid)
    _tied_round(app, op, tid, tabs)
    close(app, tid)
    page = text(op.get(f"/operator/t/{tid}/standings"))
    assert 'id="ties"' in page and "decided by start number until a lot is recorded" in page
    winners = sorted(p[0] for _n, p in tabs)
    with app.app_context():
        groups = standings.tie_groups(loaders.load_tournament(tid), 1)
    assert [sorted(s for s, _ in g["players"]) for g in groups][0] == winners
    lot = list(reversed(winners))
    bad = op.post(f"/operator/t/{tid}/lot", data={"after": "1", "order": " ".join(map(str, lot[:2])),
                                                  "version": _version(app, tid)})
    assert bad.status_code == 422 and "each once" in text(bad)
    r = op.post(f"/operator/t/{tid}/lot", data={"after": "1", "order": ", ".join(map(str, lot)),
                                                "version": _version(app, tid)})
    assert r.status_code == 302
    with app.app_context():
        t = loaders.load_tournament(tid)
        ev = [e for e in t.events if e.type == "lot"]
        assert len(ev) == 1 and ev[0].order == lot and ev[0].round == 1
        rows = standings.standings_page(t)["rows"]
    assert [row["start_no"] for row in rows[:4]] == lot
    assert all(row["tie"] == "lot" for row in rows[:4])
    page = text(op.get(f"/operator/t/{tid}/standings"))
    assert "tie: decided by the recorded lot (TH-4)" in page and "decided by the recorded lot</span>" in page
    # other rule sets have no lot
    sem = make(app, "sem", 9)
    v = _version(app, sem)
    with app.app_context():
        from webapp.services.common import ServiceError
        with pytest.raises(ServiceError, match="nerozhoduje žreb"):  # the server speaks Slovak by default
            standings.record_lot(db.session.get(Tournament, sem), 1, "1 2", "test", v)
        db.session.rollback()


# ----------------------------------------------------------------- everything, to the final, = listok


def test_th2_th4_th5_tournament_with_late_entry_frozen_table_lot_and_final_equals_listok(app, op, tmp_path):
    """A Thousand tournament with a recorded seed, a late entry after round 1, a withdrawal
    during round 2 that freezes a table of two, a lot after round 1 and the final of the best
    4 (round 5, everything reset, TH-2): the exported file's `listok standings` is the server's."""
    tid = unrated(app, "thousand", 12, seed=9001)
    rng = random.Random(21)
    rnd, tabs = open_next(app, tid)
    _tied_round(app, op, tid, tabs)
    r = op.post(f"/operator/t/{tid}/players", data={"start_no": "13", "name": "Опоздавший", "status": "registered",
                                                    "version": _version(app, tid)})
    assert r.status_code == 302
    close(app, tid)
    winners = sorted(p[0] for _n, p in tabs)
    assert op.post(f"/operator/t/{tid}/lot", data={"after": "1", "order": " ".join(map(str, winners[::-1])),
                                                   "version": _version(app, tid)}).status_code == 302
    rnd, tabs = open_next(app, tid)
    assert any(13 in p for _n, p in tabs)
    three = next((n, p) for n, p in tabs if len(p) == 3)
    gone = three[1][2]
    assert _withdraw(op, app, tid, gone, 1).status_code in (200, 302)
    for number, players in tabs:
        if number == three[0]:
            desk(op, tid, rnd, number, {"sum0": "220", "sum1": "405"})
        else:
            desk(op, tid, rnd, number, result_for("thousand", len(players), rng))
    close(app, tid)
    for _ in (3, 4):
        play_round(app, op, tid, "thousand", rng)
        close(app, tid)
    with app.app_context():
        t = loaders.load_tournament(tid)
        before = [row["start_no"] for row in standings_report(rules_tournament(t, closed_only=True), 4)["standings"]]
        assert gone not in before[:4]
    after4 = text(op.get(f"/operator/t/{tid}/standings?after=4"))
    assert "best 4 of the standings at one table" in after4 and "SEM-B12" not in after4
    rnd, tabs = play_round(app, op, tid, "thousand", rng)
    assert rnd == 5 and len(tabs) == 1 and tabs[0][1] == before[:4]  # TH-2: the best 4, in standings order
    round5 = op.get(f"/operator/t/{tid}/round/5")
    assert round5.status_code == 200 and "best 4 of the standings at one table" in text(round5)
    close(app, tid)
    with app.app_context():
        t = loaders.load_tournament(tid)
        assert t.status == "finished"
        server = standings.standings_page(t)["rows"]
        final_sheet = t.rounds[-1].tables[0].sheet
    by_final = sorted(tabs[0][1], key=lambda s: -int(final_sheet.scores[tabs[0][1].index(s)]))
    assert [row["start_no"] for row in server[:4]] == by_final  # reset: the final's score alone
    assert [row["start_no"] for row in server[4:]] == [s for s in before if s not in by_final]
    data, cli = exported_standings(op, tid, tmp_path)
    assert data["seed"] == 9001
    assert any(e["type"] == "lot" and e["order"] == winners[::-1] for e in data["events"])
    frozen = [tab for r in data["rounds"] for tab in r["tables"] if tab.get("frozen")]
    assert len(frozen) == 1 and len(frozen[0]["players"]) == 2 and gone not in frozen[0]["players"]
    assert next(p for p in data["players"] if p["start_no"] == 13)["from_round"] == 2
    assert cli["final"] is True
    assert [(row["place"], row["start_no"], row["points"], row["score"], row["final_score"], row["tie"])
            for row in cli["standings"]] == [
        (row["place"], row["start_no"], row["points"], row["score"], row["final_score"], row["tie"])
        for row in server]
    body = text(op.get(f"/operator/t/{tid}/report"))
    assert body.split('id="report-final"')[1].split("</section>")[0].count("data-start-no=") == 4
