"""The answer an answer-changed item now has, restated in the gold's own form."""

from __future__ import annotations

import pytest

from abstain_build.evidence.forms import gold_items
from abstain_build.numbers import find_numbers
from abstain_build.transforms.functional.answer_change import restated_answer


@pytest.mark.parametrize(
    ("answer", "printed", "rewritten", "expected"),
    [
        ("34.7", "$34.7 million", "$41.2 million", "41.2"),
        ("8,831", "$8.8 billion", "$11.0 billion", "11,000"),
        ("8831", "8,831", "10,117", "10117"),
        ("0.51", "51%", "38%", "0.38"),
        ("27.3%", "27.3%", "35.1%", "35.1%"),
        ("56.8", "56.82", "70.11", "70.1"),
        ("$ 4.5 billion", "4,512", "3,100", "$ 3.1 billion"),
        ("-1,234", "(1,234)", "(1,604)", "-1,604"),
        ("2015", "FY2015", "FY2017", "2017"),
    ],
)
def test_the_new_answer_is_the_new_printing_in_the_gold_form(
    answer: str, printed: str, rewritten: str, expected: str
) -> None:
    item = gold_items(answer)[0]
    token = find_numbers(printed)[0]
    assert restated_answer(answer, item, token, rewritten) == expected


def test_a_rewrite_that_is_not_one_number_cannot_be_restated() -> None:
    item = gold_items("34.7")[0]
    token = find_numbers("$34.7 million")[0]
    assert restated_answer("34.7", item, token, "41.2 to 43.0") is None
