"""Is a rewrite only a trivial variant of its original? Word-level comparisons, no model.

A rewrite that changes case, punctuation or spacing, reorders the same words, or edits at
most two words (a synonym swap, a typo, a dropped or doubled word) cannot have turned an
answerable question into an unanswerable one, however its embedding moves; the semantic
gate rejects it before asking the model.

Words are ``\\w+`` runs of the NFKC-normalized, case-folded text, so ``<image 1>``
contributes the words ``image`` and ``1``.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from difflib import SequenceMatcher

_WORD = re.compile(r"\w+")
#: A rewrite that changes at most this many words (inserted, deleted or replaced, in
#: reading order) is a trivial variant.
MAX_TRIVIAL_EDIT_WORDS = 2


def _letters(text: str) -> str:
    """Letters and digits only: "don't" and "dont", "3.5" and "35" are the same."""
    return "".join(words(text)).replace("_", "")


def words(text: str) -> list[str]:
    """The case-folded words of ``text``, punctuation and spacing dropped."""
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


def edit_words(original: str, rewrite: str) -> int:
    """How many words differ, in reading order: inserted + deleted + replaced.

    A replaced run counts as the longer of its two sides, so one synonym swap is 1 and
    inserting a three-word phrase is 3.
    """
    a, b = words(original), words(rewrite)
    matcher = SequenceMatcher(a=a, b=b, autojunk=False)
    changed = 0
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            changed += max(i2 - i1, j2 - j1)
    return changed


def jaccard(original: str, rewrite: str) -> float:
    """Jaccard similarity of the two texts' word sets (1.0 for two empty texts)."""
    a, b = set(words(original)), set(words(rewrite))
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def trivial_reason(
    original: str, rewrite: str, max_edit_words: int = MAX_TRIVIAL_EDIT_WORDS
) -> str | None:
    """Why ``rewrite`` is a trivial variant of ``original``, or None when it is not.

    Checked in this order: identical after stripping; the same letters and digits in
    the same order (case, punctuation or whitespace only); the same words in another
    order; at most ``max_edit_words`` words changed.
    """
    if original.strip() == rewrite.strip():
        return "identical to the original"
    a, b = words(original), words(rewrite)
    if a == b or _letters(original) == _letters(rewrite):
        return "case, punctuation or whitespace changes only"
    if Counter(a) == Counter(b):
        return "the same words in another order"
    changed = edit_words(original, rewrite)
    if changed <= max_edit_words:
        return f"only {changed} word(s) changed (at most {max_edit_words} is trivial)"
    return None
