"""Operand rows a reader rebuilds from rows that do not name the question's terms.

:mod:`.operands` finds the rows that name what an answer is computed from. A determined
reader gets further: the same amount printed again under another label ("Consolidated
$ 131,310" in a table of segment assets is total assets), and the other rows of a table
whose total is sealed (a tax provision's current and deferred lines add up to it). These
rows are operands too: an edit that seals the named rows and leaves them has not taken
the answer away.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..numbers import find_numbers
from ..textregions.words import Box, union_box
from .operands import (
    HEADED,
    PART,
    RESTATED,
    STATEMENT,
    TABLE,
    folio,
    operand_readings,
    printed_rows,
    quantities_in,
    row_operand,
    table_blocks,
)
from .reading import PageReadings
from .statements import Mention

#: An amount of a named operand row printed again elsewhere is taken for the same
#: quantity when it has this many digits.
RESTATED_DIGITS = 4


def _amount(text: str) -> str:
    """A printed amount as compared across pages: "$(1,425)." -> "1,425"."""
    return "".join(text.split()).strip("$()%.,;:*").replace("$", "")


def operand_amounts(operands: Sequence[Mention]) -> frozenset[str]:
    """The specific amounts (:data:`RESTATED_DIGITS` digits or more) the rows that name an
    operand print; rows found by the looser rules (a statement taken whole, a part of a
    total, a restatement) do not count."""
    out = set()
    for mention in operands:
        if mention.anchors in (STATEMENT, RESTATED, TABLE, HEADED) or mention.anchors[:1] == PART:
            continue
        for token in find_numbers(mention.printed):
            if token.is_quantity and sum(ch.isdigit() for ch in token.text) >= RESTATED_DIGITS:
                out.add(_amount(token.text))
    return frozenset(out)


def page_restatements(
    page: PageReadings, amounts: frozenset[str], known: set[tuple[int, Box]], listed: bool
) -> list[Mention]:
    """Rows of one page that print an operand's amount again under another label (a
    reader who finds "131,310" beside "Consolidated" in a segment table has total assets),
    with every amount they print.
    ``known`` holds the (page, box) of amounts already found as operands."""
    out = []
    for reading in operand_readings(page):
        for row in printed_rows(reading.words):
            quantities = [w for w in quantities_in(row) if (page.page, w.bbox) not in known]
            if any(_amount(w.text) in amounts for w in quantities):
                # The row's other amounts are the same line in other years or segments.
                out.append(row_operand(reading, row, quantities, RESTATED, listed))
    return out


def table_mates(
    page: PageReadings, operands: Sequence[Mention], known: set[tuple[int, Box]], listed: bool
) -> list[Mention]:
    """The other rows of every table on ``page`` that holds one of ``operands``: a table's
    rows add up to its totals (the current and deferred lines of a tax provision, the
    segments of consolidated assets), so with its total sealed they still give it."""
    rows_of = {m.row for m in operands if m.page == page.page}
    if not rows_of:
        return []
    out = []
    for reading in operand_readings(page):
        rows = printed_rows(reading.words)
        for block in table_blocks(rows):
            boxes = [union_box(w.bbox for w in rows[i]) for i in block]
            if not any(box in rows_of for box in boxes):
                continue
            for index in block:
                quantities = [
                    w for w in quantities_in(rows[index]) if (page.page, w.bbox) not in known
                ]
                if quantities and not folio(rows[index]):
                    out.append(row_operand(reading, rows[index], quantities, TABLE, listed))
    return out
