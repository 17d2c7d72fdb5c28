"""What a printed number is for: a value of the evidence, or part of the page's furniture.

An edit of the evidence's numbers must leave alone the numbers that are not quantities
(SPEC 7, no collateral damage): a day of a date ("February 15, 2012" must not become
"February 35"), a page number, a footnote or reference marker ("depreciation(2)",
"[12]", a superscript), a citation year ("(Smith et al., 2023)", "2021b"), a section
number ("3.2 Results"), a model, product or road name ("MCS 51", "Interstate 80"), a
year before 1900 ("in 1867", "(1882)") and a rank ("3rd", "#5"). Numbers after a
reference word ("Table 1", "Units 9 & 14", "Question 3") are not even read as numbers
(``numbers.REFERENCE_WORDS``).
:func:`number_role` tells them apart from the line a number is printed on; only
:data:`VALUE` numbers are edited.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..textregions.number_boxes import PlacedNumber
from ..textregions.words import Word
from .timeref import MONTH_NAME

VALUE = "value"
DATE_PART = "date"
PAGE_NUMBER = "page_number"
MARKER = "marker"
CITATION = "citation_year"
SECTION = "section_number"
NAME = "name"
ROLES = (VALUE, DATE_PART, PAGE_NUMBER, MARKER, CITATION, SECTION, NAME)
#: Roles that number the document itself: never edited, even where they print the answer.
STRUCTURE = frozenset({PAGE_NUMBER, MARKER, SECTION})

#: A month name right before a number makes it a day of a date ("December 31, 2015").
MONTH_BEFORE = re.compile(rf"\b{MONTH_NAME}\.?\s*$", re.IGNORECASE)
_MONTH_AFTER = re.compile(rf"^(?:st|nd|rd|th)?\s*(?:of\s+)?{MONTH_NAME}\b", re.IGNORECASE)
_ORDINAL_SUFFIX = re.compile(r"^(?:st|nd|rd|th)\b", re.IGNORECASE)
_SMALL_INT = re.compile(r"^\(?(\d{1,3})\)?$")
#: A year with a letter, as author-year citations tell one author's papers apart.
_LETTERED_YEAR = re.compile(r"\(?(?:19|20)\d\d[a-z]\b")
#: A page number: at most four digits, bare (proceedings run to "6982").
_PAGE_NUMBER = re.compile(r"^\d{1,4}$")
#: Capitalised words that start a sentence before a year, not an author's name.
_NOT_NAMES = frozenset(
    (
        "in", "from", "since", "by", "until", "to", "for", "the", "of", "and", "at", "on",
        "as", "during", "before", "after", "through", "fiscal", "year", "years", "ended",
        "ending", "end", "between", "fy", "q", "cy", "calendar", "total",
    )
)  # fmt: skip
_AUTHORS_BEFORE = re.compile(r"(?:\bet\s+al\.?|[A-Z][\w'’-]+\s+(?:and|&)\s+[A-Z][\w'’-]+),?\s*$")
_NAME_BEFORE = re.compile(r"(?:\bet\s+al\.?|\b([A-Z][\w'’-]+))\s*,?\s*[(\[]?\s*$")
#: All-capital words before an integer that are units or periods, not product names.
_NOT_PRODUCTS = frozenset(
    (
        "usd", "eur", "gbp", "jpy", "cny", "rmb", "hkd", "inr", "aud", "cad", "chf", "krw",
        "sgd", "brl", "mxn", "us", "uk", "eu", "fy", "cy", "q", "h", "ytd", "ltm", "ttm",
        "no", "nos", "vol", "pp",
    )
)  # fmt: skip
_PRODUCT_BEFORE = re.compile(r"\b([A-Z]{2,6})\s$")
#: Words that make the integer after them a name: a road, a version, a model.
_NAMING_WORDS = re.compile(
    r"\b(?:highway|interstate|route|road|street|avenue|suite|room|version|model|series"
    r"|phase|stage|type|class|grade|level|gen|generation|i|us|sr|hwy|rte)[-\s]$",
    re.IGNORECASE,
)
#: An old year printed plainly (the tokenizer reads years from 1900 only, since "1,862"
#: may be a count): a year when the words around it say so.
_OLD_YEAR = re.compile(r"^\(?(1[6-8]\d\d)\)?$")
_YEAR_BEFORE = re.compile(
    rf"(?:\b(?:in|of|since|by|from|until|to|during|circa|c\.|year|years|early|late|mid)"
    rf"|{MONTH_NAME}\.?|\d{{1,2}},?)\s*$",
    re.IGNORECASE,
)
_SECTION = re.compile(r"^\d{1,2}(?:\.\d{1,2}){0,3}\.?$")
_PAGE_WORDS = re.compile(r"^(?:page|p\.?|pg\.?)?\s*(?:of\s+\d+)?$", re.IGNORECASE)
#: The share of the page's height at its top and bottom where running heads and page
#: numbers sit.
MARGIN_SHARE = 0.1
#: A number printed this much smaller than the line's text is a superscript marker.
SUPERSCRIPT_RATIO = 0.75


def _small_int(text: str) -> int | None:
    match = _SMALL_INT.match(text)
    return int(match.group(1)) if match else None


def _height(box: Sequence[float]) -> float:
    return box[3] - box[1]


def _in_bracket(before: str) -> bool:
    """Is the end of ``before`` inside an open parenthesis or bracket?"""
    depth = 0
    for char in reversed(before):
        if char in ")]":
            depth += 1
        elif char in "([":
            if depth == 0:
                return True
            depth -= 1
    return False


def _is_citation(before: str, after: str, bracketed: bool) -> bool:
    """A year after an author ("(Jones, 2021)", "Smith et al. (2019)", "Lee and Kim
    (2020)"); a year after one capitalised word in brackets ("Revenue (2015)") is not."""
    if bracketed:
        return bool(_AUTHORS_BEFORE.search(before))
    match = _NAME_BEFORE.search(before)
    if match is None:
        return False
    name = match.group(1)
    if name is not None and (name.lower() in _NOT_NAMES or re.fullmatch(MONTH_NAME, name, re.I)):
        return False
    return _in_bracket(before) and bool(re.match(r"^[a-z]?\s*[)\];,]", after))


def _alone_at_the_edge(placed: PlacedNumber, page_height: float | None, edge: bool) -> bool:
    """Printed alone (or with "page", "of N") in the page's top or bottom margin, or with
    no word beyond it: where page numbers are."""
    text, token = placed.line_text, placed.token
    rest = (text[: token.start] + " " + text[token.end :]).strip(" -–—|·•")
    if not _PAGE_WORDS.match(rest):
        return False
    centre = (placed.bbox[1] + placed.bbox[3]) / 2
    return edge or bool(
        page_height and not MARGIN_SHARE * page_height <= centre <= (1 - MARGIN_SHARE) * page_height
    )


def number_role(
    placed: PlacedNumber,
    line: Sequence[Word],
    page_height: float | None = None,
    edge: bool = False,
) -> str:
    """The role of ``placed`` (one of :data:`ROLES`); ``line``: the other words of its
    visual line; ``page_height``: the page's height in the boxes' units; ``edge``: no
    word of the page lies below it (or none above): a 10-K's page number sits right under
    its last paragraph, far from the paper's edge."""
    token, text = placed.token, placed.line_text
    before, after = text[: token.start], text[token.end :]
    small = _small_int(token.text)
    if token.kind == "year" and _is_citation(before, after, token.text.startswith("(")):
        return CITATION
    if _LETTERED_YEAR.match(text[token.start :]) and _is_citation(before, after, False):
        return CITATION  # "(Jiang et al., 2021b)", read as an amount in billions
    if token.kind != "amount":
        return VALUE
    if _OLD_YEAR.match(token.text) and (
        token.parenthesised or _YEAR_BEFORE.search(before) or re.match(r"^\s*[-–]\s*\d", after)
    ):
        return DATE_PART  # "in 1867", "(1882)", "1867-1880"
    beside_month = MONTH_BEFORE.search(before) or _MONTH_AFTER.match(after.lstrip())
    if small is not None and 1 <= small <= 31 and beside_month:
        return DATE_PART
    if re.search(r"\d/$", before) or re.match(r"^/\d", after):
        return DATE_PART  # 12/31/2015
    four_digits = small is None and _PAGE_NUMBER.match(token.text)
    if four_digits and _alone_at_the_edge(placed, page_height, edge):
        return PAGE_NUMBER  # "6982" under a proceedings page
    if small is not None:
        if _ORDINAL_SUFFIX.match(after) or before.endswith("#"):
            return MARKER  # "the 3rd quarter", "#5:" rank or number something
        if not before.strip() and re.match(r"^[.)]\s", after):
            return MARKER  # "3. What steps...": an item of a numbered list
        if token.parenthesised and before[-1:].isalnum():
            return MARKER  # "depreciation(2)"
        if before.endswith("[") and after.startswith("]"):
            return MARKER  # "[12]"
        heights = [_height(w.bbox) for w in line if any(c.isalpha() for c in w.text)]
        if (
            heights
            and _height(placed.bbox) < SUPERSCRIPT_RATIO * sorted(heights)[len(heights) // 2]
        ):
            return MARKER  # a superscript
        if _alone_at_the_edge(placed, page_height, edge):
            return PAGE_NUMBER
        match = _PRODUCT_BEFORE.search(before)
        if match and match.group(1).lower() not in _NOT_PRODUCTS and not token.currency:
            return NAME  # "MCS 51"
        if _NAMING_WORDS.search(before) and not token.currency:
            return NAME  # "Interstate 80", "US Highway 34", "version 2"
    if not before.strip() and _SECTION.match(token.text) and re.match(r"^\s+[A-Z][a-z]", after):
        others = [w for w in line if any(c.isdigit() for c in w.text)]
        if not others:
            return SECTION  # "3.2 Results"
    return VALUE
