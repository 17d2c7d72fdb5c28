"""New text lands in the text layer where the text it replaces was read (text_order)."""

from __future__ import annotations

import io
import itertools
from pathlib import Path

import numpy as np
import pymupdf
import pytest
from PIL import Image

from abstain_build.transforms.functional.text_edits import TextEdit, edit_text_layer

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "mmlongbench-doc" / "documents"

LINES = [
    "Revenue grew to 4,512 million in the year,",
    "up from 3,980 million a year earlier, while",
    "costs stayed flat at 1,200 million overall.",
]


def _one_text_object_page() -> pymupdf.Document:
    """A page drawn the way TeX draws one: a single BT..ET for all lines, each line a TJ
    positioned from the line before with Td."""
    doc = pymupdf.open()
    page = doc.new_page(width=400, height=200)
    page.insert_font(fontname="helv")
    body = ["BT", "/helv 11 Tf", "1 0 0 1 40 160 Tm"]
    for number, line in enumerate(LINES):
        if number:
            body.append("0 -16 Td")
        body.append(f"[({line})] TJ")
    body.append("ET")
    xref = doc.get_new_xref()
    doc.update_object(xref, "<<>>")
    doc.update_stream(xref, "\n".join(body).encode())
    page.set_contents(xref)
    return doc


def _word_box(page: pymupdf.Page, text: str) -> tuple[float, float, float, float]:
    return next(tuple(w[:4]) for w in page.get_text("words") if w[4] == text)


def _pixels(page: pymupdf.Page) -> np.ndarray:
    pix = page.get_pixmap(dpi=72, alpha=False)
    return np.frombuffer(pix.samples, np.uint8).reshape(pix.height, pix.width, pix.n)


def test_value_is_read_in_its_sentence_inside_one_text_object():
    doc = _one_text_object_page()
    page = doc[0]
    before = _pixels(page)
    box = _word_box(page, "3,980")
    out = edit_text_layer(page, [TextEdit(rect=box, text="4,770")])
    written = [item["written"] for item in out if "written" in item]
    assert written[0]["stream"] == "after"
    text = " ".join(page.get_text().split())
    # Read where the old value was: the line's operator is split around it (not read
    # after its line, nor at the end of the page).
    assert text == (
        "Revenue grew to 4,512 million in the year, up from 4,770 million a year earlier,"
        " while costs stayed flat at 1,200 million overall."
    )
    # The lines after the split are drawn where they were.
    after = _pixels(page)
    changed = np.argwhere(np.abs(after.astype(int) - before.astype(int)).sum(axis=2) > 60)
    assert changed.size
    assert changed[:, 0].min() >= box[1] - 2 and changed[:, 0].max() <= box[3] + 2
    # ... and the rest of the value's own line too, to the pixel.
    assert changed[:, 1].min() >= box[0] - 2 and changed[:, 1].max() <= box[2] + 2


def test_value_is_read_in_place_when_each_word_is_its_own_object():
    doc = pymupdf.open()
    page = doc.new_page(width=400, height=120)
    x = 40.0
    for word in ("Rent", "was", "$34.7", "million", "in", "2015."):
        page.insert_text((x, 60), word, fontname="tiro", fontsize=11)
        x += pymupdf.get_text_length(word + " ", fontname="tiro", fontsize=11)
    page.insert_text((40, 90), "Next paragraph.", fontname="tiro", fontsize=11)
    out = edit_text_layer(page, [TextEdit(rect=_word_box(page, "$34.7"), text="$41.2")])
    assert [item["written"]["stream"] for item in out if "written" in item] == ["after"]
    assert " ".join(page.get_text().split()) == "Rent was $41.2 million in 2015. Next paragraph."
    # The new value is visible: drawn after the erase, not under a fill.
    assert "$41.2" in page.get_text("text", clip=pymupdf.Rect(_word_box(page, "$41.2")))


def test_value_inside_a_form_goes_into_a_private_copy_of_the_form():
    source = _one_text_object_page()
    doc = pymupdf.open()
    for _ in range(2):
        doc.new_page(width=400, height=200).show_pdf_page(pymupdf.Rect(0, 0, 400, 200), source, 0)
    untouched = doc[1].get_text()
    page = doc[0]
    edit_text_layer(page, [TextEdit(rect=_word_box(page, "3,980"), text="4,770")])
    lines = [line.strip() for line in page.get_text().splitlines() if line.strip()]
    assert lines[1:] == [
        "up from 4,770 million a year earlier, while",
        "costs stayed flat at 1,200 million overall.",
    ]
    assert doc[1].get_text() == untouched  # the other page showing the form is unchanged


def test_value_over_a_picture_is_drawn_on_its_background():
    doc = pymupdf.open()
    page = doc.new_page(width=300, height=100)
    shade = np.zeros((100, 300, 3), np.uint8)
    shade[..., :] = (40, 90, 200)
    buffer = io.BytesIO()
    Image.fromarray(shade).save(buffer, format="PNG")
    page.insert_image(page.rect, stream=buffer.getvalue())
    page.insert_text((40, 60), "Share 18% of adults", fontname="helv", fontsize=14, color=(1, 1, 1))
    box = _word_box(page, "18%")
    edit_text_layer(page, [TextEdit(rect=box, text="27%")])
    pixels = _pixels(page)
    x0, y0, x1, y1 = (round(v) for v in box)
    region = pixels[y0:y1, x0:x1].reshape(-1, 3).astype(int)
    # The erased box is refilled with the picture's blue (no white hole) and the new
    # value is printed over it in white.
    assert (np.abs(region - (40, 90, 200)).sum(axis=1) < 30).mean() > 0.4
    assert (region.min(axis=1) > 200).any()
    assert " ".join(page.get_text().split()).split() == ["Share", "27%", "of", "adults"]


@pytest.mark.skipif(not (SHARED / "NETFLIX_2015_10K.pdf").exists(), reason="needs ../shared/data")
def test_shared_10k_sentence_reads_with_its_new_values():
    doc = pymupdf.open(SHARED / "NETFLIX_2015_10K.pdf")
    page = doc[53]
    boxes = [_word_box(page, "$34.7"), _word_box(page, "$26.6")]
    news = ("$41.2", "$19.3")
    edit_text_layer(page, [TextEdit(rect=b, text=t) for b, t in zip(boxes, news, strict=True)])
    text = " ".join(page.get_text().split())
    assert "operating leases was $41.2 million , $19.3 million and $27.9 million" in text


def test_a_value_whose_neighbour_is_drawn_inside_a_clip_is_still_drawn():
    """Tagged tables (Pew's among them) clip each cell to its own box: text spliced after
    the cell to its left would be clipped away, so it goes where nothing clips it."""
    doc = pymupdf.open()
    page = doc.new_page(width=300, height=100)
    page.insert_font(fontname="helv")
    cells = []
    for x, value in ((40, "86"), (160, "73")):
        cells += [
            "q",
            f"{x - 5} 40 90 20 re W n",
            "BT",
            "/helv 10 Tf",
            f"1 0 0 1 {x} 46 Tm",
            f"({value}) Tj",
            "ET",
            "Q",
        ]
    xref = doc.get_new_xref()
    doc.update_object(xref, "<<>>")
    doc.update_stream(xref, "\n".join(cells).encode())
    page.set_contents(xref)
    box = _word_box(page, "73")
    out = edit_text_layer(page, [TextEdit(rect=box, text="41")])
    (written,) = [item["written"] for item in out if "written" in item]
    assert written["stream"] == "end"
    assert [w[4] for w in page.get_text("words")] == ["86", "41"]
    ink = _pixels(page)[int(box[1]) : int(box[3]) + 1, int(box[0]) : int(box[2]) + 1]
    assert ink.min() < 100  # printed, not only in the text layer


_NEAR, _WIDE = (-1, -1, 1, 1), (-40, -6, 40, 6)


def _reported_glyphs(page: pymupdf.Page, clip: pymupdf.Rect | None, spaces: bool) -> list[tuple]:
    data = page.get_text("rawdict", clip=clip)
    return [
        (char["c"], tuple(char["bbox"]), tuple(char["origin"]))
        for block in data["blocks"]
        for line in block.get("lines", [])
        for span in line["spans"]
        for char in span["chars"]
        if spaces or char["c"].strip()
    ]


def test_glyphs_on_a_scanned_page_are_those_pymupdf_reports():
    """A scan with its text layer kept (a picture under the text): the glyphs are read
    without PyMuPDF's dictionary, and are the dictionary's, in its order."""
    from abstain_build.transforms.functional import text_order

    doc = pymupdf.open()
    page = doc.new_page(width=300, height=200)
    noise = np.random.default_rng(0).integers(180, 256, (400, 600, 3), dtype=np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(noise).save(buffer, "PNG")
    page.insert_image(page.rect, stream=buffer.getvalue())
    for row, line in enumerate(LINES):
        page.insert_text((20, 40 + 18 * row), line, fontsize=9)
    assert text_order._has_pictures(page.get_textpage(flags=pymupdf.TEXTFLAGS_RAWDICT))
    boxes = [pymupdf.Rect(w[:4]) for w in page.get_text("words")]
    clips = [None, *(b + _NEAR for b in boxes), *(b + _WIDE for b in boxes)]
    for clip, spaces in itertools.product(clips, (False, True)):
        found = [(g.char, g.bbox, g.origin) for g in text_order._glyphs(page, clip, spaces)]
        assert found == _reported_glyphs(page, clip, spaces)
        textpage = page.get_textpage(clip=clip, flags=pymupdf.TEXTFLAGS_RAWDICT)
        assert text_order._read_characters(textpage, spaces) is not None  # read without it


@pytest.mark.skipif(not (SHARED / "watch_d.pdf").exists(), reason="needs ../shared/data")
def test_glyphs_are_those_pymupdf_reports():
    """The searches for the text object that draws a glyph read a clip of the page
    thousands of times, without building PyMuPDF's dictionary where the page has
    pictures; they must find exactly what it reports (pages over pictures, and a manual
    whose zero-width characters PyMuPDF drops)."""
    from abstain_build.transforms.functional import text_order

    checked = fallbacks = pictures = 0
    for name in ("watch_d.pdf", "reportq32015-151009093138-lva1-app6891_95.pdf"):
        doc = pymupdf.open(SHARED / name)
        for page in list(doc)[:5]:
            words = page.get_text("words")
            boxes = [pymupdf.Rect(w[:4]) for w in words[:: max(1, len(words) // 12)]]
            clips = [None, *(b + _NEAR for b in boxes), *(b + _WIDE for b in boxes)]
            for clip, spaces in itertools.product(clips, (False, True)):
                found = [(g.char, g.bbox, g.origin) for g in text_order._glyphs(page, clip, spaces)]
                assert found == _reported_glyphs(page, clip, spaces), (name, page.number, clip)
                textpage = page.get_textpage(clip=clip, flags=pymupdf.TEXTFLAGS_RAWDICT)
                if text_order._has_pictures(textpage):
                    pictures += 1
                    fallbacks += text_order._read_characters(textpage, spaces) is None
                checked += 1
    assert checked > 200 and pictures > 50 and fallbacks
