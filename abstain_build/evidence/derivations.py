"""Answers a reader rebuilds by arithmetic from what a shipped page still prints.

Blind readers answered masked and blurred items by adding up what was left: a methodology
table's yearly counts with its total cell masked (1,520 + 2,002 + 2,002 + 1,502 = 7,026),
an amortization schedule's years with the total blacked out, a pie whose other slices
print 27% and 32% (100 - 27 - 32 = 41), the two years of a row whose change column was
erased. The evidence map finds the rows an answer *printed nowhere* is computed from
(:mod:`.operands`); this is the same attempt for an answer that *was* printed and is now
gone: the gate (:mod:`.gate`) tries these derivations on the edited and listed pages and
fails an item whose gold one of them gives.

The derivations, each on one reading of one page (text layer, or OCR of a figure):

* **column sum**: a run of two or more consecutive values in one column of a table adds
  up to the gold, a value printed in parentheses counting less (segments' revenue and
  their "Intersegment eliminations (1,234.6)" give the total with its cell masked);
* **row sum**: a run of two or more values of one row (quarters of a year) adds up to it;
* **complement**: the gold is a percent, and with the other percents of one figure (a
  pie; on a figure of several pies, each group of labels that lie together) or table row
  it makes 100;
* **row difference**: two values of one row differ by the gold;
* **column remainder**: a value of a column less the run of values under it gives the
  gold: a statement line erased from an income statement whose revenues, other costs and
  operating income stay (6,779,511 - 4,591,476 - 824,092 - 407,329 - 305,826 = 650,788
  for technology and development).

To keep chance out (small numbers are the sum of something on any page): a sum must give
a gold of three or more significant digits from values of three or more, a difference a
gold of four or more from values of four or more; values are printed plainly (no footnote
letters), compared at the gold's printed precision, and percents combine only with
percents. On the unedited text layer of the shared MMLongBench-Doc documents, for the 97
evidence pages and 684 other pages of its numeric questions, the rules fire on 3 evidence
pages (a total from its rows each time) and on none of the others. Counting deductions
in columns adds one evidence page over all 2,478 text-layer pages of those documents
(14,277 + (5,839) = 8,438: net property and equipment) and no other page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from ..numbers import find_numbers
from ..textregions.words import Box, Word
from .forms import GoldItem
from .operands import operand_readings, printed_rows, quantities_in, table_blocks
from .reading import PageReadings

#: Significant digits a gold (and every value added) needs before a sum is not chance.
MIN_DIGITS = 3
#: ... and a difference, with both its values.
MIN_DIFFERENCE_DIGITS = 4
#: ... and a column's remainder (a value less a run of several under it).
MIN_REMAINDER_DIGITS = 5
#: Longest run of values added up.
MAX_RUN = 12
#: Percents of one row tried as the other parts of a whole; a figure (a pie, a clock of
#: how a day is spent) may have more slices.
MAX_PARTS = 6
MAX_FIGURE_PARTS = 12


#: A value printed plainly: currency, digits with separators, a percent sign, a trailing
#: period or comma; no letters (footnote markers: "84cd").
_PLAIN = re.compile(r"^[$€£]?\d[\d,]*(?:\.\d+)?%?[.,;:]?$")
#: ... or a deduction in parentheses: "(1,234.6)", "$(56)".
_DEDUCTION = re.compile(r"^[$€£]?\([$€£]?\d[\d,]*(?:\.\d+)?%?\)[.,;:]?$")


@dataclass(frozen=True)
class Derivation:
    """One way the shipped page still gives the gold."""

    page: int
    channel: str
    rule: str  # "column sum", "row sum", "complement", "row difference", "column remainder"
    how: str  # "1,520 + 2,002 + 2,002 + 1,502 = 7,026"
    boxes: tuple[Box, ...]

    def to_json(self) -> dict[str, object]:
        return {"page": self.page, "channel": self.channel, "rule": self.rule, "how": self.how}


@dataclass(frozen=True)
class _Value:
    word: Word
    value: Decimal
    percent: bool
    digits: int

    @property
    def centre(self) -> float:
        return (self.word.bbox[0] + self.word.bbox[2]) / 2


def _values(row: Sequence[Word], deductions: bool = False) -> list[_Value]:
    """The plainly printed, non-negative values of a row ("1,520", "$377", "27%"); with
    ``deductions``, those in parentheses too, negative ("(1,234.6)")."""
    out = []
    for word in quantities_in(row):
        deduction = deductions and bool(_DEDUCTION.match(word.text))
        if not _PLAIN.match(word.text) and not deduction:
            continue
        tokens = [t for t in find_numbers(word.text) if t.is_quantity and t.value is not None]
        if len(tokens) != 1 or (tokens[0].negative and not deduction):
            continue
        token = tokens[0]
        if token.parenthesised and not deduction:
            continue
        value = abs(Decimal(str(token.value)))
        digits = len(re.sub(r"\D", "", token.text).lstrip("0"))
        percent = token.kind == "percent"
        out.append(_Value(word, -value if deduction else value, percent, digits))
    return out


def _gives(total: Decimal, gold: GoldItem) -> bool:
    assert gold.number is not None
    quantum = gold.quantum if gold.quantum is not None else Decimal(1)
    return abs(total - gold.number) <= quantum / 2


def _runs(values: Sequence[_Value], gold: GoldItem) -> Iterable[Sequence[_Value]]:
    """Runs of two or more consecutive ``values`` that add up to ``gold``."""
    for start in range(len(values)):
        total = Decimal(0)
        for end in range(start, min(len(values), start + MAX_RUN)):
            total += values[end].value
            if end > start and _gives(total, gold):
                yield values[start : end + 1]


def _remainders(values: Sequence[_Value], gold: GoldItem) -> Iterable[Sequence[_Value]]:
    """Runs of ``values`` whose first less all the others gives ``gold``."""
    for start in range(len(values)):
        left = values[start].value
        for end in range(start + 1, min(len(values), start + MAX_RUN)):
            left -= values[end].value
            if left < 0:
                break
            if _gives(left, gold):
                yield values[start : end + 1]


def _columns(block: Sequence[Sequence[_Value]]) -> list[list[_Value]]:
    """The values of a table block grouped by column: centres within one value's width."""
    columns: list[list[_Value]] = []
    for row in block:
        for value in row:
            width = max(value.word.bbox[2] - value.word.bbox[0], 4.0)
            for column in columns:
                if abs(column[-1].centre - value.centre) <= width * 0.75:
                    column.append(value)
                    break
            else:
                columns.append([value])
    return columns


def _clusters(values: Sequence[_Value]) -> list[list[_Value]]:
    """Every group single linkage forms over the values' places, from pairs to the whole
    figure: two clocks side by side are two pies, each adding up to 100 on its own."""

    def gap(a: _Value, b: _Value) -> float:
        ax0, ay0, ax1, ay1 = a.word.bbox
        bx0, by0, bx1, by1 = b.word.bbox
        return max(bx0 - ax1, ax0 - bx1, 0.0) + max(by0 - ay1, ay0 - by1, 0.0)

    members = [[v] for v in values]
    groups: list[list[_Value]] = []
    while len(members) > 1:
        pairs = (
            (min(gap(a, b) for a in members[i] for b in members[j]), i, j)
            for i in range(len(members))
            for j in range(i + 1, len(members))
        )
        _, i, j = min(pairs)
        members[i] = members[i] + members.pop(j)
        groups.append(members[i])
    return groups or [list(values)]


def _sum_how(values: Sequence[_Value], gold: GoldItem) -> str:
    return " + ".join(v.word.text for v in values) + f" = {gold.text}"


def reading_derivations(
    page: int, channel: str, words: Sequence[Word], golds: Sequence[GoldItem], figure: bool
) -> list[Derivation]:
    """Every derivation of one reading (see the module docstring)."""
    rows = printed_rows(words)
    valued = [_values(row) for row in rows]
    signed = [_values(row, deductions=True) for row in rows]
    found: list[Derivation] = []

    def add(rule: str, how: str, values: Sequence[_Value]) -> None:
        found.append(Derivation(page, channel, rule, how, tuple(v.word.bbox for v in values)))

    for gold in golds:
        if gold.kind != "number" or gold.number is None:
            continue
        if gold.digits >= MIN_DIGITS:
            addends = [
                [v for v in row if v.percent == gold.percent and v.digits >= MIN_DIGITS]
                for row in valued
            ]
            column_addends = [
                [v for v in row if v.percent == gold.percent and v.digits >= MIN_DIGITS]
                for row in signed
            ]
            for block in table_blocks(rows):
                for column in _columns([column_addends[i] for i in block]):
                    for run in _runs(column, gold):
                        add("column sum", _sum_how(run, gold), run)
            for row in addends:
                for run in _runs(row, gold):
                    add("row sum", _sum_how(run, gold), run)
            if gold.digits >= MIN_REMAINDER_DIGITS:
                for block in table_blocks(rows):
                    for column in _columns([addends[i] for i in block]):
                        for run in _remainders(column, gold):
                            shown = " - ".join(v.word.text for v in run)
                            add("column remainder", f"{shown} = {gold.text}", run)
        if gold.digits >= MIN_DIFFERENCE_DIGITS:
            for row in valued:
                row = [
                    v
                    for v in row
                    if v.percent == gold.percent and v.digits >= MIN_DIFFERENCE_DIGITS
                ]
                for i, a in enumerate(row):
                    for b in row[i + 1 :]:
                        if _gives(abs(a.value - b.value), gold):
                            high, low = (a, b) if a.value >= b.value else (b, a)
                            add("row difference", f"{high.word.text} - {low.word.text}", (a, b))
        if gold.percent:
            groups = [[v for v in row if v.percent] for row in valued]
            most = MAX_FIGURE_PARTS if figure else MAX_PARTS
            if figure:
                groups = _clusters([v for row in groups for v in row])
            for parts in groups:
                if 2 <= len(parts) <= most:
                    rest = Decimal(100) - sum((v.value for v in parts), Decimal(0))
                    if _gives(rest, gold) and gold.number > 0:
                        shown = " - ".join(v.word.text for v in parts)
                        add("complement", f"100% - {shown} = {gold.text}", parts)
    return found


def page_derivations(page: PageReadings, golds: Sequence[GoldItem]) -> list[Derivation]:
    """Every derivation of the gold on one shipped page, over its operand readings."""
    out: list[Derivation] = []
    for reading in operand_readings(page):
        out += reading_derivations(
            reading.page, reading.channel, reading.words, golds, reading.region is not None
        )
    return out


def find_derivations(
    readings: Mapping[int, PageReadings], golds: Sequence[GoldItem], pages: Iterable[int]
) -> list[Derivation]:
    """Derivations of the gold on ``pages`` of the shipped readings."""
    wanted = [g for g in golds if g.kind == "number" and g.number is not None]
    if not wanted:
        return []
    out: list[Derivation] = []
    for number in sorted(set(pages)):
        page = readings.get(number)
        if page is not None:
            out += page_derivations(page, wanted)
    return out
