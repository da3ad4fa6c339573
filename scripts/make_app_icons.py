"""Draw the installed app's icons (static/icons/): a bold die face, five pips, on the site's colours.

Run once after changing the design: `.venv/bin/python scripts/make_app_icons.py`. The PNGs are
committed; the site never runs this. The "any" icons fill the square with a rounded die; the
maskable one keeps the die inside the middle 60 % (a launcher may crop the icon to a circle of
80 %, so nothing that matters lies outside it), on the theme colour to the edges.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

BACKGROUND = "#16131d"  # the site's --bg, the manifest's background and theme colour
DIE = "#ffcf4a"  # the site's --accent
PIP = "#16131d"
ICONS = Path(__file__).resolve().parent.parent / "static" / "icons"
# Where the five pips sit on the die's face, as fractions of its side.
FIVE = [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)]


def die_icon(size: int, *, die_fraction: float) -> Image.Image:
    """A `size`-pixel square icon whose die's side is `die_fraction` of the icon's."""
    scale = 4  # drawn large and scaled down: smooth edges without antialiasing primitives
    big = size * scale
    image = Image.new("RGB", (big, big), BACKGROUND)
    draw = ImageDraw.Draw(image)
    side = big * die_fraction
    left = top = (big - side) / 2
    draw.rounded_rectangle((left, top, left + side, top + side), radius=side * 0.18, fill=DIE)
    radius = side * 0.09
    for x, y in FIVE:
        cx, cy = left + side * x, top + side * y
        draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill=PIP)
    return image.resize((size, size), Image.Resampling.LANCZOS)


def main() -> None:
    ICONS.mkdir(parents=True, exist_ok=True)
    die_icon(192, die_fraction=0.84).save(ICONS / "icon-192.png", optimize=True)
    die_icon(512, die_fraction=0.84).save(ICONS / "icon-512.png", optimize=True)
    die_icon(512, die_fraction=0.6).save(ICONS / "icon-maskable-512.png", optimize=True)
    die_icon(180, die_fraction=0.7).save(ICONS / "apple-touch-icon.png", optimize=True)
    print(f"icons written to {ICONS}")


if __name__ == "__main__":
    main()
