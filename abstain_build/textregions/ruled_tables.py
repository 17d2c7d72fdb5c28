"""Ruled tables (a grid drawn with lines or rectangles) by PyMuPDF's ``find_tables()``,
filled with our words: the ``pymupdf`` detector of :mod:`.tables`."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Sequence
from dataclasses import dataclass, replace

import pymupdf

from ..media.pdf import page_digest
from .table_model import Table, TableCell, centre_in_box, count_header_rows, make_cell
from .words import Word

#: A PyMuPDF grid drawn around a chart (its gridlines) is mostly empty: at least this
#: share of a ruled table's cells must hold words.
MIN_RULED_FILL = 0.5
#: ... and at least this share of its rows must hold two cells or more: a framed text box
#: whose lines PyMuPDF makes rows has one filled cell per row.
MIN_RULED_MULTI_CELL_ROWS = 0.5
BULLETS = frozenset("•◦○●▪■□◆◇➢►▶✓✔-–—*o§\uf0b7\uf0a7\uf0d8")


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
    inside = [w for w in words if centre_in_box(w.bbox, tuple(found.bbox))]
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
        row_words = [[w for w in inside if r and centre_in_box(w.bbox, r)] for r in rects]
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
        header_rows=count_header_rows(cells),
        detector="pymupdf",
    )
    if table.header_rows or table.numeric_columns() or found.external_header:
        return table
    # A table of text: no numbers to tell the header by. PyMuPDF takes the first row for
    # the header unless it found one above the grid; so do we.
    return replace(table, header_rows=1)


def _is_bullet(words: list[Word]) -> bool:
    return all(w.text in BULLETS for w in words)


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
    return make_cell(words, (x_edge[0], band[1], x_edge[1], band[3]))
