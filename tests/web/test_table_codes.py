"""A table's short code (services/table_codes.py), printed under its QR code:
typed by hand it opens the same sheet; a code of no table being played, or a
made-up one, opens nothing."""
from __future__ import annotations

import pytest

from tests.helpers import english_paper, make_tournament, open_round, play_round, text
from webapp.services import table_codes
from webapp.services.tokens import read_table_token


@pytest.fixture
def field(app):
    tid = make_tournament(app, 9)
    play_round(app, tid, seed=1)
    open_round(app, tid)
    return tid


def test_code_typed_loosely_opens_the_table_sheet(app, anon, field):
    tid = field
    with app.app_context():
        code = table_codes.table_code(tid, 2, 3)
    assert code.startswith("3-") and len(code) == 2 + table_codes.LETTERS
    typed = code.replace("-", " ").lower()
    r = anon.get("/scan/code", query_string={"code": typed})
    assert r.status_code == 302
    token = r.headers["Location"].rsplit("/s/", 1)[1]
    with app.app_context():
        assert read_table_token(token) == (tid, 2, 3)
    assert anon.get(r.headers["Location"]).status_code == 200


def test_code_of_a_closed_round_or_made_up_refused(app, anon, field):
    tid = field
    with app.app_context():
        old = table_codes.table_code(tid, 1, 1)
        other_table = table_codes.table_code(tid, 2, 2)
    made_up = "1-" + other_table.split("-")[1]  # table 2's letters under table 1's number
    for code in (old, made_up, "hello", ""):
        r = anon.get("/scan/code", query_string={"code": code})
        assert r.status_code == 404, code
        assert "No table of a round being played has this code" in text(r)


def test_printed_sheets_carry_the_code_under_the_qr(app, op, field):
    tid = field
    english_paper(app, tid)
    page = text(op.get(f"/operator/t/{tid}/round/2/sheets"))
    with app.app_context():
        assert f"Table code: {table_codes.table_code(tid, 2, 1)}" in page


def test_scan_page_offers_camera_photo_and_code(app, anon, field):
    page = text(anon.get("/scan"))
    assert 'capture="environment"' in page and 'name="code"' in page and "jsQR-1.4.0.js" in page
