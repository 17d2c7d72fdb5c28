"""What an evidence edit leaves a reader: ways to the answer no edit of the evidence pages
takes away, checked when an edit is planned so that a transform declines instead of
emitting an item a reader still answers.

* :func:`counted_elsewhere`: a count the reader makes of things a page left whole names
  (a summary table listing the quizzes of the hidden units);
* :func:`worked_out`: the answer computed from what is left (:mod:`..evidence.recovery`:
  two values that sum to it, the other slices of its whole, the two values of an asked
  difference stated together, the gold in another unit);
* :func:`named_page_left`: the question names a page (or slide) the edit leaves whole,
  and the reader reads the answer there whatever pages the record lists;
* :func:`winner_stated`: a comparison answered by a name that a page left whole states
  in prose ("Liberal Democrats stand apart ...: 56% believe ..., 20 points higher");
* :func:`charted_comparison`: a comparison of values a chart draws, answered by a name:
  the bars' lengths and the slices' sizes still rank them once their labels are erased
  or blurred;
* :func:`maker_named_elsewhere`: the question asks who made the document itself (its
  producer, publisher, the company that created the presentation), and a page the edit
  leaves whole names that maker: readers of the Florida plan named its producer from the
  department named in its body, under every edit of the credits page (11 of 11 readings
  answered or doubtful);
* :func:`public_filing`: the document is a filing with the U.S. Securities and Exchange
  Commission (a 10-K, or a listed company's results release). Its figures are public
  record, reported and quoted, and restated across its own statements, notes and
  selected data (a release's headline, tables and reconciliations): blind readers
  recalled them ("advertising expenses were $714.3 million") or rebuilt them from
  another statement whatever the edit took. Of 31 readings of evidence edits of the two
  shared 10-Ks counted at the versions before this rule, 3 were valid (44 of 85 of the
  other shared documents').

Each returns the reason (one line a reader can check) or None.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence

from ..evidence.anchors import stem, stems_of
from ..evidence.forms import gold_items, normalise, text_matches
from ..evidence.map import EvidenceMap
from ..evidence.recovery import recoveries
from ..model import Plan
from ..questions.evidence_type import classify_evidence
from ..textregions.words import Box
from .functional.asks import counted_by_the_reader, counted_noun, named_pages


def pages_left_whole(
    emap: EvidenceMap,
    edited: Sequence[int],
    shipped: Sequence[int],
    names: Callable[[set[str]], bool],
) -> list[int]:
    """The pages of ``shipped`` the edit leaves whole (not in ``edited``) whose words'
    stems, over every reading of the page, ``names`` accepts."""
    return [
        number
        for number in shipped
        if number not in edited
        and number in emap.readings
        and names(set(stems_of(" ".join(r.text for r in emap.readings[number].readings))))
    ]


def counted_elsewhere(
    question: str, emap: EvidenceMap, edited: Sequence[int], shipped: Sequence[int]
) -> str | None:
    """Why a count no page prints (the reader counts) is left answerable: a page of
    ``shipped`` the edit leaves whole (not in ``edited``) names the counted things (a
    summary table lists the quizzes of the hidden units). None when nothing does."""
    noun = counted_noun(question)
    if noun is None or counted_by_the_reader(question, emap.prints_the_count()) is None:
        return None
    wanted = stem(noun)
    naming = pages_left_whole(emap, edited, shipped, lambda stems: wanted in stems)
    if not naming:
        return None
    return (
        f"the question counts {noun!r}, which page(s) {naming[:5]} name and the edit leaves"
        " whole: a reader counts them there"
    )


#: A question about who made the document itself: "who produced the document that was
#: revised on May 2016?", "the name of the company that created this presentation".
_MADE = (
    r"(?:produced|published|created|prepared|wrote|written|authored|issued|made|developed"
    r"|designed|compiled|released)"
)
_THE_DOCUMENT = (
    r"(?:this|the)\s+(?:document|report|presentation|deck|slides?|slideshow|plan|brochure"
    r"|guide(?:book)?|manual|paper|booklet|leaflet|pamphlet|survey|study|file)"
)
_MAKER = re.compile(
    rf"\b(?:who|which|what)\b[^?]*?\b{_MADE}\b[^?]*?\b{_THE_DOCUMENT}\b"
    rf"|\b(?:who|which|what)\b[^?]*?\b{_THE_DOCUMENT}\b[^?]*?\b{_MADE}\s+by\b",
    re.IGNORECASE,
)
#: The share of the maker's words a page left whole must print to name it.
MAKER_WORDS = 2 / 3
#: Words of a maker's name that name nobody.
_FUNCTION_WORDS = frozenset(("the", "and", "for", "inc", "ltd", "llc", "corp", "company"))


def maker_named_elsewhere(
    question: str, answer: str, emap: EvidenceMap, edited: Sequence[int], shipped: Sequence[int]
) -> str | None:
    """Why the maker of the document the question asks for survives the edit, or None: a
    document names its maker throughout (cover, running heads, contacts, body), so a page
    of ``shipped`` left whole that prints most of the maker's words lets a reader name it
    ("the Division of Medical Quality Assurance of the Florida Department of Health")."""
    if not _MAKER.search(question):
        return None
    words = {w for w in stems_of(answer) if len(w) >= 3} - _FUNCTION_WORDS
    if not words:
        return None
    naming = pages_left_whole(
        emap, edited, shipped, lambda stems: len(words & stems) >= MAKER_WORDS * len(words)
    )
    if not naming:
        return None
    return (
        f"the question asks who made the document, and page(s) {naming[:5]}, which the edit"
        " leaves whole, name the maker: a reader names it from there"
    )


#: Answers a mention never gives away: the reader cannot pick them out of the page.
_PLAIN_ANSWERS = frozenset({"yes", "no", "true", "false", "none"})


def answer_named_elsewhere(
    question: str, emap: EvidenceMap, edited: Sequence[int], shipped: Sequence[int]
) -> str | None:
    """Why a name the question asks for survives the edit, or None: a page of ``shipped``
    left whole prints it, even in passing, without the question's words. Held-out
    readers named 4 of the 8 names left so (the court of a filing from its back page, a
    lead coordinator from the report's citation, a method from its table): asked for a
    name, a reader weighs every name the document prints, and few fit. Numbers are left
    to the statement rules (a bare number fits anything), and a question that picks
    among names by a value ("which segment had the lowest revenue") to the rules of
    comparisons: every candidate is printed, the values pick."""
    items = emap.items
    if not items or any(item.kind != "text" for item in items):
        return None
    if all(item.text.strip().lower() in _PLAIN_ANSWERS for item in items):
        return None
    whole = {p for p in shipped if p not in edited}
    printed = sorted({m.page for m in emap.mentions if m.page in whole})
    if not printed or emap.candidates() or classify_evidence(question).label == "Comparative":
        return None
    return (
        f"the answer is a name that page(s) {printed[:5]} print and the edit leaves whole:"
        " a reader asked for a name weighs every one the document prints"
    )


#: Words on either side of a name that a sentence stating it as the winner spans.
WINNER_WINDOW = 30
#: Of the question's specific words, how many that sentence must print around the name.
WINNER_ANCHORS = 3
#: Words that state a comparison ("stand apart", "20 points higher than").
_COMPARED = re.compile(
    r"^(?:higher|highest|more|most|larger|largest|greater|greatest|bigger|biggest|lower"
    r"|lowest|fewer|fewest|least|than|apart|ahead|lead|leads|leading|top|outpac\w*)$"
)


def winner_stated(
    question: str,
    answer: str,
    answer_format: str | None,
    emap: EvidenceMap,
    edited: Sequence[int],
    shipped: Sequence[int],
) -> str | None:
    """Why a comparison answered by a name survives the edit, or None: a page of
    ``shipped`` left whole prints the name in a passage that states a comparison with
    :data:`WINNER_ANCHORS` of the question's words around it. Asked which group is most
    pessimistic about America's influence, a held-out reader read "Liberal Democrats
    stand apart for their bleak assessment ...: 56% believe the U.S. will have less
    influence in world affairs, 20 percentage points higher than ..." in the report's
    overview, the chart masked three pages on."""
    if not compares_names(question, answer, answer_format):
        return None
    items = [item for item in emap.items if item.kind == "text" and not item.partial]
    for number, tokens in _whole_page_tokens(emap, edited, shipped):
        for item in items:
            for first, last, _ in text_matches(item, tokens):
                around = tokens[max(0, first - WINNER_WINDOW) : last + WINNER_WINDOW + 1]
                if not any(_COMPARED.match(token) for token in around):
                    continue
                found = emap.anchors.found_in({stem(token) for token in around})
                if len(found) >= WINNER_ANCHORS:
                    return (
                        f"page {number}, which the edit leaves whole, names {item.text!r} in a"
                        f" comparison beside the question's words"
                        f" ({emap.anchors.printed(found[:4])}): a reader takes the winner"
                        " from there"
                    )
    return None


def _whole_page_tokens(
    emap: EvidenceMap, edited: Sequence[int], shipped: Sequence[int]
) -> Iterator[tuple[int, list[str]]]:
    """(page, normalised words) of each reading of the pages of ``shipped`` the edit leaves
    whole, words hyphenated across a line joined ("reason- ing")."""
    for number in shipped:
        if number in edited or number not in emap.readings:
            continue
        for reading in emap.readings[number].readings:
            yield number, normalise(_HYPHENATED.sub(r"\1\2", reading.text)).split()


#: Words a list's items may have between them and still be printed as one list
#: ("event relation extraction and deductive reasoning", "A, B, and C").
LIST_GAP = 3
#: A question that picks its list among others by a value ("which segments had revenue
#: above $3,000 million"): every segment is printed side by side, the values pick.
_PICKS_BY_VALUE = re.compile(
    r"\b(?:above|below|over|under|exceed\w*|more|less|fewer|at\s+least|at\s+most|greater"
    r"|higher|lower|highest|lowest|most|least|top|best|worst|largest|smallest|biggest"
    r"|compared|increas\w*|decreas\w*|grew|fell|rank\w*)\b",
    re.IGNORECASE,
)
#: A word hyphenated across a line break.
_HYPHENATED = re.compile(r"(\w)-\s+(\w)")


def list_printed_together(
    question: str, emap: EvidenceMap, edited: Sequence[int], shipped: Sequence[int]
) -> str | None:
    """Why a list answer survives the edit, or None: a page of ``shipped`` left whole
    prints all of its items side by side, as the list itself ("we deploy LLMs for event
    relation extraction and deductive reasoning tasks", read by a held-out reader in a
    section the edit left whole). Candidates or not, a reader asked for two things takes
    the two a sentence names together, unless values pick them out of a longer list."""
    items = [item for item in emap.items if item.kind == "text" and not item.partial]
    if len(items) < 2 or _PICKS_BY_VALUE.search(question):
        return None
    for number, tokens in _whole_page_tokens(emap, edited, shipped):
        if _side_by_side([item.tokens for item in items], tokens):
            return (
                f"page {number}, which the edit leaves whole, prints the answer's"
                f" {len(items)} items side by side: a reader takes the list from there"
            )
    return None


def _side_by_side(items: Sequence[tuple[str, ...]], tokens: Sequence[str]) -> bool:
    """Do ``tokens`` print every item of ``items``, each within :data:`LIST_GAP` words of
    the next, in some order?"""
    starts: dict[int, list[int]] = {k: [] for k in range(len(items))}
    for k, item in enumerate(items):
        n = len(item)
        starts[k] = [i for i in range(len(tokens) - n + 1) if tuple(tokens[i : i + n]) == item]
        if not starts[k]:
            return False
    spans = sorted((i, i + len(items[k]), k) for k, found in starts.items() for i in found)
    for first in range(len(spans)):
        seen = {spans[first][2]}
        end = spans[first][1]
        for start, stop, k in spans[first + 1 :]:
            if start - end > LIST_GAP:
                break
            if start >= end and k not in seen:
                seen.add(k)
                end = stop
        if len(seen) == len(items):
            return True
    return False


#: What the descriptions of transforms that refuse leftovers say of it.
LEFTOVERS_NOTE = (
    " Nor when what is left still gives the answer: the page the question names is left"
    " whole, a page left whole names the things a count no page prints is made of, or"
    " values left give it by a sum, the other slices of its whole, a difference the text"
    " states with the question's words, or another unit"
    " (344,000 acres for 538 square miles); nor to a public SEC filing (a 10-K, a results"
    " release), whose figures readers recall or rebuild from its other statements; nor to"
    " who made the document when a page left whole names its maker; nor to a name a page"
    " left whole prints, even in passing; nor to a list whose items a page left whole"
    " prints side by side, nor to a comparison whose winner a page left whole names beside"
    " the question's words."
)

#: The cover of an SEC filing: the Commission's name and the form.
_COMMISSION = re.compile(r"securities\s+and\s+exchange\s+commission", re.IGNORECASE)
_FORM = re.compile(r"\bform\s+(10-K|10-Q|20-F|40-F|8-K|S-1|F-1)\b", re.IGNORECASE)
#: A listed company's results release: its listing ("(NYSE: MGM)") or a results headline
#: ("Amcor reports fiscal 2023 results"), with earnings per share.
_LISTING = re.compile(r"\((?:NYSE|NASDAQ|NYSE\s+American|ASX|LSE|TSX)\s*:\s*[A-Z.]{1,6}", re.I)
_RESULTS = re.compile(
    r"\b(?:reports?|announces?|reported)\b[^.\n]{0,80}\bresults\b"
    r"|\b(?:quarter|fiscal|full[- ]year)\b[^.\n]{0,60}\bresults\b",
    re.IGNORECASE,
)
_PER_SHARE = re.compile(
    r"\bEPS\b|earnings\s+per\s+(?:diluted\s+)?share|per\s+diluted\s+share", re.IGNORECASE
)
#: The cover is on the first pages.
COVER_PAGES = 2


def public_filing(emap: EvidenceMap) -> str | None:
    """Why the document's figures survive any edit of its pages, or None: it is a filing
    with the SEC (its cover, on the first pages, names the Commission and the form), or a
    listed company's results release (filed with the SEC too, as an 8-K exhibit). Either
    is on public record, reported and quoted, and restates its figures: a filing across
    its statements, notes and selected data, a release across its headline, its tables
    and its reconciliations. Of 12 evidence edits of four held-out releases read blind,
    8 were answered or came back with the asked facts, from memory of the results or from
    a restatement the edit left."""
    cover = " ".join(
        reading.text
        for number in sorted(emap.readings)[:COVER_PAGES]
        for reading in emap.readings[number].readings
    )
    form = _FORM.search(cover)
    if form is not None and _COMMISSION.search(cover):
        return (
            f"the document is a public SEC filing (Form {form.group(1).upper()}): a reader"
            " recalls its figures or rebuilds them from its other statements, whatever an"
            " edit of its pages takes"
        )
    if _PER_SHARE.search(cover) and (_LISTING.search(cover) or _RESULTS.search(cover)):
        return (
            "the document is a public SEC filing (a listed company's results release): a"
            " reader recalls its figures or rebuilds them from its headline, tables and"
            " reconciliations, whatever an edit of its pages takes"
        )
    return None


#: ... and of those that decline comparisons a chart still ranks.
CHARTED_NOTE = (
    " Nor to a comparison answered by a name of values a chart on the page draws: the"
    " blurred bars and slices still rank them."
)


#: The regions of a plan that take what they cover away.
REMOVED = ("page_hidden", "crop_removed", "mask", "blur", "erase")


def removed_boxes(plan: Plan) -> dict[int, list[Box]]:
    """The boxes, by page, of the plan's regions that take what they cover away."""
    removed: dict[int, list[Box]] = {}
    for region in plan.edits.regions:
        if region.kind in REMOVED and region.page is not None:
            removed.setdefault(region.page, []).append(tuple(region.bbox))
    return removed


def worked_out(
    question: str, emap: EvidenceMap, removed: Mapping[int, Sequence[Box]]
) -> str | None:
    """Why what is left still gives the answer by a step a reader takes
    (:mod:`..evidence.recovery`): two values that sum to it, the other slices of its
    whole, or the gold in another unit ("344,000 acres" on p15 for 538 square miles).
    None when it does not. A mention beside a question word is left to the re-read gate."""
    found = [r for r in recoveries(emap, removed, question) if r.how != "mention"]
    if not found:
        return None
    shown = "; ".join(r.describe() for r in found[:3])
    return f"the answer can still be worked out from what is left: {shown}"


#: Values of a chart needed before its shapes rank them: two bars, two slices.
MIN_CHARTED = 2


def compares_names(
    question: str, answer: str, answer_format: str | None, selects: bool = False
) -> bool:
    """Does the question compare values ("which segment had the lowest revenue") and name
    what wins, not a number? ``selects``: the answer is a name picked among others the
    document prints, whatever the question's wording ("which segments had revenue above
    $3,000 million?")."""
    items = gold_items(answer, answer_format)
    if not items or any(item.kind in ("number", "year") for item in items):
        return False
    # Any comparison the question makes, not only its first type: "the name of the second
    # largest operator in terms of the number of subscribers" reads as Counting first.
    kinds = classify_evidence(question)
    return selects or "Comparative" in (kinds.label, *kinds.secondary)


def charted_comparison(
    question: str,
    answer: str,
    answer_format: str | None,
    page: int,
    charted: int,
    left: str,
    selects: bool = False,
) -> str | None:
    """Why an edit leaves a comparison answered (``left``: what it leaves, "erased labels"),
    or None: the question compares, its answer is a name, not a number, and ``charted``
    values of page ``page`` label a chart (an embedded picture, a cluster of drawn bars or
    wedges). A reader asked "which category has the most increase from 2005 to 2010"
    measured the slice angles of two clock charts whose labels were erased, and another
    ranked a blurred bar chart's segments by the bars' lengths. ``selects``: the answer is a
    name picked among others the document prints (:func:`..evidence.statements.is_selection`),
    as "which segments had revenue above $3,000 million?", whose bars a reader read against
    the gridlines left beside the blur."""
    if not compares_names(question, answer, answer_format, selects) or charted < MIN_CHARTED:
        return None
    return (
        f"the question compares values a chart on page {page} draws ({charted} of its"
        f" numbers label it): {left} leave the shapes to rank"
    )


def drawn_answer(page: int, labelled: Sequence[str], computed: bool) -> str | None:
    """Why erasing numbers leaves the answer drawn, or None: a value of the answer labels a
    chart on page ``page`` (``labelled``), or the answer is computed (no page prints it)
    and the evidence page charts values (``computed``). The label goes; the bar, slice or
    point it labels stays, and a reader measures it against the axis, the labels left or
    the whole it is a part of."""
    if labelled:
        return (
            f"the answer's value {labelled[0]!r} labels a chart on page {page}: erased, its"
            " bar, slice or point stays to be measured against the axis, the other labels"
            " or the whole"
        )
    if computed:
        return (
            f"the answer is computed and page {page} charts values: erased labels leave the"
            " bars, slices or points it is computed from"
        )
    return None


def named_page_left(question: str, emap: EvidenceMap, edited: Sequence[int]) -> str | None:
    """Why the edit leaves the page the question names whole, or None: "how many cats are
    there in the images on page 1?" was listed with evidence page 4, the edit hid page 4,
    and a reader counted the cover's photos. A named page counts as edited when an edited
    page is that page of the PDF or prints that page number."""
    # A named page that prints nothing (a blank leaf before the title page) is not the
    # page the question means; one past the end is a printed number.
    named = {
        n
        for n in named_pages(question)
        if n in emap.readings and any(r.words for r in emap.readings[n].readings)
    }
    if not named or not edited:
        return None
    covered = {number for number in edited} | {
        int(label) for page, label in emap.printed.items() if page in edited and label.isdigit()
    }
    if named & covered:
        return None
    return (
        f"the question names page(s) {sorted(named)[:5]}, which the edit leaves whole (it"
        f" edits page(s) {sorted(edited)[:5]}): a reader reads the answer there"
    )
