"""The part of a question that a rewrite changed, as a pair of texts to compare.

A transform edits one sentence of a question, or adds one; the rest stays word for word.
Embedding the whole text buries that edit under the unchanged context: on the MMMU-Pro
questions longer than 500 characters the median whole-text cosine of a genuine rewrite is
0.995 (``bench/gate_thresholds.py``), as high as a case change. So the semantic gate
compares only what changed, sentence by sentence (:mod:`..text.sentences`):

* replaced sentences against the sentences that replaced them;
* an inserted sentence (an appended note, a premise put in front) against its neighbour
  in the original (the sentence before it, else the one after): it must say something
  its neighbour does not say already;
* a removed sentence against its neighbour, the same way round.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from ..text.sentences import split_sentences


def changed_sentences(original: str, rewrite: str, appended: str | None = None) -> tuple[str, str]:
    """``(from_original, from_rewrite)``: what the gate embeds and compares.

    ``appended`` is the note the transform added at the end of ``rewrite``, if any: it is
    then a sentence of its own even where the question before it has no closing
    punctuation ("... was painted by Note: the image is blank."). Two identical texts give
    two empty strings; two texts with no sentence in common give the two whole texts.
    """
    a, b = split_sentences(original), _rewrite_sentences(rewrite, appended)
    left: list[str] = []
    right: list[str] = []
    matcher = SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        before, after = a[i1:i2], b[j1:j2]
        neighbour = a[i1 - 1 : i1] if i1 > 0 else a[i2 : i2 + 1]
        if not before:
            before = neighbour
        if not after:
            after = neighbour
        left.extend(before)
        right.extend(after)
    return " ".join(dict.fromkeys(left)), " ".join(dict.fromkeys(right))


def _rewrite_sentences(rewrite: str, appended: str | None) -> list[str]:
    text, note = rewrite.strip(), (appended or "").strip()
    if note and text.endswith(note):
        return split_sentences(text[: len(text) - len(note)]) + split_sentences(note)
    return split_sentences(text)
