"""The QR codes on the printed sheets (views/operator/qr.py): qrcode's symbol
with a fixed mask, drawn as SVG runs that must cover exactly its modules."""
from __future__ import annotations

import re

import qrcode
from qrcode.constants import ERROR_CORRECT_M

from tests.helpers import make_tournament, text
from webapp.views.operator.qr import BORDER, MASK, qr_svg


def reference(data: str) -> list[list[bool]]:
    """qrcode's own symbol for the data, error correction M, the sheets' mask."""
    q = qrcode.QRCode(error_correction=ERROR_CORRECT_M, border=0, mask_pattern=MASK)
    q.add_data(data)
    q.make(fit=True)
    return q.modules


def svg_modules(svg: str) -> tuple[int, set[tuple[int, int]]]:
    """(size of the viewBox, the dark (row, col) modules) drawn by qr_svg's path."""
    size = int(re.search(r'viewBox="0 0 (\d+) \1"', svg).group(1))
    dark = set()
    for x, y, w in re.findall(r"M(\d+) (\d+)h(\d+)v1h-\3z", re.search(r' d="([^"]*)"', svg).group(1)):
        dark.update((int(y), int(x) + i) for i in range(int(w)))
    return size, dark


def matrix_modules(matrix: list[list[bool]]) -> set[tuple[int, int]]:
    return {(r + BORDER, c + BORDER) for r, row in enumerate(matrix) for c, dark in enumerate(row) if dark}


def test_svg_draws_the_symbol():
    url = "https://listok.example/s/WzEsMywxNDBd.aBcDeF.0123456789abcdefghijklmnopq"
    svg = str(qr_svg(url))
    assert svg.startswith('<svg class="qr" role="img" ') and svg.endswith("</svg>")
    matrix = reference(url)
    size, dark = svg_modules(svg)
    assert size == len(matrix) + 2 * BORDER
    assert dark == matrix_modules(matrix)


def test_every_printed_sheet_carries_the_qr_code_of_its_link(app, op):
    from webapp.extensions import db
    from webapp.models import Tournament
    from webapp.services import rounds

    tid = make_tournament(app, 27)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r = rounds.draw_round(t, "test")
        rounds.publish_round(t, r, "test", t.version)
        db.session.commit()
    page = text(op.get(f"/operator/t/{tid}/round/1/sheets"))
    sheets = re.findall(r'<div class="ps-qr" title="([^"]+)">(<svg .*?</svg>)', page)
    assert len(sheets) == 9 == len({link for link, _svg in sheets})
    for link, svg in sheets:
        matrix = reference(link)
        size, dark = svg_modules(svg)
        assert size == len(matrix) + 2 * BORDER and dark == matrix_modules(matrix), link
