"""Tables on a page or an image: rows, columns and cells found from word boxes.

Transforms that merge two table columns or insert a false row need to know where a
table's rows and columns are and what each cell says. Two detectors:

* ``pymupdf``: on a page with a text layer, PyMuPDF's ``page.find_tables()`` with its
  default "lines" strategy, i.e. *ruled* tables (a grid drawn with lines or rectangles).
  Its cells are filled with our words (a word belongs to the cell holding its centre).
  PyMuPDF's "text" strategy is not used: on ordinary pages it turns whole paragraphs
  into tables.
* ``word_grid``: tables laid out with whitespace only (most reports), and every table on
  an image-only page (OCR words). Words are re-clustered into visual lines by geometry
  (OCR block/line numbers are not trusted: Tesseract puts table cells in separate blocks),
  lines are split into cells at wide gaps, and a run of consecutive lines whose cells
  line up in columns, one of them numeric, is a table. See :func:`word_grid_tables`.

Boxes are returned in the coordinate space of the words given: PDF points (unrotated page
space) for words from :func:`abstain_build.textregions.pages.page_words`, pixels for
words from an image.

Every threshold is a module constant documented where it is defined, with the reason for
its value; most are in line heights ("h"), so the same rules work in points and pixels.
A cell is numeric when quantity tokens of
:func:`abstain_build.numbers.find_numbers` cover most of it
(:func:`is_numeric_text`): years, fiscal years and quarters are headers, not values.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

import pymupdf

from .ruled_tables import pymupdf_tables
from .table_model import Table, contains, intersects, map_table, map_words, mostly_vertical
from .word_grid import word_grid_tables
from .words import Word

DETECTORS = ("pymupdf", "word_grid")

#: OCR words without a letter or digit read with less confidence than this are noise.
MIN_SYMBOL_CONF = 50.0
#: Word boxes flatter than this share of the page's median word height are noise.
MIN_HEIGHT_SHARE = 0.3


# --------------------------------------------------------------------------------------
# Entry point


def find_tables(
    words: Sequence[Word],
    page: pymupdf.Page | None = None,
    *,
    min_rows: int = 3,
    min_cols: int = 2,
) -> list[Table]:
    """Tables on the page, top to bottom, with at least ``min_rows`` rows and ``min_cols`` columns.

    When ``page`` is given and the words come from its text layer, ruled tables are
    taken from ``page.find_tables()`` first (:func:`pymupdf_tables`); the word-grid
    detector (:func:`word_grid_tables`) then runs on the words outside them, so an
    unruled table on the same page is found too. OCR words (an image-only page, or an
    image) go to the word-grid detector only. On a page with ``/Rotate`` whose words
    run vertically in unrotated space (text upright on the displayed page), the word
    grid works in the displayed orientation and boxes are mapped back to unrotated space.
    """
    words = clean_words(words)
    tables: list[Table] = []
    if page is not None and words and all(w.source == "text_layer" for w in words):
        tables = pymupdf_tables(page, words, min_rows=min_rows, min_cols=min_cols)
    rest = [w for w in words if not any(contains(t.bbox, w.bbox) for t in tables)]
    if page is not None and page.rotation and mostly_vertical(rest):
        shown = map_words(rest, page.rotation_matrix)
        found = word_grid_tables(shown, min_rows=min_rows, min_cols=min_cols)
        found = [map_table(t, page.derotation_matrix) for t in found]
    else:
        found = word_grid_tables(rest, min_rows=min_rows, min_cols=min_cols)
    tables += [t for t in found if not any(intersects(t.bbox, o.bbox) for o in tables)]
    return sorted(tables, key=lambda t: (t.bbox[1], t.bbox[0]))


def clean_words(words: Sequence[Word]) -> list[Word]:
    """The words worth placing in a table: OCR specks of noise are dropped.

    A scan's speckles come back from OCR as low-confidence punctuation (";", ".", ":")
    that would make cells of their own. Dropped: empty words, words without a letter or
    digit read with confidence below :data:`MIN_SYMBOL_CONF` (a text-layer "—" or "$"
    has confidence 100 and stays), and boxes flatter than :data:`MIN_HEIGHT_SHARE` of
    the median word height.
    """
    words = [w for w in words if w.text.strip()]
    if not words:
        return []
    median = statistics.median(w.height for w in words)
    return [
        w
        for w in words
        if (any(ch.isalnum() for ch in w.text) or w.conf >= MIN_SYMBOL_CONF)
        and w.height >= MIN_HEIGHT_SHARE * median
    ]
