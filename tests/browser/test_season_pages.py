"""The public season pages of the federation server in Chromium at 360 px and
1280 px: rank, name and points on one row without sideways scrolling, the tabs, CSV and
print links work, and no CSP violation (the conftest fails the test on one)."""
from __future__ import annotations

import pytest

from tests.helpers import served

pytestmark = pytest.mark.browser


@pytest.fixture
def federation_server(tmp_path):
    from webapp import create_app
    from webapp.extensions import db
    from webapp.models import Federation, Season, Venue
    from webapp.rules import exchange
    from webapp.services import federation as svc
    from webapp.demo.simulate import make_players, play_tournament

    app = create_app({"SECRET_KEY": "browser-fed", "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'fed.db'}",
                      "LISTOK_ROLE": "federation"})
    with app.app_context():
        db.create_all()
        f = Federation(code="szmk", name="SZMK")
        db.session.add(f)
        db.session.flush()
        v = Venue(name="Poprad", federation_id=f.id)
        s = Season(federation_id=f.id, ruleset="sem", name="2026")
        db.session.add_all([v, s])
        db.session.flush()
        pool = make_players(45, seed=2)
        for k in range(3):
            rt = play_tournament(pool, seed=k, name=f"SEM {k + 1} – Mengusovce", date=f"2026-0{k + 1}-10")
            svc.receive(exchange.dump(rt), season=s, venue=v, source="import", actor="test")
        db.session.commit()
        sid = s.id
    with served(app) as (url, _server):
        yield url, sid
    with app.app_context():
        db.engine.dispose()


@pytest.mark.parametrize("width", [360, 1280])
def test_season_pages_fit_the_screen(browser, federation_server, width):
    base, sid = federation_server
    context = browser.new_context(viewport={"width": width, "height": 800}, locale="en-US")
    page = context.new_page()
    try:
        for path in ("/seasons/", f"/seasons/{sid}/", f"/seasons/{sid}/clubs", f"/seasons/{sid}/rating",
                     f"/seasons/{sid}/historical", f"/seasons/{sid}/tournaments", f"/seasons/{sid}/players/print"):
            response = page.goto(base + path)
            assert response.status == 200, path
            scroll = page.evaluate("document.documentElement.scrollWidth")
            assert scroll <= width, f"{path}: {scroll}px wide at {width}px"
        page.goto(base + f"/seasons/{sid}/")
        row = page.locator("table.season-table tbody tr").first
        boxes = [row.locator(f'td[data-col="{c}"]').bounding_box() for c in ("place", "name", "points")]
        assert all(b is not None for b in boxes)
        tops = {round(b["y"]) for b in boxes}
        assert len(tops) == 1, boxes  # one row: rank, name and points side by side
        assert row.locator('td[data-col="club"]').is_visible() == (width > 600)
        page.get_by_role("link", name="Rating list").click()
        assert page.url.endswith(f"/seasons/{sid}/rating")
        with page.expect_download() as download:
            page.get_by_role("link", name="CSV").click()
        assert download.value.suggested_filename == f"season-{sid}-rating.csv"
    finally:
        context.close()
