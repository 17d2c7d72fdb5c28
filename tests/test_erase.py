"""Background-matched erasing removes the text and leaves the colour that was around it."""

from __future__ import annotations

import numpy as np
import pymupdf

from abstain_build.textregions.number_boxes import place_numbers
from abstain_build.textregions.pages import text_layer_words
from abstain_build.transforms.functional.erase import erase_pixels, erase_text

SHADE = (0.85, 0.92, 1.0)  # a light-blue table row


def _page_with_shaded_row(document: pymupdf.Document) -> pymupdf.Page:
    page = document.new_page()
    page.draw_rect(pymupdf.Rect(60, 80, 400, 110), color=None, fill=SHADE)
    page.insert_text((72, 100), "Cloud Services 2,158.7 1,864.0 32.9%", fontsize=11)
    page.insert_text((72, 150), "Total revenue 11,642.4 on white paper", fontsize=11)
    return page


def _render(page: pymupdf.Page, rect: pymupdf.Rect) -> np.ndarray:
    pix = page.get_pixmap(dpi=144, clip=rect, alpha=False)
    return np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, pix.n)


def test_numbers_vanish_into_their_background() -> None:
    with pymupdf.open() as document:
        page = _page_with_shaded_row(document)
        targets = [p for p in place_numbers(text_layer_words(page)) if p.token.is_quantity]
        assert [p.token.text for p in targets] == ["2,158.7", "1,864.0", "32.9%", "11,642.4"]
        done = erase_text(page, [p.bbox for p in targets])
        text = page.get_text()
        for item in targets:
            assert item.token.text not in text
        assert "Cloud Services" in text and "Total revenue" in text, "the words around stay"
        shaded = [tuple(d["fill"]) for d in done[:3]]
        for fill in shaded:
            assert np.allclose(fill, SHADE, atol=0.03), fill
        assert np.allclose(done[3]["fill"], (1, 1, 1), atol=0.02)
        for item, record in zip(targets, done, strict=True):
            pixels = _render(page, pymupdf.Rect(item.bbox)).astype(float) / 255
            assert np.abs(pixels - np.array(record["fill"])).max() < 0.05, "no ink, no box"


def test_pixel_erase_uses_the_surrounding_colour() -> None:
    image = np.full((60, 200, 3), (200, 180, 90), dtype=np.uint8)
    image[20:40, 50:120] = 0  # "ink"
    out, fills = erase_pixels(image, [(48, 18, 122, 42)])
    assert fills == [(200, 180, 90)]
    assert (out[18:42, 48:122] == (200, 180, 90)).all()
    assert np.array_equal(out[:18], image[:18]), "outside the box nothing changes"


def test_pixel_erase_keeps_alpha_and_gray() -> None:
    rgba = np.zeros((20, 20, 4), dtype=np.uint8)
    rgba[..., :3] = 240
    rgba[..., 3] = 128
    rgba[5:10, 5:10, :3] = 0
    out, _ = erase_pixels(rgba, [(4, 4, 11, 11)])
    assert (out[..., 3] == 128).all() and (out[4:11, 4:11, :3] == 240).all()
    gray = np.full((20, 20), 230, dtype=np.uint8)
    gray[5:10, 5:10] = 10
    out, _ = erase_pixels(gray, [(4, 4, 11, 11)])
    assert (out == 230).all()
