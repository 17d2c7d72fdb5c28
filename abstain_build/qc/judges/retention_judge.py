"""``offline:retention``: how much of the evidence did the perturbation take away?
(:mod:`.offline` gives the measures and thresholds.)"""

from __future__ import annotations

from collections import Counter

from ...content.restorations import retention
from ...rewrites.variants import trivial_reason
from .base import ANSWERABLE, UNANSWERABLE, Judge, JudgeItem, Verdict, register_judge
from .evidence import Evidence
from .offline_checks import (
    CHECK,
    UNREADABLE,
    compared,
    confidence,
    failed_verdict,
    numbers_changed,
    target_of,
)

#: Share of the original's edge pixels still present from which the retention judge says
#: ANSWERABLE.
RETENTION = 0.5
#: Cosine of the changed sentences from which a rewrite still asks the original question.
REWRITE_COSINE = 0.90
#: Fewer original edge pixels than this in the measured region: nothing to retain.
MIN_EDGE_PIXELS = 50


# -- offline:retention ---------------------------------------------------------------------


@register_judge
class RetentionJudge(Judge):
    """How much of the original evidence signal (or question) survives?"""

    name = "offline:retention"
    kind = "reference"
    description = (
        "Reference check: share of the original's edge pixels still present in the perturbed"
        " (and restored) evidence; for rewrites, how close the rewrite stays to the question."
    )

    def judge(self, item: JudgeItem) -> Verdict:
        try:
            evidence = Evidence(item)
            if target_of(item, evidence) == "question":
                return self._rewrite(item)
            return self._edges(evidence)
        except UNREADABLE as error:
            return failed_verdict(self, error)

    def _edges(self, evidence: Evidence) -> Verdict:
        masks = [evidence.region_mask(i) for i in range(len(evidence))]
        if evidence.is_document and any(mask is not None for mask in masks):
            indices = [i for i, mask in enumerate(masks) if mask is not None]
            scope = "the regions the transform edited"
        else:
            indices, masks = list(range(len(evidence))), [None] * len(evidence)
            scope = "the whole evidence page(s)" if evidence.is_document else "the whole image(s)"
        original = kept = words = words_kept = 0
        best: Counter[str] = Counter()
        for index in indices:
            count, how = retention(
                evidence.originals[index],
                evidence.candidates(index),
                masks[index],
                evidence.word_boxes(index),
            )
            original += count.original
            kept += count.kept
            words += count.words
            words_kept += count.words_kept
            if how:
                best[how] += count.kept
        if original < MIN_EDGE_PIXELS:
            return self.verdict(
                UNANSWERABLE,
                "LOW",
                f"{CHECK}: the original has {original} edge pixels in {scope}: no signal to"
                " retain; the leak judge decides",
            )
        share = kept / original
        verdict = ANSWERABLE if share >= RETENTION else UNANSWERABLE
        how = best.most_common(1)[0][0] if best else "as perturbed"
        where = ", ".join(evidence.label(i) for i in indices)
        return self.verdict(
            verdict,
            confidence(share, RETENTION),
            f"{CHECK}: {share:.2f} of the original's {original} edge pixels in {scope}"
            f" ({where}) are still present ({how}; the glyphs of {words_kept} of {words}"
            f" words survive): {share:.2f} {'>=' if verdict == ANSWERABLE else '<'}"
            f" {RETENTION:.2f}",
            share,
        )

    def _rewrite(self, item: JudgeItem) -> Verdict:
        assert item.reference is not None
        original = item.reference.question
        removed, put_in = numbers_changed(original, item.question)
        reason = trivial_reason(original, item.question)
        if reason is not None and not (removed or put_in):
            return self.verdict(
                ANSWERABLE,
                "HIGH",
                f"{CHECK}: the question is a trivial variant of the original ({reason})",
                1.0,
            )
        from ...text.embeddings import similarities

        before, after = compared(original, item.question)
        cosine = float(similarities([(before, after)])[0]) if before or after else 1.0
        if (reason is not None or cosine >= REWRITE_COSINE) and (removed or put_in):
            change = f"{' '.join(removed) or '-'} -> {' '.join(put_in) or '-'}"
            return self.verdict(
                UNANSWERABLE,
                "MEDIUM",
                f"{CHECK}: the rewrite keeps the wording (MiniLM cosine {cosine:.2f} of"
                f" the changed sentences) but asks about other numbers ({change}), which"
                " an embedding does not tell apart; the leak judge reads the evidence"
                " for them",
                cosine,
            )
        verdict = ANSWERABLE if cosine >= REWRITE_COSINE else UNANSWERABLE
        relation = "asks what the original asked" if verdict == ANSWERABLE else "asks another thing"
        return self.verdict(
            verdict,
            confidence(cosine, REWRITE_COSINE),
            f"{CHECK}: question rewrite; the changed sentences have MiniLM cosine"
            f" {cosine:.2f} to the original's ({'>=' if verdict == ANSWERABLE else '<'}"
            f" {REWRITE_COSINE:.2f}: it {relation})",
            cosine,
        )
