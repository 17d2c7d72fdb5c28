"""Distractor images: other samples' images, most like the question, that do not answer it.

An image question (MMMU) asked with its images among distractors, or with distractors
alone, needs images that look relevant and say nothing of its answer. They are the first
images of other samples:

* of the same subject first (MMMU's subject: the record's ``subject`` field, or the
  ``{split}_{Subject}_{n}`` id of the Hugging Face release), ranked by the cosine of the
  two questions' MiniLM embeddings (question and options, placeholders left out); when a
  subject has too few, the rest of the dataset fills in, by the same ranking, each marked
  ``same_subject: false``;
* never an image of the sample itself in any encoding: an image whose bytes equal one of
  the sample's is not a candidate (sibling questions of one figure share it), and, in the
  worker, one whose difference hash is within :data:`NEAR_DUPLICATE_BITS` of one of the
  sample's images (the same figure re-encoded or resized) is dropped;
* never one that prints the gold: the worker reads each candidate with OCR and drops one
  where the gold, or a word of the gold option that the other options lack, is printed
  (:func:`..evidence.image_targets.find_targets`, the words the re-read gate looks for).

The driver ranks (it alone sees every sample); workers check, in rank order, until they
have enough (:data:`CANDIDATES_PER_DISTRACTOR` candidates per distractor wanted).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..loaders.common import PLACEHOLDER
from ..model import Sample

#: Candidates ranked per distractor wanted: the worker's checks drop some.
CANDIDATES_PER_DISTRACTOR = 3
#: Difference hashes this close (of 64 bits) are the same picture.
NEAR_DUPLICATE_BITS = 6
#: Rows scored at once when ranking (bounds the similarity block to rows x samples).
CHUNK = 512

_HF_ID = re.compile(r"^(?:dev|validation|test)_(.+)_\d+$")


def subject_of(sample: Sample) -> str | None:
    """The sample's subject: the record's ``subject``, or its Hugging Face MMMU id's."""
    subject = sample.metadata.get("subject")
    if isinstance(subject, str) and subject.strip():
        return subject.strip()
    for name in (sample.source.source_id, sample.id):
        found = _HF_ID.match(name or "")
        if found:
            return found.group(1)
    return None


def question_text(sample: Sample) -> str:
    """What is embedded: the question and its options, without image placeholders."""
    parts = [sample.question, *sample.options]
    return " ".join(PLACEHOLDER.sub(" ", part) for part in parts).strip()


@dataclass(frozen=True)
class Entry:
    """What ranking needs of one image sample."""

    sample_id: str
    subject: str | None
    text: str
    digests: frozenset[str]  # sha256 of each of its images' bytes
    first: str  # the digest of its first image: what it lends as a distractor


@dataclass(frozen=True)
class Candidate:
    """Another sample's first image, a candidate distractor: its rank (1: most similar),
    cosine with the question, and whether the two share a subject."""

    sample_id: str
    digest: str
    rank: int
    score: float
    same_subject: bool

    def to_json(self) -> dict[str, object]:
        return {
            "sample": self.sample_id,
            "digest": self.digest,
            "rank": self.rank,
            "score": self.score,
            "same_subject": self.same_subject,
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Candidate:
        return cls(
            str(data["sample"]),
            str(data["digest"]),
            int(data["rank"]),  # type: ignore[arg-type]
            float(data["score"]),  # type: ignore[arg-type]
            bool(data["same_subject"]),
        )


#: Questions embedded between two progress reports.
EMBED_STEP = 256


def rank_candidates(
    entries: Sequence[Entry], wanted: int, progress: Callable[[int], None] | None = None
) -> dict[str, list[Candidate]]:
    """Up to ``wanted`` candidates per sample, best first (ties: the earlier sample);
    ``progress`` is told how many questions are embedded (the slow part: MMMU questions
    with their options run 20-50 ms each on one core)."""
    from ..text.embeddings import embed

    if wanted <= 0 or len(entries) < 2:
        return {}
    texts = [e.text or " " for e in entries]
    parts = []
    for start in range(0, len(texts), EMBED_STEP):
        parts.append(embed(texts[start : start + EMBED_STEP]))
        if progress is not None:
            progress(min(len(texts), start + EMBED_STEP))
    vectors = np.concatenate(parts)
    subjects = np.array([e.subject or "" for e in entries], dtype=object)
    ranked: dict[str, list[Candidate]] = {}
    for start in range(0, len(entries), CHUNK):
        block = vectors[start : start + CHUNK] @ vectors.T
        # Rounded before ranking: the last bits of a BLAS product differ between machines.
        block = np.round(block.astype(np.float64), 4)
        for offset, scores in enumerate(block):
            i = start + offset
            ranked[entries[i].sample_id] = _best(entries, i, scores, subjects, wanted)
    return ranked


def _best(
    entries: Sequence[Entry], i: int, scores: np.ndarray, subjects: np.ndarray, wanted: int
) -> list[Candidate]:
    me = entries[i]
    same = subjects == (me.subject or "") if me.subject else np.zeros(len(entries), bool)
    # Same subject first, then by score, then source order.
    order = np.lexsort((np.arange(len(entries)), -scores, ~same))
    chosen: list[Candidate] = []
    lent: set[str] = set()
    for j in order:
        other = entries[j]
        if j == i or other.first in me.digests or other.first in lent:
            continue
        if other.text == me.text:  # the same question again: the same figure, likely
            continue
        lent.add(other.first)
        chosen.append(
            Candidate(
                other.sample_id, other.first, len(chosen) + 1, float(scores[j]), bool(same[j])
            )
        )
        if len(chosen) == wanted:
            break
    return chosen


def difference_hash(image: np.ndarray) -> int:
    """64-bit difference hash: a 9x8 grey thumbnail, one bit per horizontal gradient."""
    from PIL import Image

    grey = Image.fromarray(np.ascontiguousarray(image)).convert("L").resize((9, 8), Image.BOX)
    pixels = np.asarray(grey, dtype=np.int16)
    bits = (pixels[:, 1:] > pixels[:, :-1]).flatten()
    return int("".join("1" if b else "0" for b in bits), 2)


def near_duplicate(a: int, b: int) -> bool:
    return bin(a ^ b).count("1") <= NEAR_DUPLICATE_BITS


def prints_gold(image: np.ndarray, sample: Sample) -> str | None:
    """The gold's words ``image`` prints (OCR), or None: such an image is no distractor.

    Raises :class:`~abstain_build.textregions.ocr.OcrError` when OCR is unavailable.
    """
    from ..textregions.detect import image_words
    from .image_targets import GOLD, find_targets

    hits = [t.text for t in find_targets(image_words(image), sample) if t.why == GOLD]
    return ", ".join(f"'{h}'" for h in hits[:3]) if hits else None
