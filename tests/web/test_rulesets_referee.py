"""The discipline page, the referee's queue and a discipline case cite the tournament's own rule set
(CSM-1..6, TH-5) and offer its options: no SEM-D1c compensation, no cards, no euros in ČSM or
Thousand; check-in closed after the draw says what the rule set allows (TH-5's late entry)."""
from __future__ import annotations

import html
import random
import re

import pytest

from tests.helpers import login, make_user, stored_cases, text
from tests.web.test_rulesets_web import make
from tests.web.test_thousand_server import close, open_next, play_round
from webapp.extensions import db
from webapp.models import Tournament


def visible(body: str) -> str:
    body = re.sub(r"<script.*?</script>|<style.*?</style>", " ", body, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())


def version(app, tid) -> int:
    with app.app_context():
        return db.session.get(Tournament, tid).version


@pytest.fixture
def referee(app):
    make_user(app, "referee", role="referee")
    c = app.test_client()
    login(c, "referee")
    return c


@pytest.mark.parametrize("code,n,lang,own,column", [
    ("csm", 8, "cs", ["Diskvalifikace", "Odstoupení", "Náhradník"], "Hráč Body ZB"),
    ("thousand", 7, "ru", ["Снятие (TH-5)", "Замена (TH-5)", "Дисквалификация"], "Игрок Очки Висты"),
])
def test_csm_th5_discipline_and_referee_pages_cite_the_rule_sets_own_rules(app, op, referee, code, n, lang, own,
                                                                            column):
    tid = make(app, code, n)
    rnd, tabs = play_round(app, op, tid, code, random.Random(2))
    op.set_cookie("lang", lang)
    referee.set_cookie("lang", lang)
    page = visible(text(op.get(f"/operator/t/{tid}/discipline")))
    for words in own:
        assert words in page
    for foreign in ("SEM-", "D1c", "€", "EUR", "karta", "карточк"):
        assert foreign not in page, foreign
    # a disqualification at a counted table: a case for the referee, in the rule set's words
    victim = tabs[0][1][1]
    r = op.post(f"/operator/t/{tid}/discipline/disqualify",
                data={"round": rnd, "start_no": victim, "reason": "x", "version": version(app, tid)})
    assert r.status_code == 302
    flash = visible(text(op.get(r.headers["Location"])))
    [case] = stored_cases(app, kind="discipline")
    assert str(case.id) in flash and "SEM-" not in flash and "D1c" not in flash
    for body in (text(referee.get("/referee/")), text(referee.get(f"/referee/case/{case.id}"))):
        shown = visible(body)
        assert "SEM-" not in shown and "D1c" not in shown and "€" not in shown and "EUR" not in shown
    assert column in shown  # what the disqualification changes, in the rule set's result (CSM-2, TH-3)
    assert not re.search(r"\d,\d\d", shown)  # ZB and scores are whole numbers, not money
    assert referee.post(f"/referee/case/{case.id}/approve", data={"note": "ok"}).status_code == 302
    shown = visible(text(referee.get(f"/referee/case/{case.id}")))
    assert "SEM-" not in shown and "€" not in shown


@pytest.mark.parametrize("code,n,lang,says,never", [
    ("thousand", 7, "ru", "как поздний вход: он играет с тура 2 (TH-5)", "SEM-D3"),
    ("csm", 8, "cs", "může nastoupit jen jako náhradník, a to prostřednictvím rozhodčího", "SEM-D3"),
    ("sem", 9, "sk", "môže nastúpiť už len ako náhradník (SEM-D3)", "TH-5"),
])
def test_th5_sem_d3_check_in_closed_by_the_draw_says_what_the_rule_set_allows(app, op, code, n, lang, says, never):
    tid = make(app, code, n)
    open_next(app, tid)
    op.set_cookie("lang", lang)
    page = visible(text(op.get(f"/operator/t/{tid}/checkin")))
    assert says in page and never not in page


def test_th5_after_round_two_a_thousand_check_in_offers_no_late_entry(app, op):
    tid = make(app, "thousand", 7)
    rng = random.Random(5)
    play_round(app, op, tid, "thousand", rng)
    close(app, tid)
    open_next(app, tid)
    op.set_cookie("lang", "ru")
    page = visible(text(op.get(f"/operator/t/{tid}/checkin")))
    assert "Опоздавший игрок может войти только как замена, через судью." in page and "SEM-" not in page
