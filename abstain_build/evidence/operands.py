"""Where an answer printed nowhere can still be computed from: its operand rows.

A computed or counted answer (a gap between two percentages, a ratio of two 10-K lines, the
number of quizzes in three units) is stated on no page, so reading for its forms finds
nothing, yet a reader who can still read the rows it is computed from derives it (SPEC
section 7: "cannot derive the gold answer"). For such answers the evidence is those rows:
every printed row that names the question's terms (two of its anchor words, one when it
has only one; a table row on a listed evidence page may name words the document prints
everywhere, as "College graduate" in a report on seniors' use of technology) and prints a
quantity (an amount, a percent, a multiple; not a year, not a "Table 2" reference). Tables
of contents are left out: a page number at the end of a line that names the question's
terms is no operand. A question naming a financial ratio also has the line items it is
computed from (:mod:`.glossary`: "Net income" and "Total assets" for a return on assets):
a row printing one of them with a number is an operand row on any page. On a financial
statement (a page titled "Consolidated Balance Sheets", "Statements of Operations") that
prints an operand row, every amount is one: its lines add up to its totals. For a
question about a total ("global streaming memberships"), a short table row naming what
the total counts is a part of it on a page that names the rest ("Memberships at end of
period" in the domestic streaming segment's table): the parts add up to the total. Every
row of a table whose heading names a line item is one ("Total segment depreciation expense
is as follows"). :mod:`.rebuilt` adds the rows that restate an operand's amount and the
other rows of its table.

On a listed evidence page, a picture's short rows that print a quantity (the
"51%" of a pie, an image-only slide's bar labels) are operands too: they print no word of
the question (the legend does), yet they are what the answer is computed from.

An operand is a :class:`~.statements.Mention` with status :data:`OPERAND`: its ``boxes``
are the quantities it prints (what a removal must take away), its ``row`` the whole row.
Evidence transforms aim at operands as they aim at statements, and the re-read gate fails
an evidence-removal attempt that leaves one readable.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ..content.number_roles import MONTH_BEFORE
from ..numbers import find_numbers, follows_reference_word
from ..textregions.words import Word, centre_inside, union_box
from .anchors import Anchors, content_stems, stem, stems_of
from .forms import normalise
from .reading import OCR_FIGURE, TEXT_LAYER, PageReadings, Reading
from .statements import CHART, OPERAND, Mention

#: A reading with at least this many rows ending in a bare page number is a table of
#: contents (or an index), when such rows are most of its rows that print numbers.
TOC_ROWS = 5
TOC_SHARE = 0.6
#: Off the listed pages a row must print one of the question's phrases ("stockholders'
#: equity", "global streaming memberships"), or name this many of its anchor words: two
#: common words of a 10-K question ("change", "return") meet on many lines by chance.
PROSE_ANCHORS = 3
#: A row naming only words the document prints everywhere is an operand when it is this
#: short: a table row's label and values ("College graduate (n=537) 87"), not a sentence.
TABLE_ROW_WORDS = 8
#: Characters of a row kept as its printed text.
ROW_TEXT = 160

_BARE_INTEGER = re.compile(r"^\d{1,4}$")
#: A footnote or list marker opening a row: "(3) The operating cycle is...".
_MARKER = re.compile(r"^\(\d{1,2}\)$")
#: The title of a financial statement, printed in a page's first rows.
_STATEMENT_TITLE = re.compile(
    r"\b(?:balance sheets?|statements? of (?:financial position|operations|income|earnings"
    r"|comprehensive (?:income|loss)|cash flows?|(?:stock|share)holders'?\W? equity"
    r"|changes in (?:stock|share)holders'?\W? equity))\b",
    re.IGNORECASE,
)
#: How many printed rows from the top of a page may hold a statement's title.
TITLE_ROWS = 6
#: Anchors recorded for rows found by the rules beyond the question's words (here and in
#: :mod:`.rebuilt`).
STATEMENT = ("statement",)
RESTATED = ("restated",)
PART = ("part",)
TABLE = ("table",)
HEADED = ("heading",)
COMPARED = ("compared",)
CHARTED = ("charted",)
#: Words of the question a chart must name before it is taken for one that draws a
#: numeric answer (the series and the period: "Cloud Services", "FY2020").
CHART_ANCHORS = 3
#: A row of a picture this short that prints a quantity is a label ("51%", "iOS 9 13%").
LABEL_WORDS = 3
#: Numbers a picture prints before it counts as a chart (two bars, or an axis's ticks).
CHART_VALUES = 2
#: Printed rows above a table read as its heading.
HEADING_ROWS = 2
#: A table row's label has at most this many words; a longer row is a sentence.
TABLE_LABEL_WORDS = 12
#: A vertical gap of this many line heights between rows ends a table.
TABLE_GAP = 2.5


def printed_rows(words: Sequence[Word]) -> list[list[Word]]:
    """Words grouped by printed row (vertical centres within half a line of each other)."""
    rows: list[list[Word]] = []
    for word in sorted(words, key=lambda w: ((w.bbox[1] + w.bbox[3]) / 2, w.bbox[0])):
        centre = (word.bbox[1] + word.bbox[3]) / 2
        height = max(word.bbox[3] - word.bbox[1], 1.0)
        if rows:
            last = rows[-1][-1]
            if abs((last.bbox[1] + last.bbox[3]) / 2 - centre) <= height / 2:
                rows[-1].append(word)
                continue
        rows.append([word])
    return [sorted(row, key=lambda w: w.bbox[0]) for row in rows]


def quantities_in(row: Sequence[Word]) -> list[Word]:
    """The words of ``row`` that print a quantity."""
    text = " ".join(w.text for w in row)
    tokens = [t for t in find_numbers(text) if t.is_quantity]
    tokens = [
        t
        for t in tokens
        if not follows_reference_word(text, t)
        and not (t.start == 0 and _MARKER.match(t.text))
        and _worth_reading(t.text)
        and not MONTH_BEFORE.search(text[: t.start])
    ]
    if not tokens:
        return []
    out, cursor = [], 0
    for word in row:
        start, end = cursor, cursor + len(word.text)
        cursor = end + 1
        if any(t.start < end and start < t.end for t in tokens) and any(
            ch.isdigit() for ch in word.text
        ):
            out.append(word)
    return out


def _worth_reading(token: str) -> bool:
    """A quantity an operand is printed as: two digits or more, or a decimal or percent.
    A lone digit is a step or list number, or what OCR makes of the edge of a black box
    over a sealed figure ("Net income 5 Hl")."""
    return sum(ch.isdigit() for ch in token) >= 2 or bool(re.search(r"\d[.,]\d|%", token))


def _page_reference(row: Sequence[Word], quantities: Sequence[Word]) -> bool:
    """Is the row's only number a bare integer at its end (a contents line's page)?"""
    return (
        len(quantities) == 1
        and quantities[0] is row[-1]
        and bool(_BARE_INTEGER.match(row[-1].text.strip(".")))
    )


#: A printed word this long or longer that begins an anchor names it ("grad" in a table
#: row for "graduate" in the question, "Dec" for "December").
MIN_PREFIX = 3


def _named(anchors: Anchors, stems: set[str], topic: bool) -> tuple[str, ...]:
    """The anchor words (not years) a row names, in full or by an abbreviation; with
    ``topic``, the question's words the document prints everywhere count too."""
    wanted = anchors.stems | anchors.topic_stems if topic else anchors.stems
    out = []
    for anchor in anchors.found_in(wanted, topic=topic):
        if anchor.isdigit():
            continue
        if anchor in stems or any(
            len(s) >= MIN_PREFIX and s.isalpha() and anchor.startswith(s) for s in stems
        ):
            out.append(anchor)
    return tuple(out)


def _operand_words(
    anchors: Anchors, row: Sequence[Word], sequence: Sequence[str], listed: bool
) -> tuple[str, ...]:
    """The anchor words that make ``row`` an operand row, or () when it is none."""
    needed = 2 if anchors.words >= 2 else 1
    stems = {stem(t) for w in row for t in normalise(w.text).split()}
    named = _named(anchors, stems, topic=listed)
    if len(named) < needed:
        return ()
    if len(row) > TABLE_ROW_WORDS and not set(named) & anchors.stems:
        return ()  # only words printed everywhere, in a sentence or a source line
    if not listed and len(named) < PROSE_ANCHORS and not anchors.phrase_in(sequence):
        return ()  # two common words somewhere on a line of another page
    return named


def folio(row: Sequence[Word]) -> bool:
    """Is the row a page number printed alone?"""
    return len(row) == 1 and bool(_BARE_INTEGER.match(row[0].text.strip(".")))


def is_statement(rows: Sequence[Sequence[Word]]) -> bool:
    """Does a page open with a financial statement's title ("Consolidated Balance Sheets")?"""
    top = " ".join(w.text for row in rows[:TITLE_ROWS] for w in row)
    return bool(_STATEMENT_TITLE.search(top.replace("\u2019", "'")))


def _part_of_total(anchors: Anchors, row: Sequence[Word], page: set[str]) -> tuple[str, ...]:
    """For a question about a total: a short table row naming what the total counts, on a
    page that names the rest of it ("Memberships at end of period 30,024" in the
    international streaming segment's table is a part of global streaming memberships)."""
    label = [w for w in row if not any(ch.isdigit() for ch in w.text) and w.text.strip("$%")]
    if not anchors.parts or len(label) > TABLE_ROW_WORDS:
        return ()
    stems = {stem(t) for w in row for t in normalise(w.text).split()}
    named = tuple(p for p in anchors.parts if p in stems)
    if named and set(anchors.parts) <= page:
        return (*PART, *named)
    return ()


def _headed_tables(
    anchors: Anchors,
    printed: Sequence[Sequence[Word]],
    amounts: Sequence[list[Word]],
    found: list[tuple[Sequence[Word], list[Word], tuple[str, ...]]],
) -> list[tuple[Sequence[Word], list[Word], tuple[str, ...]]]:
    """Rows of a table whose heading names a line item of the question: "Total segment
    depreciation expense is as follows:" over "Consolidated $ 8,831" (the row's own label
    names only the segment). ``amounts`` are the quantities of each printed row."""
    if not anchors.line_items:
        return found
    headed: set[int] = set()
    for block in table_blocks(printed):
        heading = list(printed[max(0, block[0] - HEADING_ROWS) : block[0]])
        for index in block[:HEADING_ROWS]:  # its own title rows, above its first amounts
            if amounts[index]:
                break
            heading.append(printed[index])
        text = " ".join(w.text for row in heading for w in row)
        if text and anchors.line_item_in(stems_of(text)):
            headed.update(id(printed[i]) for i in block if not folio(printed[i]))
    return [(row, q, named or (HEADED if id(row) in headed else ())) for row, q, named in found]


def reading_operands(
    reading: Reading, anchors: Anchors, listed: bool, labels: bool = False
) -> list[Mention]:
    """The operand rows one reading prints (see the module doc).

    On a financial statement that prints one, every amount is an operand: a statement's
    lines add up to its totals ("Total stockholders' equity" is the sum of the five lines
    above it, net income is comprehensive income less its other part), so a reader
    rebuilds a sealed line from the ones left.
    """
    if (anchors.words == 0 and not anchors.line_items) or not reading.words:
        return []
    printed = printed_rows(reading.words)
    amounts = [quantities_in(row) for row in printed]
    rows = [(row, q) for row, q in zip(printed, amounts, strict=True) if q]
    references = sum(1 for row, q in rows if _page_reference(row, q))
    contents = references >= TOC_ROWS and references >= TOC_SHARE * len(rows)
    page_stems = set(stems_of(reading.text)) if anchors.parts else set()
    found = []
    for row, quantities in rows:
        if contents and _page_reference(row, quantities):
            continue
        text = " ".join(w.text for w in row)
        named = (
            anchors.line_item_in(stems_of(text))
            or _operand_words(anchors, row, content_stems(text), listed)
            or _part_of_total(anchors, row, page_stems)
        )
        found.append((row, quantities, named))
    if not contents:
        found = _headed_tables(anchors, printed, amounts, found)
    if any(named for _, _, named in found) and not contents and is_statement(printed):
        found = [(row, q, named or STATEMENT) for row, q, named in found]
        found = [(row, q, named) for row, q, named in found if not folio(row)]
    if labels and listed and reading.channel != TEXT_LAYER:
        # The labels of a picture on a listed page (an image-only slide, a chart): the
        # values charted there are what an answer printed nowhere is computed from, and
        # they name nothing (the legend says "iOS 9", the slice says "51%").
        found = [
            (row, q, named or (CHARTED if len(row) <= LABEL_WORDS and not folio(row) else ()))
            for row, q, named in found
        ]
    return [
        row_operand(reading, row, quantities, named, listed)
        for row, quantities, named in found
        if named
    ]


def row_operand(
    reading: Reading,
    row: Sequence[Word],
    quantities: Sequence[Word],
    anchors: tuple[str, ...],
    listed: bool,
) -> Mention:
    """An operand row: its ``quantities`` are what an edit must take away."""
    boxes = tuple(w.bbox for w in quantities)
    whole = union_box(w.bbox for w in row)
    return Mention(
        page=reading.page,
        channel=reading.channel,
        item="",
        printed=" ".join(w.text for w in row)[:ROW_TEXT],
        form="operand row",
        strong=False,
        unique=False,
        anchors=anchors,
        topic=(),
        span=union_box(boxes),
        boxes=boxes,
        row=whole,
        sentence=whole,
        figure=reading.region if reading.channel == OCR_FIGURE else None,
        listed=listed,
        status=OPERAND,
    )


def operand_readings(page: PageReadings) -> list[Reading]:
    """Where operand rows are looked for: a text page's text layer and the charts on it
    (OCR of its whole render groups two columns, and a sealed box's edges, into rows of
    their own), every reading of an image-only page."""
    if page.has_text_layer:
        return [r for r in page.readings if r.channel in (TEXT_LAYER, OCR_FIGURE)]
    return list(page.readings)


def page_operands(
    page: PageReadings, anchors: Anchors, listed: bool, labels: bool = False
) -> list[Mention]:
    """Every operand row of one page (see :func:`reading_operands`); with ``labels``, a
    listed page's picture labels too (for a value, not a count: how many bars a chart
    shows is read off the bars)."""
    return [
        m
        for reading in operand_readings(page)
        for m in reading_operands(reading, anchors, listed, labels)
    ]


def candidate_rows(
    page: PageReadings, candidates: Sequence[Mention], listed: bool
) -> list[Mention]:
    """The rows of ``page`` that print one of ``candidates`` (where a page prints a text
    gold that is one of several, as "Energy Solutions" for "which segment had the lowest
    revenue?") with quantities beside it: a selection is made by comparing those values,
    so they are its operands, and :func:`.rebuilt.table_mates` adds the other candidates'
    rows of the same table. Masking the names leaves the comparison to be made again.

    A picture on such a page that prints :data:`CHART_VALUES` numbers or more is a chart of
    the values compared, whole: readers rank its bars with the labels gone, or read them
    off its axis when it prints none."""
    spans = [m.span for m in candidates if m.page == page.page]
    if not spans:
        return []
    out = []
    for reading in operand_readings(page):
        if reading.channel == OCR_FIGURE:
            chart = chart_operand(reading, COMPARED, listed)
            if chart is not None:
                out.append(chart)
            continue
        for row in printed_rows(reading.words):
            box = union_box(w.bbox for w in row)
            if not any(centre_inside(span, [box], slack=0.0) for span in spans):
                continue
            quantities = quantities_in(row)
            if quantities and not folio(row):
                out.append(row_operand(reading, row, quantities, COMPARED, listed))
    return out


def drawing_charts(page: PageReadings, anchors: Anchors, listed: bool) -> list[Mention]:
    """The charts of ``page`` that draw a numeric answer: pictures printing
    :data:`CHART_VALUES` numbers or more (an axis's ticks) and naming :data:`CHART_ANCHORS`
    of the question's words, the years of a change it asks about counting as one. Readers
    measured the FY2020 bar of a revenue-by-segment chart against its gridlines (2,147
    for 2,158.7), and both Cloud Services bars for the segment's growth, with the table
    that printed the values masked: the chart is evidence, whole, wherever the answer is
    also printed."""
    out = []
    # The question's words printed on most pages count: a chart names the series ("Cloud
    # Services") a small report prints everywhere.
    wanted = anchors.stems | anchors.topic_stems
    needed = min(CHART_ANCHORS, max(len(wanted), 1))
    # The periods a change is asked between ("from FY2020 to FY2021") name the chart's
    # series as one word does: its legend prints them.
    periods = tuple(sorted(a for a in wanted if a.isdigit() and len(a) == 4))
    for reading in page.readings:
        if reading.channel != OCR_FIGURE:
            continue
        stems = {stem(t) for w in reading.words for t in normalise(w.text).split()}
        named = _named(anchors, stems, topic=True)
        dated = len(periods) >= 2 and set(periods) <= stems
        enough = len(named) + dated >= needed
        chart = chart_operand(reading, named + periods * dated, listed) if enough else None
        if chart is not None:
            out.append(chart)
    return out


def chart_operand(reading: Reading, named: tuple[str, ...], listed: bool) -> Mention | None:
    """A picture read by OCR as one operand to take away whole (form :data:`CHART`), when
    it prints :data:`CHART_VALUES` numbers or more; None when it prints fewer."""
    values = [w for w in reading.words if find_numbers(w.text)]
    if len(values) < CHART_VALUES:
        return None
    return replace(row_operand(reading, values, values, named, listed), form=CHART)


def table_blocks(rows: Sequence[Sequence[Word]]) -> list[list[int]]:
    """Runs of consecutive printed rows that form a table: rows printing amounts under a
    short label, and short heading rows between them; a sentence-length row or a gap of
    :data:`TABLE_GAP` lines ends a run."""
    blocks: list[list[int]] = []
    current: list[int] = []
    last_bottom = None
    for index, row in enumerate(rows):
        label = [w for w in row if not any(ch.isdigit() for ch in w.text)]
        height = max(max(w.bbox[3] - w.bbox[1] for w in row), 1.0)
        top = min(w.bbox[1] for w in row)
        gap = last_bottom is not None and top - last_bottom > TABLE_GAP * height
        if len(label) > TABLE_LABEL_WORDS or gap:
            if current:
                blocks.append(current)
            current = []
        if len(label) <= TABLE_LABEL_WORDS:
            current.append(index)
        last_bottom = max(w.bbox[3] for w in row)
    if current:
        blocks.append(current)
    return blocks
