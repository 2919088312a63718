"""SEM to the letter on the server: every SEM rule applied where the event happens."""
from __future__ import annotations

import json
from decimal import Decimal as D
from pathlib import Path

import pytest
from flask_babel import force_locale

from tests.helpers import make_tournament, play_round
from webapp.extensions import db
from webapp.models import AuditEntry, Player, Tournament
from webapp.rules.seating import cut_seating_error
from webapp.services import corrections, desk, discipline, rounds
from webapp.services.common import ServiceError
from webapp.services.engine import rules_tournament
from webapp.services.tournament_file import import_tournament

R3 = Path(__file__).resolve().parents[1] / "data" / "sem27_poprad_r3.json"


def _table_of(r, s):
    return next(tab for tab in r.tables if s in tab.players)


def test_sem_d1c_red_card_after_the_round_closed_applies_to_that_table(app):
    """The table-mates get 4 + 4 / 5 + 3 and +1 EUR once a
    referee approves it (from an operator the card is a case first)."""
    from webapp.models import Case, Event
    from webapp.services import cases, chain_verify

    tid = make_tournament(app, 27)
    play_round(app, tid, seed=1)
    with app.app_context(), force_locale("en"):
        t = db.session.get(Tournament, tid)
        r = t.rounds[0]
        tab = r.tables[0]
        s = tab.players[1]
        before = desk.sheet_outcome(t, tab)
        old_version = tab.sheet.version
        res = discipline.add_card(t, s, "red", 1, ["Rozhodca A", "Rozhodca B"], "op", t.version)
        db.session.commit()
        assert res["proposal"].kind == "discipline" and res["case"] == "D1c" and res["event"] is None
        assert tab.sheet.version == old_version and desk.sheet_outcome(t, tab) == before
        assert db.session.query(Event).count() == 0
        c = db.session.get(Case, res["proposal"].id)
        cases.approve(c, "Rozhodca A")
        db.session.commit()
        [ev] = db.session.query(Event).all()
        assert (ev.colour, ev.start_no, ev.referees, ev.created_by) == ("red", s, ["Rozhodca A", "Rozhodca B"],
                                                                       "Rozhodca A")
        sheet = tab.sheet
        assert sheet.version == old_version + 1 and sheet.disqualified == [s]
        assert sheet.sums == [f"{D(x):.2f}" for x in sheet.sums]  # sums as signed
        out = desk.sheet_outcome(t, tab)
        i = tab.players.index(s)
        assert out.points[i] is None and sorted(p for p in out.points if p is not None) in ([3, 5], [4, 4])
        for k in range(3):
            if k != i:
                assert out.money[k] == before.money[k] + D("1.00")
        # the superseded version is kept, and the event is audited
        assert [x.status for x in sorted(tab.sheets, key=lambda x: x.version)][-2:] == ["superseded", "accepted"]
        assert db.session.query(AuditEntry).filter_by(action="discipline.disqualify").count() == 1
        # the export is a consistent file again (the engine refuses a card not on the sheet)
        from webapp.services.tournament_file import export_tournament
        from webapp.rules.exchange import loads

        loads(export_tournament(t), "export.json")
        assert chain_verify.verify(t).ok


def test_sem_d1c_card_refused_while_the_player_sits_in_a_later_round(app):
    tid = make_tournament(app, 27)
    play_round(app, tid, seed=1)
    play_round(app, tid, seed=2, close=False)
    with app.app_context(), force_locale("en"):
        t = db.session.get(Tournament, tid)
        s = t.rounds[0].tables[0].players[0]
        with pytest.raises(ServiceError, match=f"Start number {s} plays in round 2"):
            discipline.add_card(t, s, "red", 1, ["A", "B"], "op", t.version)


def test_sem_b3a_nomination_duty_fixed_and_stored_when_round_1_is_drawn(app):
    """12 present at the draw; a substitute added later does not
    make the club nominate at the final."""
    tid = make_tournament(app, 27, clubs=6)
    with app.app_context(), force_locale("en"):
        t = db.session.get(Tournament, tid)
        for p in t.players:
            p.club = "MK Nitra" if p.start_no <= 12 else None
            p.status = "registered" if p.start_no <= 12 else "guest"
        db.session.commit()
    play_round(app, tid, seed=1)
    with app.app_context(), force_locale("en"):
        t = db.session.get(Tournament, tid)
        assert t.nomination_duty == {"MK Nitra": 12}
        discipline.add_substitute(t, "Náhradník Nový", "MK Nitra", 5, None, "op", t.version)
        discipline.withdraw(t, 5, 1, "op", t.version)
        db.session.commit()
        rt = rules_tournament(t)
        assert rt.nomination_duty == {"MK Nitra": 12}
        from webapp.rules.season import nominations

        nom = nominations(rt)["MK Nitra"]
        assert not nom.required and not nom.automatic
        assert not any(p.nominated for p in t.players)


def test_sem_c11_desk_refuses_impossible_sums_also_when_the_total_is_wrong(app):
    """60 / -20 / -5 is not stored as 55 / -20 / -5."""
    tid = make_tournament(app, 9)
    with app.app_context(), force_locale("en"):
        t = db.session.get(Tournament, tid)
        r = rounds.draw_round(t, "test")
        rounds.publish_round(t, r, "test", t.version)
        tab = r.tables[0]
        with pytest.raises(ServiceError, match="SEM-C11"):
            rounds.record_sheet(t, tab, [D(60), D(-20), D(-5)], "test", correct_total=True)
        assert tab.sheet is None
        pv = desk.preview_sheet(t, tab, ["60", "-20", "-5"])
        assert pv.wrong_total and any(pos == 1 for _c, pos, _s in pv.impossible)


def test_sem_c11_desk_correction_proposal_checks_the_sums_as_they_would_count(app):
    """The SEM-C4 proposal from the desk applies the same SEM-C5 and C11 checks as a
    first entry: 60 / -20 / -5 is refused, not proposed as 55 / -20 / -5."""
    tid = make_tournament(app, 9)
    with app.app_context(), force_locale("en"):
        t = db.session.get(Tournament, tid)
        r = rounds.draw_round(t, "test")
        rounds.publish_round(t, r, "test", t.version)
        tab = r.tables[0]
        rounds.record_sheet(t, tab, [D(10), D(10), D(10)], "test")
        with pytest.raises(ServiceError, match="SEM-C11"):
            desk.propose_desk_correction(t, tab, ["60", "-20", "-5"], "test", base_version=tab.sheet.version,
                                            correct_total=True, note="last game", reason="typed wrong")
        assert [s.version for s in tab.sheets] == [1]


def test_sem_c5_desk_preview_says_tied_winners_share_the_difference(app):
    tid = make_tournament(app, 9)
    with app.app_context(), force_locale("en"):
        t = db.session.get(Tournament, tid)
        r = rounds.draw_round(t, "test")
        rounds.publish_round(t, r, "test", t.version)
        pv = desk.preview_sheet(t, r.tables[0], ["15", "15", "1"])
        assert pv.corrected == (D("14.50"), D("14.50"), D("1.00")) and pv.tied_winners


def test_sem_c10_disqualified_table_of_a_closed_round_can_be_corrected(app):
    """The preview computes SEM-D1c values from the real sums."""
    tid = make_tournament(app, 27)
    with app.app_context(), force_locale("en"):
        t = db.session.get(Tournament, tid)
        r = rounds.draw_round(t, "test")
        rounds.publish_round(t, r, "test", t.version)
        for k, tab in enumerate(r.tables):
            if k == 0:
                discipline.disqualify(t, 1, tab.players[2], "op", t.version)
                rounds.record_sheet(t, tab, [D(14), D("9.50"), D("6.50")], "test",
                                    disqualified=[tab.players[2]])
            else:
                rounds.record_sheet(t, tab, [D(10), D(10), D(10)], "test")
        rounds.close_round(t, r, "test", t.version)
        db.session.commit()
        tab = r.tables[0]
        a, b, x = tab.players
        pv = corrections.preview_correction(t, 1, tab.number, ["9.50", "14.00", ""], "fee")
        eff = {ch.start_no: ch.effective for ch in pv.correction.changes}
        assert eff == {a: (3, D("10.50")), b: (5, D("15.00"))}
        assert pv.correction.table.disqualified == (x,)
        with pytest.raises(ServiceError, match="values already recorded"):
            corrections.preview_correction(t, 1, tab.number, ["14.00", "9.50", "3.00"], "fee")
        # proposed at the desk, approved by a referee: the new version keeps the disqualification
        case = corrections.propose_correction(t, 1, tab.number, ["9.50", "14.00", ""], "fee", "player", "op",
                                          t.version)
        corrections.approve_c10(case, t, "Rozhodca")
        db.session.commit()
        assert tab.sheet.disqualified == [x] and tab.sheet.source == "correction"
        out = desk.sheet_outcome(t, tab)
        assert out.points == (3, 5, None) and out.money == (D("10.50"), D("15.00"), None)
        from webapp.rules.exchange import loads
        from webapp.services.tournament_file import export_tournament

        loads(export_tournament(t), "export.json")


def test_sem_b2_import_of_a_file_with_a_missing_table_is_refused(app):
    """The server's import stores rounds as closed, so it refuses."""
    d = json.loads(R3.read_text(encoding="utf-8"))
    d["rounds"][0]["tables"].pop()
    with app.app_context(), force_locale("en"):
        with pytest.raises(ServiceError, match="round 1, start number .* sits at no table"):
            import_tournament(json.dumps(d), "missing.json", "test")
        assert db.session.query(Tournament).count() == 0


def test_sem_b9_web_message_for_a_cut_that_cannot_fill_tables(app):
    """Says 'advancing' and never 'add'."""
    with app.test_request_context("/?lang=en"), force_locale("en"):
        text = rounds.draw_error_text(cut_seating_error(4, 11))
    assert text.startswith("Round 4: 11 advancing players cannot be seated")
    assert "withdraw 2 advancing players (SEM-D4)" in text and " add " not in text


def test_sem_b12c_standings_footnote_states_the_lexicographic_reading(app, op):
    tid = make_tournament(app, 27)
    play_round(app, tid, seed=1)
    play_round(app, tid, seed=2)
    client = op
    page = client.get(f"/t/{tid}/standings?lang=en").get_data(as_text=True)
    assert "Interpretation of SEM-B12 c)" in page and "not their total" in page
    page = client.get(f"/operator/t/{tid}/standings?lang=en").get_data(as_text=True)
    assert "Interpretation of SEM-B12 c)" in page
    page = client.get(f"/operator/t/{tid}/round/2?lang=en").get_data(as_text=True)
    assert "Club rule (SEM-B2)" in page
