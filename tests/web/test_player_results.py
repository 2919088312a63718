"""A player's own page shows each rule set's result shape and unit (RULES.md §2), from the rule-set
interface (RuleSet.result_fields, round_results, total_results), in the page's language: SEM money in
€, ČSM ZB + PB + SB with BP (CSM-2, CSM-4), Thousand's game score in points and the final (TH-2, TH-3)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from webapp.extensions import db
from webapp.services.tournament_file import import_tournament

DATA = Path(__file__).resolve().parents[1] / "data"


def imported(app, sample: str) -> int:
    with app.app_context():
        tid = import_tournament((DATA / sample).read_text(encoding="utf-8"), sample, "test").id
        db.session.commit()
        return tid


def visible_text(html: str) -> str:
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace("\xa0", " ")


def test_th_2_th_3_a_finalists_page_shows_scores_in_points_and_the_final_in_russian(app, client):
    """TH-3: the game score in points ("очков", Russian plural forms), no €; TH-2: the final's score is shown
    for a finalist (not "–"), its bracket points are not counted."""
    tid = imported(app, "thousand13.json")
    html = client.get(f"/t/{tid}/player/6?lang=ru").get_data(as_text=True)  # 6 won the final with 1000
    text = visible_text(html)
    assert "€" not in text and "SEM-" not in text
    assert "Финал (TH-2): 1 000 очков" in text
    results = html[:html.index("player-receipts")]
    rows = re.findall(r"<tr data-round=\"\d+\"><td>(\d)</td>(.*?)</tr>", results, flags=re.S)
    assert [r for r, _ in rows] == ["1", "2", "3", "4", "5"]
    final = visible_text(rows[-1][1])
    assert "1 000 очков" in final and "финал" in final and "–" not in final
    for _r, cells in rows[:-1]:
        assert re.search(r"-?[\d ]+ очк(о|а|ов)\b", visible_text(cells))
    assert re.search(r"\d+ оч\.", text)  # the tournament's points
    # the receipt of the final's sheet: scores in points, how the game ended, the points; no €
    code = re.findall(r"receipt\?code=([A-Z2-7-]+)", html)[-1]
    receipt = visible_text(client.get(f"/t/{tid}/receipt?code={code}&lang=ru").get_data(as_text=True))
    assert "€" not in receipt and "1 000 очков" in receipt and "-35 очков" in receipt
    assert "Конец игры: игрок набрал 1 000" in receipt


@pytest.mark.parametrize("n,word", [(1, "очко"), (4, "очка"), (600, "очков"), (21, "очко"), (12, "очков")])
def test_th_3_russian_plural_forms_of_a_score(app, n, word):
    from webapp.i18n import result_text

    with app.test_request_context("/?lang=ru"):
        assert result_text("score", n, None) == f"{n} {word}".replace("600", "600")


def test_csm_2_csm_4_a_players_page_shows_zb_pb_sb_and_bp_in_czech(app, client):
    """CSM-2: ZB, PB and SB per round and in total, CSM-4: BP; no €, no SEM rule."""
    tid = imported(app, "csm14_a.json")
    html = client.get(f"/t/{tid}/player/4?lang=cs").get_data(as_text=True)
    text = visible_text(html)
    assert "€" not in text and "SEM-" not in text
    head = re.search(r"<thead>(.*?)</thead>", html, flags=re.S).group(1)
    assert [visible_text(x).strip() for x in re.findall(r"<th[^>]*>(.*?)</th>", head)] == \
        ["Kolo", "Stůl", "ZB", "PB", "SB", "BP"]
    place = visible_text(re.search(r'<p class="player-place">(.*?)</p>', html, flags=re.S).group(1))
    assert re.search(r"\d+ BP · -?\d+ ZB · \d+ PB · -?\d+ SB", place), place
    # round 1 at table 1: ZB -118, PB 120, SB 2
    row = visible_text(re.search(r"<tr data-round=\"1\"><td>1</td>(.*?)</tr>", html, flags=re.S).group(1))
    assert "-118" in row and "120" in row and " 2 " in f" {row} "
    code = re.findall(r"receipt\?code=([A-Z2-7-]+)", html)[0]
    receipt = visible_text(client.get(f"/t/{tid}/receipt?code={code}&lang=cs").get_data(as_text=True))
    assert "€" not in receipt and "-118 ZB" in receipt and "120 PB" in receipt and "2 SB" in receipt
    assert "Prémiová hra 1: 4" in receipt and "dvě sedmy, 120 PB" in receipt  # CSM-3


def test_sem_a_receipt_shows_amounts_by_the_pages_locale(app, client):
    """Slovak writes 14,50 €: the receipt page too (it showed 14.50)."""
    tid = imported(app, "sem27_poprad.json")
    html = client.get(f"/t/{tid}/player/1?lang=sk").get_data(as_text=True)
    code = re.findall(r"receipt\?code=([A-Z2-7-]+)", html)[0]
    receipt = visible_text(client.get(f"/t/{tid}/receipt?code={code}&lang=sk").get_data(as_text=True))
    assert re.search(r"\d+,\d\d €", receipt) and not re.search(r"\d+\.\d\d\b", receipt)
    assert re.search(r"\b\d b\.", receipt)  # SEM-C6 points


def test_sem_a_players_page_keeps_money_in_euros_and_plural_points_in_english(app, client):
    tid = imported(app, "sem27_poprad.json")
    text = visible_text(client.get(f"/t/{tid}/player/1?lang=en").get_data(as_text=True))
    assert "€" in text and " pts" in text and not re.search(r"\b1 pts\b", text)
