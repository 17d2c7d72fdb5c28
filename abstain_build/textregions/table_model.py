"""What a found table is: its cells, rows and columns, which cells hold values, and the
geometry both detectors share (:mod:`.tables`)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

import pymupdf

from ..numbers import find_numbers
from .words import Box, Word, union_box

#: At most this many lines without a number just above the first numeric row are kept as
#: header rows; lines without a number after the last numeric row are dropped (notes).
MAX_HEADER_LINES = 3

# -- numeric cells and columns

#: A cell is numeric when quantity tokens cover at least this share of its non-space
#: characters: "5,196.3", "(14.2%)", "$4.5bn", "32.9%*" are; "Q3 results", "FY2020",
#: "12 months", "n/m" are not.
NUMERIC_CELL_SHARE = 0.6
#: A column is numeric when at least this share of its non-empty body cells is numeric
#: (and at least two are): "n/m" or "—" in a few rows do not stop a number column.
NUMERIC_COLUMN_SHARE = 0.6

_FOOTNOTE_LETTERS = re.compile(r"(?<=\d)(?!st$|nd$|rd$|th$)[a-z]{1,4}$")
_NOTE_MARK = re.compile(r"^(?:\(\d{1,2}\)|\d{1,2}[.)]|[*†‡])$")


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
    of them holding a cell beyond the first column (see :func:`count_header_rows`); a ruled
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


def is_value(text: str) -> bool:
    """A numeric cell that is not a footnote mark such as "(1)"."""
    return is_numeric_text(text) and not _NOTE_MARK.match(text)


def _numeric_share(cells: Iterable[TableCell | None]) -> bool:
    filled = [cell for cell in cells if cell is not None]
    numeric = sum(1 for cell in filled if cell.is_numeric)
    return numeric >= 2 and numeric >= NUMERIC_COLUMN_SHARE * len(filled)


# --------------------------------------------------------------------------------------
# Geometry helpers


def mostly_vertical(words: Sequence[Word]) -> bool:
    """Whether most words of three or more characters are taller than wide."""
    long_words = [w for w in words if len(w.text) >= 3]
    tall = sum(1 for w in long_words if w.height > w.width)
    return bool(long_words) and tall > len(long_words) / 2


def centre_in_box(point_box: Box, box: Box) -> bool:
    cx, cy = (point_box[0] + point_box[2]) / 2, (point_box[1] + point_box[3]) / 2
    return box[0] <= cx <= box[2] and box[1] <= cy <= box[3]


def contains(outer: Box, inner: Box) -> bool:
    return centre_in_box(inner, outer)


def intersects(a: Box, b: Box) -> bool:
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def _map_box(box: Box, matrix: pymupdf.Matrix) -> Box:
    rect = pymupdf.Rect(box) * matrix  # the normalised hull of the mapped corners
    return (rect.x0, rect.y0, rect.x1, rect.y1)


def map_words(words: Sequence[Word], matrix: pymupdf.Matrix) -> list[Word]:
    return [
        Word(w.text, _map_box(w.bbox, matrix), w.conf, w.block, w.line, w.source) for w in words
    ]


def map_table(table: Table, matrix: pymupdf.Matrix) -> Table:
    """``table`` with every box, its words' boxes included, mapped through ``matrix``."""

    def cell(c: TableCell | None) -> TableCell | None:
        if c is None:
            return None
        return TableCell(_map_box(c.bbox, matrix), c.text, tuple(map_words(c.words, matrix)))

    return Table(
        _map_box(table.bbox, matrix),
        tuple(_map_box(b, matrix) for b in table.rows),
        tuple(_map_box(b, matrix) for b in table.columns),
        tuple(tuple(cell(c) for c in row) for row in table.cells),
        table.header_rows,
        table.detector,
    )


def make_cell(words: Sequence[Word], bbox: Box | None = None) -> TableCell:
    ordered = tuple(sorted(words, key=lambda w: (w.bbox[0], w.bbox[1])))
    box = bbox if bbox is not None else union_box(w.bbox for w in ordered)
    return TableCell(box, " ".join(w.text for w in ordered), ordered)


def count_header_rows(cells: Sequence[Sequence[TableCell | None]]) -> int:
    """How many leading rows are column headers.

    The rows before the first row with a numeric cell other than a footnote mark (at
    most MAX_HEADER_LINES of them), up to the last one with a cell beyond the first
    column: a row holding only a label ("Net Sales:") just above the numbers is the
    body's first section label.
    """
    first_numeric = next(
        (i for i, row in enumerate(cells) if any(c is not None and is_value(c.text) for c in row)),
        None,
    )
    if first_numeric is None or first_numeric > MAX_HEADER_LINES:
        return 0
    titled = [i for i in range(first_numeric) if any(c is not None for c in cells[i][1:])]
    return titled[-1] + 1 if titled else 0
