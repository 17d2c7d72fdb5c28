"""Whether an edited document still gives a reader the original answer.

A corruption that rewrites the printing of the answer to one new value makes an
answer-changed item (SPEC 7): answerable with the new value, *if* nothing the item ships
still gives the old one. Two things do, and the evidence map's statements see neither:

* a mention of the gold beside one of the question's words on a page the edit left alone:
  "Hordville (population 150)" in the text of a report whose table printed the 2000
  population, for "what's the population there in 2000?". The map needs two such words
  off the listed pages to call a mention a statement; a reader who followed the question
  to Hordville needs one;
* two values printed on one page whose sum or difference is the gold: a 10-K's working
  capital, rewritten in the selected financial data, is still total current assets minus
  total current liabilities on the balance sheet. Only golds of
  :data:`MIN_COMPUTED_DIGITS` significant digits or more are checked, from values of
  :data:`MIN_OPERAND_DIGITS` or more, printed alike and on one row or in one column:
  small numbers add up to anything by chance, and so do two from anywhere on a page of
  hundreds.

* the other parts of a whole: a pie's slices, or "59% go online" beside "41% do not",
  add up to 100% with the gold. Rewrite one and the slices no longer do, and 100 minus
  the others gives the original back. The parts are the percents printed nearest the
  rewritten one (up to :data:`MAX_PARTS`, within :data:`PARTS_REACH` of the page):
  nearest first, so that a page of percents does not sum to 100 by chance.

* the two values of an asked difference, stated in one passage with the question's
  words: "PaLM-2L ... 41.5% on TimeQA ... with RAG ... 57.4%" under a blurred table gives
  "how much higher is the accuracy of PaLM-2L + RAG" (15.9%). Only for a question that
  asks a difference, from two values printed alike within :data:`PASSAGE_WORDS` words of
  each other with :data:`PASSAGE_ANCHORS` of the question's words around them: small
  golds differ by chance otherwise. A printed range is two such values: "Clearance
  height: 70\u2013175 mm" gives "the difference between its maximum and minimum
  clearance height" (105).

* the rest of a share the prose states, with the question's words around it: "Nearly all
  immigrant adults ... (97%) say they are Hispanic" beside a blurred chart of who does and
  who does not still gives the smallest bar, 3 (100 - 97). Only for a question about a
  share (its gold a percent, or its words "percent", "percentage", "share", "%") that
  asks no difference: the gap between two groups' shares (44 points) meets the rest of a
  third share (56%) by chance.

* the gold in another unit: "344,000 acres" on another page of a county history still
  gives 538 square miles (640 acres to the square mile, which the history prints too).
  Only the units of :data:`CONVERSIONS`, into the unit the question asks for.

* the gold's place in a run of consecutive whole numbers: a timeline's years, down one
  column or along one row, give back the one masked among them.

A rounding coarser than the gold ("3" billion for 2,975 million) gives back none.

The same holds for a counterpart that *erased* the answer: erased where it was printed,
it is still recovered from either.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from itertools import chain

from ..numbers import find_numbers
from ..textregions.words import Box, Word, centre_inside, share_a_line
from .anchors import Anchors, stems_of
from .forms import GoldItem, significant, token_value, unit_shifts
from .map import EvidenceMap
from .reading import OCR_FIGURE, TEXT_LAYER, PageReadings, Reading

#: Significant digits a gold needs before a sum or difference of two printed values
#: that equals it is taken for its computation rather than chance.
MIN_COMPUTED_DIGITS = 4
#: ... and each of the two values this many: 1861 + 1 is a year and a footnote.
MIN_OPERAND_DIGITS = 2


#: A question asking the difference of two values ("how much higher", "the gap",
#: "how many percentage points").
_ASKS_A_DIFFERENCE = re.compile(
    r"\b(?:how\s+much\s+(?:higher|lower|more|less|greater|larger|smaller|bigger)"
    r"|differen(?:ce|t\s+by)|gap|percentage\s+points?|minus|more\s+than|less\s+than"
    r"|higher\s+than|lower\s+than)\b",
    re.IGNORECASE,
)
#: The two values of a stated difference lie within this many words of each other...
PASSAGE_WORDS = 50
#: ... with this many of the question's anchor words (not the words the document prints
#: everywhere) between them or within :data:`PASSAGE_MARGIN` words around.
PASSAGE_ANCHORS = 2
PASSAGE_MARGIN = 15

#: The rest of a share is stated with this many of the question's words around it, the
#: words the document prints everywhere included: a report on Hispanic identity prints
#: "Hispanic", "adults" and "ancestry" on most pages, and beside the share it states.
COMPLEMENT_ANCHORS = 3

#: Two operands stand in one column when their edges or centres are this close (points).
COLUMN_SLACK = 3.0

#: At most this many other percents are taken for the parts of a whole with the gold...
MAX_PARTS = 10
#: ... printed within this share of the page's larger side of its printing.
PARTS_REACH = 0.3
#: Rounded parts of a whole sum to 100 give or take this many of the gold's last digit.
PARTS_SLACK = 1
#: Consecutive numbers left in line with a removed whole number, both next to it among
#: them, before the series gives it back (two alone bracket anything by chance).
SERIES_NEIGHBOURS = 3


#: Units a reader converts between, as printed after a value (an area before a length:
#: "square miles" is no "miles").
UNITS = {
    "square miles": r"square[\s-]+miles?|sq\.?\s*mi\b\.?",
    "square kilometres": r"square[\s-]+kilomet(?:er|re)s?|sq\.?\s*km\b|km2|km²",
    "acres": r"acres?\b",
    "hectares": r"hectares?\b",
    "miles": r"miles?\b",
    "kilometres": r"kilomet(?:er|re)s?\b|km\b",
    "pounds": r"pounds?\b|lbs?\b",
    "kilograms": r"kilograms?\b|kg\b",
}
#: (unit printed, unit asked) -> how many of the second one of the first is.
CONVERSIONS = {
    ("acres", "square miles"): Decimal(1) / Decimal(640),
    ("square miles", "acres"): Decimal(640),
    ("hectares", "acres"): Decimal("2.47105"),
    ("acres", "hectares"): Decimal("0.404686"),
    ("square kilometres", "square miles"): Decimal("0.386102"),
    ("square miles", "square kilometres"): Decimal("2.58999"),
    ("kilometres", "miles"): Decimal("0.621371"),
    ("miles", "kilometres"): Decimal("1.60934"),
    ("kilograms", "pounds"): Decimal("2.20462"),
    ("pounds", "kilograms"): Decimal("0.453592"),
}


def unit_of(text: str) -> str | None:
    """The first unit of :data:`UNITS` ``text`` starts with (or names, for a question)."""
    for unit, pattern in UNITS.items():
        if re.match(rf"\s*(?:{pattern})", text, re.IGNORECASE):
            return unit
    return None


def asked_unit(question: str) -> str | None:
    """The unit the question asks its answer in ("how many square miles ...")."""
    for unit, pattern in UNITS.items():
        if re.search(rf"\b(?:{pattern})", question, re.IGNORECASE):
            return unit
    return None


@dataclass(frozen=True)
class Recovery:
    """One way the edited item still gives the original answer."""

    page: int
    how: str  # "mention", "stated", "complement", "computed", "parts", "series", "converted"
    detail: str

    def describe(self) -> str:
        return f"page {self.page}: {self.detail}"


def left_mentions(emap: EvidenceMap, edited: Mapping[int, Sequence[Box]]) -> list[Recovery]:
    """Mentions of the gold, with at least one of the question's words near, that the edit
    did not reach."""
    out: list[Recovery] = []
    for mention in emap.mentions:
        if mention.form == "coarser" or not mention.anchored(1):
            continue  # "3" (billion) does not give back 2,975 (million)
        if centre_inside(mention.span, edited.get(mention.page, ())):
            continue
        words = emap.anchors.printed(mention.anchors)
        out.append(Recovery(mention.page, "mention", f"{mention.printed!r} beside {words!r}"))
    return out


@dataclass(frozen=True)
class _Printed:
    """A quantity a page prints: its magnitude, how it is printed (precision, percent or
    not: two operands of one computation are printed alike), its text and its box."""

    value: Decimal
    quantum: Decimal
    percent: bool
    text: str
    box: Box

    def alike(self, other: _Printed) -> bool:
        return (self.quantum, self.percent) == (other.quantum, other.percent)

    def aligned(self, other: _Printed) -> bool:
        """On one row, or in one column: the two operands a table sets out to be worked
        with."""
        return _aligned(self.box, other.box)


def _aligned(a: Box, b: Box) -> bool:
    """On one row, or in one column (left edges, right edges or centres within
    :data:`COLUMN_SLACK`)."""
    if share_a_line(a, b):
        return True
    edges = (a[0] - b[0], a[2] - b[2], (a[0] + a[2] - b[0] - b[2]) / 2)
    return min(abs(e) for e in edges) <= COLUMN_SLACK


def _readings(page: PageReadings) -> list[Reading]:
    """The page's text layer with the OCR of its raster figures (which no text layer
    holds: a pie pasted into a paper as a picture) when it has one, else every channel."""
    layer = [r for r in page.readings if r.channel == TEXT_LAYER]
    if not layer:
        return page.readings
    return [*layer, *(r for r in page.readings if r.channel == OCR_FIGURE)]


#: Two plain numbers joined by a dash, the smaller first: a range ("70\u2013175"), which
#: the number finder reads as one code.
_RANGE = re.compile(r"(\d+(?:\.\d+)?)\s*[-\u2013\u2014]\s*(\d+(?:\.\d+)?)")


def _ranges(words: Sequence[Word], skip: Sequence[Box]) -> Iterator[tuple[int, _Printed, _Printed]]:
    """(index, low end, high end) of each range ``words`` print outside ``skip``. Its ends
    are worked with together only: "75-79" (an age bracket) and a page's "2" are no pair."""
    for index, word in enumerate(words):
        match = _RANGE.fullmatch(word.text.strip("()[],;:"))
        if match is None or centre_inside(word.bbox, skip):
            continue
        ends = []
        for text in match.groups():
            value = Decimal(text)
            quantum = Decimal(1).scaleb(value.as_tuple().exponent)
            ends.append(_Printed(value, quantum, False, text, word.bbox))
        if ends[0].value < ends[1].value:
            yield index, ends[0], ends[1]


def _quantities(words: Sequence[Word]) -> Iterator[tuple[int, _Printed]]:
    """Each quantity ``words`` print, with the index of the word printing it."""
    for index, word in enumerate(words):
        for token in find_numbers(word.text):
            value = token_value(token) if token.is_quantity else None
            if value is not None:
                percent = token.kind == "percent"
                yield index, _Printed(*value, percent, token.text, word.bbox)


def _printed(page: PageReadings) -> Iterator[_Printed]:
    """Each quantity the page prints (:func:`_readings`)."""
    for reading in _readings(page):
        for _, printed in _quantities(reading.words):
            yield printed


def _values(page: PageReadings, skip: Sequence[Box]) -> list[_Printed]:
    """The quantities of :data:`MIN_OPERAND_DIGITS` or more the page prints outside
    ``skip``."""
    return [
        p
        for p in _printed(page)
        if significant(p.value, p.quantum) >= MIN_OPERAND_DIGITS and not centre_inside(p.box, skip)
    ]


def computed_pair(
    page: PageReadings, item: GoldItem, skip: Sequence[Box] = ()
) -> tuple[str, str, str] | None:
    """Two values printed on ``page`` whose sum or difference is ``item`` exactly, in the
    gold's own unit or a table's thousands or millions: (first, sign, second), else None.
    Exactly, printed alike (the same decimals; both percents or neither, and percents
    not scaled) and set out together (on one row or in one column): a 10-K page prints
    enough numbers for some pair of them to meet any gold by chance ("936,220 - 285,432",
    a 2014 profit and a change in costs, met a 650,788 expense), but seldom two of one row
    or column."""
    if item.kind != "number" or item.number is None or item.quantum is None:
        return None
    if item.digits < MIN_COMPUTED_DIGITS:
        return None
    values = _values(page, skip)
    by_value: dict[Decimal, list[_Printed]] = {}
    for printed in values:
        by_value.setdefault(printed.value, []).append(printed)
    for shift in unit_shifts(item, False):
        target = item.number * shift
        if shift != 1 and len(target.normalize().as_tuple().digits) < MIN_COMPUTED_DIGITS:
            continue  # 8,000 in thousands is 8: any two ticks of an axis differ by it
        for first in values:
            if first.percent and shift != 1:
                continue
            for other, sign in ((first.value - target, "-"), (target - first.value, "+")):
                for second in by_value.get(other, []):
                    if second.box != first.box and second.alike(first) and second.aligned(first):
                        return first.text, sign, second.text
    return None


def asks_a_difference(question: str) -> bool:
    return bool(_ASKS_A_DIFFERENCE.search(question))


def stated_difference(
    page: PageReadings, item: GoldItem, anchors: Anchors, skip: Sequence[Box] = ()
) -> tuple[str, str] | None:
    """Two values printed alike in one passage of ``page`` outside ``skip``, with the
    question's words around them, that differ by ``item``: (larger, smaller), else None."""
    if item.kind != "number" or item.number is None or item.quantum is None:
        return None
    for reading in _readings(page):
        words = reading.words
        values = [(i, p) for i, p in _quantities(words) if not centre_inside(p.box, skip)]
        ranges = ((i, i, low, high) for i, low, high in _ranges(words, skip))
        for i, j, first, second in chain(ranges, _passage_pairs(values)):
            if first.percent != item.percent or not second.alike(first):
                continue
            if abs(first.value - second.value) != item.number:
                continue
            around = words[max(0, i - PASSAGE_MARGIN) : j + PASSAGE_MARGIN + 1]
            stems = {s for w in around for s in stems_of(w.text)}
            if len(anchors.found_in(stems)) >= PASSAGE_ANCHORS:
                high, low = (first, second) if first.value > second.value else (second, first)
                return high.text, low.text
    return None


#: A year a question or a passage names.
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
#: A question about a share: its gold is a percent of something whose rest is a percent too.
_ASKS_A_SHARE = re.compile(r"%|\b(?:percent(?:age)?s?|shares?|proportions?)\b", re.IGNORECASE)


def stated_complement(
    page: PageReadings, item: GoldItem, anchors: Anchors, question: str, skip: Sequence[Box] = ()
) -> str | None:
    """A percent printed in a passage of ``page`` outside ``skip``, with
    :data:`COMPLEMENT_ANCHORS` of the question's words around it (and one of its years,
    when it names any), whose rest to 100 is ``item``: its printing, else None. The two
    parts of a share are one statement: "97% say they are Hispanic" says 3% do not."""
    if item.kind != "number" or item.number is None or item.quantum is None:
        return None
    if not (item.percent or _ASKS_A_SHARE.search(question)) or not 0 < item.number < 100:
        return None
    if asks_a_difference(question):
        return None  # "how many percentage points higher": two shares, not one and its rest
    rest = 100 - item.number
    years = set(_YEAR.findall(question))
    for reading in _readings(page):
        words = reading.words
        for i, printed in _quantities(words):
            if not printed.percent or printed.value != rest or centre_inside(printed.box, skip):
                continue
            around = words[max(0, i - PASSAGE_MARGIN) : i + PASSAGE_MARGIN + 1]
            stems = {s for w in around for s in stems_of(w.text)}
            if len(anchors.found_in(stems, topic=True)) < COMPLEMENT_ANCHORS:
                continue
            if years and not years & {y for w in around for y in _YEAR.findall(w.text)}:
                continue  # "conservative in 2000": a 58% of 2017 is another share
            return printed.text.strip("()[],;:")
    return None


def _passage_pairs(
    values: Sequence[tuple[int, _Printed]],
) -> Iterator[tuple[int, int, _Printed, _Printed]]:
    """Each two of ``values`` (indexed by word, in order) within :data:`PASSAGE_WORDS`
    words of each other, lazily: the first pair that gives the gold ends the search."""
    for k, (i, first) in enumerate(values):
        for j, second in values[k + 1 :]:
            if j - i > PASSAGE_WORDS:
                break
            yield i, j, first, second


def _percents(page: PageReadings) -> list[tuple[Decimal, Decimal, str, Box]]:
    """(value, precision, printed text, box) of each percent the page prints, once each
    (a chart read both whole and as a figure gives its labels twice)."""
    out: list[tuple[Decimal, Decimal, str, Box]] = []
    for p in _printed(page):
        if p.percent and not any(v == p.value and centre_inside(p.box, [b]) for v, _, _, b in out):
            out.append((p.value, p.quantum, p.text, p.box))
    return out


def _distance(a: Box, b: Box) -> float:
    return (((a[0] + a[2]) - (b[0] + b[2])) ** 2 + ((a[1] + a[3]) - (b[1] + b[3])) ** 2) ** 0.5 / 2


def whole_parts(
    page: PageReadings, item: GoldItem, edited: Sequence[Box]
) -> tuple[str, list[str]] | None:
    """The percents printed nearest a rewritten printing of the gold (a percent at one of
    ``edited``) that add up to 100 with the gold: (the printing, the parts), else None.
    A printing inside a figure is summed with that figure's own percents first: a pie's
    slices are its parts, whatever the text beside it prints nearer (a held-out reader
    gave a masked slice as 100 - 74.6 - 3.9 - 6.1 under a paragraph of other percents)."""
    if item.kind != "number" or item.number is None or item.quantum is None:
        return None
    percents = _percents(page)
    reach = PARTS_REACH * max(page.size) if max(page.size) > 0 else float("inf")
    figures = [r.region for r in page.readings if r.region is not None]
    for value, quantum, text, box in percents:
        if not centre_inside(box, edited) or value not in (item.number, item.number * 100):
            continue
        others = sorted(
            (p for p in percents if not centre_inside(p[3], edited)),
            key=lambda p: _distance(p[3], box),
        )
        others = [p for p in others if _distance(p[3], box) <= reach][:MAX_PARTS]
        slack = PARTS_SLACK * max(quantum, item.quantum)
        around = [f for f in figures if centre_inside(box, [f])]
        candidates = [[p for p in others if centre_inside(p[3], around)]] if around else []
        for parts in [*candidates, others]:
            count = _count_to_whole(value, [p[0] for p in parts], slack)
            if count:
                return text, [p[2] for p in parts[:count]]
    return None


def _count_to_whole(value: Decimal, parts: Sequence[Decimal], slack: Decimal) -> int:
    """How many of ``parts``, taken in order, make 100 with ``value`` (within ``slack``
    from two parts on); 0 when no prefix does."""
    total = value
    for count, part in enumerate(parts, start=1):
        total += part
        if abs(total - 100) <= (slack if count > 1 else 0):
            return count
    return 0


#: A whole number printed alone (a year, a rank, an entry's number), its punctuation aside.
_WHOLE = re.compile(r"[(\[]?(\d{1,4})[)\],.;:]?")


def _whole_numbers(page: PageReadings) -> list[tuple[int, Box]]:
    """(value, box) of each word of the page that is a whole number and nothing else."""
    out = []
    for reading in _readings(page):
        for word in reading.words:
            match = _WHOLE.fullmatch(word.text)
            if match:
                out.append((int(match[1]), word.bbox))
    return out


def series_member(
    page: PageReadings, item: GoldItem, edited: Sequence[Box]
) -> tuple[str, list[str]] | None:
    """A removed printing of a whole-number gold that its row or column of consecutive
    numbers gives back: the numbers one below and one above it, and one more of the run,
    left in line with it ((the printing, the neighbours), else None). A timeline reading
    2016, 2015, [masked], 2013 down one column gave a reader 2014."""
    if not edited or item.number is None or item.quantum != 1 or item.percent:
        return None  # a page the edit left alone has no removed printing to give back
    gold = int(item.number)
    numbers = _whole_numbers(page)
    for value, box in numbers:
        if value != gold or not centre_inside(box, edited):
            continue
        around = {v for v, b in numbers if not centre_inside(b, edited) and _aligned(b, box)}
        run = around & {gold - 2, gold - 1, gold + 1, gold + 2}
        if {gold - 1, gold + 1} <= run and len(run) >= SERIES_NEIGHBOURS:
            return str(gold), [str(v) for v in sorted(run)]
    return None


def converted(
    page: PageReadings, item: GoldItem, unit: str | None, skip: Sequence[Box] = ()
) -> str | None:
    """A value printed on ``page`` in another unit that converts to ``item`` in ``unit``
    (the question's) at the gold's precision: its printing with its unit, else None."""
    if unit is None or item.kind != "number" or item.number is None or item.quantum is None:
        return None
    if item.digits < MIN_OPERAND_DIGITS:
        return None
    for reading in _readings(page):
        words = reading.words
        for index, word in enumerate(words):
            if centre_inside(word.bbox, skip):
                continue
            after = " ".join(w.text for w in words[index + 1 : index + 3])
            printed = unit_of(after)
            factor = CONVERSIONS.get((printed, unit)) if printed else None
            if factor is None:
                continue
            for token in find_numbers(word.text):
                value = token_value(token) if token.is_quantity else None
                if value is None or significant(*value) < MIN_OPERAND_DIGITS:
                    continue
                result = (value[0] * factor).quantize(item.quantum, rounding=ROUND_HALF_UP)
                if result == item.number:
                    return f"{token.text} {printed}"
    return None


def recoveries(
    emap: EvidenceMap, edited: Mapping[int, Sequence[Box]], question: str = ""
) -> list[Recovery]:
    """Every way the item, edited at ``edited`` (boxes by page), still gives the gold."""
    found = left_mentions(emap, edited)
    unit = asked_unit(question)
    difference = asks_a_difference(question)
    for item in emap.items:
        for number, page in sorted(emap.readings.items()):
            if difference:
                stated = stated_difference(page, item, emap.anchors, edited.get(number, ()))
                if stated is not None:
                    detail = f"{stated[0]} - {stated[1]} = {item.text}, stated together"
                    found.append(Recovery(number, "stated", detail))
            rest = stated_complement(page, item, emap.anchors, question, edited.get(number, ()))
            if rest is not None:
                detail = f"100% - {rest} = {item.text}, stated with the question's words"
                found.append(Recovery(number, "complement", detail))
            pair = computed_pair(page, item, edited.get(number, ()))
            if pair is not None:
                first, sign, second = pair
                detail = f"{first} {sign} {second} = {item.text}"
                found.append(Recovery(number, "computed", detail))
            parts = whole_parts(page, item, edited.get(number, ()))
            if parts is not None:
                printed, others = parts
                detail = f"{item.text} (printed {printed}) and {', '.join(others)} make 100%"
                found.append(Recovery(number, "parts", detail))
            series = series_member(page, item, edited.get(number, ()))
            if series is not None:
                detail = f"{series[0]} between {', '.join(series[1])} in line with it"
                found.append(Recovery(number, "series", detail))
            other = converted(page, item, unit, edited.get(number, ()))
            if other is not None:
                found.append(Recovery(number, "converted", f"{other} = {item.text} {unit}"))
    return found
