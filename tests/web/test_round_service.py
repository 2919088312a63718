"""The round cycle through the services: draw, publish, sheets, close (SEM-B2..B12, C5)."""
from decimal import Decimal as D

import pytest
from flask_babel import force_locale

from tests.helpers import make_tournament, play_round
from webapp.extensions import db
from webapp.models import Tournament
from webapp.services import rounds
from webapp.services.common import ServiceError, StaleError


def test_full_tournament_through_services_matches_engine(app):
    tid = make_tournament(app, 27)
    for k in range(1, 7):
        play_round(app, tid, seed=k)
    with app.app_context(), force_locale("en"):
        t = db.session.get(Tournament, tid)
        assert t.status == "finished"
        assert [r.status for r in t.rounds] == ["closed"] * len(t.rounds)
        from webapp.rules.standings import standings
        from webapp.services.engine import rules_tournament

        rows = standings(rules_tournament(t))
        assert len(rows) == 27


def test_draw_refuses_field_not_divisible_by_3(app):
    tid = make_tournament(app, 28)
    with app.app_context(), force_locale("en"):
        t = db.session.get(Tournament, tid)
        with pytest.raises(ServiceError, match="add 2 players or withdraw 1"):
            rounds.draw_round(t, "test")


def test_sem_c5_wrong_total_refused_unless_corrected(app):
    tid = make_tournament(app, 9)
    with app.app_context(), force_locale("en"):
        t = db.session.get(Tournament, tid)
        r = rounds.draw_round(t, "test")
        rounds.publish_round(t, r, "test", t.version)
        tab = r.tables[0]
        with pytest.raises(ServiceError, match="31.00"):
            rounds.record_sheet(t, tab, [D(15), D(10), D(6)], "test")
        sheet = rounds.record_sheet(t, tab, [D(15), D(10), D(6)], "test", correct_total=True)
        assert sheet.sums == ["14.00", "10.00", "6.00"] and sheet.entered_sums == ["15.00", "10.00", "6.00"]
        with pytest.raises(ServiceError, match="already has a sheet"):
            rounds.record_sheet(t, tab, [D(14), D(10), D(6)], "test")
        # a counted sheet's sums are never replaced here: that is a correction for the referee
        with pytest.raises(ServiceError, match="correction the referee decides"):
            rounds.record_sheet(t, tab, [D(12), D(10), D(8)], "test", replace_version=1)
        # a disqualification re-records it as a new version with the same sums (SEM-D1)
        v2 = rounds.record_sheet(t, tab, [D(14), D(10), D(6)], "test", replace_version=1,
                                 disqualified=[tab.players[0]], entered_sums=sheet.entered_sums)
        assert v2.version == 2 and tab.sheet is v2 and tab.sheets[0].status == "superseded"
        assert v2.entered_sums == ["15.00", "10.00", "6.00"] and tab.sheets[0].sums == sheet.sums


def test_stale_version_refused(app):
    tid = make_tournament(app, 9)
    with app.app_context(), force_locale("en"):
        t = db.session.get(Tournament, tid)
        r = rounds.draw_round(t, "test")
        old = t.version - 1
        with pytest.raises(StaleError):
            rounds.publish_round(t, r, "test", old)


def test_close_needs_all_sheets(app):
    tid = make_tournament(app, 9)
    play_round(app, tid, close=False)
    with app.app_context(), force_locale("en"):
        t = db.session.get(Tournament, tid)
        r = t.rounds[0]
        r.tables[0].sheets[0].status = "superseded"
        with pytest.raises(ServiceError, match="missing from tables 1"):
            rounds.close_round(t, r, "test", t.version)


def test_sem_c11_impossible_sum_refused_with_position(app):
    tid = make_tournament(app, 9)
    with app.app_context(), force_locale("en"):
        t = db.session.get(Tournament, tid)
        r = rounds.draw_round(t, "test")
        rounds.publish_round(t, r, "test", t.version)
        with pytest.raises(ServiceError, match="position 2 is impossible") as e:
            rounds.record_sheet(t, r.tables[0], [D("45.00"), D("-12.00"), D("-3.00")], "test")
        assert e.value.field == "sum1"


def test_draw_refusal_in_slovak(app):
    """The engine's SEM-B2 refusal reaches a Slovak operator in Slovak."""
    tid = make_tournament(app, 28)
    with app.app_context(), force_locale("sk"):
        t = db.session.get(Tournament, tid)
        with pytest.raises(ServiceError, match="28 hráčov nemožno rozsadiť k stolom po 3: pridajte 2 hráčov"):
            rounds.draw_round(t, "test")
