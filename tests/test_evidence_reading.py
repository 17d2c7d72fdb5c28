"""Reading a page costs one OCR pass per pixel: overlapping pictures are read once."""

from __future__ import annotations

import pymupdf
import pytest

from abstain_build.evidence.reading import (
    FIGURE_DPI,
    OCR_FIGURE,
    figure_boxes,
    overlapping_groups,
    read_page,
)
from abstain_build.fixturegen.spreads import photo_spread_pdf
from abstain_build.textregions import ocr


def test_boxes_group_when_they_overlap_and_only_then() -> None:
    spread, half, photo = (0, 0, 100, 50), (0, 0, 50, 50), (10, 10, 30, 30)
    beside, touching = (200, 0, 260, 50), (260, 0, 300, 50)
    assert overlapping_groups([spread, beside, half, photo, touching]) == [[0, 2, 3], [1], [4]]
    chained = [(0, 0, 10, 10), (8, 0, 18, 10), (16, 0, 26, 10)]
    assert overlapping_groups(chained) == [[0, 1, 2]]


@pytest.mark.skipif(not ocr.ocr_available(), reason="Tesseract is not installed")
def test_a_photo_spread_is_read_once_and_each_picture_keeps_its_words() -> None:
    with pymupdf.open(stream=photo_spread_pdf(1), filetype="pdf") as document:
        boxes = figure_boxes(document[0])
        width, height = document[0].rect.width, document[0].rect.height
        ocr.clear_memory_cache()
        ocr.reset_ocr_stats()
        readings = read_page(document, 1)
        stats = ocr.ocr_stats()
    assert len(boxes) == 6  # the spread, its halves and three photos: all overlapping
    figures = [r for r in readings.readings if r.channel == OCR_FIGURE]
    assert [r.region for r in figures] == boxes
    # One engine call over the spread's pixels, not one per picture (2.5 spreads' worth).
    page_pixels = (width * FIGURE_DPI / 72) * (height * FIGURE_DPI / 72)
    assert stats["engine_calls"] + stats["disk_hits"] == 1
    assert stats["engine_pixels"] <= 1.05 * page_pixels
    # Every picture keeps the words inside it, as a reading of its own would have.
    market = next(r for r in figures if r.region == (60.0, 80.0, 520.0, 420.0))
    assert "Market day in Lisbon" in market.text
    assert "Market day in Lisbon" in figures[0].text  # the spread holds the photo
    for reading in figures:
        x0, y0, x1, y1 = reading.region
        for word in reading.words:
            cx, cy = (word.bbox[0] + word.bbox[2]) / 2, (word.bbox[1] + word.bbox[3]) / 2
            assert x0 <= cx <= x1 and y0 <= cy <= y1
