"""Tables laid out with whitespace: the columns a run of lines (:mod:`.grid_lines`) lines
up in, and the checks that tell a table from a chart's labels or a listing. The
``word_grid`` detector of :mod:`.tables`."""

from __future__ import annotations

import itertools
import re
import statistics
from collections.abc import Sequence

from .grid_lines import (
    GridLine,
    Phrase,
    drop_prose,
    grid_lines_of,
    line_runs,
    split_at_headers,
    trim_run,
)
from .table_model import (
    MAX_HEADER_LINES,
    NUMERIC_COLUMN_SHARE,
    Table,
    TableCell,
    count_header_rows,
    is_value,
    make_cell,
)
from .words import Box, Word, union_box

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

#: A chart's data labels are not a table: a table's numeric rows fill at least this share
#: of its numeric columns on average ...
MIN_NUMERIC_FILL = 0.3
#: ... and at least this share of its body rows have a label (:meth:`Table.row_label`).
#: Financial statements leave many number cells empty (subtotals in one column only, and
#: OCR drops the "—" of empty values), so the fill threshold is low; the label rule does
#: most of the work (chart labels measured: 0 to 75% of rows labelled).
MIN_LABELLED_ROWS = 0.8
_MARKER = re.compile(r"^\(?(\d{1,3}(?:\.\d{1,3})*)\)?\.?[†‡*+]?$")


# --------------------------------------------------------------------------------------
# Word grid: columns


def _column_cores(
    rows: list[list[Phrase]], all_rows: list[list[Phrase]]
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


def _is_wordy(phrase: Phrase) -> bool:
    return len(phrase.words) >= WORDY_WORDS and not phrase.numeric


def _sweep(rows: list[list[Phrase]], tolerance: int) -> list[tuple[float, float]]:
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
    cores: list[list[float]], rows: list[list[Phrase]]
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


def _column_of(phrase: Phrase, cores: list[tuple[float, float]]) -> int:
    """The core a cell overlaps most, or else the nearest one (a cell outside every core)."""
    overlaps = [_overlap(phrase.bbox, core) for core in cores]  # negative: minus the gap
    return max(range(len(cores)), key=lambda j: overlaps[j])


def _split_across(phrases: list[Phrase], cores: list[tuple[float, float]]) -> list[Phrase]:
    """A body row's cells, each cut where its words fall into different column cores.

    In a tight table a label may run into the first number ("MULTIVERS (Wadden et al.,
    2022b) 68.86" with less than a line height between them). Header rows are not cut:
    a header cell spanning columns is one cell.
    """
    result: list[Phrase] = []
    for phrase in phrases:
        if sum(1 for core in cores if _overlap(phrase.bbox, core) > 0) < 2:
            result.append(phrase)
            continue
        groups: list[tuple[int, list[Word]]] = []
        for word in phrase.words:
            j = _column_of(Phrase([word]), cores)
            if groups and groups[-1][0] == j:
                groups[-1][1].append(word)
            else:
                groups.append((j, [word]))
        result += [Phrase(words) for _, words in groups]
    return result


def _split_names(line: GridLine, cores: list[tuple[float, float]]) -> list[Phrase]:
    """A header line's cells, a phrase cut into its words when each of them lands in a
    column of its own ("Hampton Hordville Marquette", one name over each column, spaced
    as words in the text layer); a header spanning columns ("Proportion (%)" over three)
    stays one cell."""
    result: list[Phrase] = []
    for phrase in line.phrases:
        columns = [_column_of(Phrase([word]), cores) for word in phrase.words]
        inside = all(
            _overlap(word.bbox, cores[j]) > 0 for word, j in zip(phrase.words, columns, strict=True)
        )
        if len(phrase.words) > 1 and inside and len(set(columns)) == len(columns):
            result += [Phrase([word]) for word in phrase.words]
        else:
            result.append(phrase)
    return result


# --------------------------------------------------------------------------------------
# Word grid: tables


def word_grid_tables(words: Sequence[Word], *, min_rows: int = 3, min_cols: int = 2) -> list[Table]:
    """Tables laid out by whitespace, from word boxes alone (text layer or OCR).

    1. :func:`visual_lines`, each cut into cells by :func:`split_cells`;
    2. cells of a text column beside a table are dropped (:func:`drop_prose`);
    3. runs of close lines with two or more cells (:func:`line_runs`; a few narrow
       single-cell lines such as section labels may sit inside), cut before a header
       line that follows numeric rows (:func:`split_at_headers`: stacked statements),
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
    runs = [
        part
        for run in line_runs(drop_prose(grid_lines_of(words)))
        for part in split_at_headers(run)
    ]
    for run in runs:
        tables += _grid_tables(trim_run(run), min_rows=min_rows, min_cols=min_cols)
    return tables


def _grid_tables(run: list[GridLine], *, min_rows: int, min_cols: int) -> list[Table]:
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
    cells = [[make_cell(row[j]) if row[j] else None for j in used] for row in grid]
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
    return {i for i, row in enumerate(cells) if any(c and is_value(c.text) for c in row[start:end])}


def _is_label_column(cells: list[TableCell | None]) -> bool:
    """Most filled cells are words (three letters or more), not numbers or dashes."""
    filled = [c for c in cells if c is not None]
    wordy = sum(1 for c in filled if not c.is_numeric and sum(ch.isalpha() for ch in c.text) >= 3)
    return bool(filled) and wordy >= NUMERIC_COLUMN_SHARE * len(filled)


def _checked_table(
    cells: list[list[TableCell | None]], *, min_rows: int, min_cols: int
) -> Table | None:
    """The grid as a table after dropping rows after its last value, if it passes the checks."""
    values = [i for i, row in enumerate(cells) if any(c and is_value(c.text) for c in row)]
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
        header_rows=count_header_rows(cells),
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
