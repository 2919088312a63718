"""The rules of the seeds that had no implementation, on the venue server (SQLite and
PostgreSQL): BB-1's late fee (phone, desk, print, record), BB-2's jury and SMU-4's referees
(named per tournament, deciding cases), CSM-3's keeper chosen by lot, CSM-5's round 1 by
the season table."""
from __future__ import annotations

import json
import uuid

from tests.helpers import english_paper, issue_pins, login, make_user, text
from tests.web.test_rulesets_server import desk, play_rest, publish_round1, start
from tests.web.test_federation import fed_app  # noqa: F401  (the federation server's app fixture)
from tests.web.test_rulesets_web import make
from webapp.extensions import db
from webapp.models import Round, RoundTable, Sheet
from webapp.rules import exchange
from webapp.services import chain_verify
from webapp.services.tokens import table_token
from webapp.sync.protocol import Content


def _body(app, tid, number, players, cents, pins, **kw):
    with app.app_context():
        token = table_token(tid, 1, number)
    c = Content(tournament=tid, round=1, table=number, players=tuple(players), sums_cents=tuple(cents), **kw)
    h = c.hash
    return {"token": token, "idempotency_key": str(uuid.uuid4()), "content": c.as_dict(), "content_hash": h,
            "signatures": [{"start_no": s, "pin": pins[s], "hash": h, "drawing": f"M 10 {10 + i} L 80 20",
                            "signed_at": "2026-04-11T10:51:02Z"} for i, s in enumerate(players)]}


def start_signed(app, code: str, n: int):
    """A tournament with PINs issued before round 1 is drawn and published: (id, tables, pins)."""
    tid = make(app, code, n)
    pins = issue_pins(app, tid)
    return (*publish_round1(app, tid), pins)


def _counted(app, tid, number) -> Sheet:
    with app.app_context():
        tab = db.session.scalar(db.select(RoundTable).join(Round).where(
            Round.tournament_id == tid, Round.number == 1, RoundTable.number == number))
        s = tab.sheet
        db.session.expunge(s)
        return s


# ----------------------------------------------------------------- BB-1 late fee


def test_bb1_late_player_signed_on_the_phone_kept_and_shown(app, op, client):
    """BB-1: the phone sends who was late as part of the signed content; the sheet is stored with
    it (total still 12 EUR), it is in the chain record (`listok verify` intact), the export keeps
    it, and the desk, the printed sheet and the receipt show the fee as its own line."""
    tid, tables, pins = start_signed(app, "bbliga", 9)
    number, players = tables[0]
    late = players[1]
    body = _body(app, tid, number, players, [454, 342, 404], pins, late=(late,))
    a = client.post("/api/v1/sheets", json=body)
    assert a.status_code == 200 and a.get_json()["status"] == "accepted", a.get_json()
    s = _counted(app, tid, number)
    assert s.late == [late] and s.content["late"] == [late] and sum(int(x.replace(".", "")) for x in s.sums) == 1200
    with app.app_context():
        from webapp.models import AuditEntry, Tournament
        assert chain_verify.verify(db.session.get(Tournament, tid)).ok
        records = [e.payload for e in db.session.scalars(db.select(AuditEntry).where(AuditEntry.tournament_id == tid))]
        stored = [p["sheet"] for p in records if "sheet" in p and "content" in p]
        assert stored and stored[-1]["late"] == [late]
        assert [p["content"].get("late") for p in records if "content" in p][-1] == [late]
    desk_page = text(op.get(f"/operator/t/{tid}/round/1/results"))
    assert f"Late fee (BB-1): #{players[0]}" in desk_page and f"#{late}" in desk_page
    assert "-€0.08" in desk_page and desk_page.count("+€0.04") >= 2  # the late one pays 4 cents to each
    english_paper(app, tid)
    sheets = text(op.get(f"/operator/t/{tid}/round/1/sheets"))
    assert "Late more than a minute (BB-1)" in sheets and "Late fee (BB-1)" in sheets
    receipt = text(client.get(f"/t/{tid}/receipt?code={s.receipt}"))
    assert "Late fee (BB-1)" in receipt
    play_rest(app, op, tid, "bbliga", 1, tables, skip=(number,))
    exported = json.loads(text(op.get(f"/operator/t/{tid}/export.json")))
    table = next(x for x in exported["rounds"][0]["tables"] if x["table"] == number)
    assert table["late"] == [late]


def test_bb1_late_fee_keeps_the_12_eur_total(app, client):
    """BB-1: the fee moves money between players only: sums that do not total 12 EUR are still refused."""
    tid, tables, pins = start_signed(app, "bbliga", 9)
    number, players = tables[0]
    a = client.post("/api/v1/sheets", json=_body(app, tid, number, players, [400, 392, 400], pins,
                                                  late=(players[1],)))
    assert a.status_code == 422 and a.get_json()["error"] == "wrong-total", a.get_json()


def test_bb1_late_player_of_another_table_refused_on_the_phone(app, client):
    tid, tables, pins = start_signed(app, "bbliga", 9)
    number, players = tables[0]
    stranger = tables[1][1][0]
    client.set_cookie("lang", "en")
    a = client.post("/api/v1/sheets", json=_body(app, tid, number, players, [400, 400, 400], pins, late=(stranger,)))
    answer = a.get_json()
    assert a.status_code == 422 and answer["error"] == "ruleset", answer
    assert f"start number {stranger} does not sit at this table (BB-1)" in answer["message"]


def test_bb1_late_fee_refused_for_a_rule_set_without_one(app, client):
    """Only BB liga has the fee: an SMU sheet naming a late player is refused, nothing stored."""
    tid, tables, pins = start_signed(app, "smu", 9)
    number, players = tables[0]
    a = client.post("/api/v1/sheets", json=_body(app, tid, number, players, [100, -100, 0], pins, late=(players[0],)))
    assert a.status_code == 422 and a.get_json()["error"] == "bad-ruleset-field"


def test_bb1_late_fee_entered_at_the_desk(app, op):
    """BB-1 at the results desk: a check box per player; the stored sheet and the desk line show it."""
    tid, tables = start(app, "bbliga", 9)
    number, players = tables[0]
    r = desk(op, tid, 1, number, {"sum0": "4,04", "sum1": "4,04", "sum2": "3,92", "late2": "1"})
    assert r.status_code in (200, 302), text(r)[:2000]
    s = _counted(app, tid, number)
    assert s.late == [players[2]]
    page = text(op.get(f"/operator/t/{tid}/round/1/results"))
    assert f"Late fee (BB-1): #{players[0]}" in page


def test_bb1_sheet_without_late_player_keeps_its_content_hash():
    """BB-1, CSM-3: a sheet with nobody late and no lot has neither key: its signed content and hash
    are what they were before these keys existed."""
    from webapp.sync.protocol import content_hash, parse_content

    c = Content(tournament=1, round=1, table=1, players=(1, 2, 3), sums_cents=(400, 400, 400))
    before = {"protocol": "listok-sheet/1", "tournament": 1, "round": 1, "table": 1, "players": [1, 2, 3],
              "sums_cents": [400, 400, 400], "note": "", "base_version": 0}
    assert c.as_dict() == before and c.hash == content_hash(before)
    late = parse_content({**before, "late": [2]})
    assert late.late == (2,) and late.hash != c.hash  # who was late is signed


# ----------------------------------------------------------------- CSM-3 keeper by lot


def _csm_table(tables):
    return next((n, p) for n, p in tables if len(p) == 4)


def test_csm3_keeper_by_lot_signed_on_the_phone_and_named(app, op, client):
    """CSM-3: the table records that a lot chose the keeper; the sheet (desk, print, receipt) names them."""
    tid, tables, pins = start_signed(app, "csm", 14)
    number, players = _csm_table(tables)
    keeper = players[2]
    body = _body(app, tid, number, players, [1000, -500, -500, 0], pins, scores=(0, 0, 0, 0), keeper_by_lot=keeper)
    a = client.post("/api/v1/sheets", json=body)
    assert a.status_code == 200, a.get_json()
    s = _counted(app, tid, number)
    assert s.keeper_by_lot == keeper and s.content["keeper_by_lot"] == keeper
    line = f"Scorekeeper: #{keeper}"
    assert line in text(op.get(f"/operator/t/{tid}/round/1/results"))
    english_paper(app, tid)
    assert "chosen by lot (CSM-3)" in text(op.get(f"/operator/t/{tid}/round/1/sheets"))
    assert line in text(client.get(f"/t/{tid}/receipt?code={s.receipt}"))
    play_rest(app, op, tid, "csm", 1, tables, skip=(number,))
    exported = json.loads(text(op.get(f"/operator/t/{tid}/export.json")))
    assert next(x for x in exported["rounds"][0]["tables"] if x["table"] == number)["keeper_by_lot"] == keeper
    again = exchange.loads(json.dumps(exported))
    assert next(x for x in again.rounds[0].tables if x.table == number).keeper_by_lot == keeper


def test_csm3_without_a_lot_player_1_is_named_keeper(app, op):
    tid, tables = start(app, "csm", 14)
    number, players = _csm_table(tables)
    form = {**{f"sum{i}": v for i, v in enumerate(["10", "-5", "-5", "0"])}, **{f"score{i}": "0" for i in range(4)}}
    assert desk(op, tid, 1, number, form).status_code in (200, 302)
    assert _counted(app, tid, number).keeper_by_lot is None
    assert f"Scorekeeper: #{players[0]}" in text(op.get(f"/operator/t/{tid}/round/1/results"))


def test_csm3_keeper_by_lot_at_the_desk_and_a_stranger_refused(app, op):
    tid, tables = start(app, "csm", 14)
    number, players = _csm_table(tables)
    form = {**{f"sum{i}": v for i, v in enumerate(["10", "-5", "-5", "0"])}, **{f"score{i}": "0" for i in range(4)}}
    stranger = next(p for n, ps in tables if n != number for p in ps)
    r = desk(op, tid, 1, number, {**form, "keeper_lot": str(stranger)})
    assert r.status_code == 422 and "must be a player of table" in text(r)
    r = desk(op, tid, 1, number, {**form, "keeper_lot": str(players[3])})
    assert r.status_code in (200, 302), text(r)[:2000]
    assert _counted(app, tid, number).keeper_by_lot == players[3]


def test_csm3_keeper_by_lot_refused_for_another_rule_set(app, client):
    tid, tables, pins = start_signed(app, "bbliga", 9)
    number, players = tables[0]
    a = client.post("/api/v1/sheets", json=_body(app, tid, number, players, [400, 400, 400], pins,
                                                  keeper_by_lot=players[1]))
    assert a.status_code == 422 and a.get_json()["error"] == "bad-ruleset-field"


# ----------------------------------------------------------------- BB-2 jury, SMU-4 referees


def _referee(app, username: str) -> int:
    return make_user(app, username, role="referee", everywhere=False)


def _name(op, tid, uid, start_no="", club=""):
    return op.post(f"/operator/t/{tid}/officials", data={"user": str(uid), "start_no": str(start_no), "club": club})


def _official_client(app, username: str):
    c = app.test_client()
    login(c, username)
    c.set_cookie("lang", "en")
    return c


def test_bb2_jury_with_two_members_of_one_club_refused(app, op):
    """BB-2: the setup page refuses a second member of one club, naming the club; nothing is stored."""
    from webapp.models import Official

    tid, _tables = start(app, "bbliga", 9)
    a, b, c = (_referee(app, n) for n in ("jury-a", "jury-b", "jury-c"))
    page = text(op.get(f"/operator/t/{tid}/officials"))
    assert "BB-2: disputes go to a jury of 3" in page and "0 of 3 named" in page
    assert _name(op, tid, a, club="MK Poprad").status_code == 302
    assert _name(op, tid, b, club="KM Zvolen").status_code == 302
    r = _name(op, tid, c, club="mk poprad")
    assert r.status_code == 422
    assert "Two members of the jury are of the club MK Poprad: each must be of another club (BB-2)." in text(r)
    with app.app_context():
        assert db.session.scalar(db.select(db.func.count()).select_from(Official)) == 2
    assert _name(op, tid, c, club="Lučenec").status_code == 302
    page = text(op.get(f"/operator/t/{tid}/officials"))
    assert "Lučenec" in page and "of 3 named" not in page


def test_bb2_jury_member_of_a_players_club_by_start_number(app, op):
    """BB-2: a jury member who plays takes the player's club when none is typed."""
    from webapp.models import Player

    tid, _tables = start(app, "bbliga", 9)
    with app.app_context():
        ps = db.session.scalars(db.select(Player).where(Player.tournament_id == tid, Player.club.is_not(None))).all()
        first = ps[0]
        same = next(p for p in ps[1:] if p.club == first.club)
        first_no, same_no, club = first.start_no, same.start_no, first.club
    assert _name(op, tid, _referee(app, "j1"), start_no=first_no).status_code == 302
    r = _name(op, tid, _referee(app, "j2"), start_no=same_no)
    assert r.status_code == 422 and f"of the club {club}" in text(r)


def test_bb2_only_the_jury_decides_once_named(app, op):
    """BB-2: with the jury named, a referee outside it cannot decide the tournament's cases."""
    from tests.helpers import stored_cases

    tid, tables, pins = start_signed(app, "bbliga", 9)
    number, players = tables[0]
    outsider = _referee(app, "outsider")
    with app.app_context():
        from webapp.models import User
        from webapp.services import access
        access.assign(db.session.get(User, outsider), tid)
        db.session.commit()
    member = _referee(app, "member")
    assert _name(op, tid, member, club="MK Poprad").status_code == 302
    # two different sheets for one table: a dispute
    c1 = app.test_client()
    assert c1.post("/api/v1/sheets", json=_body(app, tid, number, players, [400, 400, 400], pins)).status_code == 200
    c1.post("/api/v1/sheets", json=_body(app, tid, number, players, [500, 300, 400], pins))
    case = stored_cases(app, kind="dispute")[0]
    cid, choose = case.id, str(case.other_sheet_id)
    out = _official_client(app, "outsider")
    r = out.post(f"/referee/case/{cid}/approve", data={"choose": choose, "note": ""})
    assert r.status_code == 422 and "the jury decides (BB-2): you are not one of its members" in text(r)
    assert "the jury decides (BB-2)" in text(out.get(f"/referee/case/{cid}"))
    mem = _official_client(app, "member")
    assert cid in [x.id for x in stored_cases(app, kind="dispute", status="open")]
    page = text(mem.get(f"/referee/case/{cid}"))
    assert "case-not-mine" not in page
    r = mem.post(f"/referee/case/{cid}/approve", data={"choose": choose, "note": ""})
    assert r.status_code in (200, 302), text(r)[:1500]
    assert cid not in [x.id for x in stored_cases(app, kind="dispute", status="open")]


def test_smu4_referees_named_from_the_players(app, op):
    """SMU-4: a referee without a start number is refused; three players are named; a fourth is refused."""
    tid, _tables = start(app, "smu", 9)
    uids = [_referee(app, f"ref{i}") for i in range(4)]
    r = _name(op, tid, uids[0])
    assert r.status_code == 422 and "The referees are named from the players (SMU-4)" in text(r)
    for i in range(3):
        assert _name(op, tid, uids[i], start_no=i + 1).status_code == 302
    page = text(op.get(f"/operator/t/{tid}/officials"))
    assert "SMU-4: three referees are named from the players" in page and 'id="official-add"' not in page
    r = _name(op, tid, uids[3], start_no=4)
    assert r.status_code == 422


def test_smu4_referee_at_the_table_of_a_case_does_not_decide_it(app, op):
    """SMU-4: a referee who plays at the table of the case is refused with a clear message and the
    queue marks the case as another referee's; another referee decides it."""
    from tests.helpers import stored_cases

    tid, tables, pins = start_signed(app, "smu", 9)
    number, players = tables[0]
    playing, free = players[0], tables[1][1][0]
    a, b = _referee(app, "ref-at-table"), _referee(app, "ref-free")
    assert _name(op, tid, a, start_no=playing).status_code == 302
    assert _name(op, tid, b, start_no=free).status_code == 302
    client = app.test_client()
    assert client.post("/api/v1/sheets", json=_body(app, tid, number, players, [100, -100, 0], pins)).status_code == 200
    client.post("/api/v1/sheets", json=_body(app, tid, number, players, [200, -200, 0], pins))
    case = stored_cases(app, kind="dispute")[0]
    cid, choose = case.id, str(case.other_sheet_id)
    at_table = _official_client(app, "ref-at-table")
    queue = text(at_table.get("/referee/"))
    assert f'data-case="{cid}"' in queue and "another referee decides" in queue
    page = text(at_table.get(f"/referee/case/{cid}"))
    assert f"You play at table {number} of round 1 (start number {playing}): another referee decides this case " \
           "(SMU-4)." in page
    r = at_table.post(f"/referee/case/{cid}/approve", data={"choose": choose, "note": ""})
    assert r.status_code == 422
    assert cid in [x.id for x in stored_cases(app, kind="dispute", status="open")]
    other = _official_client(app, "ref-free")
    assert "another referee decides" not in text(other.get("/referee/"))
    r = other.post(f"/referee/case/{cid}/approve", data={"choose": choose, "note": ""})
    assert r.status_code in (200, 302), text(r)[:1500]
    assert cid not in [x.id for x in stored_cases(app, kind="dispute", status="open")]


def test_officials_page_only_where_the_rules_name_officials(app, op):
    """ČSM names no officials: the page says so and naming one is refused."""
    tid, _tables = start(app, "csm", 14)
    page = text(op.get(f"/operator/t/{tid}/officials"))
    assert "These rules name no officials per tournament" in page and 'id="official-add"' not in page
    uid = _referee(app, "someone")
    r = _name(op, tid, uid, start_no=1)
    assert r.status_code == 422 and "These rules name no officials per tournament" in text(r)


# ----------------------------------------------------------------- CSM-5 round 1 seeding


def _season_file(app, tid, order) -> bytes:
    """A season file (as `listok season-download` saves it) whose table places the players of
    `order` (start numbers) 1, 2, 3 …"""
    from webapp.models import Player

    with app.app_context():
        ids = {p.start_no: p.reg_id for p in db.session.scalars(db.select(Player).where(Player.tournament_id == tid))}
    return json.dumps({"format": "listok-season/1", "federation": {"code": "CSM", "name": "ČSM"},
                       "season": {"id": 1, "name": "Praha 2026", "ruleset": "csm", "version": 1},
                       "players": [], "guests": {}, "tournaments": [], "cards": [],
                       "standings": [{"id": ids[s], "place": i + 1} for i, s in enumerate(order)]}).encode()


def _draw_round1(app, op, tid):
    from tests.web.test_rulesets_web import _version

    r = op.post(f"/operator/t/{tid}/round/draw", data={"version": _version(app, tid)})
    assert r.status_code in (200, 302), text(r)[:1500]
    with app.app_context():
        r1 = db.session.scalar(db.select(Round).where(Round.tournament_id == tid, Round.number == 1))
        return r1.seeding, [list(tab.players) for tab in r1.tables]


def test_csm5_round1_seeded_by_the_season_file_and_the_draw_page_says_so(app, op):
    """CSM-5: with a season file loaded, round 1 is seeded by its table: the season's 1st and 2nd
    sit at position 1 of tables 1 and 2, whatever their ratings; the draw page names the season."""
    import io

    tid = make(app, "csm", 14)
    order = [14, 13, 12, 11, 10, 9, 8, 7]  # the season table, best first
    r = op.post("/operator/season/import", data={"file": (io.BytesIO(_season_file(app, tid, order)), "s.json")},
                content_type="multipart/form-data")
    assert r.status_code == 302
    seeding, tables = _draw_round1(app, op, tid)
    assert seeding == {"by": "season", "season": "ČSM Praha 2026", "placed": 8}
    assert [t[0] for t in tables[:3]] == [14, 13, 12]
    page = text(op.get(f"/operator/t/{tid}/round/1"))
    assert "Round 1 seeded by the current season table ČSM Praha 2026: 8 players placed by it" in page


def test_csm5_round1_by_rating_without_a_season_table(app, op):
    """CSM-5: no season table here: round 1 by rating, and the draw page says so."""
    from webapp.models import Player

    tid = make(app, "csm", 14)
    seeding, tables = _draw_round1(app, op, tid)
    with app.app_context():
        rated = sorted(((p.rating, -p.start_no, p.start_no) for p in db.session.scalars(
            db.select(Player).where(Player.tournament_id == tid)) if p.rating is not None), reverse=True)
    if rated:
        assert seeding["by"] == "rating" and tables[0][0] == rated[0][2]
        assert "Round 1 seeded by rating" in text(op.get(f"/operator/t/{tid}/round/1"))
    else:
        assert seeding["by"] == "start" and tables[0][0] == 1


def test_csm5_round1_by_start_number_without_season_or_rating(app, op):
    from webapp.models import Player

    tid = make(app, "csm", 14)
    with app.app_context():
        for p in db.session.scalars(db.select(Player).where(Player.tournament_id == tid)):
            p.rating = None
        db.session.commit()
    seeding, tables = _draw_round1(app, op, tid)
    assert seeding["by"] == "start" and [t[0] for t in tables[:2]] == [1, 2]
    assert "Round 1 seeded by start number: no season table and no ratings (CSM-5)." in \
        text(op.get(f"/operator/t/{tid}/round/1"))


def test_csm5_season_table_is_in_the_federations_season_document(fed_app):
    """CSM-5: the season a venue downloads (`listok season-download`) carries the season table:
    every player's id and place as `listok season` ranks the season's files (CSM-6)."""
    from pathlib import Path

    from tests.web.test_federation import cli
    from webapp.models import Federation, Season
    from webapp.services import federation as svc

    files = [Path("tests/data") / f"csm14_{x}.json" for x in "abc"]
    with fed_app.app_context():
        f = Federation(code="csm", name="ČSM")
        db.session.add(f)
        db.session.flush()
        season = Season(federation_id=f.id, ruleset="csm", name="Praha 2026")
        db.session.add(season)
        db.session.flush()
        for path in files:
            svc.receive(path.read_text(encoding="utf-8"), season=season, venue=None, source="import", actor="test")
        db.session.commit()
        document = svc.season_document(season)
    expected = cli("season", *map(str, files))["players"]
    assert document["standings"] == [{"id": p["id"], "place": p["place"]} for p in expected]
    assert len(document["standings"]) == 14
