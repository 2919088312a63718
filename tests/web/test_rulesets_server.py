"""The rule sets on the venue server beyond the first pass: the engine's refusals in the
user's language, the referee flow and corrections per rule set, the final report and
CSV per rule set, and Thousand's frozen table, late entry and lot (TH-4, TH-5)."""
from __future__ import annotations

import random

import pytest

from tests.helpers import text
from tests.web.test_rulesets_web import _version, make, result_for
from webapp.extensions import db
from webapp.models import Tournament
from webapp.rules.ruleset import get_ruleset
from webapp.services import rounds


def start(app, code: str, n: int) -> tuple[int, list]:
    """A tournament of `code` with round 1 drawn and published: (id, [(table number, players)])."""
    return publish_round1(app, make(app, code, n))


def publish_round1(app, tid: int) -> tuple[int, list]:
    """Round 1 of tournament `tid` drawn and published: (id, [(table number, players)])."""
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r = rounds.draw_round(t, "test")
        rounds.publish_round(t, r, "test", t.version)
        db.session.commit()
        return tid, [(tab.number, list(tab.players)) for tab in r.tables]


def desk(op, tid: int, rnd: int, table: int, form: dict):
    return op.post(f"/operator/t/{tid}/round/{rnd}/results/{table}", data={"sheet_version": "0", **form})


def play_rest(app, op, tid: int, code: str, rnd: int, tables, seed: int = 3, skip=()) -> None:
    rng = random.Random(seed)
    rs = get_ruleset(code)
    for number, players in tables:
        if number in skip:
            continue
        if rs.result_kind == "money":  # SEM-C8/C11 need no note: every player keeps the stake
            form = {f"sum{i}": str(rs.expected_total(len(players)) / len(players)) for i in range(len(players))}
        else:
            form = result_for(code, len(players), rng, rs.final_size is not None and rnd == rs.rounds)
        r = desk(op, tid, rnd, number, form)
        assert r.status_code in (200, 302), text(r)[:2000]


# ----------------------------------------------------------------- the engine's refusals, translated


def test_th3_engine_refusal_is_russian_at_the_desk(app, op):
    """TH-3: 885 cannot stand at the end of a game; the desk says so in Russian, not in the engine's English."""
    tid, tables = start(app, "thousand", 13)
    number, players = tables[0]
    op.set_cookie("lang", "ru")
    form = {f"sum{i}": v for i, v in enumerate(["885", "100", "-20", "35"][:len(players)])}
    r = desk(op, tid, 1, number, {**form, "ended": "time"})
    body = text(r)
    assert r.status_code == 422
    assert "cannot stand" not in body and "(the win)" not in body
    assert "не могут быть в конце игры" in body


def test_th3_table_won_twice_refused_in_czech(app, op):
    """TH-3: a table is won once; the refusal names both start numbers, in Czech."""
    tid, tables = start(app, "thousand", 13)
    number, players = tables[0]
    op.set_cookie("lang", "cs")
    values = ["1000", "1000"] + ["100"] * (len(players) - 2)
    r = desk(op, tid, 1, number, {**{f"sum{i}": v for i, v in enumerate(values)}, "ended": "win"})
    body = text(r)
    assert r.status_code == 422
    assert f"{players[0]}, {players[1]}" in body and "stůl se vyhrává jednou" in body


def test_csm3_engine_refusal_from_the_phone_is_translated(app, client):
    """CSM-3 on the phone protocol: a >= 50 PB line without its player's signature is refused
    with the translated message (Accept-Language), the code stays `ruleset`."""
    import uuid

    from tests.helpers import issue_pins
    from webapp.services.tokens import table_token
    from webapp.sync.protocol import Content

    tid, tables = start(app, "csm", 14)
    pins = issue_pins(app, tid)
    number, players = next((n, p) for n, p in tables if len(p) == 4)
    zb = [10, -5, -5, 0]
    c = Content(tournament=tid, round=1, table=number, players=tuple(players), sums_cents=tuple(x * 100 for x in zb),
                scores=(60, 0, 0, 0), premium_games=((players[0], "sedma", 60, (players[1], players[2], players[3])),))
    h = c.hash
    with app.app_context():
        token = table_token(tid, 1, number)
    body = {"token": token, "idempotency_key": str(uuid.uuid4()), "content": c.as_dict(),
            "content_hash": h, "signatures": [{"start_no": s, "pin": pins[s], "hash": h, "drawing": "M 1 1 L 2 2",
                                               "signed_at": "2026-04-11T10:51:02Z"} for s in players]}
    client.set_cookie("lang", "sk")
    a = client.post("/api/v1/sheets", json=body)
    answer = a.get_json()
    assert answer["status"] == "invalid" and answer["error"] == "ruleset", answer
    assert "potrebuje podpis hráča tejto hry" in answer["message"], answer


def test_th2_final_size_draw_refusal_is_translated(app):
    """TH-2: the engine's final-size refusal has its own translated message."""
    from webapp.rules.seating import DrawError

    e = DrawError("round 5: the final needs 4 players, 3 can play", code="final-size", round=5, count=3, size=4)
    with app.test_request_context("/?lang=ru"):
        assert rounds.draw_error_text(e) == "Тур 5: для финала нужно игроков: 4, играть могут: 3 (TH-2)."


# ----------------------------------------------------------------- the referee flow per rule set


def referee_client(app):
    from tests.helpers import login, make_user

    make_user(app, "referee", role="referee")
    c = app.test_client()
    login(c, "referee")
    c.set_cookie("lang", "en")
    return c


def _sheet(app, tid: int, rnd: int, number: int):
    from webapp.models import Round, RoundTable

    with app.app_context():
        tab = db.session.scalar(db.select(RoundTable).join(Round).where(
            Round.tournament_id == tid, Round.number == rnd, RoundTable.number == number))
        s = tab.sheet
        return {"version": s.version, "sums": list(s.sums), "scores": s.scores, "ended": s.ended,
                "premium_games": s.premium_games}


def _case_id(app, tid: int) -> int:
    from webapp.models import Case

    with app.app_context():
        return db.session.scalar(db.select(Case.id).where(Case.tournament_id == tid, Case.status == "open")
                                 .order_by(Case.id.desc()))


def test_csm3_desk_correction_carries_pb_and_premium_lines_through_the_referee(app, op):
    """SEM-C4 procedure for a ČSM table (CSM-2, CSM-3): the desk proposes other PB and a
    premium-game line; the referee's case page shows them; approved, they count."""
    tid, tables = start(app, "csm", 14)
    number, players = next((n, p) for n, p in tables if len(p) == 4)
    k = len(players)
    first = {**{f"sum{i}": v for i, v in enumerate(["10", "-5", "-5", "0"])}, **{f"score{i}": "0" for i in range(k)}}
    assert desk(op, tid, 1, number, first).status_code in (200, 302)
    before = _sheet(app, tid, 1, number)
    proposal = {**first, "score0": "60", "pg_start0": str(players[0]), "pg_game0": "sedma", "pg_pb0": "60",
                "pg_signed0": ", ".join(map(str, players[:3])), "base_version": str(before["version"]),
                "reason": "PB of the seven missing"}
    # a line without its player's signature is refused by the rule set (CSM-3), nothing sent
    bad = {**proposal, "pg_signed0": ", ".join(map(str, players[1:4]))}
    r = op.post(f"/operator/t/{tid}/round/1/results/{number}/correction", data=bad)
    assert r.status_code == 422 and "needs the signature of the player of the game (CSM-3)" in text(r)
    assert _case_id(app, tid) is None
    r = op.post(f"/operator/t/{tid}/round/1/results/{number}/correction", data=proposal)
    assert r.status_code in (200, 302), text(r)[:2000]
    cid = _case_id(app, tid)
    assert _sheet(app, tid, 1, number) == before  # the counted sheet counts until the referee decides
    ref = referee_client(app)
    page = text(ref.get(f"/referee/case/{cid}"))
    assert 'data-pb="60"' in page and "sedma, 60 PB" in page
    assert ref.post(f"/referee/case/{cid}/approve", data={"note": ""}).status_code in (200, 302)
    after = _sheet(app, tid, 1, number)
    assert after["version"] > before["version"] and after["scores"][0] == "60"
    assert after["premium_games"] == [{"start_no": players[0], "game": "sedma", "pb": 60,
                                       "signed_by": list(players[:3])}]


def test_th3_desk_correction_carries_the_ending_through_the_referee(app, op):
    """SEM-C4 procedure for a Thousand table (TH-3): the desk proposes a win instead of
    time; the referee sees how the game ended, approves, and the new ending counts."""
    tid, tables = start(app, "thousand", 13)
    number, players = tables[0]
    k = len(players)
    first = {**{f"sum{i}": v for i, v in enumerate(["500", "300", "-20", "35"][:k])}, "ended": "time"}
    assert desk(op, tid, 1, number, first).status_code in (200, 302)
    before = _sheet(app, tid, 1, number)
    proposal = {**first, "sum0": "1000", "ended": "win", "base_version": str(before["version"]), "reason": "won"}
    r = op.post(f"/operator/t/{tid}/round/1/results/{number}/correction", data={**proposal, "ended": "time"})
    assert r.status_code == 422 and "the game ended with a win, not by time (TH-3)" in text(r)
    r = op.post(f"/operator/t/{tid}/round/1/results/{number}/correction", data=proposal)
    assert r.status_code in (200, 302), text(r)[:2000]
    cid = _case_id(app, tid)
    ref = referee_client(app)
    page = text(ref.get(f"/referee/case/{cid}"))
    assert "The game ended: a player reached 1,000" in page and "The game ended: time ran out" in page
    assert ref.post(f"/referee/case/{cid}/approve", data={"note": ""}).status_code in (200, 302)
    after = _sheet(app, tid, 1, number)
    assert after["ended"] == "win" and after["scores"][0] == "1000" and after["version"] > before["version"]


@pytest.mark.parametrize("code,n", [("csm", 14), ("thousand", 13), ("smu", 10)])
def test_sem_c10_is_refused_with_a_message_for_other_rule_sets(app, op, code, n):
    """SEM-C10 is SEM's: for ČSM, Thousand and SMU the corrections page and its posts say so."""
    tid, tables = start(app, code, n)
    play_rest(app, op, tid, code, 1, tables)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        rounds.close_round(t, t.rounds[-1], "test", t.version)
        db.session.commit()
    page = op.get(f"/operator/t/{tid}/corrections?round=1&table=1")
    assert page.status_code == 200 and "no correction after publication (SEM-C10 is a rule of SEM)" in text(page)
    data = {"round": "1", "table": "1", "kind": "a", "asked_by": "x", "version": str(_version(app, tid)),
            **{f"sum{i}": "1" for i in range(4)}}
    for url in (f"/operator/t/{tid}/corrections/preview", f"/operator/t/{tid}/corrections"):
        r = op.post(url, data=data)
        assert r.status_code == 422 and "SEM-C10 is a rule of SEM" in text(r), url


# ----------------------------------------------------------------- results CSV per rule set


@pytest.mark.parametrize("code,n,columns", [("sem", 9, ["Points", "Money"]), ("smu", 10, ["Points", "Money"]),
                                            ("csm", 14, ["BP", "SB", "ZB", "PB"]),
                                            ("thousand", 13, ["Points", "Score", "Final score"]),
                                            ("bbliga", 9, ["Points", "Money"])])
def test_results_csv_per_rule_set(app, op, code, n, columns):
    """SMU-4, CSM-4, TH-4: the results CSV has the rule set's columns (as `listok standings`),
    one row per ranked player, and stays formula-safe (a name starting with '=')."""
    import csv
    import io

    from webapp.models import Player

    tid, tables = start(app, code, n)
    with app.app_context():
        p = db.session.scalar(db.select(Player).where(Player.tournament_id == tid, Player.start_no == 1))
        p.name = '=HYPERLINK("x")'
        db.session.commit()
    play_rest(app, op, tid, code, 1, tables)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        rounds.close_round(t, t.rounds[-1], "test", t.version)
        db.session.commit()
    r = op.get(f"/operator/t/{tid}/results.csv")
    assert r.status_code == 200
    rows = list(csv.reader(io.StringIO(r.get_data(as_text=True).lstrip("\ufeff")), delimiter=";"))
    assert rows[0] == ["Place", "Start number", "Name", "Club", *columns, "Round 1"]
    assert len(rows) == n + 1 and all(len(x) == len(rows[0]) for x in rows)
    name = next(x[2] for x in rows[1:] if x[1] == "1")
    assert not name.startswith("=") and "HYPERLINK" in name


@pytest.mark.parametrize("code", ["csm", "smu"])
def test_csm_smu_have_no_cards_a_red_card_is_refused(app, op, code):
    """The ČSM and SMU rules have no disciplinary cards (SEM-E is SEM's, BB liga follows it):
    the card route stores nothing for them; a disqualification is their way."""
    from webapp.models import Case, Event

    tid, tables = start(app, code, 12)
    play_rest(app, op, tid, code, 1, tables)
    s = tables[0][1][0]
    r = op.post(f"/operator/t/{tid}/discipline/card", data={
        "start_no": s, "colour": "red", "round": 1, "referee1": "Novák", "referee2": "Kováč",
        "version": _version(app, tid)})
    assert r.status_code in (302, 422)
    with app.app_context():
        assert db.session.query(Case).filter_by(kind="discipline").count() == 0
        assert db.session.query(Event).filter_by(tournament_id=tid).count() == 0


@pytest.mark.parametrize("code", ["bbliga"])
def test_red_card_after_close_disqualifies_at_the_table_in_every_rule_set(app, op, code):
    """SEM-E8, D1 where the card happens, in every rule set with cards: the operator's red card after
    round 1 closed waits for a referee as a case (its preview computed by the rule set),
    approved it gives the table a new sheet version with the disqualification; the
    player is out of the standings, which name the table in a footnote."""
    from tests.helpers import login, make_user
    from webapp.models import Case, Sheet

    tid, tables = start(app, code, 12)
    play_rest(app, op, tid, code, 1, tables)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        rounds.close_round(t, t.rounds[0], "test", t.version)
        db.session.commit()
    number, players = tables[0]
    s = players[0]
    r = op.post(f"/operator/t/{tid}/discipline/card", data={
        "start_no": s, "colour": "red", "round": 1, "referee1": "Novák", "referee2": "Kováč",
        "version": _version(app, tid)})
    assert r.status_code == 302, text(r)[:2000]
    with app.app_context():
        [case] = db.session.query(Case).filter_by(kind="discipline").all()
        assert case.payload["preview"]["new"]["points"][0] is None
    make_user(app, "referee", role="referee")
    ref = app.test_client()
    login(ref, "referee")
    assert ref.post(f"/referee/case/{case.id}/approve", data={}).status_code == 302
    with app.app_context():
        sheets = db.session.query(Sheet).filter(Sheet.status == "accepted").all()
        assert [x.disqualified for x in sheets if x.disqualified] == [[s]]
    body = text(op.get(f"/operator/t/{tid}/standings"))
    assert f'data-start-no="{s}"' not in body
    assert f"Start number {s} was disqualified by a card in round 1 (SEM-E): table {number}" in body
