"""Restatements in other words: the gold printed in a sentence that asks the question back.

The evidence map calls a printing of the gold a statement when the question's words are
printed beside it. A report restates its figures in its own words: "41% do not use the
internet at all" on page 2 answers "What is the percentage of people who do not go
online?" as well as the masked pie on page 6 does, and a blind reader found it. So the
re-read gate also reads the *sentence* around every other printing of the gold and takes
it for a statement when it means what the question asks: the MiniLM cosine between the
question and the sentence reaches :data:`MIN_SIMILARITY`.

Measured on the text layer of the shared MMLongBench-Doc documents (every sentence that
prints the gold of a numeric question, 77 sentences): the sentences that restate the
answer off its evidence pages scored 0.63 and 0.75, the ones that print the same number
about something else at most 0.60 (for a question whose answer is one value; a list
answer's items are printed in many sentences about neighbouring groups, so those are
left to the map). The threshold sits between, and errs towards failing an item.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from ..textregions.words import centre_inside
from .forms import GoldItem
from .reading import PageReadings
from .statements import STATEMENT, Mention

MIN_SIMILARITY = 0.62
#: The re-read gate reads more keenly than the map plans edits: a false restatement in the
#: map costs an edit of an innocent page, in the gate an item. Printings at the gold's own
#: precision only (a rounding, "$1.4 billion" for 1,375,500, scored the false 0.60): the
#: real restatement of the Pew report, with the tail of the sentence before it, 0.605;
#: the next printing of the number about something else, 0.51.
GATE_SIMILARITY = 0.58
#: A sentence this long is a table or a run of text, not a restatement.
MAX_SENTENCE_CHARS = 400
#: Scores kept per process: the map and every attempt's gate ask about the same sentences
#: of the unchanged pages.
_SCORES: dict[tuple[str, str], float] = {}
_MAX_SCORES = 4096


def question_similarities(question: str, sentences: Sequence[str]) -> list[float]:
    """MiniLM cosine of ``question`` with each sentence (the rewrite gates' measure),
    each pair scored once per process."""
    missing = list(dict.fromkeys(s for s in sentences if (question, s) not in _SCORES))
    if missing:
        from ..text.embeddings import similarities

        if len(_SCORES) + len(missing) > _MAX_SCORES:
            _SCORES.clear()
        scores = similarities([(question, sentence) for sentence in missing])
        _SCORES.update(((question, s), float(v)) for s, v in zip(missing, scores, strict=True))
    return [_SCORES[(question, s)] for s in sentences]


def sentence_text(page: PageReadings, mention: Mention) -> str:
    """The words of ``mention``'s sentence, as its channel read them."""
    for reading in page.readings:
        if reading.channel == mention.channel:
            words = [w.text for w in reading.words if centre_inside(w.bbox, [mention.sentence])]
            if words:
                return " ".join(words)
    return ""


def paraphrased(
    mentions: Sequence[Mention],
    readings: Mapping[int, PageReadings],
    question: str,
    items: Sequence[GoldItem],
    threshold: float = MIN_SIMILARITY,
    exact: bool = False,
) -> list[Mention]:
    """The ``mentions`` (not already statements) whose sentence means what ``question``
    asks, each returned as a statement; ``exact``: printings at the gold's precision
    only."""
    if len(items) != 1 or items[0].kind != "number":
        return []
    candidates = [
        m
        for m in mentions
        if m.status != STATEMENT and m.page in readings and not (exact and m.form == "coarser")
    ]
    sentences = [sentence_text(readings[m.page], m) for m in candidates]
    kept = [
        (m, s)
        for m, s in zip(candidates, sentences, strict=True)
        if 0 < len(s) <= MAX_SENTENCE_CHARS
    ]
    if not kept:
        return []
    scores = question_similarities(question, [s for _, s in kept])
    return [
        replace(m, status=STATEMENT)
        for (m, _), score in zip(kept, scores, strict=True)
        if score >= threshold
    ]
