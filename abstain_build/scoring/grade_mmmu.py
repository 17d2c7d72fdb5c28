"""MMMU's two rules (:mod:`.answers`): **mmmu-choice**, the letter a response picks, and
**mmmu-open**, the key answers of a free response against each gold."""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal

from abstain_build.scoring.final_answer import (
    clean,
    final_answer,
    normalize_quotes,
)

from .answer_text import (
    NUMBER,
    SHORT_RESPONSE,
    Grade,
    clean_str,
    contains_phrase,
    match_number,
    numbers_in,
    rounded_to,
)
from .grade_lists import literal_list

# -- mmmu-choice ---------------------------------------------------------------------------

_OPTION_PREFIX = re.compile(r"^(?:the\s+)?(?:option|choice)\s+", re.IGNORECASE)
#: "B", "(B)", "[B]", "B.", "B)", "B:", "B**", "B - cats" (a letter set off as a letter).
_LETTER_ALONE = re.compile(
    r"[(\[]([A-Za-z])[)\]]|([A-Z])[*_`]*(?=[.):]|\s+[-–—:]|\s*$)|([a-z])[*_`]*\s*$"
)
_LETTER_THEN_WORDS = re.compile(r"([A-Z])[*_`]*\s+(\S.*)", re.DOTALL)


def _gold_letter(gold: str, letters: str, options: Sequence[str]) -> str:
    """The gold as a letter: "B", "(B)", "b." or an option's text."""
    text = gold.strip().strip("()[]. ").upper()
    if len(text) == 1 and text in letters:
        return text
    key = clean_str(gold)
    for letter, option in zip(letters, options, strict=False):
        if key and clean_str(option) == key:
            return letter
    return gold.strip()


def _marked_letter(answer: str, letters: str, options: Sequence[str]) -> str | None:
    """The letter a marked final answer gives, if it clearly gives one."""
    text = _OPTION_PREFIX.sub("", answer.strip())
    match = _LETTER_ALONE.match(text)
    if match:
        letter = next(group for group in match.groups() if group).upper()
        return letter if letter in letters else None
    key = clean_str(text)
    for letter, option in zip(letters, options, strict=False):
        if key and clean_str(option) == key:
            return letter
    match = _LETTER_THEN_WORDS.match(text)
    if match and match[1] in letters:
        letter = match[1]
        if letter not in "AI":  # not an English word: "Answer: C is right"
            return letter
        option = clean_str(options[letters.index(letter)])
        if option and re.match(rf"{re.escape(option)}(?!\w)", clean_str(match[2])):
            return letter
    return None


def _mmmu_letter(response: str, letters: str, options: Sequence[str]) -> str | None:
    """MMMU's multiple-choice parse, without its random guess when nothing is found."""
    text = " " + normalize_quotes(response).strip().strip(",.!?;:' \t\n") + " "
    positions: dict[str, tuple[int, int]] = {}
    for letter in letters:
        found = [m.start() for m in re.finditer(re.escape(f"({letter})"), text)]
        if found:
            positions[letter] = (found[-1], 0)
    if not positions:
        for letter in letters:
            found = [m.start() for m in re.finditer(rf"(?<!\S){letter}(?!\S)", text)]
            if found:
                positions[letter] = (found[-1], 0)
    if not positions and len(text.split()) > 5:
        lowered = text.lower()
        for letter, option in zip(letters, options, strict=False):
            needle = option.strip().lower()
            if needle and needle in lowered:
                # Latest start wins; at the same start the longer option ("cat food", "cat").
                positions[letter] = (lowered.rfind(needle), len(needle))
    if not positions:
        return None
    return max(positions, key=lambda letter: positions[letter])


def grade_choice(response: str, gold: str, options: Sequence[str]) -> Grade:
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[: len(options)]
    found = final_answer(response)
    letter = _marked_letter(found.text, letters, options) if found.marked else None
    if letter is None and not found.marked and len(response.split()) <= SHORT_RESPONSE:
        # A short reply is its own answer: "B. North", "**A**", "(c)".
        letter = _marked_letter(clean(normalize_quotes(response)), letters, options)
    if letter is None:
        letter = _mmmu_letter(response, letters, options)
    if letter is None:
        return Grade(False, "mmmu-choice", None)
    return Grade(letter == _gold_letter(gold, letters, options), "mmmu-choice", letter)


# -- mmmu-open -----------------------------------------------------------------------------

_KEY_INDICATORS = ("could be ", "so ", "is ", "thus ", "therefore ", "final ", "answer ", "result ")
_SUBRESPONSE_SPLIT = re.compile(r"(?<=[.!?])\s+|\n")
_END_PUNCTUATION = " \t.,;:!?'\""


def _key_answers(response: str) -> list[str]:
    """MMMU's key sub-responses: the shortest tail after an indicator, per sentence."""
    text = normalize_quotes(response).strip().rstrip(".").lower()
    pieces = _SUBRESPONSE_SPLIT.split(text)
    keys = []
    for index, piece in enumerate(pieces):
        indicators = _KEY_INDICATORS + (("=",) if index == len(pieces) - 1 else ())
        tails = [piece.split(ind)[-1].strip() for ind in indicators if ind in piece]
        tails = [t.rstrip(_END_PUNCTUATION) for t in tails]
        tails = [t for t in tails if t]
        if tails:
            keys.append(min(tails, key=len))
    if not keys:
        whole = text.rstrip(_END_PUNCTUATION)
        return [whole] if whole else []
    return keys


def _open_value(text: str) -> Decimal | str:
    """MMMU's normalization: a number rounded to 2 decimals, else the lowercased string."""
    text = text.strip()
    match = NUMBER.fullmatch(text)
    if match:
        return rounded_to(match_number(match), 2)
    return text.lower().rstrip(_END_PUNCTUATION)


def _open_golds(gold: str) -> list[str]:
    text = gold.strip()
    if text.startswith("["):
        items = literal_list(text)
        if items is not None:
            return items
    return [text]


def grade_open(response: str, gold: str) -> Grade:
    keys = _key_answers(response)
    if not keys:
        return Grade(False, "mmmu-open", None)
    predictions: list[Decimal | str] = [_open_value(key) for key in keys]
    predictions += [rounded_to(n, 2) for key in keys for n in numbers_in(key)]
    golds = [_open_value(g) for g in _open_golds(gold)]
    gold_numbers = {g for g in golds if isinstance(g, Decimal)}
    gold_strings = [g for g in golds if isinstance(g, str) and g]
    correct = False
    for prediction in predictions:
        if isinstance(prediction, Decimal):
            correct = prediction in gold_numbers
        else:
            correct = any(
                contains_phrase(prediction, g) if len(g) == 1 else g in prediction
                for g in gold_strings
            )
        if correct:
            break
    return Grade(correct, "mmmu-open", keys[0])
