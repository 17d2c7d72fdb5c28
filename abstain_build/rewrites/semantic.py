"""The semantic gate: a rewrite must mean something else than its original.

Two tests, cheap first.

1. Not a trivial variant (:func:`.variants.trivial_reason`): the same letters up to case,
   punctuation and spacing; the same words reordered; or at most two words edited. These
   fail without the model (``score`` None).
2. Cosine similarity of the all-MiniLM-L6-v2 embeddings (normalized) of the changed
   sentences (:func:`.changed.changed_sentences`) below ``MAX_COSINE``. ``scope="whole"``
   compares the whole texts instead; it is kept for comparison only.

Why 0.90, from ``bench/gate_thresholds.py`` on the 1,730 MMMU-Pro questions (24,027
pairs; cosine of the changed sentences, percentiles p5 / p50 / p95):

* trivial variants (case, punctuation, spacing, synonym, dropped word, typo, clause swap;
  10,778 pairs): the word rule catches all of them, whatever their cosine (a typo can
  fall to 0.45, so no threshold alone could). A light paraphrase (clause swap + synonym +
  dropped word) escapes the word rule: 0.844 / 0.968 / 0.993, and 0.90 rejects 89.9% of
  them; 99.3% of all 11,561 trivial variants fail the gate.
* genuine rewrites (six recipes, 9,006 pairs): 0.042 / 0.697 / 0.985; 0.90 keeps 74.2%
  of those past the word rule: nonexistent reference 93%, contradictory note 100%,
  unanswerable ask 100%, false premise 74%, fictional entity 45% (a one-word entity swap
  is a two-word edit, so the word rule takes 35%), another image ("the image after
  <image 1>") 3.5%: a three-word retargeting moves the embedding no more than a synonym.
* unrelated question pairs: 0.105 median, 0.521 at p99: all pass.

Going down to 0.85 rejects 94.8% of the light paraphrases but keeps 66.5% of the genuine
rewrites; 0.95 keeps 82.9% but lets a third of the paraphrases through. Whole texts do
worse at every threshold (45.9% of genuine rewrites kept at 0.90; 14% for questions over
500 characters, whose median whole-text cosine is 0.989).

What no threshold can do: an appended neutral instruction ("Choose the best answer.")
scores like a contradictory note (0.136 against 0.201 median) and passes; telling the two
apart needs a judge of answerability, not a similarity.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from ..text.embeddings import DEFAULT_BATCH_SIZE, similarities
from .changed import changed_sentences
from .result import GateResult
from .variants import MAX_TRIVIAL_EDIT_WORDS, trivial_reason

MAX_COSINE = 0.90
Scope = Literal["changed", "whole"]


def _judge(cosine: float, threshold: float, scope: Scope) -> GateResult:
    what = "changed sentences" if scope == "changed" else "whole texts"
    if cosine >= threshold:
        detail = f"{what} too similar: cosine {cosine:.3f} >= {threshold:.2f}"
        return GateResult("semantic", False, cosine, detail)
    return GateResult("semantic", True, cosine, f"{what}: cosine {cosine:.3f} < {threshold:.2f}")


def compared_texts(
    original: str, rewrite: str, appended: str | None = None, scope: Scope = "changed"
) -> tuple[str, str]:
    """The two texts whose embeddings the gate compares."""
    if scope == "whole":
        return original, rewrite
    return changed_sentences(original, rewrite, appended)


def check_semantic_many(
    pairs: Sequence[tuple[str, str] | tuple[str, str, str | None]],
    threshold: float = MAX_COSINE,
    *,
    max_edit_words: int = MAX_TRIVIAL_EDIT_WORDS,
    scope: Scope = "changed",
    batch_size: int = DEFAULT_BATCH_SIZE,
) -> list[GateResult]:
    """The semantic gate for many ``(original, rewrite[, appended])``, encoded in batches.

    Trivial variants are not encoded; when every pair is trivial the model is never loaded.
    """
    results: list[GateResult | None] = []
    pending: list[int] = []
    for at, (original, rewrite, *_) in enumerate(pairs):
        reason = trivial_reason(original, rewrite, max_edit_words)
        if reason is None:
            results.append(None)
            pending.append(at)
        else:
            results.append(GateResult("semantic", False, None, f"trivial variant: {reason}"))
    if pending:
        compared = [compared_texts(*pairs[at], scope=scope) for at in pending]
        cosines = similarities(compared, batch_size=batch_size)
        for at, cosine in zip(pending, cosines, strict=True):
            results[at] = _judge(float(cosine), threshold, scope)
    return [result for result in results if result is not None]


def check_semantic(
    original: str,
    rewrite: str,
    appended: str | None = None,
    threshold: float = MAX_COSINE,
    *,
    max_edit_words: int = MAX_TRIVIAL_EDIT_WORDS,
    scope: Scope = "changed",
) -> GateResult:
    """The semantic gate for one rewrite (see the module docstring)."""
    results = check_semantic_many(
        [(original, rewrite, appended)], threshold, max_edit_words=max_edit_words, scope=scope
    )
    return results[0]
