"""Numbers found on a page come with the box of exactly their characters."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pymupdf
import pytest
from PIL import Image, ImageDraw, ImageFont

from abstain_build.textregions.number_boxes import place_numbers
from abstain_build.textregions.ocr import ocr_available, ocr_image
from abstain_build.textregions.pages import text_layer_words

from .conftest import FIXTURES

LINES = [
    "Revenue rose to $4.5bn, up 12.3% from (1,234) in FY2019.",
    "Net loss $ 36.8 million; margin -3.2% (Q3 2020).",
    "Costs 1,234.5 and 2015-2017 totals 7,026.",
]
FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")


def test_text_layer_numbers_get_the_box_of_their_characters() -> None:
    with pymupdf.open() as document:
        page = document.new_page()
        for i, line in enumerate(LINES):
            page.insert_text((72, 100 + 30 * i), line, fontsize=11)
        placed = place_numbers(text_layer_words(page))
        found = [(p.token.text, p.token.kind) for p in placed]
        assert found == [
            ("$4.5bn", "amount"),
            ("12.3%", "percent"),
            ("(1,234)", "amount"),
            ("FY2019", "fiscal_year"),
            ("$ 36.8 million", "amount"),
            ("-3.2%", "percent"),
            ("Q3 2020", "quarter"),
            ("1,234.5", "amount"),
            ("2015-2017", "year_range"),
            ("7,026", "amount"),
        ]
        for item in placed:
            # the box holds the token and nothing of its neighbours (commas, words)
            assert page.get_textbox(pymupdf.Rect(item.bbox)).strip() == item.token.text


def test_every_number_on_a_report_page_is_boxed_exactly() -> None:
    path = FIXTURES / "mmlongbench-doc" / "documents" / "ACME_2021_10K.pdf"
    with pymupdf.open(path) as document:
        page = document[3]
        placed = place_numbers(text_layer_words(page))
        assert len(placed) >= 20
        for item in placed:
            inside = page.get_textbox(pymupdf.Rect(item.bbox))
            assert item.token.text.replace(" ", "") in inside.replace(" ", "").replace("\n", "")


@pytest.mark.skipif(not ocr_available() or not FONT.exists(), reason="needs Tesseract and DejaVu")
def test_ocr_numbers_are_boxed_where_they_were_drawn() -> None:
    image = Image.new("RGB", (900, 80), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(str(FONT), 28)
    draw.text((20, 20), "Sales 1,234.5 up 12.3% to", fill="black", font=font)
    prefix = draw.textbbox((20, 20), "Sales ", font=font)[2]
    end = draw.textbbox((20, 20), "Sales 1,234.5", font=font)[2]
    placed = place_numbers(ocr_image(np.asarray(image)))
    amounts = [p for p in placed if p.token.text == "1,234.5"]
    assert len(amounts) == 1
    x0, _, x1, _ = amounts[0].bbox
    assert abs(x0 - prefix) <= 8 and abs(x1 - end) <= 8
    assert [p.token.text for p in placed] == ["1,234.5", "12.3%"]
