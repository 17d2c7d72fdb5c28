"""Gold mentions on a page, and which of them state the answer.

A *mention* is any place a reading prints a form of the gold (:mod:`.forms`). It *states*
the answer when a reader looking for it would take it as the answer:

* on a page the record lists as evidence (or the page printing that page number): a
  distinctive form (three significant digits, a long name, a date), or any form with one
  of the question's words near it (there even a word the document prints everywhere,
  "online" in a report on seniors online, tells the answer's line from the others);
* on any other page: a form with two of the question's anchor terms near it (one when the
  question has only one or two), such as "depreciation" and "expense" above the table that
  prints 8,831 for "depreciation expense ... 2017"; a bare "8.8" elsewhere in a 10-K is a
  coincidence, not a statement.

A match that is unmistakable (a six-figure amount printed exactly, a phrase of three words,
a full date) states the answer wherever it is. A single-digit gold also needs an anchor
right beside it: "2" next to "button" does not answer "how many steps customise the Down
button", "3 case studies" does say 3.

A text gold that is one of several candidates printed side by side (an option among the
question's options, a name the question asks to pick: "which segments...", "the highest")
is a *candidate*:
reading it says nothing about which one is the answer, so it does not state it, but it is
evidence, and evidence transforms still aim at it.

"Near" is the word window around the mention in reading order (:data:`WINDOW` words each
way) and the words on the same printed row (a table row's label sits on its line).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from ..textregions.words import Box, Word, union_box
from .anchors import Anchors, is_plural, stem
from .form_search import find_forms
from .forms import FormMatch, GoldItem, normalise
from .reading import OCR_FIGURE, Reading

#: Words each way, in reading order, that count as near a mention.
WINDOW = 50
#: Words each way that count as beside a single-digit gold.
TIGHT = 3
#: Words after a printed count that may name what it counts (an adjective between).
AFTER = 4
#: A sentence up to this many lines tall is the evidence around a form; beyond, its row.
LOCAL_LINES = 4
#: Words each way a sentence is looked for in (an unpunctuated table stops it here).
SENTENCE_REACH = 40

STATEMENT = "statement"
CANDIDATE = "candidate"
MENTION = "mention"
#: A row an answer printed nowhere is computed from (:mod:`.operands`).
OPERAND = "operand"
#: What an evidence removal must take away.
TO_REMOVE = frozenset({STATEMENT, OPERAND})
#: The form of an operand that is a whole chart (the values a selection compares): it is
#: taken away whole, not number by number.
CHART = "chart"

_SELECTION = re.compile(
    r"\b(?:which|highest|lowest|largest|smallest|biggest|greatest|most|least|top|best|worst|"
    r"maximum|minimum|more|less|fewer|higher|lower|larger|smaller|compared)\b",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.!?;:]$")


@dataclass(frozen=True)
class Mention:
    """One place a page prints a form of the gold."""

    page: int
    channel: str
    item: str  # the gold item
    printed: str  # what the page prints
    form: str
    strong: bool
    unique: bool
    anchors: tuple[str, ...]
    #: The question's words near it that the document prints on most pages.
    topic: tuple[str, ...]
    span: Box  # the printed form (points, normalised page)
    boxes: tuple[Box, ...]  # each word of the printed form
    row: Box  # every word on its printed line, across the page
    sentence: Box  # its sentence (or table row) in reading order
    figure: Box | None = None  # the raster image it was read in
    #: For a single-digit gold: the anchors right beside it (None for other golds).
    tight: tuple[str, ...] | None = None
    listed: bool = False
    status: str = MENTION
    #: Stems of the words printed right after the form ("four reportable segments").
    after: tuple[str, ...] = ()
    #: Stems of the word printed right before it when that word is a plural, a count's
    #: label ("Employees 1914"; "Figure 3" numbers a figure, it counts nothing).
    before: tuple[str, ...] = ()

    def anchored(self, needed: int, topic: bool = False) -> bool:
        """At least ``needed`` of the question's anchor words are near (years do not
        count; with ``topic``, words the document prints everywhere count too); a
        single-digit gold needs one right beside it ("3 case studies")."""
        if self.tight is not None and not self.tight:
            return False
        near = self.anchors + (self.topic if topic else ())
        return sum(1 for a in near if not a.isdigit()) >= needed

    @property
    def states(self) -> bool:
        return self.status == STATEMENT

    def local(self) -> Box:
        """The evidence around the form: its sentence when that is a few lines, else its
        printed row (a table cell's row)."""
        height = self.span[3] - self.span[1]
        if self.sentence[3] - self.sentence[1] <= LOCAL_LINES * max(height, 1.0):
            return self.sentence
        return self.row

    def regions(self) -> list[Box]:
        """What an evidence edit must take away: the form, its row and its sentence, and
        the chart it was read in."""
        out = [self.span, self.row, self.sentence]
        if self.figure is not None:
            out.append(self.figure)
        return out

    def where(self) -> str:
        return f"page {self.page} ({self.channel}): {self.printed!r}"

    def to_json(self) -> dict[str, object]:
        return {
            "page": self.page,
            "channel": self.channel,
            "text": self.printed,
            "form": self.form,
            "status": self.status,
            "listed": self.listed,
            "anchors": list(self.anchors),
            "bbox": [round(v, 1) for v in self.span],
        }


def _row(words: Sequence[Word], span: Box) -> list[int]:
    """Words whose vertical centre lies within the span's height: its printed row."""
    top, bottom = span[1], span[3]
    out = []
    for index, word in enumerate(words):
        centre = (word.bbox[1] + word.bbox[3]) / 2
        if top <= centre <= bottom:
            out.append(index)
    return out


def sentence_of(words: Sequence[Word], first: int, last: int) -> list[int]:
    """The words of the sentence holding ``words[first..last]``, in reading order."""
    start = first
    while start > 0 and first - start < SENTENCE_REACH:
        if _SENTENCE_END.search(words[start - 1].text):
            break
        start -= 1
    end = last
    while end < len(words) - 1 and end - last < SENTENCE_REACH:
        if _SENTENCE_END.search(words[end].text):
            break
        end += 1
    return list(range(start, end + 1))


def is_selection(question: str, item: GoldItem, options: Sequence[str], page_text: str) -> bool:
    """Is a text gold one of several printed candidates, the question being which one?"""
    if item.kind != "text":
        return False
    flat = f" {normalise(page_text)} "
    gold = normalise(item.text)
    others = [normalise(o) for o in options if normalise(o) and normalise(o) != gold]
    if any(len(o) >= 3 and f" {o} " in flat for o in others):
        return True
    return bool(_SELECTION.search(question)) and len(item.tokens) <= 3


def _plural_label(words: Sequence[Word], stems: Sequence[set[str]], first: int) -> tuple[str, ...]:
    """Stems of the word right before ``first`` when it is a plural noun's label."""
    if first == 0:
        return ()
    return tuple(stems[first - 1]) if is_plural(normalise(words[first - 1].text)) else ()


def find_mentions(reading: Reading, items: Sequence[GoldItem], anchors: Anchors) -> list[Mention]:
    """Every form of ``items`` that ``reading`` prints, with the anchors near it."""
    words = reading.words
    matches: list[FormMatch] = find_forms(items, words) if words else []
    if not matches:
        return []
    stems = [{stem(t) for t in normalise(w.text).split()} for w in words]
    out: list[Mention] = []
    single_digit = {i.text: i.kind == "number" and i.digits < 2 for i in items}
    for match in matches:
        printing = match.words()
        span = union_box([words[i].bbox for i in printing])
        row = _row(words, span)
        sentence = sentence_of(words, match.first, match.last)
        near = set(range(max(0, match.first - WINDOW), min(len(words), match.last + WINDOW + 1)))
        near.update(row)
        found = anchors.found_in(s for i in near for s in stems[i])
        everything = anchors.found_in((s for i in near for s in stems[i]), topic=True)
        topic = tuple(a for a in everything if a not in found)
        after = tuple(
            s
            for i in range(match.last + 1, min(len(words), match.last + AFTER + 1))
            for s in stems[i]
        )
        before = _plural_label(words, stems, match.first)
        tight = None
        if single_digit.get(match.item):
            beside = range(max(0, match.first - TIGHT), min(len(words), match.last + TIGHT + 1))
            tight = tuple(anchors.found_in((s for i in beside for s in stems[i]), topic=True))
        out.append(
            Mention(
                page=reading.page,
                channel=reading.channel,
                item=match.item,
                printed=match.printed,
                form=match.form,
                strong=match.strong,
                unique=match.unique,
                anchors=tuple(found),
                topic=topic,
                span=span,
                boxes=tuple(words[i].bbox for i in printing),
                row=union_box([words[i].bbox for i in row]) if row else span,
                sentence=union_box([words[i].bbox for i in sentence]),
                figure=reading.region if reading.channel == OCR_FIGURE else None,
                tight=tight,
                after=after,
                before=before,
            )
        )
    return out


def classify(mention: Mention, listed: bool, selection: bool, anchors: Anchors) -> Mention:
    """The mention with its ``status`` (see the module doc) and ``listed`` set."""
    if selection:
        status = CANDIDATE
    elif anchors.counted and set(anchors.counted) <= set(mention.after):
        status = STATEMENT  # "four reportable segments" for "how many reportable segments"
    elif anchors.counted and set(anchors.counted) & set(mention.before):
        status = STATEMENT  # "Employees 1914" for "how many employees does it have"
    elif mention.unique:
        status = STATEMENT
    elif listed:
        status = STATEMENT if (mention.strong or mention.anchored(1, topic=True)) else MENTION
    else:
        needed = min(2, max(1, (anchors.words + 1) // 2))
        status = STATEMENT if mention.anchored(needed) else MENTION
    return replace(mention, status=status, listed=listed)


def page_mentions(
    readings: Iterable[Reading],
    items: Sequence[GoldItem],
    anchors: Anchors,
    question: str,
    options: Sequence[str],
    evidence: bool,
) -> list[Mention]:
    """Every mention on one page (all its readings), classified; ``evidence``: the page is
    one the record lists (or prints a listed page's number)."""
    readings = list(readings)
    text = " ".join(r.text for r in readings)
    selection = {i.text: is_selection(question, i, options, text) for i in items}
    return [
        classify(mention, evidence, selection.get(mention.item, False), anchors)
        for reading in readings
        for mention in find_mentions(reading, items, anchors)
    ]
