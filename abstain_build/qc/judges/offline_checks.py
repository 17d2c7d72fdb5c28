"""What both offline reference judges (:mod:`.offline`) measure with: the gold's searchable
forms, what a question rewrite changed, the evidence words worth counting."""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher

import numpy as np

from ...errors import InputError
from ...rewrites.caption import alternative_names
from ...rewrites.changed import changed_sentences
from ...rewrites.variants import trivial_reason
from ...rewrites.variants import words as question_words
from ...textregions.words import Word
from ..leak import answer_numbers, find_in_text
from .base import ERROR, Judge, JudgeItem, Verdict
from .evidence import Evidence

#: How every verdict of the offline judges begins.
CHECK = "reference check"
_STOPWORDS = frozenset(
    """the and for are but not you all any can had her was one our out has him his how its
    may new now old see two way who did get let put say she too use from have into more
    most much must only over such than that them then they this were what when where which
    while will with would your also been both each here just like many same some very
    about after again being could does doing down during every other their there these
    those under until upon whom why""".split()  # noqa: SIM905
)
_TRIM = ".,;:!?()[]{}\"'“”‘’*|"

#: What an unreadable item raises (a broken image or PDF, a page out of range, an OCR
#: engine that fails): the verdict is ERROR, never a crash of the run.
UNREADABLE = (InputError, ValueError, IndexError, RuntimeError)


def confidence(score: float, threshold: float) -> str:
    """LOW / MEDIUM / HIGH from the margin as a share of the room on the score's side."""
    if score >= threshold:
        room = 1.0 - threshold
        margin = (score - threshold) / room if room > 0 else 1.0
    else:
        margin = (threshold - score) / threshold if threshold > 0 else 1.0
    return "HIGH" if margin >= 0.5 else "MEDIUM" if margin >= 0.2 else "LOW"


def target_of(item: JudgeItem, evidence: Evidence) -> str:
    """ "question" for a rewrite (evidence untouched), else "evidence"."""
    target = (item.transform or {}).get("target")
    if target:
        return "question" if target == "question" else "evidence"
    if evidence.evidence_unchanged and item.question != evidence.reference.question:
        return "question"
    return "evidence"


def searchable(items: Sequence[str]) -> list[str]:
    """Answer items worth looking for: not a bare digit, not text under three characters."""
    out = []
    for item in items:
        text = item.strip()
        if re.fullmatch(r"[-+]?\d", text):
            continue
        if re.search(r"\d", text) or len(text) >= 3:
            out.append(text)
    return out


def numbers_changed(original: str, rewrite: str) -> tuple[list[str], list[str]]:
    """Digit-bearing words (years, fiscal years, quarters, values) the rewrite took out and
    put in, in reading order."""
    a, b = question_words(original), question_words(rewrite)
    removed: list[str] = []
    added: list[str] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag != "equal":
            removed += [w for w in a[i1:i2] if any(c.isdigit() for c in w)]
            added += [w for w in b[j1:j2] if any(c.isdigit() for c in w)]
    return removed, added


def compared(original: str, rewrite: str) -> tuple[str, str]:
    """The changed sentences of a rewrite, as the semantic gate compares them.

    A rewrite that is the original plus a note is split there, so the note stands alone
    even after an unterminated question (or one ending "... in FY2015.", which the
    sentence splitter reads as a number's full stop).
    """
    base = original.rstrip()
    note = rewrite[len(base) :].strip() if rewrite.startswith(base) else ""
    return changed_sentences(original, rewrite, note or None)


def same_question(original: str, rewrite: str) -> str | None:
    """Why ``rewrite`` asks what ``original`` asks (a trivial variant that changes no
    number), or None."""
    reason = trivial_reason(original, rewrite)
    if reason is None or any(numbers_changed(original, rewrite)):
        return None
    return reason


_YEAR = re.compile(r"(?:fy)?((?:19|20)\d{2}|\d{2})$")


def years_of(tokens: Sequence[str]) -> set[int]:
    """Years named by question words: 2015, fy2015, fy15."""
    years = set()
    for token in tokens:
        match = _YEAR.fullmatch(token)
        if match is None or (len(match.group(1)) == 2 and not token.startswith("fy")):
            continue
        value = int(match.group(1))
        years.add(value if value > 99 else 2000 + value)
    return years


def prints_year(text: str, year: int) -> bool:
    """Whether ``text`` prints ``year`` (2015, FY2015, FY15, FY '15)."""
    short = f"{year % 100:02d}"
    return bool(
        re.search(rf"(?<![\d.,]){year}(?!\d)", text)
        or re.search(rf"\bFY\s?'?{short}\b", text, re.IGNORECASE)
    )


def is_selection(item: JudgeItem, items: Sequence[str], texts: Sequence[str]) -> bool:
    """Is the gold answer one of several candidates the evidence prints (an option among
    printed options, a name among names of its shape)? Then seeing it printed says
    nothing: the question is which one, and the evidence words decide."""
    joined = " ".join(texts)
    if item.options:
        gold = set(items)
        others = searchable([o for o in item.options if o.strip() not in gold])
        return any(find_in_text([other], joined) for other in others)
    names = [i for i in items if not answer_numbers(i, None) and len(i.split()) <= 3]
    return (
        bool(names)
        and len(names) == len(items)
        and all(alternative_names(name, texts) for name in names)
    )


def evidence_token(word: Word, min_conf: float = 0.0) -> str | None:
    """The word as evidence (case-folded, outer punctuation trimmed), or None if too common."""
    if word.conf < min_conf:
        return None
    text = word.text.strip(_TRIM).casefold()
    if any(ch.isdigit() for ch in text):
        return text if len(text) >= 2 else None
    if len(text) >= 3 and text.isalpha() and text not in _STOPWORDS:
        return text
    return None


def inside_mask(word: Word, mask: np.ndarray) -> bool:
    x, y = word.centre
    row, col = int(y), int(x)
    return 0 <= row < mask.shape[0] and 0 <= col < mask.shape[1] and bool(mask[row, col])


def quoted(items: Sequence[str]) -> str:
    return ", ".join(repr(i) for i in items[:3]) + (" ..." if len(items) > 3 else "")


def failed_verdict(judge: Judge, error: Exception) -> Verdict:
    return judge.verdict(ERROR, "", f"{CHECK} could not read the item: {error}")
