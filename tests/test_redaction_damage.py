"""A redaction never moves what it does not cover (real 10-K page, skipped without it)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pymupdf
import pytest

from abstain_build.transforms.functional.pdf_edit import (
    FLATTEN_DPI,
    redact_rects,
)

#: Netflix 10-K, page 19: the performance highlights table. MuPDF's redaction of its
#: values re-lays the row labels 12-16 points to the right and runs "2015" into
#: "revenues" in the paragraph under the table.
PAGE = 19


def _page(shared_data: Path) -> tuple[pymupdf.Document, list[pymupdf.Rect]]:
    path = shared_data / "mmlongbench-doc" / "documents" / "NETFLIX_2015_10K.pdf"
    if not path.is_file():
        pytest.skip(f"{path.name} is not in the shared copy")
    document = pymupdf.open(path)
    page = document[PAGE - 1]
    values = [
        pymupdf.Rect(w[:4])
        for w in page.get_text("words")
        if 160 < w[1] < 225 and w[0] > 290 and re.search(r"\d", w[4])
    ]
    return document, values


def _grey(page: pymupdf.Page, clip: pymupdf.Rect) -> np.ndarray:
    pixmap = page.get_pixmap(dpi=FLATTEN_DPI, clip=clip, colorspace=pymupdf.csGRAY)
    shape = (pixmap.height, pixmap.width)
    return np.frombuffer(pixmap.samples, np.uint8).reshape(shape).astype(int)


def test_values_masked_in_a_table_leave_its_labels_and_the_text_below_in_place(
    shared_data: Path,
) -> None:
    document, values = _page(shared_data)
    page = document[PAGE - 1]
    labels = pymupdf.Rect(15, 160, 270, 250)  # the row labels and the paragraph's start
    before = _grey(page, labels)
    redact_rects(page, values)
    assert np.abs(_grey(page, labels) - before).mean() < 1.0  # moved: 11 grey levels
    text = page.get_text()
    assert "Global streaming average monthly revenue" in " ".join(text.split())
    for value in values:  # masked: black in pixels, gone from the text layer
        assert _grey(page, value).mean() < 40
        assert not page.get_textbox(value).strip()


def test_an_erase_left_unpainted_for_later_text_leaves_a_hole_for_it(shared_data: Path) -> None:
    """A corrupted value is erased without a fill and rewritten afterwards: where the
    page has to be covered with its picture, the erased box stays open for the new text."""
    document, values = _page(shared_data)
    page = document[PAGE - 1]
    redact_rects(page, values, fill=[None] * len(values))
    page.insert_text(pymupdf.Point(values[0].x0, values[0].y1 - 2), "999", fontsize=8)
    assert _grey(page, values[0]).min() < 100  # drawn later, and seen
    assert _grey(page, values[1]).min() > 200  # erased and left open: paper shows
