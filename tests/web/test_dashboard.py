"""The tournament hub and the public start page link every desk."""
from tests.helpers import login, make_tournament, make_user, play_round


def test_hub_before_and_during_rounds(app, client):
    make_user(app)
    login(client)
    tid = make_tournament(app, 28)
    page = client.get(f"/operator/t/{tid}?lang=en").get_data(as_text=True)
    assert "28 players cannot be seated at tables of 3: add 2 players or withdraw 1" in page
    for href in ("/checkin", "/players", "/nominations", "/standings", "/export.json"):
        assert href in page
    tid = make_tournament(app, 9, name="Nine")
    page = client.get(f"/operator/t/{tid}?lang=en").get_data(as_text=True)
    assert "Draw round 1" in page
    play_round(app, tid, close=False)
    page = client.get(f"/operator/t/{tid}?lang=en").get_data(as_text=True)
    assert "Results desk" in page and "3 / 3" in page and "Draw round 2" not in page


def test_hub_draw_button_draws(app, client):
    make_user(app)
    login(client)
    tid = make_tournament(app, 9)
    page = client.get(f"/operator/t/{tid}?lang=en").get_data(as_text=True)
    version = page.split('name="version" value="')[1].split('"')[0]
    r = client.post(f"/operator/t/{tid}/round/1/draw", data={"version": version})
    assert r.status_code in (302, 303)
    assert "draft" in client.get(f"/operator/t/{tid}?lang=en").get_data(as_text=True)


def test_public_start_page_and_find_player(app, client):
    tid = make_tournament(app, 9)
    page = client.get("/?lang=en").get_data(as_text=True)
    assert "SEM 5 - Poprad" in page and "Show my table" in page
    r = client.get(f"/t/{tid}/find?start_no=4")
    assert r.status_code == 302 and r.headers["Location"].endswith(f"/t/{tid}/player/4")
