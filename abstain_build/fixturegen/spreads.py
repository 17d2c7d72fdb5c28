"""A brochure of two-page photo spreads: the pages that made document readings slow.

A travel or product brochure exported to PDF places each spread as one picture, then each
half and each photo again on top of it, with captions printed inside the photos and a
line of real text per page. Every picture is large enough to be read as a chart, and the
pictures overlap: read one by one, a spread's pixels are OCR'd up to five times. Not part
of the shipped fixtures; the benchmarks and tests build it on demand.
"""

from __future__ import annotations

import io

import numpy as np
import pymupdf
from PIL import Image, ImageDraw, ImageFont

SPREAD = (1190.0, 842.0)  # two A4 pages side by side, points
PLACES = ("Lisbon", "Porto", "Madeira", "Azores", "Sintra", "Faro", "Evora", "Braga")


def _photo(size: tuple[int, int], caption: str, rng: np.random.Generator) -> bytes:
    """A textured 'photo' (smooth colour field plus noise) with a printed caption."""
    width, height = size
    base = rng.integers(40, 215, size=3)
    ramp = np.linspace(0.7, 1.2, width)[None, :, None]
    field = np.clip(base[None, None, :] * ramp + rng.normal(0, 18, (height, width, 3)), 0, 255)
    image = Image.fromarray(field.astype(np.uint8), "RGB")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=max(14, height // 18))
    box = draw.textbbox((0, 0), caption, font=font)
    x, y = width // 20, height - (box[3] - box[1]) - height // 12
    draw.rectangle((x - 6, y - 6, x + box[2] + 6, y + box[3] + 6), fill=(250, 250, 245))
    draw.text((x, y), caption, fill=(20, 20, 20), font=font)
    out = io.BytesIO()
    image.save(out, "JPEG", quality=80)
    return out.getvalue()


def photo_spread_pdf(pages: int = 4, seed: int = 0, pixels_per_point: float = 1.5) -> bytes:
    """``pages`` spreads, each a picture of the whole spread, one per half and three photos
    inside them, overlapping; each with its own caption, and a text line per page."""
    rng = np.random.default_rng(seed)
    document = pymupdf.open()
    width, height = SPREAD
    half = width / 2

    def place(page: pymupdf.Page, rect: pymupdf.Rect, caption: str) -> None:
        size = (int(rect.width * pixels_per_point), int(rect.height * pixels_per_point))
        page.insert_image(rect, stream=_photo(size, caption, rng))

    for number in range(pages):
        page = document.new_page(width=width, height=height)
        where = PLACES[number % len(PLACES)]
        place(page, pymupdf.Rect(0, 0, width, height), f"{where} at dusk, spread {number + 1}")
        place(page, pymupdf.Rect(0, 0, half, height), f"The old town of {where}")
        place(page, pymupdf.Rect(half, 0, width, height), f"Harbour walk, {where}")
        place(page, pymupdf.Rect(60, 80, 520, 420), f"Market day in {where}")
        place(page, pymupdf.Rect(half + 60, 120, width - 60, 520), f"Tiled facades {number + 7}")
        place(page, pymupdf.Rect(400, 450, 820, 780), f"Route {number + 12} along the coast")
        page.insert_text(
            (60, height - 24), f"Discover {where}: page {number + 1}", fontname="helv", fontsize=12
        )
    data = document.tobytes(garbage=3, deflate=True)
    document.close()
    return data
