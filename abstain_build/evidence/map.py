"""The evidence map of one document sample: every place the shipped item states the answer.

Computed once per sample (:func:`evidence_map`, kept on the sample's inputs) from the
readings of **every page** of the document (:mod:`.reading`): MMLongBench-Doc's evaluation
gives a model the whole document, and long documents restate their figures (a 10-K prints
the same depreciation total in the MD&A, the notes and a segment table). The map holds:

* the gold's forms (:mod:`.forms`) and the question's anchors (:mod:`.anchors`);
* every mention of the gold on every page and channel, classified (:mod:`.statements`);
* where the question's anchor terms are printed on the listed pages (for answers that are
  computed or counted, and so printed nowhere, the anchors are what locates the evidence);
* when the listed pages state nothing but other pages do, which of those are the listed
  pages' neighbours, and which carry the listed number as their *printed* page number
  (some records give printed page numbers, not PDF page indexes).

Transforms act on it (:meth:`EvidenceMap.target_pages`, :meth:`EvidenceMap.regions`), the
re-read gate checks against it, and the record carries :meth:`EvidenceMap.to_json`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..content.captions import body_style, figure_reference, named_figure
from ..content.page_content import normalised_page
from ..textregions.words import Box, Word
from .anchors import Anchors, question_anchors, stem
from .changes import change_operands
from .context import DEFAULT_CONTEXT
from .forms import GoldItem, gold_items, is_count, normalise
from .operands import candidate_rows, drawing_charts, page_operands
from .paraphrase import paraphrased
from .reading import PageReadings, read_document
from .rebuilt import operand_amounts, page_restatements, table_mates
from .statements import CANDIDATE, STATEMENT, Mention, page_mentions

if TYPE_CHECKING:
    from ..media.inputs import SampleInputs
    from ..model import Sample

#: Pages either side of a listed page looked at when the listed page states nothing.
NEIGHBOURS = 2
#: The top and bottom share of a page where a printed page number sits.
MARGIN = 0.09

_PAGE_NUMBER = re.compile(r"^(?:\d{1,4}|[ivxlc]{1,6})$", re.IGNORECASE)
#: A list's entry number as printed at the start of its line: "4", "4.", "(4)", "4)".
_ENTRY_NUMBER = re.compile(r"^\(?(\d{1,2})[.)]?$")
#: How far (points) the numbers of one list's entries may stand from each other's left edge.
ENTRY_ALIGN_PT = 6.0
#: Pages before the page of the last entry that its list may start on (a table over pages).
ENTRY_PAGES_BACK = 3


@dataclass
class EvidenceMap:
    """Where one sample's answer is stated, on every page of its document."""

    listed: tuple[int, ...]
    items: list[GoldItem]
    anchors: Anchors
    mentions: list[Mention] = field(default_factory=list)
    #: Per page: boxes of the anchor terms printed there (listed pages only).
    anchor_boxes: dict[int, list[Box]] = field(default_factory=dict)
    pages_read: int = 0
    channels: dict[str, int] = field(default_factory=dict)
    unread: list[str] = field(default_factory=list)
    #: Printed page number of each page that prints one (only when it differs).
    printed: dict[int, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: Answers printed nowhere: the rows, on every page, that print a quantity and the
    #: question's anchor words (:mod:`.operands`), what the answer is computed from.
    operands: list[Mention] = field(default_factory=list)
    #: Per evidence page: where the figure the question names is ("Figure 2", "the figure
    #: at the top of page 6985"; :mod:`~abstain_build.content.captions`).
    figures: dict[int, Box] = field(default_factory=dict)
    #: The readings, by page (not recorded: the gate reuses them for unchanged pages).
    readings: dict[int, PageReadings] = field(default_factory=dict, repr=False)

    # -- what it says ---------------------------------------------------------------------

    @property
    def searchable(self) -> bool:
        """The gold has a form worth looking for (not "Yes", not a single digit)."""
        return bool(self.items)

    def statements(self, pages: Sequence[int] | None = None) -> list[Mention]:
        wanted = None if pages is None else set(pages)
        return [
            m
            for m in self.mentions
            if m.status == STATEMENT and (wanted is None or m.page in wanted)
        ]

    def prints_the_count(self) -> bool:
        """Whether a page prints the answer of a count with one of the question's words
        beside it ("21 weaknesses"). A bare small number somewhere ("Unit 3" for three
        case studies) is no printed count: the reader counts the things themselves."""
        return any(m.anchored(1) and not self.numbers_an_entry(m) for m in self.statements())

    def numbers_an_entry(self, mention: Mention) -> bool:
        """Is ``mention`` the number of the last entry of a numbered list (1, 2, ..., n
        down one left edge, each at the start of its line)? Masking that "4" leaves the
        four entries to count: a held-out reader asked how many areas a handbook's course
        requirements have counted the rows of a table whose last row number was masked."""
        item = next((i for i in self.items if i.text == mention.item), None)
        if item is None or item.kind != "number" or not is_count(item) or item.number < 2:
            return False
        last = int(item.number)  # a count, so at most twenty (forms.is_count)
        left = mention.span[0]
        found: set[int] = set()
        for number in range(mention.page - ENTRY_PAGES_BACK, mention.page + 1):
            page = self.readings.get(number)
            for reading in page.readings if page is not None else ():
                if reading.channel == mention.channel:
                    found |= _entry_numbers(reading.words, left, last)
        return found >= set(range(1, last + 1))

    def locates_nothing(self) -> bool:
        """Does the map find neither the answer, in any form on any page and channel, nor
        rows it would be computed from? Then it is a detail of a picture that OCR does not
        read (a car's number plate, a logo, a sign in a photo), and an edit aimed at the
        question's words is a guess."""
        return bool(self.items) and not self.mentions and not self.operands

    def numeric(self) -> bool:
        """Is the answer (or an item of it) a number or a year?"""
        return any(item.kind in ("number", "year") for item in self.items)

    def asks_a_value(self) -> bool:
        """Is the answer (an item of it) a number that is no count? Its charts' labels and
        bars give it; a count ("how many bars") is read off the pictures instead."""
        return any(item.kind == "number" and not is_count(item) for item in self.items)

    def candidates(self) -> list[Mention]:
        """Printings of a name the question picks among others (:data:`CANDIDATE`)."""
        return [m for m in self.mentions if m.status == CANDIDATE]

    def computed_number(self) -> bool:
        """Is the answer numeric and printed by no page, not even one of its numbers (a
        coarser rounding aside): it is worked out from other values."""
        numeric = {item.text for item in self.items if item.kind in ("number", "year")}
        stated = any(m.item in numeric and m.form != "coarser" for m in self.statements())
        return bool(numeric) and not stated

    def best_statements(self, pages: Sequence[int] | None = None) -> list[Mention]:
        """The statements a reader would point at as *the* answer: a coarser rounding
        ("57%" for 56.8) only when no page states the gold more precisely, and of those,
        the ones with the question's own words beside them when any has some. An edit
        aimed at the answer's row or column aims here; a removal takes every statement."""
        found = self.statements()
        found = [m for m in found if m.form != "coarser"] or found
        found = [m for m in found if m.anchors] or found
        wanted = None if pages is None else set(pages)
        return [m for m in found if wanted is None or m.page in wanted]

    def statement_pages(self) -> list[int]:
        return sorted({m.page for m in self.statements()})

    @property
    def computed(self) -> bool:
        """The answer is stated on no page, or only rounded coarser than the gold (30% for
        a gold of 30.3%, which was computed to more digits than any page prints): its
        operand rows are evidence too."""
        return all(m.form == "coarser" for m in self.statements())

    def evidence_pages(self) -> set[int]:
        """The listed pages and the pages printing a listed page's number."""
        return set(self.listed) | {int(p) for p in self.printed}

    @property
    def related(self) -> list[int]:
        """Pages outside the evidence pages that print operand rows."""
        evidence = self.evidence_pages()
        return sorted({m.page for m in self.operands if m.page not in evidence})

    def evidence_anywhere(self) -> bool:
        """Does any page state, offer or compute the answer (a statement, a candidate, an
        operand row)?"""
        return bool(self.operands) or any(m.status in (STATEMENT, CANDIDATE) for m in self.mentions)

    def related_only(self, page: int) -> bool:
        """Is ``page`` edited only for the operand rows it prints (not a listed page, no
        statement)? Such a page gets its rows taken away and nothing else: the rows are
        found by a heuristic, and the rest of the page is no evidence."""
        return (
            page not in self.evidence_pages()
            and not self.statements([page])
            and any(m.page == page for m in self.operands)
        )

    def operand_pages(self) -> list[int]:
        return sorted({m.page for m in self.operands})

    def target_pages(self, context: str = DEFAULT_CONTEXT) -> list[int]:
        """The pages an evidence edit must act on: the listed evidence pages, and with the
        whole document shipped, every other page that states the answer."""
        pages = set(self.listed)
        if context == "document":
            pages.update(self.statement_pages())
            pages.update(self.operand_pages())
        return sorted(pages)

    def evidence(self, page: int) -> list[Mention]:
        """Statements, candidates and operand rows on ``page``: what an evidence edit must
        reach."""
        found = [m for m in self.mentions if m.page == page and m.status in (STATEMENT, CANDIDATE)]
        return found + [m for m in self.operands if m.page == page]

    def regions(self, page: int) -> list[Box]:
        """Boxes an evidence edit aims at on ``page``: every statement and candidate (its
        form, row, sentence, and the chart it was read in)."""
        return [box for mention in self.evidence(page) for box in mention.regions()]

    def aim(self, page: int) -> list[Box]:
        """What to aim at on ``page``: the figure the question names, and the gold's
        regions, else the anchors' words."""
        named = [self.figures[page]] if page in self.figures else []
        return named + (self.regions(page) or list(self.anchor_boxes.get(page, [])))

    def to_json(self) -> dict[str, Any]:
        statements = self.statements()
        return {
            "gold_forms": [f"{i.kind}:{i.text}" for i in self.items],
            "anchors": list(self.anchors.terms),
            "pages_read": self.pages_read,
            "channels": [f"{k}:{v}" for k, v in sorted(self.channels.items())],
            "statements": [m.to_json() for m in statements],
            "statement_pages": sorted({m.page for m in statements}),
            "other_mentions": sum(1 for m in self.mentions if m.status != STATEMENT),
            "operands": [m.to_json() for m in self.operands],
            "related_pages": self.related,
            "named_figures": [
                {"page": page, "bbox": [round(v, 2) for v in box]}
                for page, box in sorted(self.figures.items())
            ],
            "notes": list(self.notes),
        }


def _page_text(readings: PageReadings) -> str:
    return " ".join(r.text for r in readings.readings)


def printed_page_number(readings: PageReadings) -> str | None:
    """The page number printed in the page's top or bottom margin, if any."""
    height = readings.size[1]
    if height <= 0:
        return None
    for reading in readings.readings:
        for word in reading.words:
            centre = (word.bbox[1] + word.bbox[3]) / 2
            if MARGIN * height < centre < (1 - MARGIN) * height:
                continue
            text = word.text.strip(".-–— ")
            if _PAGE_NUMBER.match(text):
                return text.lower()
    return None


def _anchor_boxes(readings: PageReadings, anchors: Anchors) -> list[Box]:
    boxes: list[Box] = []
    for reading in readings.readings:
        for word in reading.words:
            if any(stem(t) in anchors.stems for t in normalise(word.text).split()):
                boxes.append(word.bbox)
    return boxes


def build_map(
    listed: Sequence[int],
    question: str,
    answer: str,
    answer_format: str | None,
    options: Sequence[str],
    readings: dict[int, PageReadings],
    labels: dict[int, str] | None = None,
) -> EvidenceMap:
    """The map from the document's readings (every page, in order)."""
    items = gold_items(answer, answer_format, options)
    anchors = question_anchors(question, [_page_text(readings[n]) for n in sorted(readings)])
    printed = {n: (labels or {}).get(n) or printed_page_number(readings[n]) for n in readings}
    resolved = printed_pages(listed, printed)
    listed_set = set(listed) | set(resolved)
    emap = EvidenceMap(tuple(sorted(set(listed))), items, anchors, readings=readings)
    emap.printed = {n: printed[n] or "" for n in resolved}
    for page in resolved:
        emap.notes.append(
            f"PDF page {page} prints the page number {printed[page]}, a listed page whose own"
            " printed number differs: it is read as an evidence page too"
        )
    emap.pages_read = len(readings)
    for number, page in sorted(readings.items()):
        for channel in page.channels():
            emap.channels[channel] = emap.channels.get(channel, 0) + 1
        if page.unread:
            emap.unread.append(f"page {number}: {page.unread}")
        emap.unread += [f"page {number}: {note}" for note in page.reduced]
        if number in listed_set:
            emap.anchor_boxes[number] = _anchor_boxes(page, anchors)
        if items:
            emap.mentions += page_mentions(
                page.readings, items, anchors, question, options, number in listed_set
            )
    if not items:
        emap.notes.append(
            f"the answer {answer!r} has no form worth searching for (a yes/no, a single"
            " digit or letter): the map holds the question's anchors and operand rows"
        )
        _add_operands(emap, readings, listed_set)
        return emap
    _promote_restatements(emap, readings, question)
    _resolve_pages(emap, printed, resolved)
    if emap.computed:
        _add_operands(emap, readings, listed_set)
    if emap.asks_a_value():
        _add_drawing_charts(emap, readings, listed_set)
        _add_changes(emap, readings, items, listed_set)
    if emap.unread:
        shown = "; ".join(emap.unread[:3]) + ("; ..." if len(emap.unread) > 3 else "")
        emap.notes.append(f"{len(emap.unread)} page(s) could not be read fully: {shown}")
    return emap


def _promote_restatements(
    emap: EvidenceMap, readings: dict[int, PageReadings], question: str
) -> None:
    """Printings of the gold in a sentence that restates the question in other words are
    statements (:mod:`.paraphrase`): "41% do not use the internet at all" on page 2 for
    "the percentage of people who do not go online"."""
    promoted = {
        (m.page, m.channel, m.span): m
        for m in paraphrased(emap.mentions, readings, question, emap.items)
    }
    if not promoted:
        return
    emap.mentions = [promoted.get((m.page, m.channel, m.span), m) for m in emap.mentions]
    pages = sorted({m.page for m in promoted.values()})
    emap.notes.append(
        f"{len(promoted)} printing(s) of the answer in a sentence restating the question in"
        f" other words, on page(s) {pages}: statements"
    )


def _add_operands(emap: EvidenceMap, readings: dict[int, PageReadings], listed: set[int]) -> None:
    """The operand rows of an answer printed nowhere, on every page, and a note."""
    values = emap.asks_a_value()
    for number, page in sorted(readings.items()):
        emap.operands += page_operands(page, emap.anchors, number in listed, labels=values)
        emap.operands += candidate_rows(page, emap.candidates(), number in listed)
    amounts = operand_amounts(emap.operands)
    known = {(m.page, box) for m in emap.operands for box in m.boxes}
    if amounts:
        for number, page in sorted(readings.items()):
            emap.operands += page_restatements(page, amounts, known, number in listed)
        known |= {(m.page, box) for m in emap.operands for box in m.boxes}
    for number in emap.operand_pages():
        emap.operands += table_mates(readings[number], emap.operands, known, number in listed)
    if emap.operands:
        pages = emap.operand_pages()
        emap.notes.append(
            f"{len(emap.operands)} row(s) printing the question's terms with numbers, on"
            f" page(s) {pages}: what the answer is computed from; evidence edits must take"
            " their numbers away"
        )


def _add_drawing_charts(
    emap: EvidenceMap, readings: dict[int, PageReadings], listed: set[int]
) -> None:
    """The charts that draw a numeric answer (:func:`.operands.drawing_charts`), as
    operands taken away whole, and a note. Not for a count: how many bars a chart shows
    is read off its pictures (the gate's seen-answer rule), not off its axis."""
    known = {(m.page, m.figure) for m in emap.operands if m.figure is not None}
    found = [
        chart
        for number, page in sorted(readings.items())
        for chart in drawing_charts(page, emap.anchors, number in listed)
        if (chart.page, chart.figure) not in known
    ]
    if found:
        emap.operands += found
        emap.notes.append(
            f"{len(found)} chart(s) naming the question's terms, on page(s)"
            f" {sorted({m.page for m in found})}: they draw the answer, labelled or not;"
            " evidence edits take them away whole"
        )


def _add_changes(
    emap: EvidenceMap,
    readings: dict[int, PageReadings],
    items: Sequence[GoldItem],
    listed: set[int],
) -> None:
    """A base percent and a stated change that give the gold (:mod:`.changes`), as
    operands, and a note."""
    found = change_operands(readings, items, emap.anchors, listed)
    found = [m for m in found if m not in emap.operands]
    if found:
        emap.operands += found
        shown = "; ".join(repr(m.printed[:60]) for m in found[:2])
        emap.notes.append(
            f"a base and a change in points give the answer: {shown} (page(s)"
            f" {sorted({m.page for m in found})}); evidence edits take their numbers away"
        )


def printed_pages(listed: Sequence[int], printed: dict[int, str | None]) -> list[int]:
    """PDF pages that print the number of a listed page whose own printed number differs
    (records that give printed page numbers instead of PDF page indexes)."""
    out: set[int] = set()
    for page in listed:
        own = printed.get(page)
        if own is None or own == str(page):
            continue
        out.update(n for n, label in printed.items() if label == str(page) and n not in listed)
    return sorted(out)


def _resolve_pages(
    emap: EvidenceMap, printed: dict[int, str | None], resolved: Sequence[int] = ()
) -> None:
    """Notes on where the answer is stated relative to the listed pages."""
    evidence = set(emap.listed) | set(resolved)
    on_listed = {m.page for m in emap.statements(sorted(evidence))}
    elsewhere = [p for p in emap.statement_pages() if p not in evidence]
    if on_listed:
        emap.notes.append(f"stated on evidence page(s) {sorted(on_listed)}")
    if elsewhere:
        emap.notes.append(f"also stated on page(s) {elsewhere}, which the record does not list")
    if not on_listed and not elsewhere:
        emap.notes.append(
            "not stated on any page (computed, counted or paraphrased): edits aim at the"
            " question's anchors on the listed pages"
        )
        return
    for page in emap.listed:
        if page in on_listed or any(emap.printed.get(n) == str(page) for n in on_listed):
            continue
        by_label = [n for n in elsewhere if printed.get(n) == str(page)]
        near = [n for n in elsewhere if 0 < abs(n - page) <= NEIGHBOURS]
        if by_label:
            emap.printed.update({n: str(page) for n in by_label})
            emap.notes.append(
                f"listed page {page} states nothing; PDF page(s) {by_label} print the page"
                f" number {page} and state the answer (the record gives printed page numbers)"
            )
        elif near:
            emap.notes.append(f"listed page {page} states nothing; its neighbour(s) {near} do")
        else:
            emap.notes.append(f"listed page {page} states nothing")


def page_labels(document: Any) -> dict[int, str]:
    """The document's page labels (PDF /PageLabels), by 1-based page, when it has any."""
    labels: dict[int, str] = {}
    for page in document:
        label = page.get_label()
        if label:
            labels[page.number + 1] = label.lower()
    return labels


def named_figures(document: Any, question: str, pages: Sequence[int]) -> dict[int, Box]:
    """Where the figure ``question`` names is, on each of ``pages`` that prints its caption."""
    reference = figure_reference(question)
    if not reference:
        return {}
    body = body_style(document)
    out: dict[int, Box] = {}
    for number in pages:
        if not 0 < number <= document.page_count:
            continue
        with normalised_page(document, number) as page:
            rect = named_figure(page, reference, body)
        if rect is not None:
            out[number] = (rect.x0, rect.y0, rect.x1, rect.y1)
    return out


def evidence_map(sample: Sample, inputs: SampleInputs) -> EvidenceMap:
    """The sample's map, computed on first use and kept on ``inputs``."""

    def compute() -> EvidenceMap:
        document = inputs.document()
        readings = read_document(document, inputs.document_digest())
        emap = build_map(
            sample.evidence_pages,
            sample.question,
            sample.answer,
            sample.answer_format,
            sample.options,
            readings,
            page_labels(document),
        )
        emap.figures = named_figures(document, sample.question, sorted(emap.evidence_pages()))
        for page, box in sorted(emap.figures.items()):
            emap.notes.append(
                f"page {page}: the figure the question names is at {tuple(round(v) for v in box)}"
            )
        return emap

    return inputs.derived("evidence_map", compute)


def _entry_numbers(words: Sequence[Word], left: float, last: int) -> set[int]:
    """The numbers 1..``last`` that open a line of ``words`` with their left edge within
    :data:`ENTRY_ALIGN_PT` of ``left``."""
    openers: dict[tuple[int, int], Word] = {}
    for word in words:
        key = (word.block, word.line)
        if key not in openers or word.bbox[0] < openers[key].bbox[0]:
            openers[key] = word
    found = set()
    for word in openers.values():
        match = _ENTRY_NUMBER.fullmatch(word.text.strip())
        if match and abs(word.bbox[0] - left) <= ENTRY_ALIGN_PT and 1 <= int(match[1]) <= last:
            found.add(int(match[1]))
    return found
