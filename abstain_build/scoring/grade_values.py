"""The **int**, **float** and **str** rules of :mod:`.answers`: a number read from the
final answer (a year is never taken for an integer asked), a float within its printed
precision, a string by ANLS."""

from __future__ import annotations

import math
from decimal import Decimal

from abstain_build.scoring.final_answer import (
    clean,
    final_answer,
    normalize_quotes,
)

from .answer_text import (
    NUMBER_WORD,
    NUMBER_WORDS,
    YEARS,
    Grade,
    clean_str,
    contains_phrase,
    decimal_places,
    final_text,
    needs_exact,
    numbers_in,
    rounded_to,
    show_all,
    similar,
)

# -- int and float -------------------------------------------------------------------------


def _gold_value(gold: str) -> Decimal | None:
    """The gold's number: its first, with currency, percent and units around it ignored."""
    numbers = numbers_in(normalize_quotes(gold))
    return numbers[0] if numbers else None


def _is_year(value: Decimal) -> bool:
    return value == value.to_integral_value() and YEARS[0] <= value <= YEARS[1]


def _answer_numbers(response: str, gold: Decimal, *, words: bool) -> list[Decimal]:
    """The numbers that can be the answer.

    A marked answer gives one: its first number ("Answer: 3 (one of them red)" is 3).
    Otherwise every number of the last sentence may be, except years when the gold is not
    one ("In 2019 there were 5 charts" does not answer 2019... unless the gold is 2019).
    Number words count only when no digits are written.
    """
    found = final_answer(response)
    text = found.text or clean(normalize_quotes(response))
    numbers = numbers_in(text)
    if not numbers and words:
        numbers = [Decimal(NUMBER_WORDS[w.lower()]) for w in NUMBER_WORD.findall(text)]
    if not _is_year(gold):
        numbers = [n for n in numbers if not _is_year(n)] or numbers
    if found.marked:
        return numbers[:1]
    return numbers


def grade_int(response: str, gold: str) -> Grade:
    value = _gold_value(gold)
    if value is None:
        return grade_str(response, gold)
    if value != value.to_integral_value():
        return grade_float(response, gold)
    numbers = _answer_numbers(response, value, words=True)
    if not numbers:
        return Grade(False, "int", None)
    return Grade(any(n == value for n in numbers), "int", show_all(numbers))


def _float_matches(gold: Decimal, prediction: Decimal) -> bool:
    """Within 1% or equal when rounded, the gold as written or on the percent scale."""
    for candidate in (gold, gold.scaleb(2), gold.scaleb(-2)):
        if math.isclose(float(candidate), float(prediction), rel_tol=0.01):
            return True
        places = max(2, min(decimal_places(candidate), decimal_places(prediction)))
        if rounded_to(candidate, places) == rounded_to(prediction, places):
            return True
    return False


def grade_float(response: str, gold: str) -> Grade:
    value = _gold_value(gold)
    if value is None:
        return grade_str(response, gold)
    numbers = _answer_numbers(response, value, words=False)
    if not numbers:
        return Grade(False, "float", None)
    correct = any(_float_matches(value, n) for n in numbers)
    return Grade(correct, "float", show_all(numbers))


# -- str -----------------------------------------------------------------------------------


def grade_str(response: str, gold: str) -> Grade:
    prediction = clean_str(final_text(response))
    if not prediction:
        return Grade(False, "str", None)
    target = clean_str(gold)
    if not target:
        return Grade(False, "str", prediction)
    correct = contains_phrase(prediction, target) or (
        not needs_exact(target) and similar(target, prediction)
    )
    return Grade(correct, "str", prediction)
