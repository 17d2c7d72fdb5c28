"""Chart labels on colour are read: on a slide exported as a picture, the values printed
on or beside bars and slices are words of the page, for the evidence map and for the
re-read gate alike (:mod:`abstain_build.textregions.labels`)."""

from __future__ import annotations

import numpy as np
import pymupdf
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageDraw

from abstain_build.evidence.map import build_map
from abstain_build.evidence.reading import read_page, read_pixels
from abstain_build.media.fonts import font
from abstain_build.media.images import box_mean, box_sums
from abstain_build.textregions import ocr
from abstain_build.textregions.labels import deviation, ink, label_words, with_labels
from abstain_build.textregions.pages import render_page
from abstain_build.textregions.words import Word

from .conftest import SHARED_DATA

needs_ocr = pytest.mark.skipif(not ocr.ocr_available(), reason="Tesseract is not installed")
needs_shared = pytest.mark.skipif(not SHARED_DATA.is_dir(), reason=f"{SHARED_DATA} is absent")
DECK = SHARED_DATA / "mmlongbench-doc/documents/reportq32015-151009093138-lva1-app6891_95.pdf"


def test_ink_is_what_differs_from_its_neighbourhood_either_way() -> None:
    """Dark text on paper and light text on a bar are ink alike; the bar's inside is not."""
    gray = np.full((60, 200), 255, dtype=np.uint8)
    gray[10:50, 100:200] = 70  # a bar
    gray[25:35, 20:24] = 0  # a dark stroke on paper
    gray[25:35, 150:154] = 255  # a light stroke on the bar
    away = deviation(gray, dpi=72)
    assert away[30, 22] > 60 and away[30, 152] > 60
    assert away[30, 180] < 30 and away[5, 60] < 30  # inside the bar, plain paper


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 40),
    st.integers(1, 40),
    st.sampled_from([3, 5, 15, 19]),
    st.integers(0, 2**32 - 1),
)
def test_box_sums_are_the_neighbourhood_means_times_their_count(
    rows: int, cols: int, size: int, seed: int
) -> None:
    """The label pass compares integer sums; they must be the float means, exactly, with
    the edges repeated, on any shape (smaller than the window too)."""
    pixels = np.random.default_rng(seed).integers(0, 256, (rows, cols), dtype=np.uint8)
    sums = box_sums(pixels, size)
    means = box_mean(pixels.astype(np.float64), size, edges="repeat")
    assert sums.dtype.kind == "i"
    assert np.array_equal(sums, np.rint(means * size * size).astype(sums.dtype))


def test_ink_at_a_contrast_is_the_deviation_over_it() -> None:
    """Ink is decided in integers and agrees with the deviation in gray levels. A lone
    pixel d levels off its ground is 48/49 d from the mean of its window (7 points, 7
    pixels at 72 dpi): 30 levels off is just under a contrast of 30, 31 just over; 61 and
    62 sit either side of 60."""
    gray = np.full((60, 60), 100, dtype=np.uint8)
    gray[10, 10], gray[10, 40] = 130, 131
    gray[40, 10], gray[40, 40] = 161, 162
    low, high = ink(gray, 72, (30.0, 60.0))
    away = deviation(gray, dpi=72)
    assert np.array_equal(low, away > 30.0) and np.array_equal(high, away > 60.0)
    assert [bool(low[10, 10]), bool(low[10, 40])] == [False, True]
    assert [bool(high[40, 10]), bool(high[40, 40])] == [False, True]


def bars_on_colour() -> np.ndarray:
    """Bars with their values printed inside them in white, as slide decks print them."""
    image = Image.new("RGB", (900, 420), "white")
    draw = ImageDraw.Draw(image)
    for row, (value, colour) in enumerate(
        [("44.6%", (66, 133, 244)), ("33.4%", (90, 90, 90)), ("19.8%", (66, 133, 244))]
    ):
        top = 60 + row * 110
        draw.rectangle((150, top, 150 + 600 - row * 150, top + 70), fill=colour)
        draw.text((170, top + 18), value, fill="white", font=font(30, bold=True))
    return np.asarray(image.convert("L"))


@needs_ocr
def test_a_light_label_inside_a_bar_is_read() -> None:
    read = {w.text for w in label_words(bars_on_colour(), dpi=144)}
    assert {"44.6%", "33.4%", "19.8%"} <= read


@needs_ocr
def test_labels_join_the_first_pass_and_replace_its_noise_at_their_place() -> None:
    image = bars_on_colour()
    noise = Word("«::", (165.0, 70.0, 260.0, 110.0), conf=42.0)  # read off the first bar
    words = with_labels([noise], image, dpi=144)
    texts = [w.text for w in words]
    assert "«::" not in texts and "44.6%" in texts
    sure = Word("44.6%", (165.0, 70.0, 260.0, 110.0), conf=95.0)
    assert [w.text for w in with_labels([sure], image, 144)].count("44.6%") == 1


@needs_ocr
def test_each_label_is_a_line_of_its_own() -> None:
    """The label pass reads each candidate as one line: a map's labels, read apart, must
    not share Tesseract's block 1, line 1 with each other or with the first pass, or
    line-based matching joins labels from all over the page."""
    found = label_words(bars_on_colour(), dpi=144)
    assert len(found) >= 3
    assert len({(w.block, w.line) for w in found}) == len(found)
    first_pass = {(1, 1), (1, 2), (2, 3)}
    assert not first_pass & {(w.block, w.line) for w in found}


@needs_ocr
@needs_shared
def test_the_values_of_an_image_only_slide_are_words_of_its_reading() -> None:
    with pymupdf.open(DECK) as document:
        slide_9 = read_page(document, 9)
        slide_7 = read_page(document, 7)
    nine = {w.text.strip('"|*') for r in slide_9.readings for w in r.words}
    seven = {w.text.strip('"|*') for r in slide_7.readings for w in r.words}
    assert {"44.6%", "33.4%", "19.8%", "2.3%"} <= nine
    assert {"51%", "41%"} <= seven


@needs_ocr
@needs_shared
def test_the_gate_reads_the_labels_of_an_edited_slide() -> None:
    with pymupdf.open(DECK) as document:
        page = document[8]
        image = render_page(page, 144)
        size = (page.rect.width, page.rect.height)
    with_them = {w.text for w in read_pixels(9, image, size, labels=True).words}
    assert {"19.8%", "2.3%"} <= with_them


def deck_map(question: str, answer: str, fmt: str, listed: tuple[int, ...]):
    """The evidence map of a question on the deck, over its listed pages only (reading
    all 34 slides would cost a quarter of a minute for nothing these tests look at)."""
    with pymupdf.open(DECK) as document:
        readings = {n: read_page(document, n) for n in listed}
    return build_map(listed, question, answer, fmt, (), readings)


@needs_ocr
@needs_shared
def test_a_difference_of_two_bars_has_both_bars_as_operands() -> None:
    """'Between Java and WP, how large is the difference?' (17.5 = 19.8 - 2.3): the rows
    the answer is computed from are the chart's, so a removal must take them."""
    question = (
        "Between Java and WP, how large is the difference in percentage of their global"
        " developers mindshare?"
    )
    emap = deck_map(question, "17.5", "Float", (9,))
    printed = " ".join(m.printed for m in emap.operands if m.page == 9)
    assert "19.8%" in printed and "2.3%" in printed


@needs_ocr
@needs_shared
def test_the_labels_of_a_listed_slide_are_what_a_computed_answer_is_taken_from() -> None:
    """'Is Vietnam's adoption of iOS 9 higher or lower than the global average, and by how
    much?' (lower, 51 - 13 = 38): the pie's "51%" and the bar's "13%" print no word of the
    question, yet they are what a reader computes the answer from."""
    question = (
        "As of Q3 2015, is vietnam's adoption rate of iOS 9 higher or lower than a global"
        " average rate? What is the difference in percentage?"
    )
    emap = deck_map(question, "['lower', '38']", "List", (7, 15))
    seven = " ".join(m.printed for m in emap.operands if m.page == 7)
    fifteen = " ".join(m.printed for m in emap.operands if m.page == 15)
    assert "51%" in seven and "13%" in fifteen
    assert "Slide" not in fifteen  # the folio is no label
