"""Time references in questions and the period a document's text covers."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

MIN_YEAR, MAX_YEAR = 1900, 2099

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


@dataclass(frozen=True)
class Coverage:
    """The span of years a document talks about, and far-off years left out of it."""

    first: int
    last: int
    outliers: tuple[int, ...]


def coverage(texts: Iterable[str], max_distance: int = 30) -> Coverage | None:
    """Years mentioned in the texts, from first to last, or None if no year is mentioned.

    Years more than ``max_distance`` from the median mention (the Securities Exchange Act of
    1934 in a 2015 annual report) name laws and history, not the period the document covers.
    """
    years = sorted(m.year for text in texts for m in find_years(text))
    if not years:
        return None
    median = years[len(years) // 2]
    kept = [y for y in years if abs(y - median) <= max_distance]
    outliers = tuple(sorted({y for y in years if abs(y - median) > max_distance}))
    return Coverage(first=kept[0], last=kept[-1], outliers=outliers)


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
