"""Questions blind readers answer from recall, or with another answer than the gold: the
readings' own check of what no evidence edit can make unanswerable.

The offline blind cues read the question only, and for documents they stay off: what a
reader of the field knows about a document's question is for a model to find (``--blind-
gate``). The ledger already holds that knowledge for the questions it has read. Readers
of MMLongBench-Doc counterparts named Florida's governor in 2016 from the plan's date,
gave ProgramFC's 56.82 from memory of the paper and the units of a syllabus from the
chapters of the textbook it names, under every edit of the pages. A question that two
readers or more answered from memory or knowledge (the gold, at any confidence), under
any edit and any version, tests recall, not abstention: the blind check calls it
knowledge-recoverable (``blind.method`` says ``readings``), and it gets no evidence edit.

Measured before it was used: of the 56 readings of a fresh round, the questions the
earlier readings flagged held 20 of the 26 answered or doubtful readings and 2 of the 30
unanswerable ones.

A contested question is the other way round: readers settle, from the counterparts
themselves, on an answer that is not the gold (a list's items printed on pages no edit
touches, a question read two ways, a gold the document does not print). Its counterparts
cannot test abstention either: the blind check calls it ``contested`` and it gets no
evidence edit, when two readers or more did so and they are at least
:data:`CONTESTED_SHARE` of its readings. Measured the same way: the questions the readings
before a 40-item round contested held 11 of its 19 failed readings and 2 of its 21 valid
ones.

A remembered document reaches past the question read: readers who gave one table's value
from memory of an arXiv paper give its other tables' too. Once two readers or more gave
the gold of questions from memory of a document (``basis`` "memory", not general
knowledge, which is the question's), every question on it tests recall: the blind check
calls them knowledge-recoverable and they get no evidence edit
(:func:`recalled_documents`). Measured on readings of evidence edits of new questions
written on documents whose other questions had been read, with the documents flagged by
the readings made before: on two rounds read before the rule was set, 1 of 9 readings
valid on the documents two readers had remembered, 38 of 68 elsewhere; on two fresh
rounds read after, 0 of 6 against 36 of 74. One reader's recollection is not enough: the
documents one reader had remembered held 6 of 22 valid readings in the first two rounds,
but 10 of 22 in the fresh ones, as many as elsewhere (26 of 58).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .ledger import ANSWERABLE, DOUBTFUL, GOLD_AT_LOW_CONFIDENCE, Reading

#: What an answer rests on when no edit of the evidence could have taken it away.
RECALLED = ("memory", "knowledge")
#: Distinct readers who must agree before a question counts as recalled (or contested).
MIN_RECALLERS = 2
#: Distinct readers who must have given a gold from memory of a document before all its
#: questions count as recalled (one reader's recollection alone told nothing on fresh
#: rounds; see the module's text).
MIN_DOCUMENT_RECALLERS = 2
#: The least share of a question's readings that settle on another answer for it to be
#: contested: one reading in five keeps its counterparts below the default validity bar
#: (0.85) by itself.
CONTESTED_SHARE = 0.2


def reached_gold(reading: Reading) -> bool:
    """Did the reader give the gold (at any confidence)?"""
    if reading.verdict == ANSWERABLE:
        return True
    return reading.verdict == DOUBTFUL and GOLD_AT_LOW_CONFIDENCE in reading.note


def recalled(reading: Reading) -> bool:
    """The reader gave the gold from memory or knowledge, not from the item."""
    return reading.basis in RECALLED and reached_gold(reading)


def remembered(reading: Reading) -> bool:
    """The reader gave the gold from memory of this very document (not general
    knowledge), on a reading that says which document it was."""
    return reading.basis == "memory" and bool(reading.document) and reached_gold(reading)


def contested(reading: Reading) -> bool:
    """The reader settled, from the item itself, on an answer that is not the gold: a list
    with items missing, another reading of the question, a gold the document does not
    print ("301" where two tables give 87 - 31 = 56)."""
    return reading.basis == "shipped" and reading.verdict == DOUBTFUL and not reached_gold(reading)


@dataclass(frozen=True)
class SourceReadings:
    """A source question several readers answered alike (recalled, or contested)."""

    dataset: str
    source: str
    #: Its readings, and the distinct readers among them that answered alike.
    n: int
    readers: int
    #: The transforms under which they did.
    transforms: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "source": self.source,
            "n": self.n,
            "readers": self.readers,
            "transforms": list(self.transforms),
        }


def sources_where(
    readings: Iterable[Reading],
    alike: Callable[[Reading], bool],
    min_readers: int = MIN_RECALLERS,
) -> list[SourceReadings]:
    """The sources whose readings ``alike`` holds for, by ``min_readers`` distinct readers
    or more, most readers first."""
    grouped: dict[tuple[str, str], list[Reading]] = defaultdict(list)
    for reading in readings:
        grouped[(reading.dataset, reading.source)].append(reading)
    out = []
    for (dataset, source), group in grouped.items():
        hits = [r for r in group if alike(r)]
        readers = len({r.reader for r in hits})
        if readers >= min_readers:
            transforms = tuple(sorted({r.transform for r in hits}))
            out.append(SourceReadings(dataset, source, len(group), readers, transforms))
    return sorted(out, key=lambda s: (-s.readers, s.dataset, s.source))


def _by_source(found: Iterable[SourceReadings]) -> dict[str, int]:
    """Source id -> the most readers any of its datasets counts."""
    out: dict[str, int] = {}
    for source in found:
        out[source.source] = max(out.get(source.source, 0), source.readers)
    return dict(sorted(out.items()))


def _round(reading: Reading) -> str:
    """The reading round a reader belongs to (reader ids are ``<round>-rNN``)."""
    return reading.reader.rsplit("-", 1)[0]


def contested_sources(readings: Iterable[Reading]) -> dict[str, int]:
    """Source sample id -> how many distinct readers settled on another answer than the
    gold from its counterparts, for the contested sources (see the module's text).

    The share is taken over the readings of rounds whose kits asked what an answer rests
    on (older readings cannot be contested), each reading once (not its carried copies)."""
    readings = list(readings)
    asked = {_round(r) for r in readings if r.basis}
    made: dict[tuple[str, str], int] = defaultdict(int)
    hits: dict[tuple[str, str], int] = defaultdict(int)
    for reading in readings:
        if reading.carried_from is None and _round(reading) in asked:
            made[(reading.dataset, reading.source)] += 1
            hits[(reading.dataset, reading.source)] += contested(reading)
    return _by_source(
        source
        for source in sources_where(readings, contested)
        if hits[(source.dataset, source.source)]
        >= CONTESTED_SHARE * made[(source.dataset, source.source)]
    )


def recalled_sources(readings: Iterable[Reading]) -> dict[str, int]:
    """Source sample id -> how many distinct readers gave its gold from memory or
    knowledge, for the sources :data:`MIN_RECALLERS` readers or more recalled."""
    return _by_source(sources_where(readings, recalled))


def recalled_documents(readings: Iterable[Reading]) -> dict[str, int]:
    """Document file name -> how many distinct readers gave the gold of one of its
    questions from memory of it, for the documents :data:`MIN_DOCUMENT_RECALLERS` readers
    or more remembered (see the module's text)."""
    readers: dict[str, set[str]] = defaultdict(set)
    for reading in readings:
        if remembered(reading):
            readers[reading.document].add(reading.reader)
    return {
        document: len(names)
        for document, names in sorted(readers.items())
        if len(names) >= MIN_DOCUMENT_RECALLERS
    }
