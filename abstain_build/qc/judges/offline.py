"""The two offline reference judges: ``offline:leak`` and ``offline:retention``.

They are reference checks, not test-takers: each compares the perturbed item with its
original (and gold answer) and says what it measured. Every verdict has
``kind="reference"``, a ``score`` (the measurement, None when there was nothing to
measure) and a justification that starts with "reference check". An item that cannot be
read (no original, an undecodable image or PDF, an OCR failure) gets ERROR.

``offline:leak``: is the answer still readable?
    *Evidence transforms* (image, document). The perturbed evidence is read through every
    channel a model could use, cheapest first: the PDF text layer, OCR of the pixels, and
    OCR after an attempt to undo the perturbation (:mod:`.pixels`: a contrast stretch when
    the record says darken/overlay or the gray range is under 128 levels; an unsharp mask
    when it says blur).

    1. The gold answer (the option text for a letter answer; each item of a list; not a
       bare digit, not text under three characters) printed on the original evidence
       (:func:`abstain_build.qc.leak.find_in_text`: every form of the gold, see
       :mod:`abstain_build.evidence.forms`): ANSWERABLE (score 1) if any channel still
       shows it on the perturbed evidence (decisive: the item is rejected, see
       :func:`abstain_build.qc.consensus.consensus`, unless the transform keeps the value
       on purpose, as a column merge does), else
       UNANSWERABLE (score 0). Confidence: found by the text layer or plain OCR HIGH, only
       after undoing the perturbation MEDIUM; found inside text the transform wrote (a
       merged cell) LOW, beside text it wrote (an inserted row, a changed value) one
       step lower. Not found: HIGH when the original's text layer showed it, else MEDIUM.
    2. Unless the gold answer is *one of several candidates the original prints* (another
       option of the question is printed too; or a name of up to three words with other
       capitalised names of its shape on the page): reading "West" off a legend beside
       "North" and "South" says nothing about which region grew most. Then, as when the
       answer is not printed at all (computed, counted, paraphrased), the judge counts the
       original's distinctive evidence words *in the regions the transform edited* (all
       of them when the record names none): numbers of two characters or more, words of
       three letters or more that are not stopwords, OCR words of confidence 50 or more.
       An occurrence survives when the perturbed evidence shows the word more often than
       the original shows it outside the edited regions. Score: the surviving share, best
       channel family (text layer, OCR); ANSWERABLE from :data:`LEAK_SURVIVAL`.
    3. Fewer than :data:`MIN_EVIDENCE_WORDS` such words (a radiograph, a score, a circuit
       with three labels): UNANSWERABLE, LOW, "nothing to read; the retention judge
       decides".

    *Question rewrites* (transform target "question"; the evidence is the original's, so
    reading it says nothing about the rewrite):

    - a rewrite that changes no number and at most two words (:func:`same_question`) is
      the original question: read like an evidence transform (so the identity is
      ANSWERABLE);
    - a changed sentence that states the gold answer and does not deny it ("Note: the
      document reports 11,642.4." but not "... says it is not 11,642.4."): ANSWERABLE,
      HIGH (MEDIUM when only some items of a list answer are stated);
    - new years asked about (temporal drift): ANSWERABLE (MEDIUM) when the evidence prints
      every one of them (the new question may have an answer there), else UNANSWERABLE
      (MEDIUM);
    - otherwise UNANSWERABLE, LOW, "nothing to read; the retention judge decides".

``offline:retention``: how much of the original evidence signal survives?
    *Evidence transforms*. The original's edge pixels (a step of 40 gray levels or more to
    a neighbour) in the measured region, and the share still there in the best of the
    perturbed image and its restorations, placed on the original's canvas (a crop goes
    back where it was cut from; what is missing counts as lost). Text is judged word by
    word: inside a word box of the original (text layer, or OCR words of confidence 50 or
    more) the edges count only if the word's pixels still correlate with the original's
    at 0.8 or more in absolute value (:data:`.pixels.GLYPH_NCC`): blind to a uniform
    darkening, veil or inversion, not to another digit printed in place of the old one,
    whose strokes sit where the old ones did (edge positions alone kept 0.45-0.97, median
    0.72, of the fixtures' corrupted numbers). Elsewhere an edge counts when the perturbed
    image has one within a pixel. Edges the perturbation added (a mask's border) count
    for nothing.
    Region: the whole image for images (the image is the evidence); for document pages
    the regions the transform's record names (a hidden page whole, a cropped page's
    removed half; the whole pages when the record names none): a page holds much more
    than the evidence, and whole-page scores of token edits stay high (fixtures: numeric
    corruption 0.80-1.00, median 0.90; column merges 0.82-0.97). ANSWERABLE from
    :data:`RETENTION`.

    *Question rewrites*. A trivial variant of the original
    (:func:`abstain_build.rewrites.variants.trivial_reason`) that changes no number:
    ANSWERABLE, HIGH, score 1. Otherwise the MiniLM cosine of the changed sentences, as
    the semantic gate measures it (:func:`compared`); ANSWERABLE from
    :data:`REWRITE_COSINE`, the gate's own threshold (measured on 24,027 MMMU-Pro rewrite
    pairs, :mod:`abstain_build.rewrites.semantic`): a rewrite that passed the gate is
    never rejected here, the check is for rewrites that did not come through it. A
    rewrite that keeps the wording (trivial, or cosine at the threshold or above) but
    changes the numbers it asks about (FY2020 -> FY2015) is UNANSWERABLE, MEDIUM: an
    embedding does not tell years apart; the leak judge checks whether the evidence
    prints the new ones.

Confidence of a thresholded score ``s`` against threshold ``t``: the margin as a share of
the room on its side, ``(s - t) / (1 - t)`` above and ``(t - s) / t`` below; HIGH from 0.5,
MEDIUM from 0.2, LOW under 0.2.

Thresholds, from ``bench/judges_offline.py`` (seed 7; every transform of each sample's axis
on the 8 fixture MMMU items, the 12 answerable fixture MMLongBench-Doc questions, the 21
shared MMMU items and 89 answerable shared MMLongBench-Doc questions: 1,519 items):

- :data:`LEAK_SURVIVAL` = 0.5. The surviving share (813 items judged by evidence words)
  is 1.00 for every identity, 0.71-1.00 for darkening, 0.88-1.00 for column merges and
  distractor rows (they keep the values on purpose), and 0.42 at most for everything that
  removes or corrupts (crops, masks, blurs, hidden pages, erasures, corruptions; medians
  0.00-0.20): any threshold from 0.43 to 0.70 gives the same verdicts.
- :data:`RETENTION` = 0.5: at least half of the original's signal. Identity 1.00,
  darkening 0.94-1.00 (undone by the stretch); blurs, hidden pages, erasures and dense
  masks 0.07 at most; random masks 0.17, corruptions 0.44, distractor rows 0.33, element
  removal 0.48, column merges 0.55 at most (median 0.33). The partial removals spread
  around the middle: crops 0.31-0.83 (median 0.49), occlusion bars 0.32-0.72 (0.49), veil
  plus label masks 0.01-0.99 (0.43); ANSWERABLE for 79%, 76%, 55% of them at 0.4, 48%,
  45%, 41% at 0.5 and 14%, 10%, 41% at 0.6.
- :data:`REWRITE_COSINE` = 0.90 (the gate's). The 267 offline rewrites that change no
  number score 0.10 (p5), 0.37 (median), 0.86 (p95), 0.89 at most; the 42 temporal drifts
  0.79-1.00.

Against the method's reference (about 15% of items rejected: 12% MMMU, 17% MMLBD, evidence
corruption highest): both judges say ANSWERABLE (the consensus rejects) for 5-7% of the
image items (the darkenings) and 0-0.1% of the document items; at least one does (reject
or review) for 16-21% of image items and 13-20% of document items, every column merge and
distractor row among them. ``bench/judges_offline.py`` prints every rate.
"""

from __future__ import annotations

from .leak_judge import LEAK_SURVIVAL, MIN_EVIDENCE_WORDS, LeakJudge
from .retention_judge import MIN_EDGE_PIXELS, RETENTION, RetentionJudge

__all__ = [
    "LEAK_SURVIVAL",
    "MIN_EDGE_PIXELS",
    "MIN_EVIDENCE_WORDS",
    "RETENTION",
    "LeakJudge",
    "RetentionJudge",
]
