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


@pytest.mark.skipif(not ocr.ocr_available(), reason="Tesseract is not installed")
def test_a_poster_is_read_within_the_pixel_budget_and_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A page far larger than a sheet is read at the resolution the budget allows, not at
    the usual one (which would be 36 million pixels here), and the reading says so."""
    from abstain_build.evidence import reading
    from abstain_build.evidence.map import build_map

    monkeypatch.setattr(reading, "MAX_READ_PIXELS", 2_000_000)
    with pymupdf.open() as document:
        page = document.new_page(width=3000, height=3000)
        page.insert_image(page.rect, stream=photo_png(), keep_proportion=False)
        ocr.clear_memory_cache()
        ocr.reset_ocr_stats()
        readings = read_page(document, 1)
    # Two passes (the page, then the labels it missed), each within the budget.
    assert ocr.ocr_stats()["engine_pixels"] <= 2 * 2_000_000
    (note,) = readings.reduced
    assert "read at 33 dpi instead of 144" in note
    emap = build_map([1], "What is shown?", "Lisbon", "Str", (), {1: readings})
    assert any("could not be read fully" in n and "33 dpi" in n for n in emap.notes)
    # A picture on a text page as large as the poster: the same budget, at its own dpi.
    (figure,) = reading.reduced_figures([(0.0, 0.0, 3000.0, 3000.0)])
    assert "a picture (3000 x 3000 pt) read at 33 dpi instead of 200" in figure
    assert reading.reduced_figures([(0.0, 0.0, 300.0, 400.0)]) == []  # 0.93 million pixels


def photo_png() -> bytes:
    """One picture of the brochure, as PNG bytes."""
    with pymupdf.open(stream=photo_spread_pdf(1), filetype="pdf") as brochure:
        xref = brochure[0].get_images()[0][0]
        return brochure.extract_image(xref)["image"]


@pytest.mark.skipif(not ocr.ocr_available(), reason="Tesseract is not installed")
def test_a_page_read_once_is_read_from_the_run_s_cache_after(tmp_path) -> None:
    """Another worker or a later run finds the whole reading: nothing rendered, nothing
    OCR'd; a torn file is read again; another setting is another entry."""
    from abstain_build.evidence import reading

    ocr.configure_ocr_cache(tmp_path / "ocr")
    try:
        with pymupdf.open(stream=photo_spread_pdf(1), filetype="pdf") as document:
            first = read_page(document, 1)
            ocr.clear_memory_cache()  # as a fresh worker: no OCR results in memory
            ocr.reset_ocr_stats()
            again = read_page(document, 1)
            stats = ocr.ocr_stats()
            (kept,) = (tmp_path / "ocr" / "pages").glob("*.json")
            kept.write_text('{"format": 1, "page": ', encoding="utf-8")
            torn = read_page(document, 1)
            without_figures = read_page(document, 1, figures=False)
    finally:
        ocr.configure_ocr_cache(None)
    assert again == first and torn == first
    assert stats["engine_calls"] + stats["disk_hits"] + stats["memory_hits"] == 0
    assert not [r for r in without_figures.readings if r.channel == reading.OCR_FIGURE]
    assert len(list((tmp_path / "ocr" / "pages").glob("*.json"))) == 2


def test_a_page_another_worker_is_reading_is_passed_over_until_the_end(tmp_path) -> None:
    """Two workers start on questions of one document: while the first reads page 1, the
    second reads the pages after it instead of waiting, then takes page 1 when it is free
    (here nobody stored it, so it reads it itself)."""
    import threading
    import time

    from abstain_build.evidence import reading
    from abstain_build.evidence.page_cache import page_key
    from abstain_build.media.locks import keyed_lock

    document = pymupdf.open()
    for number in range(1, 5):
        document.new_page().insert_text((72, 72), f"Page {number} reports revenue of {number}0")
    ocr.configure_ocr_cache(tmp_path / "ocr")
    kept = tmp_path / "ocr" / "pages"
    try:
        first = document[0]
        key = page_key(first, reading.page_digest(first), reading._settings(True))
        result: dict = {}
        with keyed_lock(kept, key):  # another worker is reading page 1
            worker = threading.Thread(
                target=lambda: result.update(read=reading.read_document(document, "doc"))
            )
            worker.start()
            deadline = time.monotonic() + 30
            while len(list(kept.glob("*.json"))) < 3 and time.monotonic() < deadline:
                time.sleep(0.05)
            read_meanwhile = len(list(kept.glob("*.json")))
            assert "read" not in result  # page 1 is still to come
        worker.join(timeout=30)
    finally:
        ocr.configure_ocr_cache(None)
        reading.forget_documents()
    assert read_meanwhile == 3
    assert sorted(result["read"]) == [1, 2, 3, 4]
    assert "Page 1 reports" in " ".join(r.text for r in result["read"][1].readings)
