"""The federation server on SQLite and PostgreSQL: a season of 12 generated SEM
tournaments pushed from three venues (one twice, one tampered on the way), the season tables
and the rating list equal to `listok season` / `listok rating` on the same files, a ČSM season
equal to `listok season --strike 2`, and the registration checks at a venue from the
downloaded season (SEM-A2 guests and rejected players, the SEM-E4 yellow-card ban)."""
from __future__ import annotations

import csv
import io
import json
import random
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.helpers import login, make_user, text
from webapp.cli import main
from webapp.rules import exchange
from webapp.rules.model import Event, Player
from webapp.demo.simulate import make_players, play_tournament

DATA = Path(__file__).resolve().parents[1] / "data"
GUEST = "G-0001"  # plays as a guest in 4 of the 12 tournaments
CARDED = "SK-0005"  # a yellow card in the season's last tournament


def _app(url: str, role: str, key: str):
    from webapp import create_app
    from webapp.extensions import db

    app = create_app({"TESTING": True, "SECRET_KEY": key, "SQLALCHEMY_DATABASE_URI": url,
                      "WTF_CSRF_ENABLED": False, "SERVER_NAME": "localhost", "LISTOK_ROLE": role})
    with app.app_context():
        db.create_all()
    return app


@pytest.fixture
def fed_app(database_url):
    from webapp.extensions import db

    app = _app(database_url, "federation", "federation-secret")
    yield app
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


@pytest.fixture
def venue_app(tmp_path):
    from webapp.extensions import db

    app = _app(f"sqlite:///{tmp_path / 'venue.db'}", "venue", "venue-secret")
    yield app
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


def season_tournaments() -> list:
    """12 final SEM tournaments of one season, made by the engine (no UI): 33 of a pool of 42
    players each, the guest in four of them, a yellow card in the last one."""
    pool = make_players(42, seed=7, clubs=6)
    pool = [replace(p, status="registered", club=p.club or "MK Poprad") for p in pool]
    guest = Player(0, "Hosť Hostiteľ", club=None, status="guest", rating=None, id=GUEST)
    out = []
    for k in range(12):
        rng = random.Random(k)
        chosen = [p for p in pool if p.id != CARDED]
        rng.shuffle(chosen)
        field = chosen[:31] + [next(p for p in pool if p.id == CARDED)] + ([guest] if k < 4 else chosen[31:32])
        field = [replace(p, start_no=i + 1) for i, p in enumerate(field)]
        t = play_tournament(field, seed=100 + k, name=f"SEM {k + 1}", date=f"2026-{1 + k % 12:02d}-{10 + k:02d}")
        if k == 11:
            sn = next(p.start_no for p in field if p.id == CARDED)
            t = replace(t, events=[Event(type="card", start_no=sn, colour="yellow", round=2, referees=("R",))])
        out.append(t)
    return out


def setup_federation(app) -> dict:
    from webapp.extensions import db
    from webapp.models import Federation, Season, User, Venue
    from webapp.services import federation as svc

    with app.app_context():
        f = Federation(code="szmk", name="SZMK")
        db.session.add(f)
        db.session.flush()
        tokens = {}
        for name in ("Poprad", "Žilina", "Nitra"):
            v = Venue(name=name, federation_id=f.id)
            tokens[name] = svc.new_venue_token(v)
            db.session.add(v)
        s = Season(federation_id=f.id, ruleset="sem", name="2026", best=11)
        c = Season(federation_id=f.id, ruleset="csm", name="Pražská liga 2026", strike=2)
        db.session.add_all([s, c])
        db.session.flush()
        staff = User(username="staff", role="federation", federation_id=f.id, display_name="Staff")
        staff.set_password("secret-pass")
        db.session.add(staff)
        db.session.commit()
        return {"tokens": tokens, "season": s.id, "csm": c.id, "federation": f.id}


def venue_pushes(venue_app, tournaments) -> list[dict]:
    """Import each file at the venue (its chain is made there) and build what it pushes."""
    from webapp.extensions import db
    from webapp.services.tournament_file import import_tournament
    from webapp.services.venue_season import push_body

    bodies = []
    with venue_app.app_context():
        for rt in tournaments:
            t = import_tournament(exchange.dump(rt), f"{rt.name}.json", "venue")
            db.session.commit()
            bodies.append(push_body(t))
    return bodies


@pytest.fixture(scope="module")
def pushes(tmp_path_factory):
    """The venue's side once for the module: the pushes do not depend on the federation's database."""
    from webapp.extensions import db

    app = _app(f"sqlite:///{tmp_path_factory.mktemp('venues') / 'venues.db'}", "venue", "venue-secret")
    bodies = venue_pushes(app, season_tournaments())
    with app.app_context():
        db.session.remove()
        db.engine.dispose()
    return bodies


def push_all(fed_app, bodies, tokens) -> dict:
    """Push each tournament with one of three venues' tokens, one tampered on the way, one twice."""
    client = fed_app.test_client()
    names = list(tokens)
    bodies, answers = list(bodies), []
    tampered = 6
    for i, body in enumerate(bodies):
        if i == tampered:  # two players' sums swapped at one table on the way: still a consistent file
            d = json.loads(body["file"])
            tab = d["rounds"][2]["tables"][1]
            if tab["sums"][0] == tab["sums"][1]:
                tab = d["rounds"][2]["tables"][2]
            tab["sums"][0], tab["sums"][1] = tab["sums"][1], tab["sums"][0]
            body = {**body, "file": json.dumps(d, ensure_ascii=False)}
            bodies[i] = body
        r = client.post("/federation/api/tournaments", json=body,
                        headers={"Authorization": f"Bearer {tokens[names[i % 3]]}", "Accept-Language": "en"})
        answers.append((r.status_code, r.get_json()))
    again = client.post("/federation/api/tournaments", json=bodies[3],
                        headers={"Authorization": f"Bearer {tokens[names[0]]}", "Accept-Language": "en"})
    return {"bodies": bodies, "answers": answers, "again": again, "tampered": tampered, "tab": tab}


@pytest.fixture
def season(fed_app, pushes, tmp_path):
    ids = setup_federation(fed_app)
    pushed = push_all(fed_app, pushes, ids["tokens"])
    files = []
    for i, body in enumerate(pushed["bodies"]):  # the files exactly as the federation got them
        path = tmp_path / f"t{i + 1:02d}.json"
        path.write_text(body["file"], encoding="utf-8")
        files.append(str(path))
    return {**ids, **pushed, "files": files}


def cli(*args) -> dict:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_twelve_tournaments_pushed_from_three_venues_one_twice_one_tampered(fed_app, season):
    """Pushes are taken (201) with the verdict; a second copy is refused (409) naming it;
    the tampered file is taken but the verdict names the table whose sums differ from the chain."""
    statuses = [s for s, _ in season["answers"]]
    assert statuses == [201] * 12
    for i, (_s, answer) in enumerate(season["answers"]):
        assert answer["verdict"]["checked"] is True
        assert answer["verdict"]["ok"] is (i != season["tampered"]), answer["verdict"]["problems"]
    problems = season["answers"][season["tampered"]][1]["verdict"]["problems"]
    assert problems[0].startswith("round 3, table ") and "are not the chain's" in problems[0]
    # and the standings the swapped sums change, rebuilt from the chain alone against the file's
    assert len(problems) > 1 and all(p.startswith(("standings after round ", "poradie po ")) for p in problems[1:]), problems
    again = season["again"]
    assert again.status_code == 409 and "SEM 4" in again.get_json()["message"] and "is here already" in \
        again.get_json()["message"]
    anon = fed_app.test_client()
    anon.set_cookie("lang", "en")
    page = text(anon.get(f"/seasons/{season['season']}/tournaments"))
    assert page.count("chain holds") == 11 and page.count("chain check failed") == 1
    # the staff page names the problem
    from tests.helpers import login as sign_in

    staff = fed_app.test_client()
    sign_in(staff, "staff")
    staff.set_cookie("lang", "en")
    assert problems[0].replace("'", "&#39;") in text(staff.get(f"/federation/seasons/{season['season']}"))
    # a wrong token is refused, and so is a body that is not a push
    r = anon.post("/federation/api/tournaments", json=season["bodies"][0], headers={"Authorization": "Bearer nope"})
    assert r.status_code == 401
    r = anon.post("/federation/api/tournaments", json={"file": 1},
                  headers={"Authorization": f"Bearer {season['tokens']['Nitra']}"})
    assert r.status_code == 400


def test_sem_a4_a5_b1_season_tables_equal_listok_season_and_rating(fed_app, season):
    from webapp.extensions import db
    from webapp.models import Season
    from webapp.services import federation as svc

    expected = cli("season", *season["files"])
    ratings = cli("rating", "--window", "12", *season["files"])
    with fed_app.app_context():
        s = db.session.get(Season, season["season"])
        assert svc.season_tables(s) == expected
        assert svc.rating_list(s) == ratings
    anon = fed_app.test_client()
    anon.set_cookie("lang", "en")
    sid = season["season"]
    rows = list(csv.reader(io.StringIO(anon.get(f"/seasons/{sid}/players.csv").get_data(as_text=True)
                                       .lstrip("\ufeff")), delimiter=";"))
    assert rows[0][:4] == ["Place", "Name", "Club", "Points"]
    assert [(int(r[0]), r[1], int(r[3])) for r in rows[1:]] == [
        (p["place"], p["name"], p["points"]) for p in expected["players"]]
    clubs = list(csv.reader(io.StringIO(anon.get(f"/seasons/{sid}/clubs.csv").get_data(as_text=True)
                                        .lstrip("\ufeff")), delimiter=";"))
    assert [(r[1], int(r[2])) for r in clubs[1:]] == [(c["club"], c["points"]) for c in expected["clubs"]]
    rating_rows = list(csv.reader(io.StringIO(anon.get(f"/seasons/{sid}/rating.csv").get_data(as_text=True)
                                              .lstrip("\ufeff")), delimiter=";"))
    assert [(r[1], int(r[2])) for r in rating_rows[1:]] == [(r["name"], r["rating"]) for r in ratings["ratings"]]
    page = text(anon.get(f"/seasons/{sid}/"))
    top = expected["players"][0]
    assert top["name"] in page and "The best 11 tournaments count (SEM-A4)" in page
    assert anon.get(f"/seasons/{sid}/historical").status_code == 200
    assert anon.get(f"/seasons/{sid}/players/print").status_code == 200


def test_season_pages_are_cacheable_no_cookie_etag_from_the_season_version(fed_app, season):
    anon = fed_app.test_client()
    sid = season["season"]
    first = anon.get(f"/seasons/{sid}/")
    assert first.status_code == 200 and "Set-Cookie" not in first.headers and first.headers["ETag"]
    again = anon.get(f"/seasons/{sid}/", headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and not again.data
    # a new tournament changes the version, so the old ETag no longer matches
    extra = play_tournament(make_players(30, seed=99, id_prefix="X"), seed=99, name="SEM extra", date="2026-12-30")
    r = anon.post("/federation/api/tournaments", json={"format": "listok-push/1", "file": exchange.dump(extra)},
                  headers={"Authorization": f"Bearer {season['tokens']['Poprad']}", "Accept-Language": "en"})
    verdict = r.get_json()["verdict"]
    assert r.status_code == 201 and verdict["ok"] is False and "the chain is missing" in verdict["problems"]
    assert anon.get(f"/seasons/{sid}/", headers={"If-None-Match": first.headers["ETag"]}).status_code == 200


def test_csm_6_season_equals_listok_season_strike_2(fed_app, season, tmp_path):
    """ČSM league tables (seed 001): individuals and teams with 2 struck tournaments, imported by staff."""
    from io import BytesIO

    staff = fed_app.test_client()
    login(staff, "staff")
    staff.set_cookie("lang", "en")
    files = [DATA / f"csm14_{x}.json" for x in "abc"]
    for f in files:
        r = staff.post(f"/federation/seasons/{season['csm']}/import", data={"file": (BytesIO(f.read_bytes()), f.name)},
                       content_type="multipart/form-data")
        assert r.status_code == 302
    r = staff.post(f"/federation/seasons/{season['csm']}/import",
                   data={"file": (BytesIO(files[0].read_bytes()), files[0].name)}, content_type="multipart/form-data",
                   follow_redirects=True)
    assert "is here already" in text(r)  # a second copy, by its content-derived id
    expected = cli("season", "--strike", "2", *map(str, files))
    anon = fed_app.test_client()
    anon.set_cookie("lang", "en")
    rows = list(csv.reader(io.StringIO(anon.get(f"/seasons/{season['csm']}/players.csv").get_data(as_text=True)
                                       .lstrip("\ufeff")), delimiter=";"))
    assert rows[0] == ["Place", "Name", "Club", "ZB", "PB", "SB", "B"]
    assert [[int(r[0]), r[1], int(r[3]), int(r[4]), int(r[5]), int(r[6])] for r in rows[1:]] == [
        [p["place"], p["name"], p["zb"], p["pb"], p["sb"], p["b"]] for p in expected["players"]]
    teams = list(csv.reader(io.StringIO(anon.get(f"/seasons/{season['csm']}/clubs.csv").get_data(as_text=True)
                                        .lstrip("\ufeff")), delimiter=";"))
    assert [(r[1], int(r[5])) for r in teams[1:]] == [(t["team"], t["b"]) for t in expected["teams"]]
    assert "worst tournaments are struck (CSM-6)" in text(anon.get(f"/seasons/{season['csm']}/"))


def _venue_tournament(venue_app, op):
    r = op.post("/operator/tournaments", data={"name": "SEM 13 - Poprad", "ruleset": "sem", "date": "2026-12-31"})
    assert r.status_code == 302
    return int(r.headers["Location"].rstrip("/").split("/")[-1])


def test_sem_a2_e4_registration_checks_at_the_venue_from_the_downloaded_season(fed_app, venue_app, season):
    """The venue downloads the season with its token and, offline from it, refuses a guest's fifth
    tournament, a registered player and a rejected player entered as guests, and checks in the
    player banned by last tournament's yellow card only when the fine was paid."""
    from io import BytesIO

    from webapp.extensions import db
    from webapp.models import Card
    from webapp.services.venue_season import import_season

    staff = fed_app.test_client()
    login(staff, "staff")
    roster = "id;name;club;status\nSK-0001;Registered One;MK Poprad;registered\nR-0001;Rejected Rudo;MK Nitra;rejected\n"
    r = staff.post(f"/federation/seasons/{season['season']}/roster",
                   data={"file": (BytesIO(roster.encode()), "roster.csv")}, content_type="multipart/form-data")
    assert r.status_code == 302
    fed = fed_app.test_client()
    doc = fed.get(f"/federation/api/seasons/{season['season']}/download",
                  headers={"Authorization": f"Bearer {season['tokens']['Poprad']}"})
    assert doc.status_code == 200 and doc.get_json()["guests"][GUEST] == 4
    assert [c["id"] for c in doc.get_json()["cards"]] == [CARDED]
    assert fed.get(f"/federation/api/seasons/{season['season']}/download").status_code == 401
    with venue_app.app_context():
        import_season(doc.data, "test")
        db.session.commit()
    make_user(venue_app, "op", role="operator", everywhere=False)
    op = venue_app.test_client()
    login(op, "op")
    op.set_cookie("lang", "en")
    tid = _venue_tournament(venue_app, op)
    numbers = iter(range(1, 100))

    def add(reg_id, name, status, club=""):
        return op.post(f"/operator/t/{tid}/players", data={"reg_id": reg_id, "name": name, "club": club,
                                                           "status": status, "start_no": next(numbers),
                                                           "version": _version(venue_app, tid)})
    r = add(GUEST, "Hosť Hostiteľ", "guest")
    assert r.status_code == 422 and "has played 4 SEM tournaments of this season as a guest" in text(r)
    r = add("SK-0001", "Registered One", "guest")
    assert r.status_code == 422 and "registered player of the season" in text(r)
    r = add("R-0001", "Rejected Rudo", "guest")
    assert r.status_code == 422 and "the board rejected them" in text(r)
    r = add("NEW-1", "New Guest", "guest")
    assert r.status_code in (200, 302), [l for l in text(r).splitlines() if "error" in l]
    assert add(CARDED, "Carded Player", "registered", "MK Poprad").status_code in (200, 302)
    with venue_app.app_context():
        from webapp.models import Player

        pid = db.session.scalar(db.select(Player.id).where(Player.tournament_id == tid, Player.reg_id == CARDED))
    page = text(op.get(f"/operator/t/{tid}/checkin"))
    assert "banned from this tournament (SEM-E4) unless the fine is paid: yellow card at SEM 12" in page
    assert "guest 0 of 4" in page and "1 yellow card" in page
    r = op.post(f"/operator/t/{tid}/checkin/{pid}", data={"present": "1"})
    assert r.status_code == 422 and "got a yellow card at SEM 12" in text(r)
    # the fine is paid at the federation; the venue downloads the season again
    with fed_app.app_context():
        cid = db.session.scalar(db.select(Card.id))
    assert staff.post(f"/federation/cards/{cid}/fine", data={"paid": "1"}).status_code == 302
    doc = fed.get(f"/federation/api/seasons/{season['season']}/download",
                  headers={"Authorization": f"Bearer {season['tokens']['Poprad']}"})
    with venue_app.app_context():
        import_season(doc.data, "test")
        db.session.commit()
    assert op.post(f"/operator/t/{tid}/checkin/{pid}", data={"present": "1"}).status_code in (200, 302)


def _version(app, tid) -> int:
    from webapp.extensions import db
    from webapp.models import Tournament

    with app.app_context():
        return db.session.get(Tournament, tid).version


def test_a_season_of_another_federation_is_not_downloaded_and_staff_see_only_their_own(fed_app, season):
    from webapp.extensions import db
    from webapp.models import Federation, Season, User, Venue
    from webapp.services import federation as svc

    with fed_app.app_context():
        other = Federation(code="csm", name="ČSM")
        db.session.add(other)
        db.session.flush()
        v = Venue(name="Zdice", federation_id=other.id)
        token = svc.new_venue_token(v)
        db.session.add(v)
        u = User(username="other", role="federation", federation_id=other.id)
        u.set_password("secret-pass")
        db.session.add(u)
        db.session.commit()
        other_season = Season(federation_id=other.id, ruleset="csm", name="x")
        db.session.add(other_season)
        db.session.commit()
    c = fed_app.test_client()
    assert c.get(f"/federation/api/seasons/{season['season']}/download",
                 headers={"Authorization": f"Bearer {token}"}).status_code == 404
    login(c, "other")
    assert c.get(f"/federation/seasons/{season['season']}").status_code == 404
    assert "SZMK" not in text(c.get("/federation/"))


@pytest.fixture
def federation_http(fed_app):
    """The federation app on a real port: `listok push` and the hub's button speak HTTP to it."""
    from tests.helpers import served

    with served(fed_app) as (url, _server):
        yield url


def test_listok_push_and_the_hub_button_over_http(fed_app, venue_app, federation_http):
    """`listok push ID --to URL --token T` sends the file with its chain; a second push exits 2
    naming the tournament already there; the hub's button says the same in the operator's page."""
    from webapp.extensions import db
    from webapp.services.tournament_file import import_tournament

    ids = setup_federation(fed_app)
    token = ids["tokens"]["Poprad"]
    rts = season_tournaments()[:2]
    with venue_app.app_context():
        tids = []
        for rt in rts:
            tids.append(import_tournament(exchange.dump(rt), f"{rt.name}.json", "venue").id)
        db.session.commit()
    runner = venue_app.test_cli_runner()
    first = runner.invoke(args=["listok", "push", str(tids[0]), "--to", federation_http, "--token", token,
                                "--insecure"])
    assert first.exit_code == 0, first.output
    assert "received 'SEM 1' into season" in first.output and "the chain holds" in first.output
    second = runner.invoke(args=["listok", "push", str(tids[0]), "--to", federation_http, "--token", token,
                                 "--insecure"])
    assert second.exit_code == 2 and "409" in second.output and "is here already" in second.output
    bad = runner.invoke(args=["listok", "push", str(tids[0]), "--to", federation_http, "--token", "wrong",
                              "--insecure"])
    assert bad.exit_code == 2 and "401" in bad.output
    venue_app.config.update(LISTOK_FEDERATION_URL=federation_http, LISTOK_FEDERATION_TOKEN=token,
                            LISTOK_FEDERATION_INSECURE=True)
    make_user(venue_app, "op", role="operator")
    op = venue_app.test_client()
    login(op, "op")
    op.set_cookie("lang", "en")
    assert "Send to the federation" in text(op.get(f"/operator/t/{tids[1]}"))
    r = op.post(f"/operator/t/{tids[1]}/push", follow_redirects=True)
    assert "The federation took the tournament" in text(r)
    r = op.post(f"/operator/t/{tids[1]}/push", follow_redirects=True)
    assert "The federation has this tournament already" in text(r)
    from webapp.models import AuditEntry

    with venue_app.app_context():  # the venue's own chain says where it went and what came back
        answers = [e.payload["status"] for e in db.session.scalars(
            db.select(AuditEntry).where(AuditEntry.tournament_id == tids[1], AuditEntry.action == "tournament.push"))]
    assert answers == [201, 409]


def test_create_user_for_a_federation_and_a_venue_and_the_role_setting(tmp_path):
    """`listok create-user --role federation --federation CODE` and `--venue NAME`; LISTOK_ROLE must be
    venue or federation (a wrong one stops the server with one line)."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if k not in ("LISTOK_ENV", "LISTOK_SECRET_KEY_FILE")}
    env.update(PYTHONPATH=str(root), DATABASE_URL=f"sqlite:///{tmp_path / 'cli.db'}", LISTOK_SECRET_KEY="cli-key",
               LISTOK_ROLE="federation")

    def listok(*args, **extra):
        return subprocess.run([sys.executable, "-m", "webapp.cli", *args], cwd=tmp_path, env={**env, **extra},
                              capture_output=True, text=True, timeout=120)

    r = listok("create-user", "staff1", "--role", "federation", "--password", "staff-pass-1")
    assert r.returncode == 2 and "--federation" in r.stderr
    assert listok("create-user", "staff1", "--role", "federation", "--federation", "szmk",
                  "--password", "staff-pass-1").returncode == 0
    assert listok("create-user", "op1", "--venue", "Poprad", "--password", "op-pass-123").returncode == 0
    r = listok("create-user", "x", "--password", "whatever-1", LISTOK_ROLE="hq")
    assert r.returncode == 2 and "LISTOK_ROLE is 'hq': use venue or federation" in r.stderr
    from webapp import create_app
    from webapp.extensions import db
    from webapp.models import Federation, User, Venue

    app = create_app({"SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": env["DATABASE_URL"], "LISTOK_ROLE": "federation"})
    with app.app_context():
        staff = db.session.scalar(db.select(User).where(User.username == "staff1"))
        op = db.session.scalar(db.select(User).where(User.username == "op1"))
        assert db.session.get(Federation, staff.federation_id).code == "szmk" and staff.role == "federation"
        assert db.session.get(Venue, op.venue_id).name == "Poprad" and op.federation_id is None
        db.engine.dispose()
    assert "federation" in app.blueprints and "seasons" in app.blueprints
    venue = create_app({"SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": env["DATABASE_URL"]})
    assert "federation" not in venue.blueprints and "seasons" not in venue.blueprints  # the default: venue


@pytest.mark.parametrize("ruleset, sample", [("smu", "smu10"), ("thousand", "thousand13")])
def test_season_tables_of_the_other_rule_sets_equal_listok_season(fed_app, ruleset, sample):
    from webapp.extensions import db
    from webapp.models import Federation, Season
    from webapp.services import federation as svc

    path = DATA / f"{sample}.json"
    with fed_app.app_context():
        f = Federation(code="x", name="X")
        db.session.add(f)
        db.session.flush()
        s = Season(federation_id=f.id, ruleset=ruleset, name="2026")
        db.session.add(s)
        db.session.flush()
        svc.receive(path.read_text(encoding="utf-8"), season=s, venue=None, source="import", actor="test")
        db.session.commit()
        assert svc.season_tables(s) == cli("season", str(path))
        sid = s.id
    anon = fed_app.test_client()
    anon.set_cookie("lang", "en")
    rows = list(csv.reader(io.StringIO(anon.get(f"/seasons/{sid}/players.csv").get_data(as_text=True)
                                       .lstrip("\ufeff")), delimiter=";"))
    expected = cli("season", str(path))["players"]
    assert [(int(r[0]), r[1], int(r[3])) for r in rows[1:]] == [(p["place"], p["name"], p["points"]) for p in expected]
    assert rows[0][5] == ("Score" if ruleset == "thousand" else "Money")


def test_roster_csv_is_all_or_nothing_and_names_the_bad_rows(fed_app, season):
    from io import BytesIO

    from webapp.extensions import db
    from webapp.models import RosterEntry

    staff = fed_app.test_client()
    login(staff, "staff")
    staff.set_cookie("lang", "en")
    bad = "SK-0100;Good One;MK Poprad;registered\n;No Id;MK Poprad;registered\nSK-0102;Odd;;captain\n"
    r = staff.post(f"/federation/seasons/{season['season']}/roster",
                   data={"file": (BytesIO(bad.encode()), "r.csv")}, content_type="multipart/form-data",
                   follow_redirects=True)
    page = text(r)
    assert "line 2: an id and a name are needed" in page and "line 3: the status &#39;captain&#39;" in page
    with fed_app.app_context():
        assert db.session.scalar(db.select(db.func.count()).select_from(RosterEntry)) == 0


def two_seasons(ids, pushes, files_dir=None):
    """The federation's season and a 2027 one after it: the first six pushes received into the first,
    the rest into the second (with `files_dir`, each push's file also written there, listed by season).
    Inside the app context; commits. Returns (first, second, {1: files, 2: files})."""
    from webapp.extensions import db
    from webapp.models import Season
    from webapp.services import federation as svc

    files = {1: [], 2: []}
    first = db.session.get(Season, ids["season"])
    first.ends = date(2026, 6, 30)
    second = Season(federation_id=ids["federation"], ruleset="sem", name="2027", starts=date(2026, 7, 1))
    db.session.add(second)
    db.session.flush()
    for i, body in enumerate(pushes):
        svc.receive(body["file"], season=first if i < 6 else second, venue=None, source="import", actor="t")
        if files_dir is not None:
            path = files_dir / f"t{i:02d}.json"
            path.write_text(body["file"], encoding="utf-8")
            files[1 if i < 6 else 2].append(str(path))
    db.session.commit()
    return first, second, files


def historical_expected(first_totals: dict, second_totals: dict) -> dict:
    """SEM-A6 by hand: the first season's totals plus the second's × (highest of both / the second's highest)."""
    from fractions import Fraction

    from webapp.rules.season import historical_points

    expected = {k: Fraction(v) for k, v in first_totals.items()}
    for k, v in historical_points(second_totals, max(first_totals.values())).items():
        expected[k] = expected.get(k, Fraction(0)) + v
    return expected


def test_sem_a6_historical_table_over_two_seasons(fed_app, pushes):
    """The second season's historical points: its totals × (highest total of both seasons / its highest),
    added to the first season's totals (its own coefficient is 1)."""
    from webapp.services import federation as svc

    ids = setup_federation(fed_app)
    with fed_app.app_context():
        first, second, _files = two_seasons(ids, pushes)
        t1 = {p["id"]: p["points"] for p in svc.season_tables(first)["players"]}
        t2 = {p["id"]: p["points"] for p in svc.season_tables(second)["players"]}
        expected = historical_expected(t1, t2)
        got = {p["id"]: p["points"] for p in svc.historical_table(second)["players"]}
        assert got == expected
        assert max(t1.values()) != max(t2.values())  # the coefficient is not 1 for one of them


def test_sem_a6_historical_clubs_table_over_two_seasons_on_the_page_print_and_csv(fed_app, pushes, tmp_path):
    """SEM-A6 for clubs: the historical page shows, beside the individuals' table, each club's first-season
    points plus its second-season points × (highest club total of both seasons / the second's highest),
    the club totals being `listok season` (the engine) on each season's files; the same in the print
    view and the clubs' CSV, which revalidates with its ETag."""
    from webapp.services import federation as svc

    ids = setup_federation(fed_app)
    with fed_app.app_context():
        first, second, files = two_seasons(ids, pushes, tmp_path)
        sids = (first.id, second.id)
        c1 = {c["club"]: c["points"] for c in cli("season", *files[1])["clubs"]}
        c2 = {c["club"]: c["points"] for c in cli("season", *files[2])["clubs"]}
        expected = historical_expected(c1, c2)
        assert max(c1.values()) != max(c2.values())  # the second season's coefficient is not 1
        assert {c["club"]: c["points"] for c in svc.historical_table(first)["clubs"]} == c1
        got = svc.historical_table(second)["clubs"]
        assert {c["club"]: c["points"] for c in got} == expected
        assert [c["place"] for c in got] == list(range(1, len(expected) + 1))
        assert [c["points"] for c in got] == sorted(expected.values(), reverse=True)
    shown = [(c["place"], c["club"], f"{float(c['points']):.2f}") for c in got]
    anon = fed_app.test_client()
    anon.set_cookie("lang", "en")
    for path in (f"/seasons/{sids[1]}/historical", f"/seasons/{sids[1]}/historical/print"):
        html = anon.get(path).get_data(as_text=True)
        tables = html.split('<table class="data season-table"')[1:]
        assert len(tables) == 2, path  # the individuals' table, then the clubs'
        assert 'aria-label="Clubs"' in tables[1] and 'data-col="name"' in tables[0]
        assert [(int(p), club, pts) for p, club, pts in _cells(tables[1], ("place", "club", "points"))] == shown
    r = anon.get(f"/seasons/{sids[1]}/historical-clubs.csv")
    assert r.status_code == 200 and r.mimetype == "text/csv"
    rows = list(csv.reader(io.StringIO(r.get_data(as_text=True).lstrip("\ufeff")), delimiter=";"))
    assert rows[0] == ["Place", "Club", "Points"]
    assert [(int(p), club, pts.replace(",", ".")) for p, club, pts in rows[1:]] == shown
    assert anon.get(f"/seasons/{sids[1]}/historical-clubs.csv",
                    headers={"If-None-Match": r.headers["ETag"]}).status_code == 304
    assert anon.get(f"/seasons/{sids[1]}/historical-clubs").status_code == 404  # a CSV of the page, not a tab
    first_page = anon.get(f"/seasons/{sids[0]}/historical").get_data(as_text=True)
    assert [(club, float(pts)) for _p, club, pts in _cells(first_page.split('aria-label="Clubs"')[1],
                                                          ("place", "club", "points"))] == \
        [(c, float(v)) for c, v in sorted(c1.items(), key=lambda kv: (-kv[1], kv[0]))]


def _cells(html: str, cols: tuple) -> list[tuple]:
    """The table's rows (up to its end) as tuples of the named columns' text."""
    import re

    body = html.split("</table>", 1)[0]
    out = []
    for row in re.findall(r"<tr>(.*?)</tr>", body, re.S):
        cells = dict(re.findall(r'data-col="(\w+)">(?:<b>)?(.*?)(?:</b>)?</td>', row, re.S))
        if cells:
            out.append(tuple(cells[c] for c in cols))
    return out


class _Recorder:
    """A local HTTP server that records every request (path, method, headers) and answers each with
    `answer(path)` = (status, headers, body)."""

    def __init__(self, answer):
        import http.server
        import threading

        self.requests = []
        recorder = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _any(self):
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                recorder.requests.append((self.command, self.path, dict(self.headers)))
                status, headers, body = answer(self.path)
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = _any

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)


def _finished_venue_tournament(venue_app) -> int:
    from webapp.extensions import db
    from webapp.services.tournament_file import import_tournament

    with venue_app.app_context():
        t = import_tournament((DATA / "sem27_poprad.json").read_text(encoding="utf-8"), "sem27.json", "venue")
        db.session.commit()
        assert t.status == "finished"
        return t.id


def test_the_venue_token_follows_no_redirect_and_needs_https(venue_app):
    """`listok push`, `listok season-download` and the hub's buttons send the venue's token to the
    configured federation only: a redirect (to another host, a POST that would become a GET) is
    refused and nothing reaches its target; a plain http:// address is refused unless --insecure
    (LISTOK_FEDERATION_INSECURE) says so, and the CLI then warns."""
    elsewhere = _Recorder(lambda path: (200, {"Content-Type": "application/json"}, b'{"message": "thanks"}'))
    federation = _Recorder(lambda path: (302, {"Location": elsewhere.url + path}, b""))
    try:
        tid = _finished_venue_tournament(venue_app)
        runner = venue_app.test_cli_runner()
        token = "lv_the-venues-secret-token"
        push = ["listok", "push", str(tid), "--to", federation.url, "--token", token]
        download = ["listok", "season-download", "--from", federation.url, "--season", "1", "--token", token]
        for args in (push, download):
            plain = runner.invoke(args=args)
            # the CLI speaks the server's language (Slovak here): the address and the option are in any
            assert plain.exit_code == 2 and federation.url in plain.output and "--insecure" in plain.output
        assert federation.requests == []
        for args in (push, download):
            moved = runner.invoke(args=args + ["--insecure"])
            assert moved.exit_code == 2, moved.output
            assert "warning: --insecure: the venue's token goes unencrypted" in moved.output
            assert elsewhere.url + "/federation/api/" in moved.output  # the redirect's target, named
        assert [(m, p.split("/")[-1]) for m, p, _h in federation.requests] == [("POST", "tournaments"),
                                                                               ("GET", "download")]
        assert all(h["Authorization"] == f"Bearer {token}" for _m, _p, h in federation.requests)
        assert elsewhere.requests == []  # the token never left for the other host
        # the hub's buttons: the same two refusals
        make_user(venue_app, "op", role="operator")
        op = venue_app.test_client()
        login(op, "op")
        op.set_cookie("lang", "en")
        venue_app.config.update(LISTOK_FEDERATION_URL=federation.url, LISTOK_FEDERATION_TOKEN=token)
        assert "plain http://" in text(op.post(f"/operator/t/{tid}/push", follow_redirects=True))
        assert "plain http://" in text(op.post("/operator/season/download", data={"season": "1"},
                                               follow_redirects=True))
        venue_app.config.update(LISTOK_FEDERATION_INSECURE=True)
        assert "answered with a redirect" in text(op.post(f"/operator/t/{tid}/push", follow_redirects=True))
        assert "answered with a redirect" in text(op.post("/operator/season/download", data={"season": "1"},
                                                          follow_redirects=True))
        assert elsewhere.requests == [] and len(federation.requests) == 4
        bad = runner.invoke(args=["listok", "push", str(tid), "--to", "ftp://fed.example", "--token", token])
        assert bad.exit_code == 2 and "ftp://fed.example" in bad.output and "https://" in bad.output
    finally:
        federation.close()
        elsewhere.close()


@pytest.mark.parametrize("lang, says, stored", [
    ("ru", "тур 3, стол ", "round 3, table "),
    ("sk", "kolo 3, stôl ", "round 3, table "),
    ("cs", "kolo 3, stůl ", "round 3, table "),
])
def test_a_pushs_verdict_lines_come_back_in_the_asked_language_and_are_kept_in_english(fed_app, pushes, lang,
                                                                                      says, stored):
    """The venue's command asks in its language (Accept-Language): the answer's message and its problem
    lines are in it, not the federation's English; the federation keeps its record in English."""
    ids = setup_federation(fed_app)
    d = json.loads(pushes[6]["file"])
    tab = d["rounds"][2]["tables"][1]  # as push_all tampers it
    if tab["sums"][0] == tab["sums"][1]:
        tab = d["rounds"][2]["tables"][2]
    tab["sums"][0], tab["sums"][1] = tab["sums"][1], tab["sums"][0]
    r = fed_app.test_client().post("/federation/api/tournaments", json={**pushes[6], "file": json.dumps(d)},
                                   headers={"Authorization": f"Bearer {ids['tokens']['Poprad']}",
                                            "Accept-Language": lang})
    answer = r.get_json()
    assert r.status_code == 201 and answer["verdict"]["ok"] is False, answer
    assert answer["verdict"]["problems"][0].startswith(says), answer["verdict"]["problems"]
    assert "the chain check found" not in answer["message"] and "chain's" not in answer["verdict"]["problems"][0]
    from sqlalchemy import select

    from webapp.extensions import db
    from webapp.models import SeasonTournament

    with fed_app.app_context():
        kept = db.session.scalar(select(SeasonTournament).where(SeasonTournament.uid == answer["tournament"]))
        assert kept.verdict["problems"][0].startswith(stored) and "are not the chain's" in kept.verdict["problems"][0]
    again = fed_app.test_client().post("/federation/api/tournaments", json={**pushes[6], "file": json.dumps(d)},
                                       headers={"Authorization": f"Bearer {ids['tokens']['Poprad']}",
                                                "Accept-Language": lang})
    assert again.status_code == 409 and "is here already" not in again.get_json()["message"]
