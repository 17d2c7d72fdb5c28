"""Where an image prints what its question is about: the answer-bearing words.

A question-aware image edit must take these away first. A crop that keeps the "170" label
the answer is, or masks that leave "Steam" and "Condensate" readable when the question asks
about them, leaves an item a model can still answer. The image is read once (OCR words with
boxes, cached by pixel content) and its words are matched to:

* the gold: the correct option's text, or the answer itself, in every printed form
  (:mod:`.forms`: "56.82" prints 56.8, text up to case and small OCR errors);
* the other options: a printed option lets a reader answer by elimination once the gold
  is gone, or tells which option the picture is about;
* the labels the question names ("the Steam line", "the population in 1850"): they locate
  the answer;
* the operands: when the answer is a number (or every option is one), the numbers the
  image prints are what it is computed or read from.

:func:`read_again` is the other half: which of these words can still be read on the
perturbed image (or on it after undoing the perturbation), for the re-read gate.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

from ..model import Sample
from ..textregions.words import Box, Word
from .anchors import question_terms, stem
from .form_search import find_forms
from .forms import allowed_errors, gold_items, normalise, ocr_fold

GOLD = "gold"
OPTION = "option"
NAMED = "named"
OPERAND = "operand"
#: Most to least telling; a word matched twice keeps the first reason.
REASONS = (GOLD, OPTION, NAMED, OPERAND)

#: OCR words read with less confidence than this are noise, not labels (a trace of an ECG
#: read as "~~" or "ii").
MIN_CONF = 40.0
#: Question words that name the picture itself, not something printed in it.
_PICTURE_WORDS = frozenset(
    """image picture photo photograph diagram graph plot drawing illustration figure fig
    painting panel radiograph scan micrograph map following below above""".split()  # noqa: SIM905
)
#: A number the question names ("identify the 170 structure"): a label when printed.
_QUESTION_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.]\w)")
_PLACEHOLDER = re.compile(r"<image \d+>")
_NUMBER = re.compile(r"^[(\[$€£-]*\d[\d,.]*%?[)\]]*$")
#: rapidfuzz ratio (0-100) at which a long printed word is an option's word misspelt or
#: misread ("strobolia" / "STROBILA": 82).
SIMILAR = 80.0
#: Pixels added around a word so a mask or a crop takes its anti-aliased edge too.
PAD = 2.0


@dataclass(frozen=True)
class Target:
    """One answer-bearing place on an image: the words printed there and why they matter."""

    text: str
    bbox: Box
    why: str  # one of REASONS

    def to_json(self) -> dict[str, object]:
        return {"text": self.text, "bbox": [round(v, 1) for v in self.bbox], "why": self.why}

    def describe(self) -> str:
        return f"'{self.text}' ({self.why})"


def _legible(word: Word) -> bool:
    return word.conf >= MIN_CONF and any(ch.isalnum() for ch in word.text)


def _numeric_answer(sample: Sample) -> bool:
    """The answer is a number, or every option is one: the image's numbers are operands."""
    gold = gold_items(sample.answer, sample.answer_format, sample.options)
    if gold and all(item.kind in ("number", "year") for item in gold):
        return True
    options = [gold_items(option) for option in sample.options]
    return bool(options) and all(
        items and all(i.kind in ("number", "year") for i in items) for items in options
    )


def _matched_words(words: Sequence[Word], text: str) -> list[list[int]]:
    """Word index groups of ``words`` printing ``text`` (any printed form)."""
    items = gold_items(text)
    groups: list[list[int]] = []
    for match in find_forms(items, words):
        wanted = set(normalise(match.printed).split())
        span = match.words()
        members = [i for i in span if set(normalise(words[i].text).split()) & wanted]
        groups.append(members or [match.first, match.last])
    return groups


def _distinctive_words(options: Sequence[str]) -> dict[str, list[str]]:
    """Each option's content words that not every option has."""
    words = {option: question_terms(option) for option in options}
    shared = set.intersection(*(set(w) for w in words.values())) if len(words) > 1 else set()
    return {option: [w for w in ws if w not in shared] for option, ws in words.items()}


def _same_word(printed: str, wanted: str) -> bool:
    """The same word up to a plural or, for six letters or more, a letter or two."""
    if len(printed) < 4:
        return False
    if stem(printed) == stem(wanted):
        return True
    return min(len(printed), len(wanted)) >= 6 and fuzz.ratio(printed, wanted) >= SIMILAR


def find_targets(words: Sequence[Word], sample: Sample) -> list[Target]:
    """The answer-bearing words among ``words`` (an image's OCR), most telling first."""
    legible = [w for w in words if _legible(w)]
    reasons: dict[int, str] = {}

    def mark(indices: Sequence[int], why: str) -> None:
        for i in indices:
            reasons.setdefault(i, why)

    answer = sample.answer
    if sample.options and re.fullmatch(r"[A-Z]", answer.strip()):
        index = ord(answer.strip()) - ord("A")
        answer = sample.options[index] if index < len(sample.options) else answer
    for group in _matched_words(legible, answer):
        mark(group, GOLD)
    for option in sample.options:
        if normalise(option) != normalise(answer):
            for group in _matched_words(legible, option):
                mark(group, OPTION)
    # An option's own words printed alone: "Adult" for "Adult stage", "STROBILA" for the
    # misspelt "strobolia". Words every option shares ("stage") tell nothing.
    distinctive = _distinctive_words(sample.options)
    for i, word in enumerate(legible):
        for token in normalise(word.text).split():
            for option, words in distinctive.items():
                if any(_same_word(token, w) for w in words):
                    mark([i], GOLD if normalise(option) == normalise(answer) else OPTION)
    named = {stem(t) for t in question_terms(sample.question) if t not in _PICTURE_WORDS}
    numbers = set(_QUESTION_NUMBER.findall(_PLACEHOLDER.sub(" ", sample.question)))
    for i, word in enumerate(legible):
        tokens = [t for t in normalise(word.text).split() if len(t) >= 3]
        if any(stem(t) in named for t in tokens) or word.text.strip("()[].,:;") in numbers:
            mark([i], NAMED)
    if _numeric_answer(sample):
        mark([i for i, w in enumerate(legible) if _NUMBER.match(w.text.strip())], OPERAND)
    order = {why: k for k, why in enumerate(REASONS)}
    found = [Target(legible[i].text, _padded(legible[i].bbox), why) for i, why in reasons.items()]
    return sorted(found, key=lambda t: (order[t.why], t.bbox[1], t.bbox[0]))


def _padded(box: Box) -> Box:
    x0, y0, x1, y1 = box
    return (max(0.0, x0 - PAD), max(0.0, y0 - PAD), x1 + PAD, y1 + PAD)


def image_targets(image: np.ndarray, sample: Sample) -> list[Target]:
    """The answer-bearing words of one of ``sample``'s images (OCR, cached by pixels).

    Raises :class:`~abstain_build.textregions.ocr.OcrError` when OCR is unavailable.
    """
    from ..textregions.detect import image_words

    return find_targets(image_words(image), sample)


def covered(target: Target, rects: Sequence[Sequence[float]], shape: tuple[int, ...]) -> bool:
    """Whether the union of ``rects`` hides every pixel of ``target`` (within the image)."""
    height, width = shape[:2]
    x0, y0 = max(0, int(target.bbox[0])), max(0, int(target.bbox[1]))
    x1, y1 = min(width, int(np.ceil(target.bbox[2]))), min(height, int(np.ceil(target.bbox[3])))
    if x1 <= x0 or y1 <= y0:
        return True
    hidden = np.zeros((y1 - y0, x1 - x0), dtype=bool)
    for rect in rects:
        a0, b0 = max(x0, int(rect[0])), max(y0, int(rect[1]))
        a1, b1 = min(x1, int(np.ceil(rect[2]))), min(y1, int(np.ceil(rect[3])))
        if a1 > a0 and b1 > b0:
            hidden[b0 - y0 : b1 - y0, a0 - x0 : a1 - x0] = True
    return bool(hidden.all())


def summary(targets: Sequence[Target], shown: int = 4) -> str:
    """'Steam' (named), '170' (gold) and 3 more."""
    text = ", ".join(t.describe() for t in targets[:shown])
    return text + (f" and {len(targets) - shown} more" if len(targets) > shown else "")


# -- reading them again --------------------------------------------------------------------


def _same_text(printed: str, wanted: str) -> bool:
    a, b = (
        ocr_fold(normalise(printed)).replace(" ", ""),
        ocr_fold(normalise(wanted)).replace(" ", ""),
    )
    if not b:
        return False
    if b in a:
        return True
    budget = allowed_errors(len(b))
    return budget > 0 and Levenshtein.distance(a, b, score_cutoff=budget) <= budget


def read_again(
    targets: Sequence[Target],
    words: Sequence[Word],
    offset: tuple[float, float] = (0.0, 0.0),
) -> list[Target]:
    """The targets some of ``words`` (OCR of a perturbed image) print again at their place.

    ``offset``: where the perturbed image starts on the original (a crop keeps its part
    at that offset), so a target's box is compared where it now is.
    """
    dx, dy = offset
    legible = [w for w in words if _legible(w)]
    again = []
    for target in targets:
        x0, y0, x1, y1 = target.bbox
        box = (x0 - dx - PAD, y0 - dy - PAD, x1 - dx + PAD, y1 - dy + PAD)
        near = [w for w in legible if _centre_in(w.bbox, box)]
        if near and _same_text(" ".join(w.text for w in near), target.text):
            again.append(target)
    return again


def _centre_in(inner: Box, outer: Box) -> bool:
    cx, cy = (inner[0] + inner[2]) / 2, (inner[1] + inner[3]) / 2
    return outer[0] <= cx <= outer[2] and outer[1] <= cy <= outer[3]


__all__ = [
    "GOLD",
    "NAMED",
    "OPERAND",
    "OPTION",
    "Target",
    "covered",
    "find_targets",
    "image_targets",
    "read_again",
    "summary",
]
