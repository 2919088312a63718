"""QR codes for the printed sheets, as inline SVG.

qrcode picks a mask by building the symbol with each of the eight and scoring
every one module by module, most of the print page's time for a venue's
tables. Any mask gives a valid symbol (a reader takes the mask from the format
bits), so the sheets use one fixed mask, and a code costs an eighth of the work.
"""
from __future__ import annotations

import qrcode
from markupsafe import Markup
from qrcode.constants import ERROR_CORRECT_M

# M (15 % of the symbol recoverable): a paper sheet on a card table gets creased,
# written on and spilled on; Q/H would make the code denser for little gain
ERROR_CORRECTION = ERROR_CORRECT_M
MASK = 0
BORDER = 2  # modules of quiet zone; the sheet's white margin adds to it


def qr_matrix(data: str) -> list[list[bool]]:
    """The QR symbol's modules, without the quiet zone."""
    q = qrcode.QRCode(error_correction=ERROR_CORRECTION, border=0, mask_pattern=MASK)
    q.add_data(data)
    q.make(fit=True)
    return q.modules


def qr_svg(data: str) -> Markup:
    """An inline SVG QR code (nothing written to disk): one rectangle per run of dark modules."""
    matrix = qr_matrix(data)
    size = len(matrix) + 2 * BORDER
    path = []
    for r, row in enumerate(matrix):
        c = 0
        while c < len(row):
            if not row[c]:
                c += 1
                continue
            start = c
            while c < len(row) and row[c]:
                c += 1
            path.append(f"M{start + BORDER} {r + BORDER}h{c - start}v1h-{c - start}z")
    # crispEdges: no anti-aliased hairlines between adjacent runs on paper
    return Markup(f'<svg class="qr" role="img" width="{size}mm" height="{size}mm" viewBox="0 0 {size} {size}" '
                  f'shape-rendering="crispEdges" xmlns="http://www.w3.org/2000/svg">'
                  f'<path d="{"".join(path)}"/></svg>')
