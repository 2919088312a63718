"""Draws the web app manifest's icons (webapp/static/icons/*.png) with nothing
but the standard library: a score sheet on the top bar's colour. Run once after
changing the design; the PNGs are committed.

    python3 scripts/make_icons.py
"""
from __future__ import annotations

import struct
import zlib
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "webapp" / "static" / "icons"
BG = (0x10, 0x2A, 0x43, 255)  # .topbar, the manifest's theme_color
SHEET = (255, 255, 255, 255)
LINE = (0x0B, 0x5C, 0xAD, 255)  # --accent
PEN = (0xC8, 0x10, 0x2E, 255)  # --red-pen
CLEAR = (0, 0, 0, 0)


def png(width: int, height: int, rows: list[bytes]) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\x00" + row for row in rows)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def pixel(x: float, y: float, maskable: bool) -> tuple[int, int, int, int]:
    """The colour at (x, y) in [0, 1]²: a maskable icon fills the square and keeps
    its drawing inside the central 80 % circle; the plain one has round corners."""
    if not maskable:
        r = 0.18
        cx, cy = min(max(x, r), 1 - r), min(max(y, r), 1 - r)
        if (x - cx) ** 2 + (y - cy) ** 2 > r * r:
            return CLEAR
    scale = 0.9 if maskable else 1.0  # the corners of the sheet stay 0.37 from the centre
    u, v = 0.5 + (x - 0.5) / scale, 0.5 + (y - 0.5) / scale
    if not (0.27 <= u <= 0.73 and 0.17 <= v <= 0.83):
        return BG
    for top, colour, right in ((0.30, LINE, 0.65), (0.42, LINE, 0.65), (0.54, LINE, 0.65), (0.68, PEN, 0.52)):
        if top <= v <= top + 0.045 and 0.35 <= u <= right:
            return colour
    return SHEET


def icon(size: int, maskable: bool) -> bytes:
    rows = []
    for j in range(size):
        row = bytearray()
        for i in range(size):
            row.extend(pixel((i + 0.5) / size, (j + 0.5) / size, maskable))
        rows.append(bytes(row))
    return png(size, size, rows)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for size in (192, 512):
        (OUT / f"icon-{size}.png").write_bytes(icon(size, maskable=False))
        (OUT / f"icon-maskable-{size}.png").write_bytes(icon(size, maskable=True))
    print("icons written to", OUT)


if __name__ == "__main__":
    main()
