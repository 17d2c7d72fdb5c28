"""Which readings a default build could not have made: evidence edits of questions the
offline blind check stops.

With the default blind policy (``rewrite``) a question one of the offline cues fires on
(:mod:`..blind.cues`: a clinical vignette, a definition, a textbook problem number, ...)
gets question rewrites only, never an edit of its images or pages. Rounds built with
``--blind-policy record`` still read such edits, and they are nearly all answered from
the question (round k41: 35 of 36 on the shared MMMU; the six the cues let through were
all unanswerable). Those readings measure the blind check, not the transform: the
validity a build's policy judges by leaves them out and the table counts them apart. The
cues look at the question alone, so they stop the same questions on a new dataset; the
readings-based flags (:mod:`.recall`) do not, and stay counted.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

from ..model import DocumentRef, Sample, SourceInfo
from .ledger import Reading


def question_cues(
    question: str, options: Sequence[str], gold: str, *, document: str = ""
) -> tuple[str, ...]:
    """The names of the offline blind cues that fire on a question (its options and gold;
    ``document``: its file name, for a document question)."""
    from ..blind.cues import blind_cues

    sample = Sample(
        id="reading",
        source=SourceInfo("ledger", "ledger", "", 0),
        question=question,
        answer=gold,
        options=tuple(str(option) for option in options),
        document=DocumentRef(Path(document), document) if document else None,
    )
    return tuple(found.split(":", 1)[0] for found in blind_cues(sample))


def set_apart(reading: Reading, evidence_edits: Collection[str]) -> bool:
    """Would a default build have given this reading's question no such edit?"""
    return bool(reading.cues) and reading.transform in evidence_edits
