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
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation

from rapidfuzz.distance import Levenshtein

from ..content.timeref import MONTH_NAME
from ..numbers import NumericToken, find_numbers

#: How a printed number can relate to the gold by a power of ten: tables "in thousands",
#: "in millions", "in billions" (either way round). Percent shifts are separate.
UNIT_SHIFTS = tuple(Decimal(10) ** e for e in (0, 3, 6, 9, -3, -6, -9))
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
