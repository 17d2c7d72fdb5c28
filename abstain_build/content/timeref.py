"""Time references in questions and the period a document's text covers."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

MIN_YEAR, MAX_YEAR = 1900, 2099

#: A month's name, in full or its usual abbreviation ("Sept", "Dec"), as one group.
MONTH_NAME = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
# A four-digit year standing alone (not inside a longer number, an amount or a decimal).
_YEAR = re.compile(r"(?<![\d$€£.,/])(?P<year>(?:19|20)\d{2})(?![\d%]|\.\d|,\d{3})")
# FY15, FY 2015, FY'15
_FY = re.compile(r"\bFY\s?'?(?P<year>\d{4}|\d{2})(?![\d%]|[.,]\d)", re.IGNORECASE)
_QUARTER = re.compile(r"\b(?:Q[1-4]|(?:first|second|third|fourth)\s+quarter)\b", re.IGNORECASE)


@dataclass(frozen=True)
class YearMention:
    """One year in a text: where it is, how it is written, and the year it means."""

    start: int
    end: int
    text: str
    year: int
    two_digit: bool

    def render(self, year: int) -> str:
        """The same notation with another year (FY15 -> FY19, 2015 -> 2019)."""
        digits = f"{year % 100:02d}" if self.two_digit else str(year)
        old_digits = self.text[-2:] if self.two_digit else str(self.year)
        return self.text[: len(self.text) - len(old_digits)] + digits


def _two_digit_year(value: int) -> int:
    return 2000 + value if value < 70 else 1900 + value


def find_years(text: str) -> list[YearMention]:
    """Years and fiscal years mentioned in ``text``, left to right, without overlaps."""
    mentions: list[YearMention] = []
    taken: list[tuple[int, int]] = []
    for match in _FY.finditer(text):
        raw = match.group("year")
        year = int(raw) if len(raw) == 4 else _two_digit_year(int(raw))
        if MIN_YEAR <= year <= MAX_YEAR:
            mentions.append(
                YearMention(match.start(), match.end(), match.group(0), year, len(raw) == 2)
            )
            taken.append((match.start(), match.end()))
    for match in _YEAR.finditer(text):
        start, end = match.span("year")
        if any(a <= start < b for a, b in taken):
            continue
        year = int(match.group("year"))
        if MIN_YEAR <= year <= MAX_YEAR:
            mentions.append(YearMention(start, end, match.group("year"), year, False))
    return sorted(mentions, key=lambda m: m.start)


def mentions_quarter(text: str) -> bool:
    return bool(_QUARTER.search(text))


#: A year is part of the period a document covers when it is mentioned at least this
#: share of the times its most mentioned year is (at least once): a five-year table's
#: first year in a 10-K is, a note's maturity year is not.
CORE_SHARE = 0.04
MIN_MENTIONS = 1


@dataclass(frozen=True)
class Coverage:
    """The period a document reports on, how often each year is mentioned, and the years
    mentioned outside the period (maturities, founding years, laws)."""

    first: int
    last: int
    outliers: tuple[int, ...]
    counts: dict[int, int] = field(default_factory=dict, compare=False)

    @property
    def threshold(self) -> float:
        """Mentions a year needs to count as covered."""
        return max(MIN_MENTIONS, CORE_SHARE * max(self.counts.values(), default=0))

    def covers(self, year: int) -> bool:
        return self.first <= year <= self.last or self.counts.get(year, 0) >= self.threshold

    def including(self, years: Iterable[int]) -> Coverage:
        """The period widened to ``years`` (a question's years, which the document answers
        for even when it rarely mentions them)."""
        years = list(years)
        first = min([self.first, *years])
        last = max([self.last, *years])
        outliers = tuple(y for y in self.outliers if not first <= y <= last)
        return Coverage(first, last, outliers, self.counts)


def coverage(texts: Iterable[str]) -> Coverage | None:
    """The period a document's text covers, or None if it mentions no year.

    The period is the run of consecutive years around the most mentioned one that are each
    mentioned often (:data:`CORE_SHARE` of the top year's mentions): a 2015 annual report
    covers 2011-2016 (its five-year table and its outlook)
    and not the 2025 maturity of a note, the 1997 IPO or the Securities Exchange Act of
    1934, which it mentions a few times each.
    """
    counts = Counter(m.year for text in texts for m in find_years(text))
    if not counts:
        return None
    top, top_count = max(counts.items(), key=lambda item: (item[1], item[0]))
    threshold = max(MIN_MENTIONS, CORE_SHARE * top_count)
    first = last = top
    while counts.get(first - 1, 0) >= threshold:
        first -= 1
    while counts.get(last + 1, 0) >= threshold:
        last += 1
    outliers = tuple(sorted(y for y in counts if not first <= y <= last))
    return Coverage(first=first, last=last, outliers=outliers, counts=dict(counts))


def replace_years(
    text: str, mentions: list[YearMention], shift: int
) -> tuple[str, list[tuple[YearMention, str]]]:
    """Move every mention by ``shift`` years, keeping each one's notation."""
    pieces: list[str] = []
    changes: list[tuple[YearMention, str]] = []
    cursor = 0
    for mention in mentions:
        new = mention.render(mention.year + shift)
        pieces.append(text[cursor : mention.start])
        pieces.append(new)
        changes.append((mention, new))
        cursor = mention.end
    pieces.append(text[cursor:])
    return "".join(pieces), changes
