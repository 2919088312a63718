"""Cacheable public pages (webapp/http/caching.py) on SQLite and PostgreSQL —
no cookie, session or CSRF token for an anonymous visitor, strong ETags from the
public version checked before anything is rendered, the running round's phone
sheets leave the published pages' ETags alone, content-hashed static files."""
from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from tests.helpers import (issue_pins, login, make_tournament, make_user, open_round, play_round,
                           postgresql_messages, signed_submission, sql_statements)
from webapp.http import caching
from webapp.extensions import db
from webapp.models import Round, Tournament
from webapp.services import rounds
from webapp.services.common import bump

STATIC = Path(__file__).resolve().parents[2] / "webapp" / "static"


@pytest.fixture
def venue(app):
    """SEM: rounds 1 and 2 closed (standings public from round 2, SEM-C9), round 3 published, PINs."""
    tid = make_tournament(app, 9)
    pins = issue_pins(app, tid)
    play_round(app, tid, seed=1)
    play_round(app, tid, seed=2)
    open_round(app, tid)
    with app.app_context():
        r = db.session.query(Round).filter_by(tournament_id=tid, number=3).one()
        rounds.start_clock(db.session.get(Tournament, tid), r, "test")
        db.session.commit()
    return tid, pins


def pages(tid: int) -> list[str]:
    return [f"/t/{tid}/standings", f"/t/{tid}/projector", f"/t/{tid}/seating", f"/t/{tid}/player/4"]


def test_anonymous_public_pages_carry_no_cookie_session_or_csrf_token(app, client, venue):
    tid, _pins = venue
    for path in pages(tid):
        resp = client.get(path)
        assert resp.status_code == 200, path
        assert "Set-Cookie" not in resp.headers, path
        assert "cookie" not in resp.headers.get("Vary", "").lower(), path
        assert "Accept-Language" in resp.headers["Vary"]
        html = resp.get_data(as_text=True)
        assert "csrf" not in html.lower(), path
        assert re.fullmatch(r'"[0-9a-f]{32}"', resp.headers["ETag"]), path  # strong
        cc = resp.headers["Cache-Control"]
        assert cc.startswith("public, max-age=") and "stale-while-revalidate=" in cc, path
    assert not client.get_cookie("session")


def test_etag_is_checked_before_rendering_a_304_renders_nothing(app, client, venue):
    tid, _pins = venue
    for path in pages(tid):
        name = path.split("/")[3]
        first = client.get(path)
        renders = caching.RENDERS.get(name, 0)
        caching.BODIES.clear()  # not even a kept body: the 304 comes from the public version alone
        again = client.get(path, headers={"If-None-Match": first.headers["ETag"]})
        assert again.status_code == 304 and again.data == b"", path
        assert again.headers["ETag"] == first.headers["ETag"]
        assert caching.RENDERS.get(name, 0) == renders, path
        client.get(path)  # without the ETag: rendered once …
        assert caching.RENDERS[name] == renders + 1
        client.get(path)  # … and kept for the next visitor
        assert caching.RENDERS[name] == renders + 1


def test_a_kept_body_is_answered_from_the_stamp_alone(app, client, venue, monkeypatch, tmp_path):
    """A visitor without the page (a plain GET, the projector's next poll in a new
    browser) gets the body kept under the ETag the page made for this stamp: one
    SELECT, no tournament loaded, nothing rendered; on PostgreSQL one round trip, in
    autocommit (no BEGIN and ROLLBACK around it: database.read_row)."""
    monkeypatch.setattr(caching, "MEMO_SECONDS", 60)  # a busy test machine may stall past the 1 s
    tid, _pins = venue
    for path in pages(tid):
        name = path.split("/")[3]
        first = client.get(path)
        renders = caching.RENDERS.get(name, 0)
        with sql_statements(app) as statements, postgresql_messages(app, tmp_path) as sent:
            again = client.get(path)
        assert again.status_code == 200 and again.data == first.data, path
        if app.config["SQLALCHEMY_DATABASE_URI"].startswith("postgresql"):
            assert sent.count("Execute") == 1 and "Query" not in sent, (path, sent)
        assert again.headers["ETag"] == first.headers["ETag"]
        assert again.headers["Cache-Control"] == first.headers["Cache-Control"]
        assert caching.RENDERS.get(name, 0) == renders, path
        assert len(statements) == 1 and "public_version" in statements[0], (path, statements)


def test_a_running_round_phone_sheet_leaves_the_standings_etag_and_a_closed_round_changes_it(app, client, venue):
    tid, pins = venue
    standings = client.get(f"/t/{tid}/standings").headers["ETag"]
    with app.app_context():
        r = db.session.query(Round).filter_by(tournament_id=tid, number=3).one()
        tab = r.tables[0]
        seated, elsewhere = tab.players[0], next(p for t in r.tables[1:] for p in t.players)
    player = client.get(f"/t/{tid}/player/{seated}").headers["ETag"]
    other = client.get(f"/t/{tid}/player/{elsewhere}").headers["ETag"]
    version = _versions(app, tid)
    resp = client.post("/api/v1/sheets", json=signed_submission(app, tid, 3, tab.number, [1450, 1000, 550],
                                                                pins=pins))
    assert resp.status_code == 200
    assert _versions(app, tid) == (version[0] + 1, version[1])  # public version unchanged
    assert client.get(f"/t/{tid}/standings").headers["ETag"] == standings
    assert client.get(f"/t/{tid}/player/{elsewhere}").headers["ETag"] == other
    new_player = client.get(f"/t/{tid}/player/{seated}")
    assert new_player.headers["ETag"] != player  # their own receipt is on their page
    assert resp.json["receipt"] in new_player.get_data(as_text=True)

    play_round_close(app, tid)
    assert _versions(app, tid)[1] > version[1]
    assert client.get(f"/t/{tid}/standings").headers["ETag"] != standings


def test_a_players_page_follows_a_referees_rejection_that_moves_no_version(app, client, venue):
    """A rejected sheet moves the chain, not the version: the players' shared read of the
    tournament (views/shared.VIEWS) is keyed by both, like a 304."""
    from webapp.models import Case
    from webapp.services import cases

    tid, pins = venue
    with app.app_context():
        r = db.session.query(Round).filter_by(tournament_id=tid, number=3).one()
        tab = r.tables[0]
        seated = tab.players[0]
    resp = client.post("/api/v1/sheets", json=signed_submission(
        app, tid, 3, tab.number, [-150, 2000, 1150], pins=pins, note="Betl, 7 € — paid by #%d" % seated))
    assert resp.status_code == 202 and resp.json["reason"] == "negative-sum"
    client.set_cookie("lang", "en")
    page = client.get(f"/t/{tid}/player/{seated}").get_data(as_text=True)
    assert resp.json["receipt"] in page and "waiting for the referee" in page
    version = _versions(app, tid)
    with app.app_context():
        cases.reject(db.session.get(Case, resp.json["case"]), "referee", "the note names nobody who paid")
        db.session.commit()
    assert _versions(app, tid) == version  # the version did not move
    page = client.get(f"/t/{tid}/player/{seated}").get_data(as_text=True)
    assert "rejected by the referee" in page and "waiting for the referee" not in page


def test_seating_page_lists_the_published_round_and_follows_a_seat_swap(app, client, venue):
    tid, _pins = venue
    first = client.get(f"/t/{tid}/seating")
    html = first.get_data(as_text=True)
    with app.app_context():
        r = db.session.query(Round).filter_by(tournament_id=tid, number=3).one()
        assert all(f'id="table-{tab.number}"' in html for tab in r.tables)
        t = db.session.get(Tournament, tid)
        p = next(x for x in t.players if x.start_no == r.tables[0].players[0])
        p.name = "Opravená Menová"  # the desk corrects a name: every change but a phone sheet is public
        bump(t)
        db.session.commit()
    second = client.get(f"/t/{tid}/seating", headers={"If-None-Match": first.headers["ETag"]})
    assert second.status_code == 200 and second.headers["ETag"] != first.headers["ETag"]
    assert "Opravená Menová" in second.get_data(as_text=True)


def _versions(app, tid):
    with app.app_context():
        t = db.session.get(Tournament, tid)
        return t.version, t.public_version


def play_round_close(app, tid):
    import random

    from webapp.demo.simulate import table_sums

    rng = random.Random(9)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r = t.rounds[-1]
        for tab in r.tables:
            if tab.sheet is None:
                rounds.record_sheet(t, tab, list(table_sums(rng)), "test")
        rounds.close_round(t, r, "test", t.version)
        db.session.commit()


def test_signed_in_and_language_cookie_visitors_get_private_answers(app, client, venue):
    tid, _pins = venue
    resp = client.get(f"/t/{tid}/standings?lang=cs")  # the choice is remembered in a cookie: not for a shared cache
    assert resp.headers["Cache-Control"].startswith("private")
    assert "lang=cs" in resp.headers["Set-Cookie"]
    assert client.get(f"/t/{tid}/standings").headers["Cache-Control"].startswith("private")
    client.delete_cookie("lang")
    make_user(app)
    login(client)
    resp = client.get(f"/t/{tid}/standings")
    assert resp.headers["Cache-Control"].startswith("private")
    assert 'hx-headers=\'{"X-CSRFToken"' in resp.get_data(as_text=True)  # signed in: htmx posts carry the token


def test_sem_c9_report_form_keeps_its_csrf_token(app, client, venue):
    tid, _pins = venue
    app.config["WTF_CSRF_ENABLED"] = True
    html = client.get(f"/t/{tid}/discrepancy").get_data(as_text=True)
    assert 'name="csrf_token"' in html


def test_static_files_have_content_hashed_urls_long_max_age_and_content_etags(app, client):
    html = client.get("/").get_data(as_text=True)
    url = re.search(r'href="(/static/css/listok\.css\?v=([0-9a-f]+))"', html)
    assert url, "the stylesheet's URL carries its content hash"
    content = (STATIC / "css" / "listok.css").read_bytes()
    assert url.group(2) == hashlib.blake2b(content, digest_size=8).hexdigest()
    resp = client.get(url.group(1))
    assert resp.status_code == 200
    assert resp.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert resp.headers["ETag"] == f'"{url.group(2)}"' and "Last-Modified" not in resp.headers
    again = client.get(url.group(1), headers={"If-None-Match": resp.headers["ETag"]})
    assert again.status_code == 304
    plain = client.get("/static/css/listok.css")  # an old or hand-made URL: revalidated every time
    assert plain.headers["Cache-Control"] == "public, no-cache" and plain.headers["ETag"] == resp.headers["ETag"]


def test_kept_bodies_are_bounded_by_their_size_too():
    from webapp.http.cache import VersionedCache

    cache = VersionedCache(10, max_bytes=100)
    for k in "abc":
        cache.put(k, (200, b"x" * 40, "text/html"))
    assert cache.get("a") is None and cache.get("b") and cache.get("c")  # 120 bytes > 100: the oldest left
    cache.put("c", (200, b"x" * 10, "text/html"))  # replaced, not counted twice
    cache.put("d", (200, b"x" * 40, "text/html"))
    assert cache.get("b") and cache.get("c") and cache.get("d")
