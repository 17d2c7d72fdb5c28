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

import contextlib
import io
import itertools
import re
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

import pymupdf

from ..media.pdf import page_digest
from ..numbers import find_numbers
from .words import Box, Word, union_box

DETECTORS = ("pymupdf", "word_grid")

# -- word-grid thresholds. "h" is a line's height: the median height of its word boxes
# (about 1.2 em for text-layer boxes, about 0.8 em for OCR boxes, which hug the ink).

#: Two words are on one visual line when their boxes overlap vertically by at least this
#: share of the smaller height. Half a height tolerates OCR jitter, a slightly skewed scan
#: and superscripts, while the next line (a full line pitch away) never overlaps that much.
LINE_OVERLAP = 0.5
#: A horizontal gap wider than this many h splits a line into cells. A word space is
#: about 0.25 em (0.2 h) and stretches to about 0.5 h in justified text; a gap between
#: table columns is at least about 1 em. One h sits between the two for both box styles.
CELL_GAP = 1.0
#: Between two words that are both numbers, a gap wider than this many h splits: tight
#: tables (papers) set number columns about half an em apart, a word space is 0.2 h.
NUMBER_GAP = 0.35
#: A table's consecutive rows are at most this many h apart (bottom to top). Ruled or
#: airy tables leave up to about 2.5 h between rows; more is a gap between two blocks.
ROW_GAP = 3.0
#: Lines with a single cell (a section label like "Operating expenses:", the first line
#: of a wrapped label) may sit inside a table, at most this many in a row ...
MAX_SINGLE_CELL_LINES = 4
#: ... and only when narrower than this share of the table so far: a line of a paragraph
#: spans the table's width, a row label does not.
SINGLE_CELL_MAX_WIDTH = 0.67
#: Prose beside a table (a text column of a two-column layout) shares visual lines with
#: the table's rows and would become an extra, wordy column. It is recognised as a stack
#: of cells of at least PROSE_LINK_WORDS words on consecutive lines, left edges aligned,
#: with at least PROSE_STACK members and a median of at least PROSE_WORDS words, that
#: either is off the table's baselines (its cells sit at least PROSE_OFFSET line heights
#: higher or lower than the numbers on the same visual line: a text column has its own
#: line pitch, while a row label is printed on its row's baseline) or reads as running
#: text (at least PROSE_LOWERCASE of its lines start in lower case, mid-sentence).
#: A column of long row labels wrapped over two lines (financial statements) is on the
#: baselines (offsets under 0.05 h measured) and has well under 60% lower-case starts;
#: the text columns beside tables in the shared documents are 0.18 h off or more.
PROSE_LINK_WORDS = 2
PROSE_STACK = 4
PROSE_WORDS = 4
PROSE_OFFSET = 0.12
PROSE_LOWERCASE = 0.6
#: Lines of a paragraph (but its last) are about as wide as each other: narrower or wider
#: than this share of the line above, a cell is not the paragraph's next line.
PROSE_WIDTH_RATIO = 0.5
#: At most this many lines without a number just above the first numeric row are kept as
#: header rows; lines without a number after the last numeric row are dropped (notes).
MAX_HEADER_LINES = 3
#: Column cores come from the numeric rows: x ranges covered by the cells of more than
#: this share of them (rounded: none below 5 rows). The tolerance lets a long label cross
#: a column gap, or run into the next column's number, without merging two columns.
CROSSING_SHARE = 0.1
#: Cells of at least this many words (and not numeric) are "wordy": captions and notes
#: beside a table, or long row labels; see :func:`_column_cores`.
WORDY_WORDS = 5
#: A column core must be supported by cells of at least this many rows (header included:
#: a "Change" column filled in one numeric row of a small table has its header above).
MIN_COLUMN_SUPPORT = 2
#: At least this share of a table's rows must put each of their cells in its own column
#: (no two cells of the row fall into one column); otherwise the lines do not form a grid.
ROW_AGREEMENT = 0.7

# -- numeric cells and columns

#: A cell is numeric when quantity tokens cover at least this share of its non-space
#: characters: "5,196.3", "(14.2%)", "$4.5bn", "32.9%*" are; "Q3 results", "FY2020",
#: "12 months", "n/m" are not.
NUMERIC_CELL_SHARE = 0.6
#: A column is numeric when at least this share of its non-empty body cells is numeric
#: (and at least two are): "n/m" or "—" in a few rows do not stop a number column.
NUMERIC_COLUMN_SHARE = 0.6

#: OCR words without a letter or digit read with less confidence than this are noise.
MIN_SYMBOL_CONF = 50.0
#: Word boxes flatter than this share of the page's median word height are noise.
MIN_HEIGHT_SHARE = 0.3

#: A chart's data labels are not a table: a table's numeric rows fill at least this share
#: of its numeric columns on average ...
MIN_NUMERIC_FILL = 0.3
#: ... and at least this share of its body rows have a label (:meth:`Table.row_label`).
#: Financial statements leave many number cells empty (subtotals in one column only, and
#: OCR drops the "—" of empty values), so the fill threshold is low; the label rule does
#: most of the work (chart labels measured: 0 to 75% of rows labelled).
MIN_LABELLED_ROWS = 0.8
#: A PyMuPDF grid drawn around a chart (its gridlines) is mostly empty: at least this
#: share of a ruled table's cells must hold words.
MIN_RULED_FILL = 0.5
#: ... and at least this share of its rows must hold two cells or more: a framed text box
#: whose lines PyMuPDF makes rows has one filled cell per row.
MIN_RULED_MULTI_CELL_ROWS = 0.5

_FOOTNOTE_LETTERS = re.compile(r"(?<=\d)(?!st$|nd$|rd$|th$)[a-z]{1,4}$")
_NOTE_MARK = re.compile(r"^(?:\(\d{1,2}\)|\d{1,2}[.)]|[*†‡])$")
_MARKER = re.compile(r"^\(?(\d{1,3}(?:\.\d{1,3})*)\)?\.?[†‡*+]?$")
_BULLETS = frozenset("•◦○●▪■□◆◇➢►▶✓✔-–—*o§\uf0b7\uf0a7\uf0d8")
_NUMBER_WORD = re.compile(r"^[(\-−+$€£¥]*\d(?:[\d,.]*\d)?%?\)?[%*]?$")
_CURRENCY_ONLY = frozenset("$€£¥")
_CLOSING_ONLY = ("%", ")", "%)", "*")


# --------------------------------------------------------------------------------------
# Public data types


@dataclass(frozen=True)
class TableCell:
    """One cell: its box, its text (words joined by single spaces, left to right), its words."""

    bbox: Box
    text: str
    words: tuple[Word, ...]

    @cached_property
    def is_numeric(self) -> bool:
        """Whether the cell is essentially one quantity (or a few): see :func:`is_numeric_text`."""
        return is_numeric_text(self.text)


@dataclass(frozen=True)
class Table:
    """A table: row and column bands, a cell grid ``cells[row][column]`` (None where empty).

    ``rows`` are bands top to bottom spanning the table's width, ``columns`` bands left
    to right spanning its height (on a page whose words were turned to read upright,
    mapped back to unrotated space). ``header_rows`` counts the column-header rows: the
    leading rows without a numeric value before the first row with one, up to the last
    of them holding a cell beyond the first column (see :func:`_header_rows`); a ruled
    table of text only takes its first row for the header, as PyMuPDF does. ``detector``
    is "pymupdf" (ruled table, ``page.find_tables``) or "word_grid".
    """

    bbox: Box
    rows: tuple[Box, ...]
    columns: tuple[Box, ...]
    cells: tuple[tuple[TableCell | None, ...], ...]
    header_rows: int
    detector: str

    @property
    def n_rows(self) -> int:
        return len(self.rows)

    @property
    def n_cols(self) -> int:
        return len(self.columns)

    def column_cells(self, j: int) -> tuple[TableCell | None, ...]:
        """The cells of column ``j``, top to bottom."""
        return tuple(row[j] for row in self.cells)

    def body_rows(self) -> range:
        """Indices of the rows under the header."""
        return range(self.header_rows, self.n_rows)

    def numeric_columns(self) -> list[int]:
        """Columns whose body cells are mostly numeric (see :data:`NUMERIC_COLUMN_SHARE`)."""
        return list(self._numeric_columns)

    @cached_property
    def _numeric_columns(self) -> tuple[int, ...]:
        body = self.cells[self.header_rows :]
        return tuple(j for j in range(self.n_cols) if _numeric_share(row[j] for row in body))

    def row_label(self, i: int) -> str:
        """The text that names row ``i``: its cell in the first non-numeric column.

        Failing that, its first non-numeric cell; "" when there is none. A label such as
        "$75,000+" or "80+" reads as a number but sits in a column of text.
        """
        numeric = set(self.numeric_columns())
        row = self.cells[i]
        for j, cell in enumerate(row):
            if cell is not None and j not in numeric:
                return cell.text
        for cell in row:
            if cell is not None and not cell.is_numeric:
                return cell.text
        return ""

    def text(self) -> str:
        """The table as text: one line per row, cells separated by " | "."""
        return "\n".join(
            " | ".join(cell.text if cell else "" for cell in row) for row in self.cells
        )


def is_numeric_text(text: str) -> bool:
    """Whether quantity tokens (amount, percent, multiple) cover most of ``text``.

    Years, fiscal years, quarters and codes are not quantities, so a header such as
    "FY2020" or "2021" is not numeric. "Most" is :data:`NUMERIC_CELL_SHARE` of the
    non-space characters, so a footnote mark or a currency word may come along. Letters
    glued to the end of a number are footnote or significance marks ("65bcd", "12a") and
    are ignored (ordinals such as "3rd" are not numbers).
    """
    text = _FOOTNOTE_LETTERS.sub("", text.strip())
    chars = sum(1 for ch in text if not ch.isspace())
    if not chars:
        return False
    covered = sum(
        sum(1 for ch in token.text if not ch.isspace())
        for token in find_numbers(text)
        if token.is_quantity
    )
    return covered >= NUMERIC_CELL_SHARE * chars


def _is_value(text: str) -> bool:
    """A numeric cell that is not a footnote mark such as "(1)"."""
    return is_numeric_text(text) and not _NOTE_MARK.match(text)


def _numeric_share(cells: Iterable[TableCell | None]) -> bool:
    filled = [cell for cell in cells if cell is not None]
    numeric = sum(1 for cell in filled if cell.is_numeric)
    return numeric >= 2 and numeric >= NUMERIC_COLUMN_SHARE * len(filled)


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
    rest = [w for w in words if not any(_contains(t.bbox, w.bbox) for t in tables)]
    if page is not None and page.rotation and _mostly_vertical(rest):
        shown = _map_words(rest, page.rotation_matrix)
        found = word_grid_tables(shown, min_rows=min_rows, min_cols=min_cols)
        found = [_map_table(t, page.derotation_matrix) for t in found]
    else:
        found = word_grid_tables(rest, min_rows=min_rows, min_cols=min_cols)
    tables += [t for t in found if not any(_intersects(t.bbox, o.bbox) for o in tables)]
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


# --------------------------------------------------------------------------------------
# Geometry helpers


def _mostly_vertical(words: Sequence[Word]) -> bool:
    """Whether most words of three or more characters are taller than wide."""
    long_words = [w for w in words if len(w.text) >= 3]
    tall = sum(1 for w in long_words if w.height > w.width)
    return bool(long_words) and tall > len(long_words) / 2


def _centre_in(point_box: Box, box: Box) -> bool:
    cx, cy = (point_box[0] + point_box[2]) / 2, (point_box[1] + point_box[3]) / 2
    return box[0] <= cx <= box[2] and box[1] <= cy <= box[3]


def _contains(outer: Box, inner: Box) -> bool:
    return _centre_in(inner, outer)


def _intersects(a: Box, b: Box) -> bool:
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def _map_box(box: Box, matrix: pymupdf.Matrix) -> Box:
    rect = pymupdf.Rect(box) * matrix  # the normalised hull of the mapped corners
    return (rect.x0, rect.y0, rect.x1, rect.y1)


def _map_words(words: Sequence[Word], matrix: pymupdf.Matrix) -> list[Word]:
    return [
        Word(w.text, _map_box(w.bbox, matrix), w.conf, w.block, w.line, w.source) for w in words
    ]


def _map_table(table: Table, matrix: pymupdf.Matrix) -> Table:
    """``table`` with every box, its words' boxes included, mapped through ``matrix``."""

    def cell(c: TableCell | None) -> TableCell | None:
        if c is None:
            return None
        return TableCell(_map_box(c.bbox, matrix), c.text, tuple(_map_words(c.words, matrix)))

    return Table(
        _map_box(table.bbox, matrix),
        tuple(_map_box(b, matrix) for b in table.rows),
        tuple(_map_box(b, matrix) for b in table.columns),
        tuple(tuple(cell(c) for c in row) for row in table.cells),
        table.header_rows,
        table.detector,
    )


def _cell(words: Sequence[Word], bbox: Box | None = None) -> TableCell:
    ordered = tuple(sorted(words, key=lambda w: (w.bbox[0], w.bbox[1])))
    box = bbox if bbox is not None else union_box(w.bbox for w in ordered)
    return TableCell(box, " ".join(w.text for w in ordered), ordered)


def _header_rows(cells: Sequence[Sequence[TableCell | None]]) -> int:
    """How many leading rows are column headers.

    The rows before the first row with a numeric cell other than a footnote mark (at
    most MAX_HEADER_LINES of them), up to the last one with a cell beyond the first
    column: a row holding only a label ("Net Sales:") just above the numbers is the
    body's first section label.
    """
    first_numeric = next(
        (i for i, row in enumerate(cells) if any(c is not None and _is_value(c.text) for c in row)),
        None,
    )
    if first_numeric is None or first_numeric > MAX_HEADER_LINES:
        return 0
    titled = [i for i in range(first_numeric) if any(c is not None for c in cells[i][1:])]
    return titled[-1] + 1 if titled else 0


# --------------------------------------------------------------------------------------
# PyMuPDF (ruled tables)


@dataclass(frozen=True)
class FoundRow:
    bbox: tuple[float, float, float, float]
    cells: tuple[tuple[float, float, float, float] | None, ...]


@dataclass(frozen=True)
class FoundTable:
    """What this module reads of one of PyMuPDF's tables, detached from its page."""

    bbox: tuple[float, float, float, float]
    col_count: int
    rows: tuple[FoundRow, ...]
    external_header: bool


#: PyMuPDF's finds per page content (:func:`ruled_finds`), at most this many pages.
FOUND_CACHE_PAGES = 512
_found_cache: dict[tuple, tuple[FoundTable, ...]] = {}


def _page_key(page: pymupdf.Page) -> tuple:
    """The page's content (stream, pictures, size, rotation) and the fonts it names: the
    same page of the same document, read by another sample or another attempt, agrees."""
    fonts = tuple(tuple(str(v) for v in font) for font in page.get_fonts(full=True))
    return (page_digest(page), fonts, tuple(round(v, 2) for v in page.cropbox))


def ruled_finds(page: pymupdf.Page) -> tuple[FoundTable, ...]:
    """``page.find_tables()``, once per page content in a process: a document's page is
    analysed by every sample that reads it and every transform that edits it, and PyMuPDF's
    finder (a tenth of a second a page) was a tenth of a text-layer build. Its stdout
    advice to install pymupdf_layout, printed once per process, is kept out of the CLI's
    output."""
    key = _page_key(page)
    cached = _found_cache.get(key)
    if cached is not None:
        return cached
    with contextlib.redirect_stdout(io.StringIO()):
        found = page.find_tables().tables
    snapshot = tuple(
        FoundTable(
            bbox=tuple(table.bbox),
            col_count=table.col_count,
            rows=tuple(
                FoundRow(tuple(row.bbox), tuple(None if c is None else tuple(c) for c in row.cells))
                for row in table.rows
            ),
            external_header=bool(table.header.external),
        )
        for table in found
    )
    if len(_found_cache) >= FOUND_CACHE_PAGES:
        _found_cache.pop(next(iter(_found_cache)))
    _found_cache[key] = snapshot
    return snapshot


def pymupdf_tables(
    page: pymupdf.Page, words: Sequence[Word], *, min_rows: int = 3, min_cols: int = 2
) -> list[Table]:
    """Ruled tables from PyMuPDF, filled with ``words`` (text-layer words of ``page``).

    A word belongs to the cell holding its centre. PyMuPDF splits a row wherever any
    ruling line does (a header cell drawn as two stacked boxes makes extra rows where
    the other columns are merged cells); a row with fewer than half its cells present is
    folded into the row above. Rows and columns without any word are dropped (spacer
    rows, the thin columns ruling artefacts make), and so are columns of bullets only (a
    framed bullet list is not a table). A grid less than :data:`MIN_RULED_FILL` filled
    (a chart's gridlines), or with fewer than :data:`MIN_RULED_MULTI_CELL_ROWS` of its rows
    holding two cells or more (a framed text box, one text line per row), is dropped.
    """
    tables: list[Table] = []
    for found in ruled_finds(page):
        table = _convert_pymupdf(found, words)
        if table is None or table.n_rows < min_rows or table.n_cols < min_cols:
            continue
        filled = sum(1 for row in table.cells for cell in row if cell is not None)
        multi = sum(1 for row in table.cells if sum(1 for c in row if c is not None) >= 2)
        if (
            filled >= MIN_RULED_FILL * table.n_rows * table.n_cols
            and multi >= MIN_RULED_MULTI_CELL_ROWS * table.n_rows
        ):
            tables.append(table)
    return tables


def _convert_pymupdf(found: FoundTable, words: Sequence[Word]) -> Table | None:
    n_cols = found.col_count
    inside = [w for w in words if _centre_in(w.bbox, tuple(found.bbox))]
    grid: list[list[list[Word]]] = []
    bands: list[list[float]] = []
    col_edges: list[list[float]] = [[] for _ in range(n_cols)]
    for row in found.rows:
        rects = list(row.cells)
        present = [r for r in rects if r is not None]
        if not present:
            continue
        for j, rect in enumerate(rects):
            if rect is not None:
                col_edges[j].append(rect[0])
        row_words = [[w for w in inside if r and _centre_in(w.bbox, r)] for r in rects]
        if grid and len(present) < n_cols / 2:
            for j, members in enumerate(row_words):
                grid[-1][j].extend(members)
            bands[-1][3] = max(bands[-1][3], row.bbox[3])
            continue
        grid.append(row_words)
        bands.append(list(row.bbox))
    x_edges = _column_edges(col_edges, found.bbox)
    keep_rows = [i for i, row in enumerate(grid) if any(row)]
    keep_cols = [
        j
        for j in range(n_cols)
        if any(grid[i][j] for i in keep_rows)
        and not all(_is_bullet(grid[i][j]) for i in keep_rows if grid[i][j])
    ]
    if not keep_rows or not keep_cols:
        return None
    cells = tuple(
        tuple(_pymupdf_cell(grid[i][j], x_edges[j], bands[i]) for j in keep_cols) for i in keep_rows
    )
    x0, y0, x1, y1 = found.bbox
    table = Table(
        bbox=(x0, y0, x1, y1),
        rows=tuple((x0, bands[i][1], x1, bands[i][3]) for i in keep_rows),
        columns=tuple((x_edges[j][0], y0, x_edges[j][1], y1) for j in keep_cols),
        cells=cells,
        header_rows=_header_rows(cells),
        detector="pymupdf",
    )
    if table.header_rows or table.numeric_columns() or found.external_header:
        return table
    # A table of text: no numbers to tell the header by. PyMuPDF takes the first row for
    # the header unless it found one above the grid; so do we.
    return replace(table, header_rows=1)


def _is_bullet(words: list[Word]) -> bool:
    return all(w.text in _BULLETS for w in words)


def _column_edges(col_edges: list[list[float]], bbox) -> list[tuple[float, float]]:
    """Left and right edge of every PyMuPDF column: its cells' left edge to the next one's."""
    lefts = [min(edges) if edges else None for edges in col_edges]
    for j, left in enumerate(lefts):  # a column merged away in every row: borrow a neighbour
        if left is None:
            lefts[j] = lefts[j - 1] if j else bbox[0]
    rights = [*lefts[1:], bbox[2]]
    return [(float(a), float(b)) for a, b in zip(lefts, rights, strict=True)]


def _pymupdf_cell(words: list[Word], x_edge: tuple[float, float], band) -> TableCell | None:
    if not words:
        return None
    return _cell(words, (x_edge[0], band[1], x_edge[1], band[3]))


# --------------------------------------------------------------------------------------
# Word grid: lines and cells


@dataclass
class _Phrase:
    """Words of one line between two wide gaps: a candidate cell (words never change)."""

    words: list[Word]

    @cached_property
    def bbox(self) -> Box:
        return union_box(w.bbox for w in self.words)

    @cached_property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)

    @cached_property
    def numeric(self) -> bool:
        return is_numeric_text(self.text)


@dataclass
class _Line:
    phrases: list[_Phrase]
    height: float

    @property
    def bbox(self) -> Box:
        return union_box(p.bbox for p in self.phrases)

    @property
    def numeric(self) -> bool:
        """Whether a cell holds a number; footnote marks such as "(1)" do not count.

        A header's "(1)" under "Owned Square Footage" or a footnote's leading "(2)" is not
        a value; a body row whose only numbers look like marks is rare enough.
        """
        return any(_is_value(p.text) for p in self.phrases)


def visual_lines(words: Sequence[Word]) -> list[list[Word]]:
    """Words grouped into visual lines by vertical overlap, top to bottom, each left to right.

    Block and line numbers are ignored (Tesseract gives each table cell its own block).
    A word joins the line whose core band (median top, median bottom of its words)
    overlaps it most, if by at least :data:`LINE_OVERLAP` of the smaller height; the
    median keeps one tall or jittery word from stretching a line into the next.
    """
    lines: list[list[Word]] = []
    cores: list[tuple[float, float]] = []
    for word in sorted(words, key=lambda w: ((w.bbox[1] + w.bbox[3]) / 2, w.bbox[0])):
        best, best_overlap = -1, 0.0
        for k in range(len(lines) - 1, max(-1, len(lines) - 8), -1):  # recent lines only
            top, bottom = cores[k]
            overlap = min(bottom, word.bbox[3]) - max(top, word.bbox[1])
            needed = LINE_OVERLAP * min(bottom - top, word.height)
            if overlap > 0 and overlap >= needed and overlap > best_overlap:
                best, best_overlap = k, overlap
        if best < 0:
            lines.append([word])
            cores.append((word.bbox[1], word.bbox[3]))
            continue
        lines[best].append(word)
        cores[best] = (
            statistics.median(w.bbox[1] for w in lines[best]),
            statistics.median(w.bbox[3] for w in lines[best]),
        )
    ordered = [sorted(line, key=lambda w: w.bbox[0]) for line in lines]
    return sorted(ordered, key=lambda line: min(w.bbox[1] for w in line))


def split_cells(line: Sequence[Word]) -> list[list[Word]]:
    """One visual line cut into cells at gaps wider than :data:`CELL_GAP` line heights.

    Two numbers side by side are two cells from a narrower gap (:data:`NUMBER_GAP`): a
    tight table's columns are half an em apart, and running text seldom puts two bare
    numbers next to each other. A lone currency sign always starts a cell and joins the
    cell on its right ("$" is set flush left in a number column, far from its number, and
    may come close to the previous column's number); a lone "%", ")" or "*" joins the
    cell on its left.
    """
    if not line:
        return []
    height = _line_height(line)
    cells: list[list[Word]] = [[line[0]]]
    for word in line[1:]:
        previous = cells[-1][-1]
        gap = word.bbox[0] - previous.bbox[2]
        between_numbers = _NUMBER_WORD.match(previous.text) and _NUMBER_WORD.match(word.text)
        limit = (NUMBER_GAP if between_numbers else CELL_GAP) * height
        if gap > limit or _is_currency(word.text):
            cells.append([word])
        else:
            cells[-1].append(word)
    return _attach_fragments(cells)


def _line_height(line: Sequence[Word]) -> float:
    return max(statistics.median(w.height for w in line), 1e-6)


def _attach_fragments(cells: list[list[Word]]) -> list[list[Word]]:
    merged: list[list[Word]] = []
    carry: list[Word] = []
    for cell in cells:
        text = "".join(w.text for w in cell)
        if merged and text in _CLOSING_ONLY:
            merged[-1].extend(cell)
        elif _is_currency(text):
            carry.extend(cell)
        else:
            merged.append(carry + cell)
            carry = []
    if carry:
        merged.append(carry)
    return merged


def _is_currency(text: str) -> bool:
    return bool(text) and set(text) <= _CURRENCY_ONLY


def _lines(words: Sequence[Word]) -> list[_Line]:
    return [
        _Line([_Phrase(c) for c in split_cells(line)], _line_height(line))
        for line in visual_lines(words)
    ]


# --------------------------------------------------------------------------------------
# Word grid: prose removal and runs of lines


def _drop_prose(lines: list[_Line]) -> list[_Line]:
    """The lines without the cells of a text column (see :data:`PROSE_STACK`).

    Lines left without a cell are dropped, so that the text column's own lines between
    two table rows (its line pitch differs from the table's) do not cut the table.
    """
    candidates = [
        (i, k)
        for i, line in enumerate(lines)
        for k, phrase in enumerate(line.phrases)
        if len(phrase.words) >= PROSE_LINK_WORDS
    ]
    parent = {key: key for key in candidates}

    def find(key: tuple[int, int]) -> tuple[int, int]:
        while parent[key] != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    for i, k in candidates:
        below = _stacked_below(lines, i, k)
        if below is not None:
            parent[find((i, k))] = find(below)
    stacks: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for key in candidates:
        stacks.setdefault(find(key), []).append(key)
    prose = {key for members in stacks.values() if _is_prose(lines, members) for key in members}
    tails = [_stacked_below(lines, i, k, tail=True) for i, k in prose]
    prose.update(t for t in tails if t is not None)
    kept = []
    for i, line in enumerate(lines):
        phrases = [p for k, p in enumerate(line.phrases) if (i, k) not in prose]
        if phrases:  # a line of the text column alone is skipped, not a break in the table
            kept.append(_Line(phrases, line.height))
    return kept


def _is_prose(lines: list[_Line], members: list[tuple[int, int]]) -> bool:
    """Whether a stack of aligned long cells is a text column (see :data:`PROSE_OFFSET`)."""
    stack = [lines[i].phrases[k] for i, k in members]
    if len(stack) < PROSE_STACK or statistics.median(len(p.words) for p in stack) < PROSE_WORDS:
        return False
    lower = sum(1 for p in stack if p.text[:1].islower())
    offsets = [_baseline_offset(lines[i], k) for i, k in members]
    measured = [offset for offset in offsets if offset is not None]
    return (
        lower >= PROSE_LOWERCASE * len(stack)
        or not measured
        or statistics.median(measured) >= PROSE_OFFSET
    )


def _baseline_offset(line: _Line, k: int) -> float | None:
    """How far cell ``k`` sits off the line of the numbers beside it, in line heights.

    The smaller of the top and bottom offsets: an OCR box's bottom moves with descenders
    and its top with ascenders, but not both for words printed on one baseline.
    """
    numbers = [p.bbox for m, p in enumerate(line.phrases) if m != k and p.numeric]
    if not numbers:
        return None
    box = line.phrases[k].bbox
    top = abs(box[1] - statistics.median(b[1] for b in numbers))
    bottom = abs(box[3] - statistics.median(b[3] for b in numbers))
    return min(top, bottom) / line.height


def _stacked_below(
    lines: list[_Line], i: int, k: int, *, tail: bool = False
) -> tuple[int, int] | None:
    """The cell on a following line that continues cell ``k`` of line ``i`` as a paragraph.

    The next few lines are searched (in a two-column layout the other column's lines sit
    in between); a cell continues when it is at most 1.5 line heights lower, its left
    edge within 2 heights (a first-line indent) of the cell above, and it is about as
    wide (:data:`PROSE_WIDTH_RATIO`): the short header cell under a paragraph does not
    continue it. With ``tail``, the paragraph's short last line is looked for instead:
    narrower, any number of words, ending a sentence.
    """
    upper = lines[i].phrases[k].bbox
    for m in range(i + 1, min(i + 4, len(lines))):
        height = max(lines[i].height, lines[m].height)
        for n, phrase in enumerate(lines[m].phrases):
            lower = phrase.bbox
            if not (
                lower[1] - upper[3] + height * 0.5 >= 0
                and lower[1] - upper[3] <= 1.5 * height
                and abs(lower[0] - upper[0]) <= 2 * height
            ):
                continue
            if tail and lower[2] < upper[2] and phrase.text.rstrip('"”’)').endswith(_ENDS):
                return (m, n)
            if (
                not tail
                and len(phrase.words) >= PROSE_LINK_WORDS
                and _width_ratio(upper, lower) >= PROSE_WIDTH_RATIO
            ):
                return (m, n)
    return None


_ENDS = (".", "!", "?", ":", ";")


def _width_ratio(a: Box, b: Box) -> float:
    wa, wb = a[2] - a[0], b[2] - b[0]
    return min(wa, wb) / max(wa, wb, 1e-6)


def _runs(lines: list[_Line]) -> list[list[_Line]]:
    """Maximal runs of lines with two or more cells, at most ROW_GAP line heights apart.

    Up to :data:`MAX_SINGLE_CELL_LINES` narrow single-cell lines in a row may sit inside
    a run (section labels, wrapped labels); single-cell lines at either end are left out.
    """
    runs: list[list[_Line]] = []
    current: list[_Line] = []
    pending: list[_Line] = []
    for line in lines:
        if not line.phrases:
            runs.append(current)
            current, pending = [], []
            continue
        last = (pending or current or [None])[-1]
        if last is not None:
            height = statistics.median(x.height for x in [*current, *pending, line])
            if line.bbox[1] - last.bbox[3] > ROW_GAP * height:
                runs.append(current)
                current, pending = [], []
        if len(line.phrases) >= 2:
            current += [*pending, line]
            pending = []
        elif current and len(pending) < MAX_SINGLE_CELL_LINES and _narrow(line, current):
            pending.append(line)
        else:
            runs.append(current)
            current, pending = [], []
    runs.append(current)
    return [run for run in runs if run]


def _narrow(line: _Line, run: list[_Line]) -> bool:
    """Whether a single-cell line is narrow next to the run (and itself)."""
    box = line.bbox
    x0 = min(box[0], *(x.bbox[0] for x in run))
    x1 = max(box[2], *(x.bbox[2] for x in run))
    return box[2] - box[0] <= SINGLE_CELL_MAX_WIDTH * (x1 - x0)


def _split_at_headers(run: list[_Line]) -> list[list[_Line]]:
    """The run cut before every header line that follows numeric rows.

    Statements stacked on one page ("Statements of Operations", then "Cash Flows", each
    with its own "2015 2014 2013" line) are close enough to form one run; a new header
    line starts a new table.
    """
    parts: list[list[_Line]] = [[]]
    seen_numbers = False
    for line in run:
        if seen_numbers and _is_header_line(line):
            parts.append([])
            seen_numbers = False
        parts[-1].append(line)
        seen_numbers = seen_numbers or line.numeric
    return [part for part in parts if part]


def _is_header_line(line: _Line) -> bool:
    """Two or more cells, none numeric, two of them column titles (a word or a year)."""
    if len(line.phrases) < 2 or line.numeric:
        return False
    titles = sum(1 for p in line.phrases if _is_title(p.text))
    return titles >= 2


def _is_title(text: str) -> bool:
    """A column title: a year or period ("2015", "FY2020", "Q3"), or a word of 3+ letters.

    "n/m", "N/A" and dashes, which stand for missing values in body rows, are not.
    """
    if any(not t.is_quantity for t in find_numbers(text)):
        return True
    return sum(1 for ch in text if ch.isalpha()) >= 3


def _trim(run: list[_Line]) -> list[_Line]:
    """The run from at most MAX_HEADER_LINES lines before its first numeric line to its last."""
    numeric = [i for i, line in enumerate(run) if line.numeric]
    if not numeric:
        return []
    start = max(0, numeric[0] - MAX_HEADER_LINES)
    while start < numeric[0] and len(run[start].phrases) < 2:  # no single-cell header lines
        start += 1
    return run[start : numeric[-1] + 1]


# --------------------------------------------------------------------------------------
# Word grid: columns


def _column_cores(
    rows: list[list[_Phrase]], all_rows: list[list[_Phrase]]
) -> list[tuple[float, float]]:
    """X ranges where cells of more than CROSSING_SHARE of ``rows`` lie: the column cores.

    A sweep over the cells' edges counts, for each elementary x range, the rows with a
    cell covering it; the covered ranges joined end to end are the cores. Numbers are
    right-aligned and labels left-aligned, but both overlap their column's other cells,
    so neither alignment needs special treatment.

    Wordy cells (:data:`WORDY_WORDS` words or more, not numeric) are left out of the
    first sweep: a caption or a note sharing visual lines with the rows would bridge
    the gaps between columns. A second sweep over the wordy cells that miss every core
    adds the columns made of them (a column of long labels). Two cores one word
    straddles are one column (in a small table a single long label can leave a thinly
    covered strip). A core needs cells from MIN_COLUMN_SUPPORT rows of ``all_rows``.
    """
    tolerance = round(CROSSING_SHARE * len(rows))
    cores = _sweep([[p for p in row if not _is_wordy(p)] for row in rows], tolerance)
    leftover = [
        [p for p in row if _is_wordy(p) and not any(_overlap(p.bbox, c) > 0 for c in cores)]
        for row in rows
    ]
    cores = sorted(cores + _sweep(leftover, tolerance))
    supported = []
    for a, b in _join_straddled([list(c) for c in cores], rows):
        support = sum(1 for row in all_rows if any(_overlap(p.bbox, (a, b)) > 0 for p in row))
        if support >= MIN_COLUMN_SUPPORT:
            supported.append((a, b))
    return supported


def _is_wordy(phrase: _Phrase) -> bool:
    return len(phrase.words) >= WORDY_WORDS and not phrase.numeric


def _sweep(rows: list[list[_Phrase]], tolerance: int) -> list[tuple[float, float]]:
    """X ranges covered by the cells of more than ``tolerance`` rows, joined end to end."""
    edges = sorted({x for row in rows for p in row for x in (p.bbox[0], p.bbox[2])})
    cores: list[list[float]] = []
    for a, b in itertools.pairwise(edges):
        middle = (a + b) / 2
        covering = [row for row in rows if any(p.bbox[0] <= middle <= p.bbox[2] for p in row)]
        if len(covering) <= tolerance:
            continue
        if cores and cores[-1][1] == a:
            cores[-1][1] = b
        else:
            cores.append([a, b])
    return [(a, b) for a, b in cores]


def _join_straddled(
    cores: list[list[float]], rows: list[list[_Phrase]]
) -> list[tuple[float, float]]:
    """Adjacent cores joined when one word of a cell over at most two cores straddles them."""
    words = [
        w
        for row in rows
        for p in row
        if sum(1 for core in cores if _overlap(p.bbox, (core[0], core[1])) > 0) <= 2
        for w in p.words
    ]
    joined: list[list[float]] = []
    for core in cores:
        if joined and any(
            _overlap(w.bbox, (joined[-1][0], joined[-1][1])) > 0
            and _overlap(w.bbox, (core[0], core[1])) > 0
            for w in words
        ):
            joined[-1][1] = core[1]
        else:
            joined.append(list(core))
    return [(a, b) for a, b in joined]


def _overlap(box: Box, span: tuple[float, float]) -> float:
    return min(box[2], span[1]) - max(box[0], span[0])


def _column_of(phrase: _Phrase, cores: list[tuple[float, float]]) -> int:
    """The core a cell overlaps most, or else the nearest one (a cell outside every core)."""
    overlaps = [_overlap(phrase.bbox, core) for core in cores]  # negative: minus the gap
    return max(range(len(cores)), key=lambda j: overlaps[j])


def _split_across(phrases: list[_Phrase], cores: list[tuple[float, float]]) -> list[_Phrase]:
    """A body row's cells, each cut where its words fall into different column cores.

    In a tight table a label may run into the first number ("MULTIVERS (Wadden et al.,
    2022b) 68.86" with less than a line height between them). Header rows are not cut:
    a header cell spanning columns is one cell.
    """
    result: list[_Phrase] = []
    for phrase in phrases:
        if sum(1 for core in cores if _overlap(phrase.bbox, core) > 0) < 2:
            result.append(phrase)
            continue
        groups: list[tuple[int, list[Word]]] = []
        for word in phrase.words:
            j = _column_of(_Phrase([word]), cores)
            if groups and groups[-1][0] == j:
                groups[-1][1].append(word)
            else:
                groups.append((j, [word]))
        result += [_Phrase(words) for _, words in groups]
    return result


def _split_names(line: _Line, cores: list[tuple[float, float]]) -> list[_Phrase]:
    """A header line's cells, a phrase cut into its words when each of them lands in a
    column of its own ("Hampton Hordville Marquette", one name over each column, spaced
    as words in the text layer); a header spanning columns ("Proportion (%)" over three)
    stays one cell."""
    result: list[_Phrase] = []
    for phrase in line.phrases:
        columns = [_column_of(_Phrase([word]), cores) for word in phrase.words]
        inside = all(
            _overlap(word.bbox, cores[j]) > 0 for word, j in zip(phrase.words, columns, strict=True)
        )
        if len(phrase.words) > 1 and inside and len(set(columns)) == len(columns):
            result += [_Phrase([word]) for word in phrase.words]
        else:
            result.append(phrase)
    return result


# --------------------------------------------------------------------------------------
# Word grid: tables


def word_grid_tables(words: Sequence[Word], *, min_rows: int = 3, min_cols: int = 2) -> list[Table]:
    """Tables laid out by whitespace, from word boxes alone (text layer or OCR).

    1. :func:`visual_lines`, each cut into cells by :func:`split_cells`;
    2. cells of a text column beside a table are dropped (:func:`_drop_prose`);
    3. runs of close lines with two or more cells (:func:`_runs`; a few narrow
       single-cell lines such as section labels may sit inside), cut before a header
       line that follows numeric rows (:func:`_split_at_headers`: stacked statements),
       and trimmed to the numeric rows plus up to MAX_HEADER_LINES lines above (a title
       line or a paragraph has a single cell and never starts a run; notes after the
       last numeric row are dropped);
    4. column cores from the numeric rows (:func:`_column_cores`); every cell of the run
       goes to the core it overlaps most (a header cell spanning two cores to the larger
       share; a body cell over two cores is cut between its words), cells of a row
       landing in one column are joined; tables side by side are cut apart
       (:func:`_side_by_side`);
    5. kept when it has ``min_rows`` rows and ``min_cols`` columns, at least
       :data:`ROW_AGREEMENT` of its rows map cell to column one to one, it has a numeric
       column (so side-by-side paragraphs are never a table), it is filled like a table
       and not like a chart's data labels (:func:`_is_dense`), and it is not a table of
       contents or a numbered list (:func:`_is_listing`).
    """
    tables = []
    runs = [part for run in _runs(_drop_prose(_lines(words))) for part in _split_at_headers(run)]
    for run in runs:
        tables += _grid_tables(_trim(run), min_rows=min_rows, min_cols=min_cols)
    return tables


def _grid_tables(run: list[_Line], *, min_rows: int, min_cols: int) -> list[Table]:
    """The table (or side-by-side tables) a trimmed run of lines makes, if any."""
    if len(run) < min_rows:
        return []
    cores = _column_cores(
        [line.phrases for line in run if line.numeric], [line.phrases for line in run]
    )
    if len(cores) < min_cols:
        return []
    grid: list[list[list[Word]]] = []
    agreeing = 0
    for line in run:
        row: list[list[Word]] = [[] for _ in cores]
        phrases = _split_across(line.phrases, cores) if line.numeric else _split_names(line, cores)
        for phrase in phrases:
            row[_column_of(phrase, cores)].extend(phrase.words)
        filled = sum(1 for members in row if members)
        agreeing += filled == len(phrases)
        grid.append(row)
    used = [j for j in range(len(cores)) if any(row[j] for row in grid)]
    if len(used) < min_cols or agreeing < ROW_AGREEMENT * len(run):
        return []
    cells = [[_cell(row[j]) if row[j] else None for j in used] for row in grid]
    tables = []
    for part in _side_by_side(cells):
        table = _checked_table(part, min_rows=min_rows, min_cols=min_cols)
        if table is not None:
            tables.append(table)
    return tables


def _side_by_side(cells: list[list[TableCell | None]]) -> list[list[list[TableCell | None]]]:
    """The grid cut into tables set side by side (two small tables in a paper's column).

    Pattern: a label column, value columns, another label column, value columns. A cut
    is made before a label column (:func:`_is_label_column`) that follows a value
    column, has a label column to its left and value columns to its right, when the two
    sides have values in different rows (independent tables; a text column inside one
    table, such as issue dates in a list of notes, has a value in every row the numbers
    do). A table with its labels on the right is not cut. Rows empty in a part are
    dropped from it.
    """
    header = _build_table(tuple(tuple(row) for row in cells)).header_rows
    n_cols = len(cells[0])
    labels = [_is_label_column([row[j] for row in cells[header:]]) for j in range(n_cols)]
    cuts: list[int] = []
    for j in range(1, n_cols):
        start = cuts[-1] if cuts else 0
        if (
            labels[j]
            and not labels[j - 1]
            and any(labels[start:j])
            and not all(labels[j + 1 :])
            and _value_rows(cells, start, j) != _value_rows(cells, j, n_cols)
        ):
            cuts.append(j)
    parts = []
    for start, end in itertools.pairwise([0, *cuts, n_cols]):
        part = [row[start:end] for row in cells]
        parts.append([row for row in part if any(c is not None for c in row)])
    return parts


def _value_rows(cells: list[list[TableCell | None]], start: int, end: int) -> set[int]:
    return {
        i for i, row in enumerate(cells) if any(c and _is_value(c.text) for c in row[start:end])
    }


def _is_label_column(cells: list[TableCell | None]) -> bool:
    """Most filled cells are words (three letters or more), not numbers or dashes."""
    filled = [c for c in cells if c is not None]
    wordy = sum(1 for c in filled if not c.is_numeric and sum(ch.isalpha() for ch in c.text) >= 3)
    return bool(filled) and wordy >= NUMERIC_COLUMN_SHARE * len(filled)


def _checked_table(
    cells: list[list[TableCell | None]], *, min_rows: int, min_cols: int
) -> Table | None:
    """The grid as a table after dropping rows after its last value, if it passes the checks."""
    values = [i for i, row in enumerate(cells) if any(c and _is_value(c.text) for c in row)]
    if not values:
        return None
    cells = cells[max(0, values[0] - MAX_HEADER_LINES) : values[-1] + 1]
    if len(cells) < min_rows or len(cells[0]) < min_cols:
        return None
    table = _build_table(tuple(tuple(row) for row in cells))
    if not table.numeric_columns() or not _is_dense(table) or _is_listing(table):
        return None
    return table


def _build_table(cells: tuple[tuple[TableCell | None, ...], ...]) -> Table:
    x0, y0, x1, y1 = union_box(c.bbox for row in cells for c in row if c is not None)
    rows = []
    for row in cells:
        _, top, _, bottom = union_box(c.bbox for c in row if c is not None)
        rows.append((x0, top, x1, bottom))
    columns = []
    for j in range(len(cells[0])):
        left, _, right, _ = union_box(row[j].bbox for row in cells if row[j] is not None)
        columns.append((left, y0, right, y1))
    return Table(
        bbox=(x0, y0, x1, y1),
        rows=tuple(rows),
        columns=tuple(columns),
        cells=cells,
        header_rows=_header_rows(cells),
        detector="word_grid",
    )


def _is_dense(table: Table) -> bool:
    """Whether the grid is filled like a table rather than scattered like a chart's labels.

    A bar or line chart's data labels line up in columns too, but each row holds a few
    of them (a staircase), and few rows have a label. A table's numeric rows fill most
    numeric columns (:data:`MIN_NUMERIC_FILL`), and nearly all body rows have a label
    (:data:`MIN_LABELLED_ROWS`), on the left or, rarely, on the right.
    """
    numeric = table.numeric_columns()
    body = [table.cells[i] for i in table.body_rows()]
    fills = [
        sum(1 for j in numeric if row[j] is not None) / len(numeric)
        for row in body
        if any(c is not None and c.is_numeric for c in row)
    ]
    labelled = sum(1 for i in table.body_rows() if table.row_label(i))
    return (
        bool(fills)
        and statistics.mean(fills) >= MIN_NUMERIC_FILL
        and labelled >= MIN_LABELLED_ROWS * len(body)
    )


def _is_listing(table: Table) -> bool:
    """A table of contents, numbered list, footnote list or exhibit index, not a table.

    Every numeric column holds only markers (1, 12, (2), 10.4, 3.1†: integers, bracketed
    integers or dotted section numbers, maybe with a footnote sign) that never decrease
    down the rows. Real tables' numbers are not sorted, or carry decimals, separators,
    currency or percent signs.
    """
    for j in table.numeric_columns():
        keys = []
        for cell in table.column_cells(j)[table.header_rows :]:
            if cell is None or not cell.is_numeric:
                continue
            match = _MARKER.match(cell.text)
            if match is None:
                return False
            keys.append(tuple(int(part) for part in match.group(1).split(".")))
        if any(b < a for a, b in itertools.pairwise(keys)):
            return False
    return True
