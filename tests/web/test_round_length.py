"""The round clock and the round's length come from the rule set (RuleSet.round_minutes, round_rule):
SEM-B4's 50 minutes, TH-2's 60 minutes and its untimed final, and no length where the rules name none
(ČSM, SMU, BB liga). Every page with a clock says the same: the operator's round page, the projector
and the player's own page."""
from __future__ import annotations

import random
import re
from datetime import datetime

import pytest

from tests.helpers import text
from tests.web.test_rulesets_web import make
from tests.web.test_thousand_server import close, open_next, play_round
from webapp.extensions import db
from webapp.models import Tournament


def start(app, op, tid: int, n: int) -> str:
    with app.app_context():
        version = db.session.get(Tournament, tid).version
    resp = op.post(f"/operator/t/{tid}/round/{n}/clock", data={"version": version}, follow_redirects=True)
    assert resp.status_code == 200
    with app.app_context():
        r = next(x for x in db.session.get(Tournament, tid).rounds if x.number == n)
        r.started_at = datetime(2026, 3, 14, 9, 0, 0)  # 10:00 in Bratislava and Prague
        db.session.commit()
    return text(resp)


def pages(op, tid: int, n: int, start_no: int) -> dict[str, str]:
    return {"round": text(op.get(f"/operator/t/{tid}/round/{n}")),
            "projector": text(op.get(f"/t/{tid}/projector")),
            "me": text(op.get(f"/t/{tid}/me/{start_no}/now"))}


@pytest.mark.parametrize("code,n,minutes,rule", [
    ("sem", 9, 50, "SEM-B4: a round lasts 50 minutes"),
    ("thousand", 13, 60, "TH-2: a Swiss round lasts 60 minutes"),
])
def test_sem_b4_th2_the_clock_runs_the_rule_sets_minutes_on_every_page(app, op, code, n, minutes, rule):
    tid = make(app, code, n)
    rnd, tabs = open_next(app, tid)
    before = text(op.get(f"/operator/t/{tid}/round/{rnd}"))
    assert f"Start round 1 ({minutes} minutes)" in before and rule in before
    flash = start(app, op, tid, rnd)
    assert f"Round 1 has started: {minutes} minutes from now." in flash
    end = f"10:{minutes:02d}" if minutes < 60 else "11:00"
    for name, page in pages(op, tid, rnd, tabs[0][1][0]).items():
        assert f'data-minutes="{minutes}"' in page, name
        assert rule in page, name
        assert 'data-minutes="50"' not in page or minutes == 50, name
        if name != "me":
            assert f"Started at 10:00, time is called at {end} ({minutes} minutes)." in page, name
    over = "Time — play until player 3 has dealt" if code == "sem" else "Time — the game ends (TH-3)"
    assert over in pages(op, tid, rnd, tabs[0][1][0])["round"]


def test_th2_the_final_is_untimed_on_every_page(app, op):
    tid = make(app, "thousand", 13)
    rng = random.Random(4)
    for _ in range(4):
        play_round(app, op, tid, "thousand", rng)
        close(app, tid)
    rnd, tabs = open_next(app, tid)
    assert rnd == 5 and len(tabs) == 1
    before = text(op.get(f"/operator/t/{tid}/round/5"))
    assert "Start round 5 (no time limit)" in before and "minutes)" not in before
    assert "Round 5 has started: it has no time limit." in start(app, op, tid, 5)
    for name, page in pages(op, tid, 5, tabs[0][1][0]).items():
        assert "data-minutes=" not in page, name
        assert "Started at 10:00: no time limit" in page, name
        assert "The final is played to a win without a time limit." in page, name


@pytest.mark.parametrize("code,n,lang,says", [
    ("csm", 8, "cs", "Pravidla ČSM neurčují délku kola"),
    ("smu", 9, "cs", "Pravidla SMU neurčují délku kola"),
    ("bbliga", 9, "sk", "Pravidlá BB ligy neurčujú dĺžku kola"),
])
def test_rules_without_a_round_length_show_no_countdown(app, op, code, n, lang, says):
    tid = make(app, code, n)
    rnd, tabs = open_next(app, tid)
    op.set_cookie("lang", lang)
    start(app, op, tid, rnd)
    for name, page in pages(op, tid, rnd, tabs[0][1][0]).items():
        assert "data-minutes=" not in page, name
        assert says in page, name
        assert not re.search(r"\b50 min", page), name
