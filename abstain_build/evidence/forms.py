"""The forms a gold answer is printed in, and where a text prints one of them.

A careful reader takes "$34.7 million" as stating 34.7, "8.8 billion" as stating 8,831
(millions), "56.82" as stating 56.8, "51%" as stating 0.51 and "(1,234)" as stating
-1,234. This module finds those forms:

* **numbers** compare by value (exact decimals, never floats), after the printed scale word
  ("million"), up to a unit shift (tables "in thousands/millions", percent vs fraction),
  and up to rounding: a printed number more precise than the gold rounds to it
  (``rounded``), one less precise is the gold rounded (``coarser``) when it keeps at least
  two significant digits;
* **years** match only the same year (2015, FY2015, FY15);
* **dates** match in any common format (March 5, 2017 / 5 March 2017 / 2017-03-05 /
  3/5/2017; a month as July 2009 / 2009-07 / 7/2009), comparing the parts the gold gives;
* **text** matches regardless of case, spacing and punctuation, and tolerates small OCR
  errors (``rn`` read for ``m``, ``0`` for ``o``) through an edit distance
  (:mod:`rapidfuzz`) that grows with the answer's length; a long answer (a sentence) is
  also found restated in other words, most of its words and numbers kept.

Each match says how distinctive it is (``strong``): a number with three significant
digits or more, a text answer of two words or six letters. Whether a weak match states
the answer depends on where it is (:mod:`.statements`).
"""

from __future__ import annotations

import ast
import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation

from rapidfuzz.distance import Levenshtein

from ..content.timeref import MONTH_NAME
from ..numbers import NumericToken, find_numbers, follows_reference_word
from ..textregions.words import Word

#: How a printed number can relate to the gold by a power of ten: tables "in thousands",
#: "in millions", "in billions" (either way round). Percent shifts are separate.
UNIT_SHIFTS = tuple(Decimal(10) ** e for e in (0, 3, 6, 9, -3, -6, -9))
#: A number with this many significant digits is distinctive on its own.
STRONG_DIGITS = 3
#: A number printed exactly with this many significant digits is unmistakable anywhere.
UNIQUE_DIGITS = 5
#: So is a text answer of this many words.
UNIQUE_WORDS = 3
#: A printed number rounds to the gold only with at most this many more significant digits
#: ("8,831" rounds to 8.8 thousand; "8,794,516" is not how anyone prints 8.8 million).
MAX_EXTRA_DIGITS = 2
#: A text answer shorter than this (normalised) is not searched for ("No", "A").
MIN_TEXT = 3
#: A text answer of this many letters (or two words or more) is distinctive on its own.
STRONG_TEXT = 6
#: Words a numeric answer may carry besides its number ("12 stores", "3.5 years").
MAX_UNIT_WORDS = 3

_YEAR_KINDS = ("year", "fiscal_year", "year_range", "quarter")
_DATE = re.compile(
    rf"""
    \b(?:{MONTH_NAME})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}\b
  | \b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{MONTH_NAME})\.?,?\s+\d{{4}}\b
  | \b(?:{MONTH_NAME})\.?,?\s+\d{{4}}\b
  | \b\d{{4}}-\d{{1,2}}-\d{{1,2}}\b
  | \b\d{{4}}-(?:0[1-9]|1[0-2])\b(?!-)
  | \b(?:0?[1-9]|1[0-2])/\d{{4}}\b
  | \b\d{{1,2}}[/.]\d{{1,2}}[/.](?:\d{{4}}|\d{{2}})\b
    """,
    re.IGNORECASE | re.VERBOSE,
)
#: A text answer of this many words may be restated in other words ...
PARAPHRASE_WORDS = 8
#: ... keeping this share of its words and of its numbers ...
PARAPHRASE_SHARE = 0.75
#: ... within this many words of its length.
PARAPHRASE_SLACK = 3
#: Small counts are often printed as words ("three case studies").
NUMBER_WORDS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
]
#: Answers that are judgements about the page, not things printed on it.
_NOT_ANSWERS = frozenset(
    (w,) for w in ("yes", "no", "true", "false", "none", "n a", "not", "neither", "both")
) | {("n", "a")}
#: OCR confusions folded away before text is compared (both sides).
_OCR_FOLDS = (("rn", "m"), ("vv", "w"), ("0", "o"), ("1", "l"), ("|", "l"), ("5", "s"))


@dataclass(frozen=True)
class GoldItem:
    """One thing the answer says: a number, a year, a date or a text."""

    text: str
    kind: str  # "number", "year", "date", "text"
    #: Numbers: magnitude (scale word applied, sign dropped) and the precision printed.
    number: Decimal | None = None
    quantum: Decimal | None = None
    percent: bool = False
    #: Dates: (year, month, day), None for the parts the gold does not give.
    date: tuple[int | None, int | None, int | None] | None = None
    #: Text: normalised tokens (case, accents and punctuation gone).
    tokens: tuple[str, ...] = ()
    #: The numbers of a text answer without its unit words ("0 375" of "0-375 miles"): a
    #: legend prints the range, the axis title the unit. Never distinctive on its own.
    partial: bool = False

    @property
    def digits(self) -> int:
        """Significant digits of a number (0 for other kinds)."""
        if self.number is None or self.quantum is None:
            return 0
        return significant(self.number, self.quantum)

    @property
    def searchable(self) -> bool:
        if self.kind == "text":
            return len("".join(self.tokens)) >= MIN_TEXT and self.tokens not in _NOT_ANSWERS
        if self.kind == "number":
            return self.number is not None and (self.digits >= 2 or self.number != 0)
        return True

    @property
    def strong_text(self) -> bool:
        if self.partial:
            return False
        return len(self.tokens) >= 2 or len("".join(self.tokens)) >= STRONG_TEXT


@dataclass(frozen=True)
class FormMatch:
    """A place a text prints a form of a gold item: ``words[first:last + 1]``."""

    item: str
    printed: str
    form: str
    #: Distinctive: three significant digits, a long name, a date.
    strong: bool
    first: int = 0
    last: int = 0
    #: The answer wherever it is printed: a six-figure amount printed exactly, a phrase of
    #: three words, a full date.
    unique: bool = False
    #: The words printing it when they are not ``first..last`` in order: a label wrapped
    #: under an icon, its second line after the other labels of the row (:func:`words`).
    indices: tuple[int, ...] = ()

    def words(self) -> range | tuple[int, ...]:
        """Indices of the words that print the match."""
        return self.indices or range(self.first, self.last + 1)


# -- the gold ------------------------------------------------------------------------------


def answer_items(answer: str, answer_format: str | None = None) -> list[str]:
    """The pieces of an answer: the items of a List answer, else the answer itself."""
    text = str(answer).strip()
    if (answer_format or "").lower() == "list" or (text.startswith("[") and text.endswith("]")):
        try:
            parsed = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            parsed = None
        if isinstance(parsed, (list, tuple)):
            return [str(item).strip() for item in parsed if str(item).strip()]
    return [text] if text else []


def significant(value: Decimal, quantum: Decimal) -> int:
    """Significant digits of ``value`` printed to ``quantum`` (8.8 to 0.1: 2)."""
    if value == 0:
        return 1
    return max(0, value.adjusted() - quantum.adjusted() + 1)


def token_value(token: NumericToken) -> tuple[Decimal, Decimal] | None:
    """The magnitude a token prints and its precision, scale word applied, exactly."""
    match = re.search(r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+", token.text)
    if match is None or token.value is None:
        return None
    digits = match.group().replace(",", "")
    try:
        magnitude = Decimal(digits)
    except InvalidOperation:
        return None
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    multiplier = Decimal(int(token.multiplier))
    return magnitude * multiplier, Decimal(1).scaleb(-decimals) * multiplier


def _number_item(text: str) -> GoldItem | None:
    tokens = find_numbers(text)
    if len(tokens) != 1:
        return None
    token = tokens[0]
    rest = (text[: token.start] + " " + text[token.end :]).strip(" .,;:()$€£¥")
    if re.search(r"\d", rest) or len(rest.split()) > MAX_UNIT_WORDS:
        return None
    if token.kind == "year" and not rest:
        return GoldItem(text, "year", number=Decimal(token.years[0]), quantum=Decimal(1))
    if not token.is_quantity:
        return None
    value = token_value(token)
    if value is None:
        return None
    percent = token.kind == "percent" or "percent" in rest.lower()
    return GoldItem(text, "number", number=value[0], quantum=value[1], percent=percent)


def _date_parts(text: str) -> tuple[int | None, int | None, int | None] | None:
    """(year, month, day) of a date string; the parts it does not give are None."""
    from dateutil import parser

    try:
        first = parser.parse(text, default=datetime(1904, 1, 1))
        second = parser.parse(text, default=datetime(1908, 2, 2))
    except (ValueError, OverflowError, TypeError):
        return None
    year = first.year if first.year == second.year else None
    month = first.month if first.month == second.month else None
    day = first.day if first.day == second.day else None
    if year is None and month is None:
        return None
    return (year, month, day)


def gold_items(
    answer: str, answer_format: str | None = None, options: Sequence[str] = ()
) -> list[GoldItem]:
    """What the gold answer says, item by item (a letter answer means its option's text)."""
    text = str(answer).strip()
    if options and re.fullmatch(r"[A-Z]", text):
        index = ord(text) - ord("A")
        if index < len(options):
            text = str(options[index]).strip()
    items: list[GoldItem] = []
    for piece in answer_items(text, answer_format):
        number = _number_item(piece)
        if number is not None:
            items.append(number)
            continue
        if _DATE.fullmatch(piece.strip()):
            parts = _date_parts(piece)
            if parts is not None:
                items.append(GoldItem(piece, "date", date=parts))
                continue
        tokens = tuple(normalise(piece).split())
        items.append(GoldItem(piece, "text", tokens=tokens))
        core = _numeric_core(tokens)
        if core and core != tokens:
            items.append(GoldItem(piece, "text", tokens=core, partial=True))
    return [item for item in items if item.searchable]


def _numeric_core(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """A text answer's run of numbers without the words around it, when it has one worth
    searching alone (two numbers, or one of two digits or more)."""
    digits = [i for i, t in enumerate(tokens) if any(ch.isdigit() for ch in t)]
    if not digits:
        return ()
    core = tokens[digits[0] : digits[-1] + 1]
    if any(not any(ch.isdigit() for ch in t) for t in core):
        return ()
    if len(core) < 2 and len(core[0]) < 2:
        return ()
    return core


# -- numbers -------------------------------------------------------------------------------


def unit_shifts(item: GoldItem, printed_percent: bool) -> tuple[Decimal, ...]:
    """Powers of ten between the gold and a printed number that keep the same meaning.

    A percent gold may be printed as a fraction (5.4% as 0.054) and a fraction gold as a
    percent (0.51 as 51%); otherwise a gold of two significant digits or more may be
    printed in a table's thousands or millions. A count ("3") is never "3,000".
    """
    if item.percent and not printed_percent:
        return (Decimal(1), Decimal("0.01"))
    if printed_percent and not item.percent:
        return (Decimal(1), Decimal(100))
    if item.percent or item.digits < 2 or item.number is None or item.number < 1:
        return (Decimal(1),)
    return UNIT_SHIFTS


def number_form(item: GoldItem, token: NumericToken) -> tuple[str, int] | None:
    """How ``token`` prints ``item``: (form, significant digits the two share), or None."""
    if item.kind == "year":
        if token.kind in _YEAR_KINDS and int(item.number or 0) in token.years:
            return "year", 0
        return None
    if item.kind != "number" or not token.is_quantity or item.number is None:
        return None
    printed = token_value(token)
    if printed is None:
        return None
    return value_form(item, printed[0], printed[1], token.kind == "percent")


def value_form(
    item: GoldItem, value: Decimal, quantum: Decimal, percent: bool = False
) -> tuple[str, int] | None:
    """How a printed magnitude ``value`` (precision ``quantum``, scale word applied) states
    a numeric ``item``: (form, significant digits the two share), or None."""
    if item.kind != "number" or item.number is None or item.quantum is None:
        return None
    for shift in unit_shifts(item, percent):
        gold, gold_quantum = item.number * shift, item.quantum * shift
        if value == gold:
            form = "exact" if shift == 1 else "scaled"
            return form, significant(value, max(quantum, gold_quantum))
        if quantum < gold_quantum:  # printed more precisely than the gold: rounds to it
            digits = significant(gold, gold_quantum)
            extra = significant(value, quantum) - digits
            if digits >= 2 and extra <= MAX_EXTRA_DIGITS and abs(value - gold) * 2 <= gold_quantum:
                return "rounded", digits
        elif quantum > gold_quantum:  # printed less precisely: the gold rounded
            digits = significant(value, quantum)
            if digits >= 2 and abs(gold - value) * 2 <= quantum:
                return "coarser", digits
    return None


def is_count(item: GoldItem) -> bool:
    """A whole number small enough to be printed as a word."""
    return (
        item.number is not None
        and item.quantum == 1
        and not item.percent
        and item.number < len(NUMBER_WORDS)
    )


# -- dates ---------------------------------------------------------------------------------


def date_matches(item: GoldItem, text: str) -> list[tuple[int, int]]:
    """Spans of ``text`` printing ``item``'s date in any common format."""
    if item.date is None:
        return []
    spans = []
    for match in _DATE.finditer(text):
        printed = _date_parts(match.group())
        if printed is None:
            continue
        candidates = [printed]
        numeric = re.fullmatch(r"(\d{1,2})[/.](\d{1,2})[/.](\d{2,4})", match.group())
        if numeric:  # 3/5/2017 is March 5 or 3 May: either may be meant
            year = printed[0]
            candidates.append((year, int(numeric.group(1)), int(numeric.group(2))))
            candidates.append((year, int(numeric.group(2)), int(numeric.group(1))))
        if any(_same_date(item.date, c) for c in candidates):
            spans.append((match.start(), match.end()))
    return spans


def _same_date(
    gold: tuple[int | None, int | None, int | None],
    printed: tuple[int | None, int | None, int | None],
) -> bool:
    return all(g is None or g == p for g, p in zip(gold, printed, strict=True))


# -- text ----------------------------------------------------------------------------------


def normalise(text: str) -> str:
    """Case, accents, punctuation and spacing folded away: 'U.S.-based' -> 'u s based'."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).casefold()
    text = re.sub(r"(?<=\d)(?=[^\W\d_])|(?<=[^\W\d_])(?=\d)", " ", text)  # 3cm -> 3 cm
    return " ".join(re.sub(r"[^\w]+|_", " ", text).split())


def ocr_fold(text: str) -> str:
    """``text`` (normalised) with common OCR confusions folded to one spelling."""
    for old, new in _OCR_FOLDS:
        text = text.replace(old, new)
    return text


def _digits(text: str) -> str:
    return "".join(ch for ch in text if ch.isdigit())


def allowed_errors(length: int) -> int:
    """Edits a text of ``length`` letters may carry and still be the gold (0 under 6)."""
    return 0 if length < STRONG_TEXT else 1 + (length - STRONG_TEXT) // 8


#: A range of two whole numbers ("18-34", an age group), which prose spells "18 to 34".
_RANGE = re.compile(r"\d+\s*[-\u2013\u2014]\s*\d+")
_RANGE_WORDS = frozenset(("to", "through", "thru"))


def text_matches(item: GoldItem, tokens: Sequence[str]) -> list[tuple[int, int, str]]:
    """(first, last, form) spans of ``tokens`` (normalised words) printing ``item``'s text.

    Exact on the normalised tokens first (a range "18-34" also as "18 to 34"); then, for
    an answer of six letters or more, a window of as many tokens (one more or one less)
    within :func:`allowed_errors` edits after folding OCR confusions.
    """
    gold = item.tokens
    n = len(gold)
    if not n or not tokens:
        return []
    found: list[tuple[int, int, str]] = []
    taken: set[int] = set()
    for i in range(len(tokens) - n + 1):
        if tuple(tokens[i : i + n]) == gold:
            found.append((i, i + n - 1, "text"))
            taken.update(range(i, i + n))
    if _RANGE.fullmatch(item.text.strip()):  # "18-34" printed "18- to 34-year-old"
        for i in range(len(tokens) - 2):
            if (tokens[i], tokens[i + 2]) == gold and tokens[i + 1] in _RANGE_WORDS:
                found.append((i, i + 2, "text"))
                taken.update(range(i, i + 3))
    joined = ocr_fold("".join(gold))
    digits = _digits("".join(gold))
    budget = allowed_errors(len(joined))
    if budget == 0:
        return found
    for size in (n, n - 1, n + 1):
        if size < 1:
            continue
        for i in range(len(tokens) - size + 1):
            if any(j in taken for j in range(i, i + size)):
                continue
            raw = "".join(tokens[i : i + size])
            if _digits(raw) != digits:  # "65 days" is another objective than "60 days"
                continue
            window = ocr_fold(raw)
            if abs(len(window) - len(joined)) > budget:
                continue
            if Levenshtein.distance(window, joined, score_cutoff=budget) <= budget:
                found.append((i, i + size - 1, "fuzzy"))
                taken.update(range(i, i + size))
    if n >= PARAPHRASE_WORDS:
        found += _paraphrases(gold, tokens, taken)
    return sorted(found)


def _paraphrases(
    gold: Sequence[str], tokens: Sequence[str], taken: set[int]
) -> list[tuple[int, int, str]]:
    """Windows restating a long text answer in other words: most of its words and most of
    its numbers, within a few words of its length ("By 2018, reduce ... by 25% from 60
    days (2015) to 45 days" restates "By December 31, 2018, reduce ... from 60 days (2015)
    to 45 days"; "from 65 days (2015) to 49 days" is another objective)."""
    words = set(gold)
    numbers = {t for t in words if t.isdigit()}
    n, found = len(gold), []
    i = 0
    while i < len(tokens):
        best = None
        for size in range(max(1, n - PARAPHRASE_SLACK), n + PARAPHRASE_SLACK + 1):
            window = tokens[i : i + size]
            if len(window) < size or any(j in taken for j in range(i, i + size)):
                break
            if window[0] not in words or window[-1] not in words:
                continue
            shared = words & set(window)
            if len(shared) < PARAPHRASE_SHARE * len(words):
                continue
            if numbers and len(numbers & shared) < PARAPHRASE_SHARE * len(numbers):
                continue
            best = size
        if best is None:
            i += 1
            continue
        found.append((i, i + best - 1, "paraphrase"))
        taken.update(range(i, i + best))
        i += best
    return found


# -- searching a sequence of words ---------------------------------------------------------


@dataclass(frozen=True)
class Line:
    """Words of one line joined into text, with each word's character span."""

    text: str
    spans: tuple[tuple[int, int, int], ...]  # (start, end, index into the word list)

    def words_between(self, start: int, end: int) -> list[int]:
        return [i for s, e, i in self.spans if s < end and e > start]


def lines_of(words: Sequence[Word]) -> list[Line]:
    """The words grouped into lines (detector block and line), in reading order."""
    grouped: dict[tuple[int, int], list[int]] = {}
    for index, word in enumerate(words):
        grouped.setdefault((word.block, word.line), []).append(index)
    lines = []
    for indices in grouped.values():
        indices.sort(key=lambda i: words[i].bbox[0])
        spans, parts, cursor = [], [], 0
        for i in indices:
            spans.append((cursor, cursor + len(words[i].text), i))
            parts.append(words[i].text)
            cursor += len(words[i].text) + 1
        lines.append(Line(" ".join(parts), tuple(spans)))
    return lines


def _number_matches(items: Sequence[GoldItem], line: Line) -> list[FormMatch]:
    out = []
    for token in find_numbers(line.text):
        if follows_reference_word(line.text, token):  # "Figure 2" numbers a figure
            continue
        for item in items:
            found = number_form(item, token)
            hit = line.words_between(token.start, token.end) if found else []
            if not found or not hit:
                continue
            form, digits = found
            unique = form in ("exact", "scaled") and digits >= UNIQUE_DIGITS
            strong = digits >= STRONG_DIGITS
            out.append(FormMatch(item.text, token.text, form, strong, hit[0], hit[-1], unique))
    return out


#: A decimal comma ("1,3" for 1.3, "51,3%"): one or two digits after the comma, which a
#: thousands separator never has. ``find_numbers`` reads none of these.
_DECIMAL_COMMA = re.compile(r"(?<![\d.,])(\d{1,3}),(\d{1,2})(?![\d,]|\.\d)(\s?%)?")


def _decimal_comma_matches(items: Sequence[GoldItem], line: Line) -> list[FormMatch]:
    """Numbers printed with a decimal comma (European-style charts and slides)."""
    out = []
    for match in _DECIMAL_COMMA.finditer(line.text):
        whole, decimals, percent = match.groups()
        value = Decimal(f"{whole}.{decimals}")
        quantum = Decimal(1).scaleb(-len(decimals))
        hit = line.words_between(match.start(), match.end())
        for item in items:
            found = value_form(item, value, quantum, bool(percent))
            if found and hit:
                digits = found[1]
                out.append(
                    FormMatch(
                        item.text,
                        match.group(),
                        "decimal comma",
                        digits >= STRONG_DIGITS,
                        hit[0],
                        hit[-1],
                    )
                )
    return out


def _count_matches(items: Sequence[GoldItem], line: Line) -> list[FormMatch]:
    out = []
    for item in items:
        word = NUMBER_WORDS[int(item.number or 0)]
        for index, printed in enumerate(line.text.split(" ")):
            if normalise(printed) == word:
                hit = line.spans[index][2]
                out.append(FormMatch(item.text, printed, "words", False, hit, hit))
    return out


def _date_matches(items: Sequence[GoldItem], line: Line) -> list[FormMatch]:
    out = []
    for item in items:
        full = item.date is not None and None not in item.date
        for start, end in date_matches(item, line.text):
            hit = line.words_between(start, end)
            if hit:
                printed = line.text[start:end]
                out.append(FormMatch(item.text, printed, "date", True, hit[0], hit[-1], full))
    return out


def _text_matches(
    items: Sequence[GoldItem], words: Sequence[Word], lines: Sequence[Line]
) -> list[FormMatch]:
    """Text golds over the page's tokens in reading order (a name may wrap a line)."""
    order = [index for line in lines for _, _, index in line.spans]
    tokens: list[str] = []
    owner: list[int] = []  # position in ``order`` of each token's word
    for position, index in enumerate(order):
        for token in normalise(words[index].text).split():
            tokens.append(token)
            owner.append(position)
    out = []
    whole: list[tuple[str, int, int]] = []  # spans of full matches, per answer text
    for item in sorted(items, key=lambda i: i.partial):
        for first, last, form in text_matches(item, tokens):
            if item.partial and any(
                t == item.text and first <= b and last >= a for t, a, b in whole
            ):
                continue  # "2.5-3" inside a match of "2.5-3cm"
            whole.append((item.text, first, last))
            shown = order[owner[first] : owner[last] + 1]  # with the dashes between
            printed = " ".join(words[i].text for i in shown)
            unique = len(item.tokens) >= UNIQUE_WORDS and not item.partial
            out.append(
                FormMatch(
                    item.text, printed, form, item.strong_text, min(shown), max(shown), unique
                )
            )
    return out


#: How far below a line its wrapped continuation may start, in line heights.
STACK_GAP = 1.0


def _below(words: Sequence[Word], upper: Line, lower: Line) -> bool:
    """Is ``lower`` the line right under ``upper`` (a label's second line)?"""
    top = [words[i].bbox for _, _, i in upper.spans]
    bottom = [words[i].bbox for _, _, i in lower.spans]
    height = max(b[3] - b[1] for b in top)
    gap = min(b[1] for b in bottom) - max(b[3] for b in top)
    return -0.5 * height <= gap <= STACK_GAP * height


def _stacked_pairs(words: Sequence[Word], lines: Sequence[Line]) -> Iterator[tuple[Line, Line]]:
    """Each line with every line right under it (:func:`_below`) that shares some of its
    width. The detector's order is not enough: a map's labels are read apart from the
    page's lines, and the second line of "National Atmospheric Research / Laboratory"
    comes far from its first."""
    # Each line's extent: left, top, right, bottom, and its tallest word's height.
    extents = []
    for line in lines:
        boxes = [words[i].bbox for _, _, i in line.spans]
        extents.append(
            (
                min(b[0] for b in boxes),
                min(b[1] for b in boxes),
                max(b[2] for b in boxes),
                max(b[3] for b in boxes),
                max(b[3] - b[1] for b in boxes),
            )
        )
    by_top = sorted(range(len(lines)), key=lambda k: extents[k][1])
    tops = [extents[k][1] for k in by_top]
    for k, upper in enumerate(lines):
        x0, _, x1, bottom, height = extents[k]
        start = bisect_left(tops, bottom - 0.5 * height)
        stop = bisect_right(tops, bottom + STACK_GAP * height)
        for j in by_top[start:stop]:
            lower = extents[j]
            if (
                j != k
                and lower[0] < x1 + height
                and lower[2] > x0 - height
                and _below(words, upper, lines[j])
            ):
                yield upper, lines[j]


def _stacked_matches(
    items: Sequence[GoldItem], words: Sequence[Word], lines: Sequence[Line]
) -> list[FormMatch]:
    """Text golds printed over two lines of one column: "UC Browser" under an app's icon
    and "Tiếng Việt" under it, with the row's other labels between them in reading order.

    The gold's first words are a run of the upper line, printed exactly (OCR confusions
    folded); the rest are the first words of the next line beneath that run, within
    :func:`allowed_errors` of the rest of the gold."""
    out: list[FormMatch] = []
    wanted = [i for i in items if i.kind == "text" and len(i.tokens) >= 2]
    if not wanted:
        return out
    tokens = [normalise(w.text).split() for w in words]
    for upper, lower in _stacked_pairs(words, lines):
        top = [i for _, _, i in upper.spans if tokens[i]]
        for item in wanted:
            gold = item.tokens
            for start in range(len(top)):
                head: list[int] = []
                said: list[str] = []
                for index in top[start:]:
                    head.append(index)
                    said += tokens[index]
                    if len(said) >= len(gold) or said != list(gold[: len(said)]):
                        break
                    rest = ocr_fold("".join(gold[len(said) :]))
                    x0 = min(words[i].bbox[0] for i in head)
                    x1 = max(words[i].bbox[2] for i in head)
                    slack = max(words[i].bbox[3] - words[i].bbox[1] for i in head)
                    under = [
                        i
                        for _, _, i in lower.spans
                        if tokens[i]
                        and words[i].bbox[0] < x1 + slack
                        and words[i].bbox[2] > x0 - slack
                    ]
                    for stop in range(1, len(under) + 1):
                        printed = ocr_fold("".join(t for i in under[:stop] for t in tokens[i]))
                        budget = allowed_errors(len(rest))
                        if Levenshtein.distance(printed, rest, score_cutoff=budget) > budget:
                            continue
                        printed_by = (*head, *under[:stop])
                        out.append(
                            FormMatch(
                                item.text,
                                " ".join(words[i].text for i in printed_by),
                                "text" if printed == rest else "fuzzy",
                                item.strong_text,
                                min(printed_by),
                                max(printed_by),
                                len(gold) >= UNIQUE_WORDS and not item.partial,
                                printed_by,
                            )
                        )
                        break
    return out


def find_forms(items: Sequence[GoldItem], words: Sequence[Word]) -> list[FormMatch]:
    """Every place ``words`` print a form of one of ``items``, as word index spans."""
    if not items or not words:
        return []
    lines = lines_of(words)
    numeric = [i for i in items if i.kind in ("number", "year")]
    counts = [i for i in items if i.kind == "number" and is_count(i)]
    dates = [i for i in items if i.kind == "date"]
    texts = [i for i in items if i.kind == "text"]
    out: list[FormMatch] = []
    for line in lines:
        if numeric:
            out += _number_matches(numeric, line)
            out += _decimal_comma_matches(numeric, line)
        if counts:
            out += _count_matches(counts, line)
        if dates:
            out += _date_matches(dates, line)
    if texts:
        found = _text_matches(texts, words, lines)
        seen = {(m.item, i) for m in found for i in m.words()}
        for match in _stacked_matches(texts, words, lines):
            if not any((match.item, i) in seen for i in match.words()):
                found.append(match)
                seen.update((match.item, i) for i in match.words())
        out += found
    return out


def find_in_string(items: Sequence[GoldItem], text: str) -> list[FormMatch]:
    """:func:`find_forms` on a plain string, one word per whitespace-separated piece."""
    words: list[Word] = []
    for line_no, line in enumerate(text.splitlines() or [text]):
        for match in re.finditer(r"\S+", line):
            box = (float(match.start()), float(line_no), float(match.end()), line_no + 1.0)
            words.append(Word(match.group(), box, line=line_no))
    return find_forms(items, words)
