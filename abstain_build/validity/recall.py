"""Questions blind readers answer from recall: the readings' own knowledge check.

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
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from .ledger import ANSWERABLE, DOUBTFUL, GOLD_AT_LOW_CONFIDENCE, Reading

#: What an answer rests on when no edit of the evidence could have taken it away.
RECALLED = ("memory", "knowledge")
#: Distinct readers who must have recalled a question's gold before it counts as recall.
MIN_RECALLERS = 2


def reached_gold(reading: Reading) -> bool:
    """Did the reader give the gold (at any confidence)?"""
    if reading.verdict == ANSWERABLE:
        return True
    return reading.verdict == DOUBTFUL and GOLD_AT_LOW_CONFIDENCE in reading.note


def recalled_sources(
    readings: Iterable[Reading], min_readers: int = MIN_RECALLERS
) -> dict[str, int]:
    """Source sample id -> how many distinct readers gave its gold from memory or
    knowledge, for the sources with ``min_readers`` or more."""
    readers: dict[str, set[str]] = defaultdict(set)
    for reading in readings:
        if reading.basis in RECALLED and reached_gold(reading):
            readers[reading.source].add(reading.reader)
    return {s: len(r) for s, r in sorted(readers.items()) if len(r) >= min_readers}
