"""Draw the page's icons (run once; the PNGs are committed): ``python clients/web/icons/make.py``.

Standard library only (zlib and struct write the PNGs). One drawing: a drop of blood inside an
amber ring on the pages' dark background (``--bg``). ``icon-*.png`` keep it large on a rounded
square with clear corners; ``maskable-*.png`` fill the square and keep the drawing inside the
central circle (radius 40 %) every launcher's mask leaves whole; ``icon.svg`` is the favicon.
"""

from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
BG = (0x0E, 0x0F, 0x12)
RING = (0xFF, 0xB4, 0x54)
DROP = (0xE5, 0x48, 0x4D)
SAMPLES = 4  # per side: 16 samples a pixel smooth the edges


def drop_parts(radius: float) -> tuple[float, float, float, float]:
    """The drop, in units of the content radius from the centre: its circle's centre (y) and
    radius, its tip (y), and the height where the tip's straight sides meet the circle."""
    cy, r, tip = 0.2 * radius, 0.42 * radius, -0.6 * radius
    d = cy - tip
    return cy, r, tip, tip + d * (1 - (r / d) ** 2)


def colour(x: float, y: float, size: int, maskable: bool) -> tuple[int, int, int, int]:
    """The colour at a point (pixels from the top left), drawn shape over shape."""
    half = size / 2
    px, py = x - half, y - half
    content = (0.38 if maskable else 0.46) * size
    if not maskable:  # a rounded square, its corners clear
        corner = 0.2 * size
        qx, qy = max(abs(px) - (half - corner), 0), max(abs(py) - (half - corner), 0)
        if math.hypot(qx, qy) > corner:
            return (0, 0, 0, 0)
    dist = math.hypot(px, py)
    if content * 0.86 <= dist <= content:
        return (*RING, 255)
    cy, r, tip, meet = drop_parts(content * 0.72)
    slope = r / math.sqrt((cy - tip) ** 2 - r**2)
    in_circle = math.hypot(px, py - cy) <= r
    in_cone = tip <= py <= meet and abs(px) <= (py - tip) * slope
    return (*DROP, 255) if in_circle or in_cone else (*BG, 255)


def draw(size: int, maskable: bool) -> bytes:
    """The icon as RGBA rows, each pixel the mean of its samples."""
    rows = bytearray()
    step = 1 / SAMPLES
    for j in range(size):
        rows.append(0)  # no filter
        for i in range(size):
            acc = [0, 0, 0, 0]
            for sj in range(SAMPLES):
                for si in range(SAMPLES):
                    c = colour(i + (si + 0.5) * step, j + (sj + 0.5) * step, size, maskable)
                    acc = [a + v * c[3] if k < 3 else a + v for k, (a, v) in enumerate(zip(acc, c, strict=True))]
            alpha = acc[3]
            rgb = [round(a / alpha) if alpha else 0 for a in acc[:3]]
            rows += bytes([*rgb, round(alpha / SAMPLES**2)])
    return bytes(rows)


def png(size: int, rows: bytes) -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


def svg() -> str:
    """The same drawing for the browser tab, on a 64-unit square."""
    size, content = 64, 0.46 * 64
    cy, r, tip, meet = drop_parts(content * 0.72)
    half_width = (meet - tip) * r / math.sqrt((cy - tip) ** 2 - r**2)
    c = size / 2
    ring = (content * 0.93, content * 0.14)  # the ring's middle, and its width

    def hex_(rgb: tuple[int, int, int]) -> str:
        return "#" + "".join(f"{v:02x}" for v in rgb)

    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {size} {size}">'
        f'<rect width="{size}" height="{size}" rx="{0.2 * size:g}" fill="{hex_(BG)}"/>'
        f'<circle cx="{c:g}" cy="{c:g}" r="{ring[0]:.2f}" fill="none" '
        f'stroke="{hex_(RING)}" stroke-width="{ring[1]:.2f}"/>'
        f'<path fill="{hex_(DROP)}" d="M{c:g} {c + tip:.2f}L{c + half_width:.2f} {c + meet:.2f}'
        f'A{r:.2f} {r:.2f} 0 1 1 {c - half_width:.2f} {c + meet:.2f}Z"/></svg>\n'
    )


def main() -> None:
    for name, size, maskable in (
        ("icon-192.png", 192, False),
        ("icon-512.png", 512, False),
        ("maskable-192.png", 192, True),
        ("maskable-512.png", 512, True),
        ("apple-touch-icon.png", 180, True),  # iOS rounds the corners itself, and wants no clear ones
    ):
        (HERE / name).write_bytes(png(size, draw(size, maskable)))
    (HERE / "icon.svg").write_text(svg())


if __name__ == "__main__":
    main()
