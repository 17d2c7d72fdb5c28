"""A percent that is a base and a change the text states: "34% in 2016" and "rose by six
points" give 40%.

Readers answered "what percentage of adults 65 and older used social media in 2019?" with
every printing of 40% masked: page 1 said that in 2016 "just 34% of adults 65 and older"
used it, page 2 that among them use "rose by six points". Neither prints the answer and
neither names a quantity the operand rules (:mod:`.operands`) look for, yet together they
give it. For a percent gold G, a change of N points and a percent G - N (a rise) or
G + N (a fall), each printed in a clause that names one of the question's words and every
number of its subject ("65" of "adults ages 65 and older": the clause before, "among those
ages 50 to 64, the share rose by five percentage points", is another group's), are both
operands: an edit takes the two numbers away, and the gate fails an item that leaves
them readable.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Collection, Iterator, Mapping, Sequence
from decimal import Decimal

from ..numbers import find_numbers
from ..textregions.words import Word
from .anchors import Anchors, stem
from .forms import NUMBER_WORDS, GoldItem, normalise
from .operands import row_operand
from .reading import PageReadings, Reading
from .statements import Mention

#: Words that say a share went up (+1) or down (-1) before "by N points".
_DIRECTION = {
    **dict.fromkeys(
        ("rose", "rise", "risen", "rising", "grew", "grown", "increased", "climbed"), 1
    ),
    **dict.fromkeys(("gained", "jumped", "up", "higher"), 1),
    **dict.fromkeys(("fell", "fallen", "dropped", "declined", "decreased", "down"), -1),
    **dict.fromkeys(("lower", "slipped"), -1),
}
#: Words that may stand between the direction and the number ("rose by six points").
_BETWEEN = frozenset(("by", "just", "some", "about", "nearly", "almost", "roughly", "only"))
_POINTS = re.compile(r"^(?:percentage[- ])?points?$")
#: Words before "points" the direction may be looked for in.
_REACH = 4
#: Largest change in points taken as one (a share moves by less than this).
MAX_POINTS = 60


def _points(text: str) -> int | None:
    """The number of points ``text`` (a word before "points") names, or None."""
    token = normalise(text)
    if token in NUMBER_WORDS:
        return NUMBER_WORDS.index(token)
    if token.isdigit() and 0 < int(token) <= MAX_POINTS:
        return int(token)
    return None


def _changes(words: Sequence[Word]) -> Iterator[tuple[int, int]]:
    """(index of the number, signed points) for each "rose by six points" of ``words``."""
    # A word's first token: "points—from" is one word of the text layer.
    tokens = [(normalise(w.text).split() or [""])[0] for w in words]
    for index, token in enumerate(tokens):
        if not _POINTS.match(token) or index == 0:
            continue
        number = index - 1
        if tokens[number] == "percentage" and number > 0:
            number -= 1
        points = _points(words[number].text)
        if points is None:
            continue
        for back in range(number - 1, max(-1, number - 1 - _REACH), -1):
            if tokens[back] in _DIRECTION:
                yield number, _DIRECTION[tokens[back]] * points
                break
            if tokens[back] not in _BETWEEN:
                break


def _percents(readings: Sequence[Reading]) -> dict[Decimal, list[tuple[Reading, int]]]:
    """Every printed percent of ``readings`` by value: (reading, index of its word), in
    reading order. Read once: each stated change looks its base up here."""
    found: dict[Decimal, list[tuple[Reading, int]]] = defaultdict(list)
    for reading in readings:
        for index, word in enumerate(reading.words):
            values = {
                Decimal(str(abs(number.value)))
                for number in find_numbers(word.text)
                if number.kind == "percent" and number.value is not None
            }
            for value in values:
                found[value].append((reading, index))
    return found


def change_operands(
    readings: Mapping[int, PageReadings],
    items: Sequence[GoldItem],
    anchors: Anchors,
    listed: Collection[int],
) -> list[Mention]:
    """The stated changes and the bases they give a percent gold from (module doc), as
    operand mentions; [] when the gold is no percent or no pair names the question."""
    golds = [i.number for i in items if i.kind == "number" and i.percent and i.number]
    if not golds:
        return []
    texts = [reading for _, page in sorted(readings.items()) for reading in page.readings]
    changes = [
        (reading, index, points) for reading in texts for index, points in _changes(reading.words)
    ]
    if not changes:
        return []
    percents = _percents(texts)
    out: list[Mention] = []
    for gold in golds:
        for reading, index, points in changes:
            change = _operand(reading, index, anchors, listed)
            if change is None:
                continue
            bases = [
                _operand(other, base, anchors, listed) for other, base in percents[gold - points]
            ]
            found = [base for base in bases if base is not None]
            if found:
                out += [change, *found]
    return out


def _operand(
    reading: Reading, index: int, anchors: Anchors, listed: Collection[int]
) -> Mention | None:
    """The number at ``index`` as an operand, with its clause for a row, when the clause
    names one of the question's words and every number of its subject ("65" of "adults
    ages 65 and older"): "among those ages 50 to 64, the share rose by five percentage
    points" is another group's change. None otherwise."""
    words = reading.words
    clause = clause_of(words, index)
    stems = {stem(t) for i in clause for t in normalise(words[i].text).split()}
    wanted = anchors.stems | anchors.topic_stems
    subject = {a for a in wanted if a.isdigit() and len(a) < 4}  # not a year
    named = tuple(a for a in anchors.found_in(stems) if not a.isdigit())
    if not named or not subject <= stems:
        return None
    row = [words[i] for i in clause]
    return row_operand(reading, row, [words[index]], named, reading.page in listed)


#: Words each way a clause is looked for in.
CLAUSE_REACH = 25
_CLAUSE_END = re.compile(r"[,;:.!?]$")


def clause_of(words: Sequence[Word], index: int) -> list[int]:
    """Indices of the clause around ``words[index]``: from after the last comma, colon or
    sentence end before it to the next one."""
    start = index
    while (
        start > 0 and index - start < CLAUSE_REACH and not _CLAUSE_END.search(words[start - 1].text)
    ):
        start -= 1
    end = index
    while (
        end < len(words) - 1
        and end - index < CLAUSE_REACH
        and not _CLAUSE_END.search(words[end].text)
    ):
        end += 1
    return list(range(start, end + 1))
