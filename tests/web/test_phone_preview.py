"""POST /api/v1/preview (docs/SYNC.md): the points, SB, keeper and refusals the server computes for
results being typed on a phone, stored nowhere — so the page copies no rule set's rules."""
from __future__ import annotations

from sqlalchemy import func, select

from tests.helpers import issue_pins
from tests.web.test_rulesets_web import make
from webapp.extensions import db
from webapp.models import Sheet, SheetDraft, Tournament
from webapp.services import rounds
from webapp.services.tokens import table_token
from webapp.sync.protocol import Content


def _table(app, code, n, size):
    tid = make(app, code, n)
    issue_pins(app, tid)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r = rounds.draw_round(t, "test")
        rounds.publish_round(t, r, "test", t.version)
        db.session.commit()
        tab = next(x for x in r.tables if len(x.players) == size)
        return tid, tab.number, list(tab.players), table_token(tid, 1, tab.number)


def _preview(client, tid, number, token, players, **kw):
    c = Content(tournament=tid, round=1, table=number, players=tuple(players), **kw)
    r = client.post("/api/v1/preview", json={"token": token, "content": c.as_dict()})
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def test_th_3_th_6_preview_gives_the_brackets_and_the_keeper(app, client):
    tid, number, players, token = _table(app, "thousand", 7, 4)
    scores = (880, 1000, 445, -20)
    a = _preview(client, tid, number, token, players, sums_cents=tuple(x * 100 for x in scores), scores=scores,
                 ended="win")
    assert a["problem"] is None and a["points"] == [1, 3, 1, -1] and a["keeper"] == 1  # TH-6: the best result
    scores = (880, 300, 445, -20)
    a = _preview(client, tid, number, token, players, sums_cents=tuple(x * 100 for x in scores), scores=scores,
                 ended="time")
    assert a["problem"] is None and a["points"] == [2, 0, 1, -1] and a["keeper"] == 0
    a = _preview(client, tid, number, token, players, sums_cents=tuple(x * 100 for x in scores), scores=scores,
                 ended="win")
    assert a["problem"]["error"] == "ruleset" and "TH-3" in a["problem"]["message"]  # a win without a winner
    with app.app_context():  # nothing stored
        assert db.session.scalar(select(func.count()).select_from(Sheet)) == 0
        assert db.session.scalar(select(func.count()).select_from(SheetDraft)) == 0


def test_csm_3_preview_refuses_a_premium_line_its_players_have_not_signed(app, client):
    tid, number, players, token = _table(app, "csm", 11, 4)
    kw = dict(sums_cents=(3500, -1000, -3000, 500), scores=(60, 0, 10, 0))
    line = lambda by: ((players[0], "sedma", 60, tuple(by)),)  # noqa: E731
    a = _preview(client, tid, number, token, players, **kw, premium_games=line(players[:1]))
    assert a["problem"]["error"] == "ruleset" and "CSM-3" in a["problem"]["message"]
    a = _preview(client, tid, number, token, players, **kw, premium_games=line(players[:3]))
    assert a["problem"] is None and a["sb"] == [95, -10, -20, 5] and a["keeper"] == 0 and "points" not in a
    a = _preview(client, tid, number, token, players, sums_cents=(3500, -1000, -3000, 600), scores=(60, 0, 10, 0))
    assert a["problem"]["error"] == "wrong-total"


def test_preview_checks_the_token_and_the_seating(app, client):
    tid, number, players, token = _table(app, "smu", 10, 4)
    c = Content(tournament=tid, round=1, table=number, players=tuple(reversed(players)), sums_cents=(0, 0, 0, 0))
    r = client.post("/api/v1/preview", json={"token": token, "content": c.as_dict()})
    assert r.status_code == 422 and r.get_json()["error"] == "not-at-table"
    r = client.post("/api/v1/preview", json={"token": "nonsense", "content": c.as_dict()})
    assert r.status_code == 403 and r.get_json()["status"] == "forbidden"
