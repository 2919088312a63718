"""The round at the operator's desk, the printed sheets with their QR links, the
table page behind the QR code, the projector and the round clock."""
from __future__ import annotations

import re
from datetime import datetime, timezone
from decimal import Decimal as D

import pytest

from tests.helpers import HX, login, make_tournament, make_user, play_round, text
from webapp.extensions import db
from webapp.models import Tournament
from webapp.services import rounds
from webapp.services.tokens import TokenError, TokenExpired, read_table_token, table_token


def version(app, tid) -> int:
    with app.app_context():
        return db.session.get(Tournament, tid).version


def round_state(app, tid):
    with app.app_context():
        t = db.session.get(Tournament, tid)
        return [(r.number, r.status, [list(tab.players) for tab in r.tables], [list(tab.flags) for tab in r.tables])
                for r in t.rounds]


def draw(app, tid, publish=False, start=False) -> int:
    """Draw (and publish, start) the next round through the services; returns its number."""
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r = rounds.draw_round(t, "test")
        if publish:
            rounds.publish_round(t, r, "test", t.version)
        if start:
            rounds.start_clock(t, r, "test")
        db.session.commit()
        return r.number


def url(tid, n, action=""):
    return f"/operator/t/{tid}/round/{n}" + (f"/{action}" if action else "")


# --- the round page: draw ---------------------------------------------------------------

def test_round_page_offers_the_draw_and_draws_a_draft(app, op):
    tid = make_tournament(app, 9)
    page = op.get(url(tid, 1))
    assert page.status_code == 200 and "Draw round 1" in text(page)
    resp = op.post(url(tid, 1, "draw"), data={"version": version(app, tid)})
    assert resp.status_code == 302 and resp.headers["Location"].endswith(url(tid, 1))
    [(n, status, tables, _flags)] = round_state(app, tid)
    assert (n, status, len(tables)) == (1, "draft", 3)
    page = text(op.get(url(tid, 1)))
    assert "Draft, not published" in page and "Publish round 1" in page and "Swap two seats" in page
    with app.app_context():
        names = [p.name for p in db.session.get(Tournament, tid).players]
    assert all(name in page for name in names)
    assert "Round 1 is drawn" in page  # the flash after the redirect


def test_start_round_without_number_draws_the_next_round(app, op):
    tid = make_tournament(app, 9)
    resp = op.post(f"/operator/t/{tid}/round/draw", data={"version": version(app, tid)})
    assert resp.status_code == 302 and round_state(app, tid)[0][:2] == (1, "draft")


def test_draw_refused_for_28_players_with_the_engines_message(app, op):
    tid = make_tournament(app, 28)
    v = version(app, tid)
    resp = op.post(url(tid, 1, "draw"), data={"version": v})
    assert resp.status_code == 422
    assert "add 2 players or withdraw 1" in text(resp) and 'role="alert"' in text(resp)
    assert round_state(app, tid) == [] and version(app, tid) == v
    with app.app_context():
        t = db.session.get(Tournament, tid)
        assert t.status == "setup" and not any(p.nominated for p in t.players)


@pytest.mark.parametrize("lang, message", [("en", "Round 1: there are no players to seat. Check the players in first."),
                                           ("sk", "1. kolo: nie je koho nasadiť. Najprv zaprezentujte hráčov.")])
def test_sem_b2_a_draw_with_nobody_checked_in_says_so_in_the_operators_language(app, op, lang, message):
    tid = make_tournament(app, 9, checked_in=False)
    resp = op.post(url(tid, 1, "draw") + f"?lang={lang}", data={"version": version(app, tid)})
    assert resp.status_code == 422 and message in text(resp)
    assert round_state(app, tid) == []


@pytest.mark.parametrize("sent", [{"version": "0"}, {}])
def test_draw_with_stale_or_missing_version_is_refused(app, op, sent):
    tid = make_tournament(app, 9)
    resp = op.post(url(tid, 1, "draw"), data=sent)
    assert resp.status_code == 422 and "Someone changed this tournament" in text(resp)
    assert round_state(app, tid) == []


def test_draw_of_a_round_that_is_not_next_is_refused(app, op):
    tid = make_tournament(app, 9)
    resp = op.post(url(tid, 2, "draw"), data={"version": version(app, tid)})
    assert resp.status_code == 422 and "the next round is 1" in text(resp)
    assert round_state(app, tid) == []
    draw(app, tid)
    resp = op.post(url(tid, 2, "draw"), data={"version": version(app, tid)})
    assert resp.status_code == 422 and "Round 1 is not closed yet" in text(resp)
    assert len(round_state(app, tid)) == 1


def test_round_pages_that_do_not_exist_and_access(app, op, client):
    tid = make_tournament(app, 9)
    assert op.get(url(tid, 2)).status_code == 404
    assert op.get(url(tid, 7)).status_code == 404
    assert op.get(url(999, 1)).status_code == 404
    op.post("/logout")
    assert client.get(url(tid, 1)).status_code == 302
    make_user(app, "ref", role="referee")
    login(client, "ref")
    assert client.get(url(tid, 1)).status_code == 403


def test_round_page_as_htmx_fragment(app, op):
    tid = make_tournament(app, 9)
    draw(app, tid, publish=True)
    resp = op.get(url(tid, 1), headers=HX)
    body = text(resp)
    assert resp.status_code == 200 and body.lstrip().startswith('<div id="round-body"')
    assert "<html" not in body and 'hx-trigger="every 20s"' in body
    assert "HX-Request" in resp.headers["Vary"]


# --- manual swaps --------------------------------------------------------------------------

def test_swap_with_htmx_rerenders_the_draw_fragment(app, op):
    tid = make_tournament(app, 9)
    draw(app, tid)
    [(_n, _s, tables, _f)] = round_state(app, tid)
    a, b = tables[0][0], tables[1][2]
    v = version(app, tid)
    resp = op.post(url(tid, 1, "swap"), data={"version": v, "a": a, "b": b}, headers=HX)
    body = text(resp)
    assert resp.status_code == 200 and body.lstrip().startswith('<div id="round-body"') and "<html" not in body
    assert f"Start numbers {a} and {b} have swapped seats" in body
    assert f'name="version" type="hidden" value="{v + 1}"' in body or f'value="{v + 1}"' in body
    [(_n, _s, after, flags)] = round_state(app, tid)
    assert after[0][0] == b and after[1][2] == a
    assert "manual" in flags[0] and "manual" in flags[1] and "manual" not in flags[2]
    assert body.count(">manual<") == 2


def test_swap_without_js_redirects_with_a_flash(app, op):
    tid = make_tournament(app, 9)
    draw(app, tid)
    tables = round_state(app, tid)[0][2]
    a, b = tables[0][1], tables[0][2]
    resp = op.post(url(tid, 1, "swap"), data={"version": version(app, tid), "a": a, "b": b})
    assert resp.status_code == 302
    assert f"Start numbers {a} and {b} have swapped seats" in text(op.get(url(tid, 1)))
    assert round_state(app, tid)[0][2][0][1:] == [b, a]


def test_swap_that_seats_two_club_mates_together_warns(app, op):
    tid = make_tournament(app, 27)
    draw(app, tid)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        club = {p.start_no: p.club for p in t.players if p.status not in ("guest", "licensed")}
        tabs = t.rounds[0].tables
        a = b = None
        for tab in tabs:
            for i, x in enumerate(tab.players):
                others = [club.get(y) for j, y in enumerate(tab.players) if j != i and club.get(y)]
                for other in tabs:
                    if other is tab:
                        continue
                    y = next((y for y in other.players if club.get(y) in others), None)
                    if y is not None:
                        a, b = x, y
                        break
                if a:
                    break
            if a:
                break
    assert a and b
    resp = op.post(url(tid, 1, "swap"), data={"version": version(app, tid), "a": a, "b": b}, headers=HX)
    body = text(resp)
    assert resp.status_code == 200 and "two players of one club now sit together" in body
    assert 'class="badge warn"' in body and ">same club<" in body
    assert any("same-club" in f for f in round_state(app, tid)[0][3])


def test_swap_with_an_unknown_start_number_changes_nothing(app, op):
    tid = make_tournament(app, 9)
    draw(app, tid)
    before, v = round_state(app, tid), version(app, tid)
    resp = op.post(url(tid, 1, "swap"), data={"version": v, "a": 999, "b": 1}, headers=HX)
    assert resp.status_code == 422 and "Start number 999 is not seated in round 1" in text(resp)
    assert text(resp).lstrip().startswith('<div id="round-body"')
    assert round_state(app, tid) == before and version(app, tid) == v


def test_swap_with_bad_input_shows_the_error_next_to_the_field(app, op):
    tid = make_tournament(app, 9)
    draw(app, tid)
    before, v = round_state(app, tid), version(app, tid)
    resp = op.post(url(tid, 1, "swap"), data={"version": v, "a": "abc", "b": ""}, headers=HX)
    body = text(resp)
    assert resp.status_code == 422 and body.count("has-error") == 2 and "round-body" in body
    assert round_state(app, tid) == before and version(app, tid) == v


def test_swap_with_a_stale_version_is_refused_and_shows_the_current_draw(app, op):
    tid = make_tournament(app, 9)
    draw(app, tid)
    tables = round_state(app, tid)[0][2]
    stale = version(app, tid)
    op.post(url(tid, 1, "swap"), data={"version": stale, "a": tables[0][0], "b": tables[1][0]})
    before, v = round_state(app, tid), version(app, tid)
    resp = op.post(url(tid, 1, "swap"), data={"version": stale, "a": tables[0][1], "b": tables[1][1]}, headers=HX)
    assert resp.status_code == 422 and "Someone changed this tournament" in text(resp)
    assert round_state(app, tid) == before and version(app, tid) == v
    assert f'value="{v}"' in text(resp)


def test_swap_after_publishing_is_refused(app, op):
    tid = make_tournament(app, 9)
    draw(app, tid, publish=True)
    before = round_state(app, tid)
    resp = op.post(url(tid, 1, "swap"), data={"version": version(app, tid), "a": 1, "b": 2}, headers=HX)
    assert resp.status_code == 422 and "seats can no longer be swapped" in text(resp)
    assert round_state(app, tid) == before


# --- discard and publish -----------------------------------------------------------------

def test_discard_the_draft_and_draw_again(app, op):
    tid = make_tournament(app, 9)
    draw(app, tid)
    resp = op.post(url(tid, 1, "discard"), data={"version": version(app, tid)})
    assert resp.status_code == 302 and round_state(app, tid) == []
    page = text(op.get(url(tid, 1)))
    assert "The draw of round 1 is discarded" in page and "Draw round 1" in page


def test_discard_refused_when_stale_or_published(app, op):
    tid = make_tournament(app, 9)
    draw(app, tid)
    resp = op.post(url(tid, 1, "discard"), data={"version": version(app, tid) - 1})
    assert resp.status_code == 422 and "Someone changed" in text(resp) and len(round_state(app, tid)) == 1
    op.post(url(tid, 1, "publish"), data={"version": version(app, tid)})
    resp = op.post(url(tid, 1, "discard"), data={"version": version(app, tid)})
    assert resp.status_code == 422 and "Only a draw that is not published can be discarded" in text(resp)
    assert round_state(app, tid)[0][1] == "published"


def test_publish_and_publish_twice(app, op):
    tid = make_tournament(app, 9)
    draw(app, tid)
    old = version(app, tid)
    resp = op.post(url(tid, 1, "publish"), data={"version": old})
    assert resp.status_code == 302 and round_state(app, tid)[0][1] == "published"
    page = text(op.get(url(tid, 1)))
    assert "Round 1 is published" in page and "Print the sheets" in page and "Tables in: 0 / 3" in page
    assert "Start round 1" in page
    v = version(app, tid)
    resp = op.post(url(tid, 1, "publish"), data={"version": v})
    assert resp.status_code == 422 and "Round 1 is already published" in text(resp)
    resp = op.post(url(tid, 1, "publish"), data={"version": old})
    assert resp.status_code == 422 and "Someone changed" in text(resp)
    assert version(app, tid) == v


def test_publish_of_a_round_that_does_not_exist_is_404(app, op):
    tid = make_tournament(app, 9)
    assert op.post(url(tid, 1, "publish"), data={"version": version(app, tid)}).status_code == 404


def test_cut_round_shows_who_advances_and_who_is_eliminated(app, op):
    tid = make_tournament(app, 27)
    for k in (1, 2, 3):
        play_round(app, tid, seed=k)
    draw(app, tid)
    with app.app_context():
        r = db.session.get(Tournament, tid).rounds[-1]
        advancing, eliminated = list(r.advancing), list(r.eliminated)
    assert advancing and eliminated
    page = text(op.get(url(tid, 4)))
    assert "Cut round: players with at least 7 points play on" in page
    assert f"Advancing: {len(advancing)} players" in page and f"Eliminated: {len(eliminated)} players" in page


# --- the round clock ------------------------------------------------------------------------

def test_clock_cannot_start_before_publishing(app, op):
    tid = make_tournament(app, 9)
    draw(app, tid)
    resp = op.post(url(tid, 1, "clock"), data={"version": version(app, tid)})
    assert resp.status_code == 422 and "Publish the draw before starting the round" in text(resp)
    with app.app_context():
        assert db.session.get(Tournament, tid).rounds[0].started_at is None


def test_clock_start_refused_when_stale(app, op):
    tid = make_tournament(app, 9)
    draw(app, tid, publish=True)
    resp = op.post(url(tid, 1, "clock"), data={"version": version(app, tid) - 1})
    assert resp.status_code == 422 and "Someone changed" in text(resp)
    with app.app_context():
        assert db.session.get(Tournament, tid).rounds[0].started_at is None


def test_clock_start_and_its_data_attributes(app, op):
    tid = make_tournament(app, 9)
    draw(app, tid, publish=True)
    resp = op.post(url(tid, 1, "clock"), data={"version": version(app, tid)})
    assert resp.status_code == 302
    with app.app_context():
        r = db.session.get(Tournament, tid).rounds[0]
        assert r.started_at is not None
        r.started_at = datetime(2026, 3, 14, 9, 0, 0)  # 10:00 in Bratislava
        db.session.commit()
    page = text(op.get(url(tid, 1)))
    assert 'data-started-at="2026-03-14T09:00:00Z"' in page and 'data-minutes="50"' in page
    now = re.search(r'data-now="(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"', page)
    assert now and abs((datetime.strptime(now.group(1), "%Y-%m-%dT%H:%M:%SZ") - datetime.now(timezone.utc).replace(tzinfo=None)).total_seconds()) < 60
    assert "Time — play until player 3 has dealt" in page
    # without JS: the start and the end in local time
    assert "Started at 10:00, time is called at 10:50 (50 minutes)." in page
    assert "js/clock.js" in page and "Start round 1" not in page
    # a second start (another tab) does not move the clock
    op.post(url(tid, 1, "clock"), data={"version": version(app, tid)})
    with app.app_context():
        assert db.session.get(Tournament, tid).rounds[0].started_at == datetime(2026, 3, 14, 9, 0, 0)


def test_clock_script_is_served(anon):
    js = text(anon.get("/static/js/clock.js"))
    assert "data-clock" in js and "dataset.now" in js and "overText" in js


# --- print sheets ---------------------------------------------------------------------------

def test_print_sheets_with_qr_codes(app, op):
    tid = make_tournament(app, 9)
    draw(app, tid, publish=True)
    assert "1. kolo" in text(op.get(url(tid, 1, "sheets")))  # SEM's paper is Slovak, whoever prints it
    with app.app_context():
        db.session.get(Tournament, tid).paper_language = "en"  # the tournament's own paper language
        db.session.commit()
    resp = op.get(url(tid, 1, "sheets"))
    page = text(resp)
    assert resp.status_code == 200
    assert page.count('<article class="paper-sheet">') == 3
    assert page.count('<svg class="qr"') == 3 and "<path" in page
    assert "@media print" not in page  # the print rules live in the stylesheet
    with app.app_context():
        t = db.session.get(Tournament, tid)
        by_no = {p.start_no: p for p in t.players}
        tab = t.rounds[0].tables[1]
        third = by_no[tab.players[2]]
    surname, first = third.name.split(" ", 1)
    assert f'<td class="ps-surname">{surname}</td>' in page and f"<td>{first}</td>" in page
    assert f"Cards of player 3: {third.name}" in page  # SEM-C3, round 1
    assert "Table 2" in page and "Round 1" in page
    assert page.count("= €30.00") == 6
    assert "Trial sum" in page and "Final sum" in page and "Signature" in page and "Referee" in page
    assert "The QR codes point to localhost, which phones cannot reach" in page
    links = re.findall(r'<div class="ps-qr" title="([^"]+)"', page)
    assert len(links) == 3 and all(link.startswith("http://localhost/s/") for link in links)
    with app.app_context():
        assert [read_table_token(link.rsplit("/", 1)[1]) for link in links] == [(tid, 1, k) for k in (1, 2, 3)]


def test_print_sheets_in_slovak_show_the_total_as_30_00_eur(app, op):
    tid = make_tournament(app, 9)
    draw(app, tid, publish=True)
    op.set_cookie("lang", "en")  # the operator's language: the paper stays Slovak (SEM's players)
    assert "= 30,00\xa0€" in text(op.get(url(tid, 1, "sheets")))


def test_print_sheets_use_the_public_url_when_set(app, op):
    tid = make_tournament(app, 9)
    draw(app, tid, publish=True)
    app.config["LISTOK_PUBLIC_URL"] = "https://listok.example/"
    page = text(op.get(url(tid, 1, "sheets")))
    links = re.findall(r'<div class="ps-qr" title="([^"]+)"', page)
    assert len(links) == 3 and all(link.startswith("https://listok.example/s/") for link in links)
    assert "phones cannot reach" not in page


def test_print_sheets_name_the_cards_of_the_round(app, op):
    tid = make_tournament(app, 9)
    play_round(app, tid, seed=1)
    play_round(app, tid, seed=2)
    draw(app, tid, publish=True)
    with app.app_context():
        db.session.get(Tournament, tid).paper_language = "en"
        db.session.commit()
    page = text(op.get(url(tid, 3, "sheets")))
    assert page.count("Cards of player 2:") == 3 and "Cards of player 3" not in page


def test_print_sheets_of_a_draft_are_refused(app, op):
    tid = make_tournament(app, 9)
    draw(app, tid)
    resp = op.get(url(tid, 1, "sheets"))
    assert resp.status_code == 302 and resp.headers["Location"].endswith(url(tid, 1))
    assert "Publish the draw before printing the sheets" in text(op.get(url(tid, 1)))
    assert op.get(url(tid, 2, "sheets")).status_code == 404


# --- table tokens ---------------------------------------------------------------------------

def test_token_round_trip_and_refusals(app):
    with app.test_request_context("/?lang=en"):
        token = table_token(7, 2, 13)
        assert read_table_token(token) == (7, 2, 13)
        assert read_table_token(token, tournament_id=7) == (7, 2, 13)
        with pytest.raises(TokenError, match="another tournament"):
            read_table_token(token, tournament_id=8)
        with pytest.raises(TokenError):
            read_table_token("not-a-token")
        payload, rest = token.split(".", 1)
        other = table_token(8, 2, 13).split(".", 1)[0]
        with pytest.raises(TokenError):
            read_table_token(f"{other}.{rest}")  # the tournament id changed, the signature kept
        with pytest.raises(TokenError):
            read_table_token(token[:-2] + ("AA" if token[-2:] != "AA" else "BB"))
        with pytest.raises(TokenExpired):
            read_table_token(token, max_age=-1)
        app.config["SECRET_KEY"] = "another-server"
        with pytest.raises(TokenError):
            read_table_token(token)


# --- the table page behind the QR code ----------------------------------------------------------

def token_for(app, tid, n, table):
    with app.test_request_context():
        return table_token(tid, n, table)


def test_table_page_shows_round_table_players_and_cards(app, anon):
    tid = make_tournament(app, 9)
    draw(app, tid, publish=True)
    resp = anon.get(f"/s/{token_for(app, tid, 1, 2)}")
    page = text(resp)
    assert resp.status_code == 200 and "Round 1, table 2" in page
    with app.app_context():
        t = db.session.get(Tournament, tid)
        by_no = {p.start_no: p for p in t.players}
        seated = [by_no[s] for s in t.rounds[0].tables[1].players]
    for p in seated:
        surname, first = p.name.split(" ", 1)
        assert f"<b>{surname}</b> {first}" in page and (p.club or "") in page
    assert f"Cards of player 3: {seated[2].name}" in page
    assert "No sheet has been received" in page and 'name="viewport"' in page


def test_table_page_shows_the_sums_once_a_sheet_is_in(app, anon):
    tid = make_tournament(app, 9)
    draw(app, tid, publish=True)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        rounds.record_sheet(t, t.rounds[0].tables[0], [D("14.50"), D("10.00"), D("5.50")], "test")
        db.session.commit()
    page = text(anon.get(f"/s/{token_for(app, tid, 1, 1)}"))
    assert "Sheet received" in page and "€14.50" in page and "€5.50" in page


def test_table_page_refuses_forged_and_altered_tokens(app, anon):
    tid = make_tournament(app, 9)
    draw(app, tid, publish=True)
    resp = anon.get("/s/forged.token.here")
    assert resp.status_code == 404 and "This table link is not valid" in text(resp)
    assert "Traceback" not in text(resp)
    token = token_for(app, tid, 1, 1)
    altered = token_for(app, tid, 1, 2).split(".", 1)[0] + "." + token.split(".", 1)[1]
    assert anon.get(f"/s/{altered}").status_code == 404
    assert anon.get(f"/s/{token_for(app, tid, 1, 9)}").status_code == 404  # no table 9


def test_table_page_refuses_another_tournaments_token(app, anon):
    tid = make_tournament(app, 9)
    draw(app, tid, publish=True)
    # a genuine token of a tournament that does not exist here
    assert anon.get(f"/s/{token_for(app, tid + 1, 1, 1)}").status_code == 404
    # the same table of another tournament opens that tournament's sheet, never this one's
    other = make_tournament(app, 9, name="SEM 6 - Trnava")
    draw(app, other, publish=True)
    page = text(anon.get(f"/s/{token_for(app, other, 1, 1)}"))
    assert "SEM 6 - Trnava" in page and "SEM 5 - Poprad" not in page


def test_table_page_refuses_an_expired_token(app, anon):
    tid = make_tournament(app, 9)
    draw(app, tid, publish=True)
    token = token_for(app, tid, 1, 1)
    app.config["LISTOK_TABLE_TOKEN_MAX_AGE"] = -1
    resp = anon.get(f"/s/{token}")
    assert resp.status_code == 410 and "This table link has expired" in text(resp)


def test_table_page_refuses_other_rounds(app, anon):
    tid = make_tournament(app, 9)
    play_round(app, tid, seed=1, close=True)
    old = token_for(app, tid, 1, 1)
    resp = anon.get(f"/s/{old}")
    assert resp.status_code == 410 and "Round 1 is over" in text(resp)
    draw(app, tid)  # round 2, a draft
    resp = anon.get(f"/s/{token_for(app, tid, 2, 1)}")
    assert resp.status_code == 410 and "not the round being played now" in text(resp)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        rounds.publish_round(t, t.rounds[1], "test", t.version)
        db.session.commit()
    assert anon.get(f"/s/{token_for(app, tid, 2, 1)}").status_code == 200
    assert anon.get(f"/s/{old}").status_code == 410


# --- the projector ----------------------------------------------------------------------------

def test_projector_needs_no_login_and_never_shows_a_draft(app, anon):
    tid = make_tournament(app, 9)
    resp = anon.get(f"/t/{tid}/projector")
    assert resp.status_code == 200 and "The seating will be shown here" in text(resp)
    draw(app, tid)
    page = text(anon.get(f"/t/{tid}/projector"))
    with app.app_context():
        names = [p.name for p in db.session.get(Tournament, tid).players]
    assert not any(name in page for name in names) and "Tables in" not in page
    assert anon.get("/t/999/projector").status_code == 404


def test_projector_shows_seating_progress_and_clock(app, anon):
    tid = make_tournament(app, 9)
    draw(app, tid, publish=True)
    page = text(anon.get(f"/t/{tid}/projector"))
    assert "Seating, round 1" in page and "Tables in: 0 / 3" in page and "The round starts soon" in page
    assert 'hx-trigger="every 15s"' in page and 'http-equiv="refresh"' in page
    with app.app_context():
        t = db.session.get(Tournament, tid)
        names = [p.name for p in t.players]
        rounds.start_clock(t, t.rounds[0], "test")
        rounds.record_sheet(t, t.rounds[0].tables[0], [D(10), D(10), D(10)], "test")
        db.session.commit()
    page = text(anon.get(f"/t/{tid}/projector"))
    assert all(name in page for name in names)
    assert "Tables in: 1 / 3" in page and "data-started-at=" in page and 'data-minutes="50"' in page


def test_projector_fragment_pages_through_seating_and_standings(app, anon):
    tid = make_tournament(app, 120)
    play_round(app, tid, seed=1)
    play_round(app, tid, seed=2)
    draw(app, tid, publish=True)  # round 3: 40 tables → 2 pages; standings (SEM-C9: from round 2): 3 pages
    first = anon.get(f"/t/{tid}/projector", headers=HX)
    body = text(first)
    assert first.status_code == 200 and body.lstrip().startswith('<div id="projector-body"') and "<html" not in body
    assert "HX-Request" in first.headers["Vary"]
    assert "Seating, round 3" in body and "Page 1 of 2" in body and f"/t/{tid}/projector?slide=1" in body
    assert body.count('<span class="pj-table-no">') == 36
    body = text(anon.get(f"/t/{tid}/projector?slide=1", headers=HX))
    assert "Page 2 of 2" in body and body.count('<span class="pj-table-no">') == 4
    body = text(anon.get(f"/t/{tid}/projector?slide=2", headers=HX))
    assert "Standings after round 2" in body and "Page 1 of 3" in body
    with app.app_context():
        from webapp.rules.report import standings_report
        from webapp.services.engine import rules_tournament

        top = standings_report(rules_tournament(db.session.get(Tournament, tid), closed_only=True))["standings"][0]
    assert top["name"] in body and f"€{D(top['money']):.2f}" in body
    assert body.count("<tr><td class=\"num\">") == 40
    body = text(anon.get(f"/t/{tid}/projector?slide=4", headers=HX))
    assert "Page 3 of 3" in body and f"/t/{tid}/projector?slide=0" in body
    assert "Seating, round 3" in text(anon.get(f"/t/{tid}/projector?slide=5", headers=HX))  # wraps round


def test_projector_between_rounds_shows_the_standings(app, anon):
    tid = make_tournament(app, 9)
    play_round(app, tid, seed=1)
    page = text(anon.get(f"/t/{tid}/projector"))
    assert "Standings after round 1" not in page  # SEM-C9: as the public standings, from round 2 on
    play_round(app, tid, seed=2)
    page = text(anon.get(f"/t/{tid}/projector"))
    assert "Standings after round 2" in page and "Seating" not in page and "Page 1 of" not in page
