"""The word grid's first steps: words into visual lines, lines into cells at wide gaps,
prose beside a table set aside, and runs of lines that may form one table
(:mod:`.word_grid` finds their columns)."""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from ..numbers import find_numbers
from .table_model import MAX_HEADER_LINES, is_numeric_text, is_value
from .words import Box, Word, union_box

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
_NUMBER_WORD = re.compile(r"^[(\-−+$€£¥]*\d(?:[\d,.]*\d)?%?\)?[%*]?$")
_CURRENCY_ONLY = frozenset("$€£¥")
_CLOSING_ONLY = ("%", ")", "%)", "*")


# --------------------------------------------------------------------------------------
# Word grid: lines and cells


@dataclass
class Phrase:
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
class GridLine:
    phrases: list[Phrase]
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
        return any(is_value(p.text) for p in self.phrases)


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


def grid_lines_of(words: Sequence[Word]) -> list[GridLine]:
    return [
        GridLine([Phrase(c) for c in split_cells(line)], _line_height(line))
        for line in visual_lines(words)
    ]


# --------------------------------------------------------------------------------------
# Word grid: prose removal and runs of lines


def drop_prose(lines: list[GridLine]) -> list[GridLine]:
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
            kept.append(GridLine(phrases, line.height))
    return kept


def _is_prose(lines: list[GridLine], members: list[tuple[int, int]]) -> bool:
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


def _baseline_offset(line: GridLine, k: int) -> float | None:
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
    lines: list[GridLine], i: int, k: int, *, tail: bool = False
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


def line_runs(lines: list[GridLine]) -> list[list[GridLine]]:
    """Maximal runs of lines with two or more cells, at most ROW_GAP line heights apart.

    Up to :data:`MAX_SINGLE_CELL_LINES` narrow single-cell lines in a row may sit inside
    a run (section labels, wrapped labels); single-cell lines at either end are left out.
    """
    runs: list[list[GridLine]] = []
    current: list[GridLine] = []
    pending: list[GridLine] = []
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


def _narrow(line: GridLine, run: list[GridLine]) -> bool:
    """Whether a single-cell line is narrow next to the run (and itself)."""
    box = line.bbox
    x0 = min(box[0], *(x.bbox[0] for x in run))
    x1 = max(box[2], *(x.bbox[2] for x in run))
    return box[2] - box[0] <= SINGLE_CELL_MAX_WIDTH * (x1 - x0)


def split_at_headers(run: list[GridLine]) -> list[list[GridLine]]:
    """The run cut before every header line that follows numeric rows.

    Statements stacked on one page ("Statements of Operations", then "Cash Flows", each
    with its own "2015 2014 2013" line) are close enough to form one run; a new header
    line starts a new table.
    """
    parts: list[list[GridLine]] = [[]]
    seen_numbers = False
    for line in run:
        if seen_numbers and _is_header_line(line):
            parts.append([])
            seen_numbers = False
        parts[-1].append(line)
        seen_numbers = seen_numbers or line.numeric
    return [part for part in parts if part]


def _is_header_line(line: GridLine) -> bool:
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


def trim_run(run: list[GridLine]) -> list[GridLine]:
    """The run from at most MAX_HEADER_LINES lines before its first numeric line to its last."""
    numeric = [i for i, line in enumerate(run) if line.numeric]
    if not numeric:
        return []
    start = max(0, numeric[0] - MAX_HEADER_LINES)
    while start < numeric[0] and len(run[start].phrases) < 2:  # no single-cell header lines
        start += 1
    return run[start : numeric[-1] + 1]
