"""Two printed values a gold is the sum or difference of, and the ones that are chance."""

from __future__ import annotations

import pytest

from abstain_build.evidence.forms import gold_items
from abstain_build.evidence.reading import TEXT_LAYER, PageReadings, Reading
from abstain_build.evidence.recovery import computed_pair
from abstain_build.textregions.words import Word


def _page(*texts: str) -> PageReadings:
    words = tuple(
        Word(text, (72.0, 100.0 + 20 * i, 140.0, 112.0 + 20 * i), source=TEXT_LAYER)
        for i, text in enumerate(texts)
    )
    return PageReadings(page=1, readings=[Reading(1, TEXT_LAYER, words)], has_text_layer=True)


@pytest.mark.parametrize(
    ("gold", "printed", "expected"),
    [
        ("1902216", ("5,431,840", "3,529,624"), ("5,431,840", "-", "3,529,624")),
        ("1,902.2", ("5,431,840", "3,529,640"), ("5,431,840", "-", "3,529,640")),  # thousands
        ("3362", ("3,062", "300"), ("3,062", "+", "300")),
        ("3362", ("3,062", "301"), None),
        ("1862", ("1861", "1"), None),  # a year and a footnote marker add up by chance
        ("150", ("100", "50"), None),  # three digits: anything adds up to them
    ],
)
def test_a_gold_is_computed_from_two_values_only_when_it_is_no_chance(
    gold: str, printed: tuple[str, ...], expected: tuple[str, str, str] | None
) -> None:
    item = gold_items(gold)[0]
    assert computed_pair(_page(*printed), item) == expected
