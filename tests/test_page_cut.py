"""Where hide_evidence_page cuts a page in two: through no line of text when it can."""

from __future__ import annotations

import pymupdf
import pytest

from abstain_build.media.inputs import SampleInputs
from abstain_build.model import DocumentRef, Sample, SourceInfo
from abstain_build.pipeline.apply import run_transform
from abstain_build.transforms import get_registry
from abstain_build.transforms.functional.pdf_edit import cut_line, page_halves


def _prose_page(document: pymupdf.Document, gap_after: int | None) -> pymupdf.Page:
    """Lines of 11 pt text every 14 pt down the page, one line centred on the midpoint,
    and a paragraph break (an empty line) after line ``gap_after``."""
    page = document.new_page(width=612, height=792)  # the midpoint is 396
    y, index = 80.0, 0
    while y < 740:
        page.insert_text((72, y), f"Line {index} of a paragraph that runs across the column.")
        y += 14 + (14 if index == gap_after else 0)
        index += 1
    return page


def _line_boxes(page: pymupdf.Page) -> list[tuple[float, float]]:
    return [(w[1], w[3]) for w in page.get_text("words")]


def _inked(page: pymupdf.Page, y: float) -> bool:
    """Does a glyph's ink cross the row ``y``?"""
    band = pymupdf.Rect(0, y - 0.25, page.rect.width, y + 0.25)
    pixmap = page.get_pixmap(dpi=288, clip=band, colorspace=pymupdf.csGRAY)
    return min(pixmap.samples) < 200


def test_the_cut_runs_through_a_paragraph_break_near_the_midpoint() -> None:
    document = pymupdf.open()
    page = _prose_page(document, gap_after=23)  # the break sits about 20 pt below 396
    cut = cut_line(page)
    assert 396 < cut < 396 + 0.15 * 792
    before = [y1 for y0, y1 in _line_boxes(page) if y1 <= cut]
    after = [y0 for y0, y1 in _line_boxes(page) if y0 >= cut]
    assert after and before and min(after) - max(before) > 10  # the empty line
    assert all(y1 <= cut or y0 >= cut for y0, y1 in _line_boxes(page))


def test_without_a_paragraph_break_the_cut_runs_between_two_lines() -> None:
    document = pymupdf.open()
    page = _prose_page(document, gap_after=None)
    cut = cut_line(page)
    assert _inked(page, 396)  # the midpoint runs through a line of text
    assert abs(cut - 396) <= 14 and not _inked(page, cut)
    halves = page_halves(page)
    assert halves["top"].y1 == halves["bottom"].y0 == cut


@pytest.mark.parametrize("striped", [False, True])
def test_a_flat_fill_is_blank_and_a_patterned_one_is_not(striped: bool) -> None:
    document = pymupdf.open()
    page = document.new_page(width=612, height=792)
    if not striped:  # a flat fill is blank: any row of it will do, the one nearest 396
        page.draw_rect(page.rect, color=None, fill=(0.9, 0.9, 0.9))
        assert abs(cut_line(page) - 396) <= 1
        return
    # Stripes of two shades 38 grey levels apart (no ink, as a photograph's light areas or
    # a table's shaded cells): every row crosses them, so no row is a gap to cut along.
    for x in range(0, 612, 4):
        shade = (x % 8) / 8
        page.draw_rect(pymupdf.Rect(x, 0, x + 4, 792), color=None, fill=(shade, 0.4, 0.6))
    assert cut_line(page) is None


def _shaded_table_page(document: pymupdf.Document, ruled: bool) -> pymupdf.Page:
    """A 10-K table across the middle of the page: label and value on each row, every
    other row shaded (ruled: a light fill behind the row, found as a table by PyMuPDF)."""
    page = document.new_page(width=612, height=792)
    page.insert_text((72, 120), "Note 2: cash, cash equivalents and marketable securities.")
    for index, y in enumerate(range(300, 500, 20)):
        if ruled and index % 2 == 0:
            page.draw_rect(pymupdf.Rect(60, y - 13, 560, y + 5), color=None, fill=(0.86, 0.9, 0.96))
        page.insert_text((72, y), f"Securities of kind {index}")
        page.insert_text((480, y), f"{1000 + 37 * index:,}")
    page.insert_text((72, 640), "All of these securities are recorded at fair value.")
    return page


@pytest.mark.parametrize("ruled", [False, True])
def test_the_cut_never_runs_between_the_rows_of_a_table(ruled: bool) -> None:
    # A cut between two rows left the kept half starting with a row without its header
    # (shared AMAZON_2017_10K p50), or stubs of the next row's shading.
    document = pymupdf.open()
    page = _shaded_table_page(document, ruled)
    cut = cut_line(page)
    rows = [w for w in page.get_text("words") if w[4].startswith("Securities")]
    assert cut is None or not rows[0][3] < cut < rows[-1][1]  # between two of its rows


def _chart_page(document: pymupdf.Document) -> pymupdf.Page:
    """A page whose middle third is a chart: bars and gridlines from side to side."""
    page = document.new_page(width=612, height=792)
    page.insert_text((72, 100), "Figure 3. Revenue by quarter, in millions of dollars.")
    for x in range(72, 540, 6):
        page.draw_line((x, 260), (x, 540), color=(0.6, 0.6, 0.6))
    return page


def test_a_page_printed_on_all_across_its_middle_has_no_clean_cut() -> None:
    document = pymupdf.open()
    assert cut_line(_chart_page(document)) is None


@pytest.mark.parametrize("seed", range(4))
def test_hide_evidence_page_hides_the_page_it_cannot_cut_cleanly(tmp_path, seed: int) -> None:
    document = pymupdf.open()
    _prose_page(document, gap_after=23)
    _chart_page(document)
    path = tmp_path / "two.pdf"
    document.save(path)
    sample = Sample(
        id="two",
        source=SourceInfo("test", "test", "test.jsonl", 0),
        question="What was the revenue in the third quarter?",
        answer="Not stated",
        document=DocumentRef(path=path, doc_id=path.name),
        evidence_pages=(1, 2),
    )
    transform = get_registry().get("hide_evidence_page")()
    output = run_transform(transform, sample, SampleInputs(sample), run_seed=seed)
    assert output.record.edits.pages_hidden == [2]
    (crop,) = output.record.edits.pages_cropped
    assert crop.page == 1
