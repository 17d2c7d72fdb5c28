"""Tables are found on text-layer pages, ruled or not, and on image-only pages via OCR."""

from __future__ import annotations

import itertools
from pathlib import Path

import pymupdf
import pytest

from abstain_build.textregions.grid_lines import split_cells, visual_lines
from abstain_build.textregions.ocr import ocr_available, ocr_image
from abstain_build.textregions.pages import page_words, render_page, text_layer_words
from abstain_build.textregions.table_model import Table, is_numeric_text
from abstain_build.textregions.tables import find_tables
from abstain_build.textregions.words import Word

from .conftest import FIXTURES, SHARED_DATA

ACME = FIXTURES / "mmlongbench-doc" / "documents" / "ACME_2021_10K.pdf"
SHARED_DOCUMENTS = SHARED_DATA / "mmlongbench-doc" / "documents"
needs_ocr = pytest.mark.skipif(not ocr_available(), reason="needs Tesseract (OCR)")

TITLE = "Table 1: Revenue by segment (in millions of US$)"
HEADER = ("Segment", "FY2019", "FY2020", "FY2021")
BODY = (
    ("Industrial Products", "4,842.5", "5,196.3", "5,614.8"),
    ("Consumer Devices", "3,207.9", "3,315.4", "3,652.1"),
    ("Cloud Services", "1,684.2", "2,158.7", "2,868.9"),
    ("Energy Solutions", "912.6", "863.5", "(741.2)"),
    ("Total revenue", "10,647.2", "11,534.0", "12,877.0"),
)
PARAGRAPH = (
    "Total revenue increased 11.6% in FY2021. Cloud Services was again our fastest growing",
    "segment, with revenue up 32.9% as the number of connected devices passed 11 million.",
    "Energy Solutions declined as we exited legacy turbine service contracts during the year.",
)
PROSE = (
    "Revenue grew in every region this year, and",
    "the strongest growth came from subscription",
    "services sold to existing customers, which",
    "now account for more than a third of sales.",
    "margins improved as component prices eased",
    "and freight costs returned to normal levels",
    "in the second half, while operating costs",
    "rose more slowly than revenue for the year.",
    "we expect these trends to continue in 2022",
    "although currency moves remain a risk to",
    "reported growth in the international units.",
)
FONT = 11
LEFT = 72
RIGHTS = (320, 410, 500)  # right edges of the number columns: numbers are right-aligned
EDGES = (66, 240, 330, 420, 510)  # cell borders of the ruled variant
TOP, PITCH = 150, 20


def _right_aligned(page: pymupdf.Page, right: float, y: float, text: str, size: float) -> None:
    page.insert_text((right - pymupdf.get_text_length(text, fontsize=size), y), text, fontsize=size)


def table_page(document: pymupdf.Document, *, ruled: bool = False) -> pymupdf.Page:
    """A title line, a label column and three number columns under a header, a paragraph."""
    page = document.new_page(width=612, height=792)
    page.insert_text((LEFT, 110), TITLE, fontsize=FONT)
    for i, row in enumerate((HEADER, *BODY)):
        y = TOP + i * PITCH
        page.insert_text((LEFT, y), row[0], fontsize=FONT)
        for right, text in zip(RIGHTS, row[1:], strict=True):
            _right_aligned(page, right, y, text, FONT)
        if ruled:
            for x0, x1 in itertools.pairwise(EDGES):
                page.draw_rect(pymupdf.Rect(x0, y - 14, x1, y + 6), color=(0, 0, 0), width=0.6)
    y = TOP + len(BODY) * PITCH + 40
    for k, line in enumerate(PARAGRAPH):
        page.insert_text((LEFT, y + k * 15), line, fontsize=FONT)
    return page


def image_only_copy(page: pymupdf.Page, document: pymupdf.Document) -> pymupdf.Page:
    """A new page holding nothing but a render of ``page`` (as a scan would)."""
    pixmap = page.get_pixmap(dpi=150)
    copy = document.new_page(width=page.rect.width, height=page.rect.height)
    copy.insert_image(copy.rect, pixmap=pixmap)
    return copy


def cell_texts(table: Table) -> list[list[str]]:
    return [[cell.text if cell else "" for cell in row] for row in table.cells]


def assert_synthetic_structure(table: Table) -> None:
    assert (table.n_rows, table.n_cols) == (6, 4)
    assert table.header_rows == 1
    assert table.numeric_columns() == [1, 2, 3]
    assert list(table.body_rows()) == [1, 2, 3, 4, 5]
    # row and column bands are ordered and lie inside the table
    assert [r[1] for r in table.rows] == sorted(r[1] for r in table.rows)
    assert [c[0] for c in table.columns] == sorted(c[0] for c in table.columns)
    for band in (*table.rows, *table.columns):
        assert table.bbox[0] - 0.5 <= band[0] and band[2] <= table.bbox[2] + 0.5


# --------------------------------------------------------------------------------------
# Text-layer pages


def test_unruled_table_is_found_from_word_boxes() -> None:
    with pymupdf.open() as document:
        page = table_page(document)
        tables = find_tables(text_layer_words(page), page)
        assert len(tables) == 1
        table = tables[0]
        assert table.detector == "word_grid"
        assert_synthetic_structure(table)
        assert cell_texts(table) == [list(row) for row in (HEADER, *BODY)]
        assert [table.row_label(i) for i in table.body_rows()] == [row[0] for row in BODY]
        assert [c.text if c else "" for c in table.column_cells(3)] == ["FY2021"] + [
            row[3] for row in BODY
        ]
        # the title line above and the paragraph below are not part of it
        text = table.text()
        assert "Table 1" not in text and "increased" not in text and "turbine" not in text
        title_bottom = page.search_for("Table 1:")[0].y1
        paragraph_top = page.search_for("Total revenue increased")[0].y0
        assert title_bottom < table.bbox[1] and table.bbox[3] < paragraph_top


def test_ruled_table_comes_from_pymupdf() -> None:
    with pymupdf.open() as document:
        page = table_page(document, ruled=True)
        tables = find_tables(text_layer_words(page), page)
        assert [t.detector for t in tables] == ["pymupdf"]
        table = tables[0]
        assert_synthetic_structure(table)
        assert cell_texts(table) == [list(row) for row in (HEADER, *BODY)]
        # PyMuPDF's cells are the ruled boxes, so each holds its words
        for row in table.cells:
            for cell in row:
                assert cell is not None
                for word in cell.words:
                    assert pymupdf.Rect(cell.bbox).contains(pymupdf.Rect(word.bbox).tl)


def test_find_tables_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    with pymupdf.open() as document:
        page = table_page(document, ruled=True)
        find_tables(text_layer_words(page), page)
    assert capsys.readouterr().out == ""


def test_table_beside_a_text_column_leaves_the_text_out() -> None:
    """Two-column layout: a paragraph on the left shares visual lines with the table rows."""
    with pymupdf.open() as document:
        page = document.new_page(width=612, height=792)
        for k, line in enumerate(PROSE):
            page.insert_text((54, 120 + k * 14.5), line, fontsize=10.5)
        for i, row in enumerate((HEADER, *BODY)):
            y = 124 + i * 17
            page.insert_text((300, y), row[0], fontsize=9)
            for right, text in zip((430, 490, 550), row[1:], strict=True):
                _right_aligned(page, right, y, text, 9)
        tables = find_tables(text_layer_words(page), page)
        assert len(tables) == 1
        assert cell_texts(tables[0]) == [list(row) for row in (HEADER, *BODY)]
        assert tables[0].bbox[0] >= 299


def test_paragraph_pages_have_no_tables() -> None:
    with pymupdf.open() as document:
        single = document.new_page(width=612, height=792)
        single.insert_textbox(pymupdf.Rect(72, 72, 540, 720), " ".join(PARAGRAPH * 8), fontsize=11)
        assert find_tables(text_layer_words(single), single) == []

        double = document.new_page(width=612, height=792)
        for x in (54, 320):  # two columns of running text, numbers included
            for k, line in enumerate(PROSE * 2):
                double.insert_text((x, 80 + k * 14.5), line, fontsize=10.5)
        assert find_tables(text_layer_words(double), double) == []


def test_table_of_contents_and_numbered_lists_are_not_tables() -> None:
    entries = ("Business", "Risk Factors", "Properties", "Legal Proceedings", "Market Data")
    with pymupdf.open() as document:
        page = document.new_page(width=612, height=792)
        for k, entry in enumerate(entries):
            page.insert_text((72, 100 + k * 18), entry, fontsize=11)
            _right_aligned(page, 540, 100 + k * 18, str(3 + 4 * k), 11)  # page numbers
            page.insert_text((72, 300 + k * 18), f"{k + 1}.", fontsize=11)
            page.insert_text((110, 300 + k * 18), entry, fontsize=11)
        assert find_tables(text_layer_words(page), page) == []


# --------------------------------------------------------------------------------------
# The building blocks


def _word(text: str, x0: float, x1: float, y0: float = 100.0, height: float = 12.0) -> Word:
    return Word(text, (x0, y0, x1, y0 + height), source="text_layer")


def test_cells_split_at_column_gaps_not_at_word_spaces() -> None:
    line = [
        _word("Industrial", 76, 114.5),
        _word("Products", 117.2, 154.7),
        _word("$", 240, 246),
        _word("4,842.5", 258.3, 290),
        _word("12.5", 330, 350),
        _word("%", 352, 358),
    ]
    cells = [" ".join(w.text for w in cell) for cell in split_cells(line)]
    assert cells == ["Industrial Products", "$ 4,842.5", "12.5 %"]


def test_visual_lines_ignore_block_numbers_and_jitter() -> None:
    # OCR puts each cell in its own block and the scan is slightly skewed
    words = [
        Word("Cloud", (70, 200, 110, 214), 90, block=1, line=1),
        Word("Services", (113, 201, 170, 215), 90, block=1, line=1),
        Word("1,684.2", (300, 203, 350, 217), 90, block=2, line=5),
        Word("Energy", (70, 230, 118, 244), 90, block=1, line=2),
        Word("912.6", (310, 233, 350, 247), 90, block=3, line=9),
    ]
    lines = [[w.text for w in line] for line in visual_lines(words)]
    assert lines == [["Cloud", "Services", "1,684.2"], ["Energy", "912.6"]]


@pytest.mark.parametrize(
    ("text", "numeric"),
    [
        ("5,196.3", True),
        ("(14.2%)", True),
        ("$4.5bn", True),
        ("32.9%", True),
        ("65bcd", True),  # significance letters after a number
        ("Q3 results", False),
        ("FY2020", False),
        ("2021", False),
        ("n/m", False),
        ("12 months", False),
        ("3rd", False),
    ],
)
def test_numeric_cells(text: str, numeric: bool) -> None:
    assert is_numeric_text(text) is numeric


# --------------------------------------------------------------------------------------
# Image-only pages (OCR)


@needs_ocr
def test_image_only_table_is_found_from_ocr_words() -> None:
    with pymupdf.open() as document:
        copy = image_only_copy(table_page(document), document)
        render = render_page(copy)
        words = page_words(copy, render=render)
        assert words.source == "ocr"
        tables = find_tables(words.words, copy)
        assert len(tables) == 1
        table = tables[0]
        assert (table.n_rows, table.n_cols, table.header_rows) == (6, 4, 1)
        assert table.numeric_columns() == [1, 2, 3]
        numbers = [[cell.text if cell else "" for cell in row[1:]] for row in table.cells[1:]]
        assert numbers == [list(row[1:]) for row in BODY]
        assert "Table 1" not in table.text() and "increased" not in table.text()

        # the same words in pixels (no page): the same table, in pixel coordinates
        pixel_tables = find_tables(ocr_image(render, dpi=round(words.dpi or 144)))
        assert [(t.n_rows, t.n_cols) for t in pixel_tables] == [(6, 4)]
        scale = render.shape[1] / copy.rect.width
        assert pixel_tables[0].bbox[0] == pytest.approx(table.bbox[0] * scale, abs=3)


@needs_ocr
def test_scan_on_a_rotated_page_is_read_upright() -> None:
    """A landscape scan on a portrait page with /Rotate 90: OCR words come back tall."""
    with pymupdf.open() as source, pymupdf.open() as document:
        landscape = source.new_page(width=792, height=612)
        for i, row in enumerate((HEADER, *BODY)):
            y = 100 + i * PITCH
            landscape.insert_text((LEFT, y), row[0], fontsize=FONT)
            for right, text in zip(RIGHTS, row[1:], strict=True):
                _right_aligned(landscape, right, y, text, FONT)
        page = document.new_page(width=612, height=792)
        page.set_rotation(90)
        page.insert_image(page.rect, pixmap=landscape.get_pixmap(dpi=150), rotate=90)
        words = page_words(page)
        assert words.source == "ocr"
        (table,) = find_tables(words.words, page)
        assert (table.n_rows, table.n_cols, table.header_rows) == (6, 4, 1)
        assert [table.row_label(i) for i in table.body_rows()] == [row[0] for row in BODY]
        # boxes are in unrotated page space, like the words: cells hold their words
        for row in table.cells:
            for cell in row:
                assert cell is not None
                box = pymupdf.Rect(cell.bbox)
                assert all(box.contains(pymupdf.Rect(w.bbox)) for w in cell.words)
        assert table.bbox[3] - table.bbox[1] > table.bbox[2] - table.bbox[0]  # tall here


# --------------------------------------------------------------------------------------
# The shipped fixture


def test_fixture_revenue_table() -> None:
    with pymupdf.open(ACME) as document:
        page = document[3]
        tables = find_tables(page_words(page).words, page)
        assert len(tables) == 1
        table = tables[0]
        assert (table.n_rows, table.n_cols, table.header_rows) == (7, 5, 1)
        assert table.detector == "word_grid"  # only horizontal rules: not a PyMuPDF grid
        assert cell_texts(table)[0] == ["Segment", "FY2019", "FY2020", "FY2021", "Change FY21/FY20"]
        assert [table.row_label(i) for i in table.body_rows()] == [
            "Industrial Products",
            "Consumer Devices",
            "Cloud Services",
            "Energy Solutions",
            "Intersegment eliminations",
            "Total revenue",
        ]
        assert table.numeric_columns() == [1, 2, 3, 4]
        assert cell_texts(table)[4][1:] == ["912.6", "863.5", "741.2", "(14.2%)"]
        text = table.text()
        for outside in ("Table 1", "Management", "n/m = not meaningful", "Total revenue increased"):
            assert outside not in text


def test_fixture_text_page_has_no_table() -> None:
    with pymupdf.open(ACME) as document:
        page = document[2]
        assert find_tables(page_words(page).words, page) == []


@needs_ocr
def test_fixture_scanned_quarterly_table() -> None:
    with pymupdf.open(ACME) as document:
        page = document[5]
        words = page_words(page)
        assert words.source == "ocr"
        tables = find_tables(words.words, page)
        assert len(tables) == 1
        table = tables[0]
        assert table.n_cols == 4 and table.n_rows == 6 and table.header_rows == 1
        assert table.numeric_columns() == [1, 2, 3]
        assert [c.text for c in table.column_cells(1) if c] == [
            "Revenue",
            "2,701.5",
            "2,864.8",
            "3,105.2",
            "2,970.9",
            "11,642.4",
        ]
        assert "ACME" not in table.text() and "Quarterly Results" not in table.text()


# --------------------------------------------------------------------------------------
# The real documents in ../shared/data (optional)


def _shared(name: str) -> Path:
    if not SHARED_DOCUMENTS.is_dir():
        pytest.skip(f"{SHARED_DOCUMENTS} is absent (real MMLongBench-Doc copies)")
    path = SHARED_DOCUMENTS / name
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    return path


def _tables(name: str, page_number: int) -> list[Table]:
    with pymupdf.open(_shared(name)) as document:
        page = document[page_number - 1]
        return find_tables(page_words(page).words, page)


def test_shared_10k_net_sales_table() -> None:
    tables = _tables("AMAZON_2017_10K.pdf", 25)
    assert len(tables) == 1
    table = tables[0]
    assert table.detector == "word_grid" and table.n_cols == 4
    assert cell_texts(table)[table.header_rows - 1][1:] == ["2015", "2016", "2017"]
    assert table.numeric_columns() == [1, 2, 3]
    labels = [table.row_label(i) for i in table.body_rows()]
    assert labels[:5] == ["Net Sales:", "North America", "International", "AWS", "Consolidated"]
    assert cell_texts(table)[labels.index("North America") + table.header_rows][1] == "$ 63,708"
    assert "Sales increased" not in table.text()  # the paragraph under it


def test_shared_tables_beside_text_columns() -> None:
    # a population table in one column of a two-column history survey
    (population,) = _tables("698bba535087fa9a7f9009e172a7f763.pdf", 12)
    assert population.n_cols == 2 and population.header_rows == 1
    assert [population.row_label(i) for i in population.body_rows()] == [
        str(year) for year in range(1870, 2001, 10)
    ]
    # a survey table to the right of a narrow text column
    (adoption,) = _tables("PIP_Seniors-and-Tech-Use_040314.pdf", 8)
    assert adoption.n_cols == 3 and adoption.numeric_columns() == [1, 2]
    assert adoption.bbox[0] > 225  # the text column ends at x = 223
    assert "older adults" not in adoption.text()


def test_shared_ruled_text_tables_and_chart_pages() -> None:
    tables = _tables("watch_d.pdf", 16)
    assert tables and all(t.detector == "pymupdf" for t in tables)
    assert cell_texts(tables[0])[0] == ["Error Scenarios", "Possible Causes", "Solution"]
    # data labels of bar and line charts line up, but are not tables
    for number in (4, 5, 11):
        assert _tables("PIP_Seniors-and-Tech-Use_040314.pdf", number) == []


def test_shared_tables_of_a_paper() -> None:
    (table,) = _tables("2023.acl-long.386.pdf", 6)
    assert table.n_cols == 9 and table.numeric_columns() == list(range(1, 9))
    row = next(i for i in table.body_rows() if table.row_label(i).startswith("ProgramFC (N=5)"))
    assert cell_texts(table)[row][1:] == [
        "75.65",
        "70.30",
        "68.48",
        "63.43",
        "66.75",
        "57.74",
        "92.69",
        "68.06",
    ]
    # two small tables side by side in one column of the paper are two tables
    error_types, closed_book = _tables("2023.acl-long.386.pdf", 8)
    assert error_types.n_cols == 4 and closed_book.n_cols == 5
    assert [error_types.row_label(i) for i in error_types.body_rows()][:2] == [
        "Syntax error",
        "Semantic error",
    ]
    assert error_types.bbox[2] < closed_book.bbox[0]
    assert cell_texts(closed_book)[-1] == ["ProgramFC", "54.27", "54.18", "52.88", "59.66"]
