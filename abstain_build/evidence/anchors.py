"""The question's anchor terms: the words that locate the gold's row, sentence or chart.

"What is depreciation expense on property and equipment in 2017 for Amazon?" is answered
where "depreciation", "property" and "equipment" are printed near the number; "Amazon"
and "2017" are printed on every page of Amazon's 2017 10-K and locate nothing. So the
anchors are the question's content words, minus stopwords, minus instructions ("Answer
in million"), minus the words printed on most pages of the document.

Words are compared by a crude stem (lowercased, plural dropped, the first six letters of
longer words), so "depreciation" anchors "depreciated" and "lease" anchors "leases"; the
comparison is cheap enough to run over every page of a long report.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from .forms import normalise
from .glossary import operand_phrases

#: Stem length of long words (crude, fast, good enough to find a row label).
STEM = 6
#: A word printed on more than this share of the document's pages locates nothing ...
UBIQUITOUS = 0.35
#: ... when the document has at least this many pages (a short deck repeats its topic).
MIN_PAGES_FOR_DF = 6

_STOPWORDS = frozenset(
    """a an the and or but if of at by for with about against between into through during
    before after above below to from up down in out on off over under again further then
    once here there when where why how all any both each few more most other some such no
    nor not only own same so than too very can will just don should now is are was were be
    been being have has had having do does did doing would could might must shall may i me
    my we our you your he him his she her it its they them their what which who whom this
    that these those am as until while per via according also based use used using
    answer answers format formats please give given round rounded decimal decimals places
    place float integer int string list write express expressed state stated unit units
    value values number numbers many much whole million millions billion billions thousand
    thousands percent percentage percentages document documents report reports page pages
    paper slide slides figure figures table tables chart charts image images shown show
    shows mentioned mention listed provided say says said amount amounts approximately
    approximate exactly example examples return represent appropriate one two three first
    second third top term terms order descending ascending alphabetical yyyy total
    respectively following""".split()  # noqa: SIM905
)


def stem(word: str) -> str:
    """A crude stem: plural dropped, long words cut to :data:`STEM` letters."""
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif len(word) > 5 and word.endswith("zzes"):  # quizzes
        word = word[:-3]
    elif len(word) > 4 and word.endswith(("xes", "ches", "shes", "sses")):  # taxes, classes
        word = word[:-2]
    elif len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return word[:STEM] if len(word) > STEM else word


def stems_of(text: str) -> list[str]:
    """Stems of the words of ``text`` (normalised first)."""
    return [stem(token) for token in normalise(text).split()]


@dataclass(frozen=True)
class Anchors:
    """The question's anchor stems (specific to where the answer is) and the rest."""

    terms: tuple[str, ...]  # as printed in the question, in order
    stems: frozenset[str]
    #: Dropped because the document prints them on most pages.
    ubiquitous: tuple[str, ...] = ()
    #: Stems of the question's content words that follow each other in it ("stockholder
    #: equity", "global streaming"), either order: a row printing one names its phrase.
    pairs: frozenset[tuple[str, str]] = frozenset()
    #: Stems of the line items a ratio the question names is computed from
    #: (:mod:`.glossary`), each in order ("net income" -> ("net", "income")).
    line_items: tuple[tuple[str, ...], ...] = ()
    #: For a question about a total ("global streaming memberships", "total revenue"):
    #: stems of the words after the total's qualifier, which name its parts too
    #: ("Memberships at end of period" in the domestic streaming segment's table).
    parts: tuple[str, ...] = ()
    #: For "how many reportable segments ...": stems of what it counts ("report",
    #: "segment"); a count printed right before them states the answer on any page.
    counted: tuple[str, ...] = ()

    def line_item_in(self, stems: Sequence[str]) -> tuple[str, ...]:
        """The first line item ``stems`` (a row's words, in order, every word) print, or ()."""
        for item in self.line_items:
            width = len(item)
            if any(tuple(stems[i : i + width]) == item for i in range(len(stems) - width + 1)):
                return item
        return ()

    def phrase_in(self, stems: Sequence[str]) -> bool:
        """Do ``stems`` (a row's content words, in order) print one of the question's
        phrases, with at least one word that is not printed everywhere?"""
        for first, second in pairwise(stems):
            pair = (first, second) if first <= second else (second, first)
            if pair in self.pairs and (first in self.stems or second in self.stems):
                return True
        return False

    @property
    def words(self) -> int:
        """How many anchors are words (not years)."""
        return sum(1 for s in self.stems if not s.isdigit())

    def found_in(self, stems: Iterable[str], topic: bool = False) -> list[str]:
        """The anchor stems among ``stems`` (each once, in the question's order); with
        ``topic``, the words the document prints everywhere too (on a page that is evidence
        they still tell the answer's line from the others)."""
        terms = self.terms + self.ubiquitous if topic else self.terms
        wanted = self.stems | self.topic_stems if topic else self.stems
        present = set(stems) & wanted
        return [s for s in dict.fromkeys(stem(t) for t in terms) if s in present]

    @property
    def topic_stems(self) -> frozenset[str]:
        return frozenset(stem(t) for t in self.ubiquitous)

    def printed(self, stems: Iterable[str]) -> str:
        """``stems`` as the question prints them ("believ" -> "believe"), for a reason."""
        terms = {stem(term): term for term in self.terms}
        return ", ".join(terms.get(s, s) for s in stems)


def question_terms(question: str) -> list[str]:
    """Content words of a question: not stopwords, not single letters, not bare numbers
    other than years."""
    terms = []
    for token in normalise(re.sub(r"<image \d+>", " ", question)).split():
        if token in _STOPWORDS or len(token) < 3:
            continue
        if token.isdigit() and not (len(token) == 4 and token[:2] in ("19", "20")):
            continue
        terms.append(token)
    return list(dict.fromkeys(terms))


def question_anchors(question: str, page_texts: Sequence[str] = ()) -> Anchors:
    """The anchors of ``question`` in a document whose pages print ``page_texts``."""
    terms = question_terms(question)
    ubiquitous: list[str] = []
    if len(page_texts) >= MIN_PAGES_FOR_DF:
        page_stems = [set(stems_of(text)) for text in page_texts]
        for term in terms:
            share = sum(stem(term) in s for s in page_stems) / len(page_stems)
            if share > UBIQUITOUS:
                ubiquitous.append(term)
    kept = [t for t in terms if t not in ubiquitous]
    ordered = [stem(t) for t in terms]
    pairs = frozenset((a, b) if a <= b else (b, a) for a, b in pairwise(ordered) if a != b)
    line_items = tuple(tuple(stems_of(item)) for item in operand_phrases(question))
    return Anchors(
        tuple(kept),
        frozenset(stem(t) for t in kept),
        tuple(ubiquitous),
        pairs,
        line_items,
        total_parts(question),
        counted_things(question),
    )


#: "How many" and the words after it, up to the verb.
_HOW_MANY = re.compile(r"\bhow\s+many\s+([a-z' -]+)", re.IGNORECASE)
#: Words of what a question counts, at most.
COUNTED_WORDS = 3


def counted_things(question: str) -> tuple[str, ...]:
    """Stems of the words a "how many" question counts ("How many reportable segments are
    listed in Table 1?" -> ("report", "segment")), or ()."""
    match = _HOW_MANY.search(question)
    if match is None:
        return ()
    # "how many of the people": what it counts comes after the stopwords; it ends at its
    # first plural ("how many employees dose PWC have", a verb misspelt, counts employees).
    words = match.group(1).split()
    plural = next((i for i, w in enumerate(words) if is_plural(w)), None)
    counted = " ".join(words if plural is None else words[: plural + 1])
    return _leading_stems(counted, frozenset(), COUNTED_WORDS)


def is_plural(word: str) -> bool:
    """A plural noun, roughly: "employees", "offices", not "business" nor "Figure"."""
    word = word.lower()
    return len(word) > 3 and word.endswith("s") and not word.endswith("ss")


def _leading_stems(text: str, skipped: frozenset[str], most: int) -> tuple[str, ...]:
    """Stems of the first run of content words of ``text`` (at most ``most``): stopwords,
    numbers and ``skipped`` words before it are passed over, and end it after."""
    words: list[str] = []
    for token in normalise(text).split():
        if token in _STOPWORDS or token in skipped or token.isdigit():
            if words:
                break
            continue
        words.append(stem(token))
        if len(words) == most:
            break
    return tuple(words)


#: A qualifier that makes a quantity the sum of its parts.
_TOTAL = re.compile(
    r"\b(?:global|total|consolidated|worldwide|overall|combined|company-wide)\s+([a-z' -]+)",
    re.IGNORECASE,
)
#: Words after a total that say what is asked of it, not what it counts.
_ASKED = frozenset(
    (
        *("increase", "decrease", "change", "growth", "grow", "grew", "rise", "fall"),
        *("decline", "rate", "ratio", "percentage", "percent", "share", "margin"),
        *("number", "amount", "value"),
    )
)
#: Words after the qualifier that name the total's measure, at most.
PART_WORDS = 2


def total_parts(question: str) -> tuple[str, ...]:
    """Stems of what a total the question asks about counts ("global streaming
    memberships" -> ("stream", "member")), or () when it asks about no total."""
    match = _TOTAL.search(question)
    # "total number of stores": what it counts comes after the asked words.
    return _leading_stems(match.group(1), _ASKED, PART_WORDS) if match else ()


def content_stems(text: str) -> list[str]:
    """Stems of the content words of ``text`` in order (as :func:`question_terms` keeps
    them, repeats included)."""
    out = []
    for token in normalise(text).split():
        if token in _STOPWORDS or len(token) < 3 or any(ch.isdigit() for ch in token):
            continue
        out.append(stem(token))
    return out
