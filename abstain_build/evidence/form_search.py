"""Where a sequence of words prints a form of the gold (:mod:`.forms`): by line, with a
number's scale word on the next line, a decimal comma, a date over two words, a text
answer stacked over two lines of a table cell."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal

from rapidfuzz.distance import Levenshtein

from ..numbers import find_numbers, follows_reference_word
from ..textregions.words import Word
from .forms import (
    NUMBER_WORDS,
    FormMatch,
    GoldItem,
    allowed_errors,
    date_matches,
    is_count,
    normalise,
    number_form,
    ocr_fold,
    text_matches,
    value_form,
)

#: A number with this many significant digits is distinctive on its own.
STRONG_DIGITS = 3
#: A number printed exactly with this many significant digits is unmistakable anywhere.
UNIQUE_DIGITS = 5
#: So is a text answer of this many words.
UNIQUE_WORDS = 3


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
