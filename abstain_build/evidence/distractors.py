"""Distractor pages: the pages of a document most like the question that do not answer it.

An evidence set (``--evidence-sets``) ships a question with some pages of its document
only: its evidence pages, those pages among distractors, or the distractors alone (then
the item is unanswerable). A distractor must look relevant, or the set measures nothing:
pages are ranked by the cosine of the question's MiniLM embedding with the page's text
(every channel the evidence map read: text layer, OCR, figure OCR). It must not answer
either: the evidence map read every page of the document for the gold, and a page is
never a distractor when it

* is an evidence page, or prints the number of one (a reference to it),
* prints the gold in any form, stated or not (any mention the map found),
* prints an operand row the gold is computed from, or a name the question picks among,

so what is left states nothing of the answer in any channel the map reads. The shipped
PDF of an evidence set is made of these pages only, without outline, annotations,
structure tree or metadata (:func:`..media.pdf.pages_only`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .map import EvidenceMap

#: Distractors per item, by default (MRAG-Suite and VLM-DeflectionBench use a handful).
DEFAULT_COUNT = 4


@dataclass(frozen=True)
class Distractor:
    """A page chosen as a distractor: its number, its rank among the eligible pages (1 is
    the most similar) and its cosine with the question."""

    page: int
    rank: int
    score: float


def excluded_pages(emap: EvidenceMap) -> dict[int, str]:
    """Pages that may not be distractors, each with why."""
    why: dict[int, str] = {}
    for page in emap.evidence_pages():
        why.setdefault(page, "evidence page (or prints an evidence page's number)")
    for mention in emap.mentions:
        why.setdefault(mention.page, f"prints the answer ({mention.form})")
    for mention in emap.operands:
        why.setdefault(mention.page, "prints an operand row of the answer")
    for mention in emap.candidates():
        why.setdefault(mention.page, "prints a name the question picks among")
    return why


def page_text(emap: EvidenceMap, page: int) -> str:
    """Everything the map read on ``page``, in reading order."""
    readings = emap.readings.get(page)
    return " ".join(r.text for r in readings.readings) if readings else ""


def rank_distractors(
    emap: EvidenceMap, question: str, count: int, excluded: Mapping[int, str] | None = None
) -> list[Distractor]:
    """The ``count`` eligible pages most similar to ``question`` (ties: the earlier page);
    ``excluded``: :func:`excluded_pages`, when the caller has it already."""
    from ..text.embeddings import embed

    excluded = excluded_pages(emap) if excluded is None else excluded
    pages = [p for p in sorted(emap.readings) if p not in excluded]
    if not pages or count <= 0:
        return []
    texts = [page_text(emap, p) for p in pages]
    vectors = embed([question, *(t or " " for t in texts)])
    scores = vectors[1:] @ vectors[0]
    # Rounded before ranking: the last bits of a BLAS product differ between machines.
    rounded = [round(float(s), 4) if t.strip() else 0.0 for s, t in zip(scores, texts, strict=True)]
    order = sorted(range(len(pages)), key=lambda i: (-rounded[i], pages[i]))
    return [
        Distractor(page=pages[i], rank=rank, score=rounded[i])
        for rank, i in enumerate(order[:count], start=1)
    ]


def shuffled(pages: list[int], rng: np.random.Generator) -> list[int]:
    """``pages`` in the order ``rng`` draws (a seeded generator: same seed, same order)."""
    return [pages[i] for i in rng.permutation(len(pages))]
