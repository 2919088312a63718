"""Every route × role × a foreign object: every endpoint of
the url_map, GET and POST, with its path filled with objects of tournament A,
called as a visitor, as the operator and the referee of tournament B, as the
operator and the referee of A and as the admin. No call by someone without the
right to it succeeds (only 403, 404 or a redirect to the sign-in page) and
none of those calls changes anything in the database."""
from __future__ import annotations

import hashlib

import pytest
from sqlalchemy import select

from tests.helpers import make_tournament, make_user, open_round, play_round, text

# Open to anyone by design, with the reason.
PUBLIC = {
    "public.index": "the list of tournaments for players and the public",
    "public.standings": "published standings (SEM-C9) are public",
    "public.player": "a player's own results, public like the standings",
    "public.find_player": "finds a start number on the public standings",
    "public.projector": "the venue's projector screen, not signed in",
    "public.seating": "the published round's seating, public like the projector",
    "public.healthz": "a reverse proxy's health check: says ok, reads nothing",
    "public.nominations": "published nominations are public",
    "public.report": "players report a discrepancy with their PIN (SEM-C9), not an account",
    "public.receipt": "players check a phone receipt against the stored sheet",
    "public.web_manifest": "the installable app's manifest",
    "table.sheet": "the table's QR page: the signed table token is the credential",
    "table.service_worker": "the phone's offline cache",
    "sync.submit_sheet": "phones' API: table token and the players' PINs are the credentials",
    "sync.check_pin": "phones' API: table token and PIN",
    "sync.table": "phones' API: table token",
    "sync.preview": "phones' API: table token (computes, stores nothing)",
    "sync.publish_draft": "phones' API: table token and PIN",
    "sync.sign_draft": "phones' API: table token and PIN",
    "public.me": "a player's own page on their phone: the same shell for everyone",
    "public.me_now": "a player's seat, results and receipts: public like the player's page",
    "public.me_sign_on": "a player signs on with start number and PIN, not an account",
    "public.me_call": "a player calls a referee to their table: the key their PIN got is the credential",
    "public.me_key": "a phone checks its personal key: the key is the credential, the answer only yes or no",
    "public.scan": "scanning a table's QR code inside the app, for anyone at the venue",
    "public.table_code": "a table's printed short code opens its sheet, like its QR code",
    "calls.place_call": "a table calls the referee: the signed table token is the credential",
    "calls.call_state": "the table sees what became of its call: table token",
    "static": "CSS, JavaScript, icons",
    "auth.login": "the sign-in page",
    "public.healthz": "a reverse proxy's health check, touches no data",
}
SELF = {"auth.logout", "auth.change_password", "auth.unlock_signin"}  # one's own session, password, sign-in lock
OPERATOR_DESK = {"operator.index", "operator.create_tournament", "operator.import_file",  # no tournament in the path
                 "operator.season_copy", "operator.season_copy_import", "operator.season_download",
                 "operator.replica_state"}  # the venue laptop's replica: no tournament's data
ADMIN_OWN_VENUE = {"admin.users", "admin.create_user"}  # a venue's admin: the venue's accounts, no other's
SERVER_ADMIN_ONLY = {"admin.set_venue"}  # moving an account between venues: not even a venue's admin for its own
REFEREE_TOO = {  # operator pages a referee of the tournament may open too
    "operator.discipline": "referees give cards and disqualify (SEM-D, SEM-E)",
    "operator.discipline_action": "the same, recording them",
    "operator.verify": "anyone who decides cases may check the tournament's hash chain",
}
DECIDE = {"referee.approve", "referee.reject", "referee.take_call", "referee.close_call"}
ROLES = ("anonymous", "operator_b", "referee_b", "admin_b", "operator_a", "referee_a", "admin")


def allowed(endpoint: str, role: str) -> bool:
    if endpoint in PUBLIC:
        return True
    if role == "anonymous":
        return False
    if endpoint in DECIDE:  # only a referee of the tournament decides, never an admin alone
        return role == "referee_a"
    if role == "admin" or endpoint in SELF:
        return True
    if endpoint in SERVER_ADMIN_ONLY:
        return False
    if role == "admin_b":  # the admin of venue B: nothing of venue A
        return endpoint in ADMIN_OWN_VENUE or endpoint in OPERATOR_DESK or endpoint == "referee.queue"
    if endpoint.startswith("admin."):
        return False
    operator, mine = role.startswith("operator"), role.endswith("_a")
    if endpoint in OPERATOR_DESK:
        return operator
    if endpoint == "referee.queue":
        return True
    if endpoint.startswith("referee."):
        return mine
    if endpoint.startswith("operator."):
        return mine and (operator or endpoint in REFEREE_TOO)
    raise AssertionError(f"{endpoint}: say who may call it (a new route?)")


def snapshot(app) -> str:
    """A hash of every row of every table (in an app context of its own: requests
    must not share one, or Flask-Login's cached user leaks between clients)."""
    from webapp.extensions import db

    h = hashlib.sha256()
    with app.app_context():
        for table in db.metadata.sorted_tables:
            rows = db.session.execute(select(table).order_by(*table.primary_key.columns)).all()
            h.update(f"{table.name}:{sorted(map(repr, rows))}".encode())
        db.session.remove()
    return h.hexdigest()


@pytest.fixture
def world(app):
    from webapp.extensions import db
    from webapp.models import Case, Player, RefereeCall, Round, User
    from webapp.services import access
    from webapp.services.tokens import table_token

    from webapp.models import Tournament, Venue

    a = make_tournament(app, name="SEM A - Alphaville")
    b = make_tournament(app, name="SEM B - Betatown", seed=5)
    play_round(app, a)
    open_round(app, a)
    play_round(app, b)
    users = {}
    for role in ROLES[1:]:
        kind = role.split("_")[0]
        users[role] = make_user(app, role, role=kind, everywhere=False)
    with app.app_context():
        venues = {"a": Venue(name="Alphaville"), "b": Venue(name="Betatown")}  # tournaments and staff per venue
        db.session.add_all(venues.values())
        db.session.flush()
        db.session.get(Tournament, a).venue_id, db.session.get(Tournament, b).venue_id = \
            venues["a"].id, venues["b"].id
        for role, uid in users.items():
            if role != "admin":
                u = db.session.get(User, uid)
                u.venue_id = venues[role[-1]].id
                access.assign(u, a if role.endswith("_a") else b)
        r1 = db.session.scalar(select(Round).where(Round.tournament_id == a, Round.number == 1))
        tab = r1.tables[0]
        case = Case(tournament_id=a, round=1, table=tab.number, kind="discrepancy", status="open",
                    payload={"start_no": tab.players[0], "text": "Alphaville case", "verified": "referee"},
                    created_by="test")
        db.session.add(case)
        call = RefereeCall(tournament_id=a, round=2, table=1, reason="Alphaville call", status="open", note="")
        db.session.add(call)
        pid = db.session.scalar(select(Player.id).where(Player.tournament_id == a).order_by(Player.id))
        db.session.commit()
        args = {"tid": a, "n": 2, "table": 1, "pid": pid, "start_no": 1, "cid": case.id, "action": "card",
                "uid": users["operator_a"], "token": table_token(a, 2, 1), "filename": "css/listok.css",
                "call_id": call.id}
    clients = {"anonymous": app.test_client()}
    for role in ROLES[1:]:
        c = app.test_client()
        r = c.post("/login", data={"username": role, "password": "secret-pass"})
        assert r.status_code == 302, role
        c.set_cookie("lang", "en")
        clients[role] = c
    return {"args": args, "clients": clients, "case": case.id}


def calls(app, args) -> list[tuple[str, str, str]]:
    """(endpoint, method, URL) of every rule. A list, built before any request:
    requests made inside this request context would share its `g`, and with
    it Flask-Login's cached user."""
    from flask import url_for

    out = []
    with app.test_request_context():
        for rule in sorted(app.url_map.iter_rules(), key=lambda r: (r.endpoint, r.rule)):
            url = url_for(rule.endpoint, **{k: args[k] for k in rule.arguments})
            out += [(rule.endpoint, method, url) for method in sorted(rule.methods - {"HEAD", "OPTIONS"})]
    return out


def who(client) -> str:
    """The signed-in user's name as the page header shows it ("" for a visitor)."""
    body = text(client.get("/account/password"))
    return body.split("Sign out (", 1)[1].split(")", 1)[0] if "Sign out (" in body else ""


def refused(response) -> bool:
    if response.status_code in (401, 403, 404):
        return True
    return response.status_code in (302, 303) and response.headers["Location"].split("?")[0].endswith("/login")


def test_routes_roles_foreign_objects(app, world):
    """Zero unauthorized successes, and refused calls change nothing."""
    clients, args = world["clients"], world["args"]
    failures, checked, granted = [], 0, 0
    assert {role: who(clients[role]) for role in ROLES} == {
        role: "" if role == "anonymous" else role.title() for role in ROLES}
    before = snapshot(app)
    for endpoint, method, url in calls(app, args):
        for role in ROLES:
            if allowed(endpoint, role):
                continue
            response = clients[role].open(url, method=method, data={})
            after = snapshot(app)
            checked += 1
            if not refused(response):
                failures.append(f"{role} {method} {url}: {response.status_code} {response.headers.get('Location')}")
            if after != before:
                failures.append(f"{role} {method} {url}: changed the database")
            before = after
    assert failures == [], "\n".join(failures)
    assert checked > 150
    # the allowed GETs really open (the path arguments are right, so the refusals above mean something)
    for endpoint, method, url in calls(app, args):
        if method != "GET" or endpoint in PUBLIC:
            continue
        for role in ROLES[1:]:
            if allowed(endpoint, role):
                r = clients[role].get(url)
                granted += 1
                assert r.status_code in (200, 302) and not refused(r), (role, url, r.status_code)
    assert granted > 50
    assert {role: who(clients[role]) for role in ROLES} == {  # nobody was signed out on the way
        role: "" if role == "anonymous" else role.title() for role in ROLES}


def test_foreign_tournaments_are_not_listed(app, world):
    """The operator hub and the referee queue of B's staff show nothing of A."""
    clients = world["clients"]
    for role in ("operator_b", "referee_b"):
        queue = text(clients[role].get("/referee/"))
        assert "Alphaville" not in queue and f"/referee/case/{world['case']}" not in queue
    hub = text(clients["operator_b"].get("/operator/"))
    assert "Betatown" in hub and "Alphaville" not in hub
    for role in ("operator_a", "admin"):
        assert "Alphaville" in text(clients[role].get("/operator/"))
    assert f"/referee/case/{world['case']}" in text(clients["referee_a"].get("/referee/"))


def test_operator_who_creates_a_tournament_is_assigned(app, world):
    clients = world["clients"]
    r = clients["operator_b"].post("/operator/tournaments", data={"name": "SEM C - Gammaburg", "ruleset": "sem"})
    assert r.status_code == 302
    assert clients["operator_b"].get(r.headers["Location"]).status_code == 200
    assert clients["operator_a"].get(r.headers["Location"]).status_code == 404
    assert "Gammaburg" not in text(clients["operator_a"].get("/operator/"))


def test_only_the_server_admin_moves_an_account_between_venues(app, world):
    """A venue's admin cannot move even its own venue's account (403, nothing changed, the page says who
    can) nor reach another venue's (404); its page of the account shows the venue without a select.
    The server's admin moves the account, and the venue's admin no longer lists it."""
    from webapp.extensions import db
    from webapp.models import User, Venue

    clients = world["clients"]
    with app.app_context():
        own = db.session.scalar(select(User.id).where(User.username == "operator_b"))
        va = db.session.scalar(select(Venue.id).where(Venue.name == "Alphaville"))
    before = snapshot(app)
    r = clients["admin_b"].post(f"/admin/user/{own}/venue", data={"venue": str(va)})
    assert r.status_code == 403 and "Only the server's admin moves an account to another venue" in text(r)
    r = clients["admin_b"].post(f"/admin/user/{world['args']['uid']}/venue", data={"venue": ""})
    assert r.status_code == 404
    assert snapshot(app) == before
    page = clients["admin_b"].get(f"/admin/user/{own}").get_data(as_text=True)
    assert "Betatown" in page and 'name="venue"' not in page
    assert 'name="venue"' in clients["admin"].get(f"/admin/user/{own}").get_data(as_text=True)
    assert clients["admin"].post(f"/admin/user/{own}/venue", data={"venue": str(va)}).status_code == 302
    assert "operator_b" not in text(clients["admin_b"].get("/admin/"))
    assert clients["admin_b"].get(f"/admin/user/{own}").status_code == 404


# --------------------------------------------------------------------------- the federation server

FED_ROLES = ("anonymous", "operator_a", "staff_b", "staff_a", "admin")
FED_OWN = {"federation.index", "federation.create_season", "federation.create_venue"}  # in one's own federation


def fed_allowed(endpoint: str, role: str) -> bool:
    """Season pages are public; the venues' API takes a venue token (no session of any role is one);
    staff pages: the federation's own staff and the server's admin."""
    if endpoint.startswith("seasons."):
        return True
    if endpoint.startswith("federation_api."):
        return False
    if endpoint in FED_OWN:
        return role in ("staff_a", "staff_b", "admin")
    if endpoint.startswith("federation."):
        return role in ("staff_a", "admin")
    raise AssertionError(f"{endpoint}: say who may call it (a new route?)")


@pytest.fixture
def fed_world(database_url):
    from webapp import create_app
    from webapp.extensions import db
    from webapp.models import Card, Federation, Season, User, Venue
    from webapp.rules import exchange
    from webapp.rules.model import Event
    from webapp.services import federation as svc
    from webapp.demo.simulate import make_players, play_tournament

    app = create_app({"TESTING": True, "SECRET_KEY": "fed-secret", "SQLALCHEMY_DATABASE_URI": database_url,
                      "WTF_CSRF_ENABLED": False, "SERVER_NAME": "localhost", "LISTOK_ROLE": "federation"})
    with app.app_context():
        db.create_all()
        feds = {k: Federation(code=f"f{k}", name=f"Federation {k.upper()}") for k in "ab"}
        db.session.add_all(feds.values())
        db.session.flush()
        venue = Venue(name="Alphaville", federation_id=feds["a"].id)
        svc.new_venue_token(venue)
        season = Season(federation_id=feds["a"].id, ruleset="sem", name="2026")
        db.session.add_all([venue, season])
        db.session.flush()
        rt = play_tournament(make_players(30, seed=4), seed=4, name="SEM A1", date="2026-03-01")
        rt.events.append(Event(type="card", start_no=3, colour="yellow", round=2, referees=("R",)))
        st = svc.receive(exchange.dump(rt), season=season, venue=venue, source="import", actor="test")
        for role in FED_ROLES[1:]:
            u = User(username=role, role={"operator_a": "operator", "admin": "admin"}.get(role, "federation"),
                     display_name=role.title(), federation_id=feds[role[-1]].id if role.startswith("staff") else None,
                     venue_id=venue.id if role == "operator_a" else None)
            u.set_password("secret-pass")
            db.session.add(u)
        db.session.commit()
        card = db.session.scalar(select(Card.id))
        args = {"sid": season.id, "vid": venue.id, "cid": card, "stid": st.id, "kind": "players",
                "filename": "css/listok.css", "tid": 1, "n": 1, "table": 1, "pid": 1, "start_no": 1,
                "action": "card", "uid": 1, "token": "x", "call_id": 1}  # the venue routes' arguments: not walked here
    clients = {"anonymous": app.test_client()}
    for role in FED_ROLES[1:]:
        c = app.test_client()
        assert c.post("/login", data={"username": role, "password": "secret-pass"}).status_code == 302
        c.set_cookie("lang", "en")
        clients[role] = c
    yield app, args, clients
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


def test_federation_routes_roles_foreign_federation(fed_world):
    """Every federation, API and season route × role: zero unauthorized successes, nothing changed;
    staff of federation B reach nothing of federation A."""
    app, args, clients = fed_world
    endpoints = [c for c in calls(app, args) if c[0].split(".")[0] in ("federation", "federation_api", "seasons")]
    assert {e for e, _m, _u in endpoints} >= {"federation.index", "federation_api.push", "seasons.season"}
    failures, checked = [], 0
    before = snapshot(app)
    for endpoint, method, url in endpoints:
        for role in FED_ROLES:
            if fed_allowed(endpoint, role):
                continue
            response = clients[role].open(url, method=method, data={})
            after = snapshot(app)
            checked += 1
            if not refused(response):
                failures.append(f"{role} {method} {url}: {response.status_code}")
            if after != before:
                failures.append(f"{role} {method} {url}: changed the database")
            before = after
    assert failures == [], "\n".join(failures)
    assert checked > 30
    for endpoint, method, url in endpoints:
        if method == "GET" and endpoint.startswith("federation."):
            for role in ("staff_a", "admin"):
                assert clients[role].get(url).status_code == 200, (role, url)
    assert "Federation A" not in text(clients["staff_b"].get("/federation/"))
    # naming the other federation in the form is refused too
    from webapp.extensions import db
    from webapp.models import Federation

    with app.app_context():
        fa = db.session.scalar(select(Federation.id).where(Federation.code == "fa"))
    before = snapshot(app)
    for url in ("/federation/seasons", "/federation/venues"):
        r = clients["staff_b"].post(url, data={"federation": fa, "name": "Intruder", "ruleset": "sem"})
        assert r.status_code == 404, url
    assert snapshot(app) == before
