"""The numbers of one evidence page, boxed tightly enough to erase or rewrite one alone.

On a text-layer page a number's box is the union of its characters' boxes, found with
``page.search_for`` inside the words it spans (exact even inside "$4.5bn,"); on an OCR'd
page it is the share of the OCR word's box its characters take. Each number also knows
how it sits: right-aligned at the end of a table cell or left-aligned inside a sentence,
which decides where a replacement is anchored and how much wider it may grow.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pymupdf

from ..numbers import REFERENCE_WORDS, follows_reference_word, is_label_number
from ..textregions.number_boxes import PlacedNumber, place_numbers
from ..textregions.pages import PageWords
from ..textregions.words import Box, Word
from .number_roles import VALUE, number_role

#: A gap after a number wider than this many line heights ends a table cell.
CELL_GAP = 0.8
#: Kinds that are identifiers, never values: erased as words, not as numbers.
NOT_VALUES = ("code",)
#: OCR'd numbers read with less confidence than this are only ever erased, never rewritten:
#: a misread ("Q3" read as "(93") would be rewritten in a wrong format.
MIN_REWRITE_CONF = 60.0


@dataclass(frozen=True)
class PageNumber:
    """A number on a page: the token, its tight box and how it is laid out."""

    placed: PlacedNumber
    rect: Box  # points, rotation removed
    align: str  # "right" (ends a cell or a line) or "left" (inside running text)
    line_words: tuple[Word, ...]  # the other words on its visual line
    conf: float = 100.0  # lowest confidence of its words (100 on a text layer)
    #: What it is for (:mod:`.number_roles`): only "value" numbers are evidence to edit.
    role: str = VALUE

    @property
    def rewritable(self) -> bool:
        return self.conf >= MIN_REWRITE_CONF

    @property
    def text(self) -> str:
        return self.placed.token.text


def same_line(word: Word, box: Sequence[float]) -> bool:
    """Is ``word`` on the visual line of ``box`` (its centre within the box's height)?"""
    centre = (word.bbox[1] + word.bbox[3]) / 2
    return box[1] <= centre <= box[3]


def _exact_rect(page: pymupdf.Page, placed: PlacedNumber) -> Box:
    x0 = min(w.bbox[0] for w in placed.words) - 0.5
    y0 = min(w.bbox[1] for w in placed.words) - 0.5
    x1 = max(w.bbox[2] for w in placed.words) + 0.5
    y1 = max(w.bbox[3] for w in placed.words) + 0.5
    hits = page.search_for(placed.token.text, clip=pymupdf.Rect(x0, y0, x1, y1))
    estimate = pymupdf.Rect(placed.bbox)
    # A token over several words ("11 million") comes back as one rectangle per word.
    parts = [hit for hit in hits if not (hit & estimate).is_empty]
    if not parts:
        return placed.bbox
    union = pymupdf.Rect(parts[0])
    for part in parts[1:]:
        union |= part
    return (union.x0, union.y0, union.x1, union.y1)


def _alignment(rect: Box, line: Sequence[Word]) -> str:
    height = rect[3] - rect[1]
    after = [w.bbox[0] for w in line if w.bbox[0] >= rect[2] - 0.5]
    if not after or min(after) - rect[2] > CELL_GAP * height:
        return "right"
    return "left"


def is_reference(placed: PlacedNumber, rect: Box, line: Sequence[Word]) -> bool:
    """Is ``placed`` numbering a part of the document: after a structure label ("Table 1",
    "Units 9 & 14") in its line's text or, where the text layer splits the line, just
    right of one on the page? A bracketed marker ("quarter [14]") is not."""
    text, token = placed.line_text, placed.token
    if text[token.start - 1 : token.start] == "[" or not is_label_number(token):
        return False
    if follows_reference_word(text, token):
        return True
    height = rect[3] - rect[1]
    before = [w for w in line if w.bbox[2] <= rect[0] + 0.5 and rect[0] - w.bbox[2] < height]
    if not before:
        return False
    word = max(before, key=lambda w: w.bbox[2]).text.strip(".:,;()\"“”‘’'").lower()
    return word in REFERENCE_WORDS


def page_numbers(page: pymupdf.Page, words: PageWords) -> list[PageNumber]:
    """Every number on the page, top to bottom, with its role: codes and references
    ("Table 1") excluded."""
    found: list[PageNumber] = []
    if not words.words:
        return found
    lowest_top = max(w.bbox[1] for w in words.words)
    highest_bottom = min(w.bbox[3] for w in words.words)
    for placed in place_numbers(words.words):
        if placed.token.kind in NOT_VALUES:
            continue
        rect = _exact_rect(page, placed) if words.source == "text_layer" else placed.bbox
        line = tuple(w for w in words.words if same_line(w, rect) and w not in placed.words)
        if is_reference(placed, rect, line):
            continue
        first = placed.words[0]
        printed_line = [
            w
            for w in words.words
            if w not in placed.words
            and ((w.block == first.block and w.line == first.line) or _beside(w, rect))
        ]
        edge = lowest_top < rect[3] or highest_bottom > rect[1]  # nothing below, or above
        role = number_role(placed, printed_line, page.rect.height, edge)
        conf = min(w.conf for w in placed.words)
        found.append(PageNumber(placed, rect, _alignment(rect, line), line, conf, role))
    return found


def _beside(word: Word, rect: Box) -> bool:
    """Does ``word`` touch ``rect`` on its left or right, on overlapping heights (a
    superscript sits in its own line of the text layer, next to the word it marks)?"""
    height = word.bbox[3] - word.bbox[1]
    overlap = min(word.bbox[3], rect[3]) - max(word.bbox[1], rect[1])
    gap = max(rect[0] - word.bbox[2], word.bbox[0] - rect[2])
    return overlap > 0 and gap < 0.5 * height


def words_near_numbers(words: Sequence[Word], numbers: Sequence[PageNumber]) -> list[Word]:
    """The evidence region's other words: non-numeric words on the lines that hold numbers
    (a table row's label, the sentence around a figure)."""
    numeric = {id(w) for number in numbers for w in number.placed.words}
    near: list[Word] = []
    for word in words:
        if id(word) in numeric or not any(ch.isalpha() for ch in word.text):
            continue
        if any(same_line(word, number.rect) for number in numbers):
            near.append(word)
    return near
