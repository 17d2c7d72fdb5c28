"""Numbers as reports print them: a tokenizer that keeps each number's format.

Corrupting or erasing a number needs more than its value: where it is, how it is written
(thousand separators, decimals, currency, percent, a scale word, parentheses for a
negative) so that a replacement looks like it belongs, and what kind of number it is, so
that years, quarters and document codes are left alone unless asked for.

Kinds:

* ``amount``: 1,234.5  (1,234)  -3.2  $4.5bn  1.2 million  0.75
* ``percent``: -3.2%  12 %
* ``multiple``: 12.3x  137x
* ``year``: 2015 standing alone;  ``year_range``: 2015-2017, 1971–1981, 2013-14
* ``fiscal_year``: FY2015, FY 15, FY'15, FY 2014-2015
* ``quarter``: Q3, Q1 2017, Q2 FY15
* ``code``: digits joined by hyphens that are not a year range (ASU 2015-05, 10-K's 10 is
  an amount) — kept as one token so no part of it is read as a number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SCALES: dict[str, float] = {
    "k": 1e3,
    "thousand": 1e3,
    "m": 1e6,
    "mn": 1e6,
    "million": 1e6,
    "b": 1e9,
    "bn": 1e9,
    "billion": 1e9,
    "t": 1e12,
    "tn": 1e12,
    "trillion": 1e12,
}

# Scale words may follow after a space; abbreviations only attached ("4.5bn", not "5 m",
# which is more often metres).
_SCALE_WORDS = r"\s?(?:thousand|million|billion|trillion)\b|(?:bn|mn|tn|k|m|b|t)\b"
_DASH = r"[-–—]"

_PATTERN = re.compile(
    rf"""
    (?P<fiscal>\bFY\s?'?(?P<fy>\d{{4}}|\d{{2}})(?:{_DASH}(?P<fy_end>\d{{4}}|\d{{2}}))?\b)
  | (?P<quarter>\b(?P<q>Q[1-4])(?:\s?(?:FY\s?)?'?(?P<q_year>\d{{4}}|\d{{2}}))?\b)
  | (?P<joined>(?<![\w.,])\d+(?:{_DASH}\d+)+(?![\w%]|[.,]\d))
  | (?P<number>
        (?P<outer>[$€£¥](?=\())?
        (?P<open>\()?
        (?P<sign>(?<![\w)])[-−+])?
        (?:(?P<currency>[$€£¥])\s?)?
        (?<![\w.,])(?<![A-Za-z][-–])
        (?P<digits>(?:\d{{1,3}}(?:,\d{{3}})+|\d+)(?:\.\d+)?|\.\d+)(?!\d|[.,]\d)
        (?P<suffix>\s?%|\s(?:percent|per\scent)\b|x\b|×|{_SCALE_WORDS})?
        (?P<close>\))?
        (?![-–][A-Za-z])
    )
    """,
    re.VERBOSE | re.IGNORECASE,
)


@dataclass(frozen=True)
class NumericToken:
    """One number in a text, with everything needed to rewrite it in the same format."""

    text: str
    start: int
    end: int
    kind: str
    #: The number as printed, signed, without its scale word (1.2 for "1.2 million").
    value: float | None
    #: ``value`` times the scale word (1.2e6 for "1.2 million"); the same when unscaled.
    scaled_value: float | None = None
    decimals: int = 0
    grouped: bool = False  # thousand separators
    currency: str = ""
    scale: str = ""  # the scale word as printed ("bn", "million")
    negative: bool = False
    parenthesised: bool = False  # (1,234): an accountant's negative
    #: For years, ranges, fiscal years and quarters: the years meant (2-digit ones expanded).
    years: tuple[int, ...] = ()

    @property
    def multiplier(self) -> float:
        """What the scale word multiplies by (1 without one)."""
        return SCALES.get(self.scale.lower(), 1.0)

    @property
    def is_quantity(self) -> bool:
        """A value that can be corrupted as a quantity (not a date or a code)."""
        return self.kind in ("amount", "percent", "multiple")


def _year(digits: str) -> int:
    value = int(digits)
    if len(digits) == 2:
        return 2000 + value if value < 70 else 1900 + value
    return value


def _is_year(digits: str) -> bool:
    return len(digits) == 4 and 1900 <= int(digits) <= 2099


def _joined(text: str, start: int, end: int) -> NumericToken:
    parts = re.split(_DASH, text)
    if len(parts) == 2 and _is_year(parts[0]) and len(parts[1]) in (2, 4):
        first = int(parts[0])
        last = int(parts[1]) if len(parts[1]) == 4 else first - first % 100 + int(parts[1])
        if first < last <= first + 100 and (len(parts[1]) == 2 or _is_year(parts[1])):
            return NumericToken(text, start, end, "year_range", None, years=(first, last))
    return NumericToken(text, start, end, "code", None)


def _number(match: re.Match[str]) -> NumericToken | None:
    open_, close = match.group("open"), match.group("close")
    digits = match.group("digits")
    start, end = match.start("number"), match.end("number")
    parenthesised = bool(open_ and close)
    if open_ and not close:  # "(see 12" : the bracket is not part of the number
        start = next(
            match.start(group)
            for group in ("sign", "currency", "digits")
            if match.group(group) is not None
        )
    if close and not open_:
        end = match.end("close") - 1
    text = match.string[start:end]
    sign = match.group("sign") or ""
    suffix = (match.group("suffix") or "").strip()
    currency = match.group("outer") or match.group("currency") or ""
    magnitude = float(digits.replace(",", ""))
    negative = parenthesised or sign in ("-", "−")
    value = -magnitude if negative else magnitude
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    grouped = "," in digits
    kind, scale = "amount", ""
    if suffix == "%" or suffix.lower().startswith("per"):
        kind = "percent"
    elif suffix.lower() in ("x", "×"):
        kind = "multiple"
    elif suffix:
        scale = suffix
    plain = not (sign or currency or suffix or parenthesised or grouped or decimals)
    # "(2019)": a year in brackets (a citation, a period), not the negative 2019, which
    # accounts print with a separator, "(2,019)".
    bracketed_year = parenthesised and not (sign or currency or suffix or grouped or decimals)
    if (plain or bracketed_year) and _is_year(digits):
        return NumericToken(
            text, start, end, "year", float(digits), float(digits), years=(int(digits),)
        )
    return NumericToken(
        text,
        start,
        end,
        kind,
        value,
        value * SCALES.get(scale.lower(), 1.0),
        decimals=decimals,
        grouped=grouped,
        currency=currency,
        scale=scale,
        negative=negative,
        parenthesised=parenthesised,
    )


def find_numbers(text: str) -> list[NumericToken]:
    """Every number in ``text``, left to right, without overlaps."""
    tokens: list[NumericToken] = []
    for match in _PATTERN.finditer(text):
        if match.group("fiscal"):
            years = [_year(match.group("fy"))]
            if match.group("fy_end"):
                years.append(_year(match.group("fy_end")))
            tokens.append(
                NumericToken(
                    match.group(),
                    match.start(),
                    match.end(),
                    "fiscal_year",
                    None,
                    years=tuple(years),
                )
            )
        elif match.group("quarter"):
            year = match.group("q_year")
            tokens.append(
                NumericToken(
                    match.group(),
                    match.start(),
                    match.end(),
                    "quarter",
                    None,
                    years=(_year(year),) if year else (),
                )
            )
        elif match.group("joined"):
            tokens.append(_joined(match.group(), match.start(), match.end()))
        else:
            token = _number(match)
            if token is not None:
                tokens.append(token)
    return tokens


#: Words that make the number after them a reference to the document's structure ("Table
#: 1", "Item 7", "page 4", "Figure 2"): a label, not a value of the evidence.
REFERENCE_WORDS = frozenset(
    (
        "table", "tables", "figure", "figures", "fig", "item", "page", "pages", "note",
        "notes", "section", "chapter", "exhibit", "appendix", "part", "no", "step", "chart",
        "slide", "eq", "equation", "line", "footnote", "question", "unit", "week", "lesson",
        "module", "task", "exercise", "problem", "quiz", "lecture", "article", "clause",
        "schedule", "annex", "session", "wave", "round", "column", "row", "quarter",
        "semester", "term", "objective", "goal", "priority", "option", "scenario", "case",
        "study", "experiment", "stage", "tip", "rule", "principle", "hypothesis",
    )
)  # fmt: skip
#: The word before a number, past an enumeration of earlier numbers ("Units 9 & 14",
#: "Tables 2, 3 and 5", "Figures 1-3").
_WORD_BEFORE = re.compile(r"([A-Za-z]+)[.:]?\s*(?:#?\d{1,3}[a-z]?\s*(?:,|&|and|or|to|-|–)\s*)*#?$")


_LABEL_NUMBER = re.compile(r"^\(?\d{1,4}(?:\.\d{1,3})*[A-Za-z]?\)?$")
_REFERENCE_STEMS = frozenset(word.removesuffix("s") for word in REFERENCE_WORDS)


def is_label_number(token: NumericToken) -> bool:
    """Could ``token`` number something ("7", "7A", "3.2", "(4)")? Not an amount or a
    percent."""
    return bool(_LABEL_NUMBER.match(token.text))


def follows_reference_word(text: str, token: NumericToken) -> bool:
    """Is ``token`` numbering a table, figure, page... ("Figure 2")? See REFERENCE_WORDS."""
    if not is_label_number(token):
        return False  # "in any case 50%": a percent or an amount is a value
    match = _WORD_BEFORE.search(text[max(0, token.start - 40) : token.start])
    return bool(match) and match.group(1).lower().removesuffix("s") in _REFERENCE_STEMS


def quantities(text: str) -> list[NumericToken]:
    """Only the numbers that measure something (amounts, percents, multiples)."""
    return [token for token in find_numbers(text) if token.is_quantity]
