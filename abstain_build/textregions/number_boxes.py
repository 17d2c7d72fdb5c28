"""Where the numbers are on a page or an image: numeric tokens with their boxes.

Word boxes (from the text layer or OCR) are joined line by line into text, the number
tokenizer runs on each line, and every token gets the box of the characters it covers:
a token spanning words ("$ 36.8 million") gets their union, a token inside a longer word
("4.5bn," with its comma) gets the matching share of that word's width. Erasing or
rewriting a number then touches that number only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..numbers import NumericToken, find_numbers
from .words import Box, Word


@dataclass(frozen=True)
class PlacedNumber:
    """A numeric token and where it is printed."""

    token: NumericToken
    bbox: Box
    words: tuple[Word, ...]
    line: int
    line_text: str


def _lines(words: Sequence[Word]) -> list[list[Word]]:
    grouped: dict[tuple[int, int], list[Word]] = {}
    for word in words:
        grouped.setdefault((word.block, word.line), []).append(word)
    lines = [sorted(line, key=lambda w: w.bbox[0]) for line in grouped.values()]
    lines.sort(key=lambda line: (min(w.bbox[1] for w in line), min(w.bbox[0] for w in line)))
    return lines


def _span_box(word: Word, start: int, end: int) -> Box:
    """The part of ``word``'s box holding characters ``start:end`` (by character share)."""
    x0, y0, x1, y1 = word.bbox
    length = max(len(word.text), 1)
    width = x1 - x0
    return (x0 + width * start / length, y0, x0 + width * end / length, y1)


def place_numbers(words: Sequence[Word]) -> list[PlacedNumber]:
    """Every numeric token in ``words`` with its box, line by line, top to bottom."""
    placed: list[PlacedNumber] = []
    for line_words in _lines(words):
        offsets: list[tuple[int, int, Word]] = []
        parts: list[str] = []
        cursor = 0
        for word in line_words:
            offsets.append((cursor, cursor + len(word.text), word))
            parts.append(word.text)
            cursor += len(word.text) + 1
        text = " ".join(parts)
        for token in find_numbers(text):
            boxes: list[Box] = []
            covered: list[Word] = []
            for start, end, word in offsets:
                lo, hi = max(start, token.start), min(end, token.end)
                if lo >= hi:
                    continue
                covered.append(word)
                boxes.append(_span_box(word, lo - start, hi - start))
            if not boxes:
                continue
            bbox = (
                min(b[0] for b in boxes),
                min(b[1] for b in boxes),
                max(b[2] for b in boxes),
                max(b[3] for b in boxes),
            )
            placed.append(PlacedNumber(token, bbox, tuple(covered), covered[0].line, text))
    return placed
