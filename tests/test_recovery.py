"""Two printed values a gold is the sum or difference of, and the ones that are chance."""

from __future__ import annotations

import pytest

from abstain_build.evidence.anchors import question_anchors
from abstain_build.evidence.forms import gold_items
from abstain_build.evidence.reading import OCR_FIGURE, TEXT_LAYER, PageReadings, Reading
from abstain_build.evidence.recovery import (
    asked_unit,
    computed_pair,
    converted,
    stated_complement,
    unit_of,
    whole_parts,
)
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
        ("253.3", ("133.2", "120.1"), ("133.2", "+", "120.1")),
        ("253.3", ("11", "$242.3"), None),  # printed unlike: a note marker and an amount
        ("1375500", ("1,334", "$41.5"), None),  # ... and not thousands of either
        ("8000", ("19%", "11%"), None),  # shares are no thousands
        ("8000", ("22", "14"), None),  # 8 thousand: any two ticks of an axis differ by it
        ("12000", ("20,000", "8,000"), ("20,000", "-", "8,000")),
    ],
)
def test_a_gold_is_computed_from_two_values_only_when_it_is_no_chance(
    gold: str, printed: tuple[str, ...], expected: tuple[str, str, str] | None
) -> None:
    item = gold_items(gold)[0]
    assert computed_pair(_page(*printed), item) == expected


@pytest.mark.parametrize(
    ("boxes", "found"),
    [
        (((300, 100, 340, 112), (300, 300, 340, 312)), True),  # one column, right-aligned
        (((100, 200, 140, 212), (300, 201, 344, 213)), True),  # one row
        (((100, 100, 140, 112), (300, 300, 344, 312)), False),  # neither: chance
    ],
)
def test_a_computed_pair_is_two_values_set_out_together(boxes, found: bool) -> None:
    """936,220 (a 2014 profit) - 285,432 (a change in costs) is 650,788, an expense the
    same 10-K prints elsewhere: a page of hundreds of numbers meets any gold by chance."""
    words = tuple(
        Word(text, box, source=TEXT_LAYER)
        for text, box in zip(("936,220", "285,432"), boxes, strict=True)
    )
    page = PageReadings(page=1, readings=[Reading(1, TEXT_LAYER, words)], has_text_layer=True)
    assert (computed_pair(page, gold_items("650788")[0]) is not None) is found


def _placed(*words: tuple[str, float]) -> PageReadings:
    """A 600-point page printing each text at its height."""
    placed = tuple(Word(text, (72.0, y, 100.0, y + 10), source=TEXT_LAYER) for text, y in words)
    return PageReadings(
        page=1, readings=[Reading(1, TEXT_LAYER, placed)], has_text_layer=True, size=(600, 600)
    )


@pytest.mark.parametrize(
    ("shares", "expected"),
    [
        ((("32%", 120), ("27%", 140)), ("41%", ["27%", "32%"])),
        ((("59%", 120),), ("41%", ["59%"])),
        ((("32%", 120), ("28%", 140)), ("41%", ["28%", "32%"])),  # rounded parts: 101
        ((("32%", 120), ("25%", 140)), None),
        ((("32%", 120), ("27%", 500)), None),  # too far to be a slice of the same pie
        ((("32%", 120), ("20%", 140), ("7%", 300), ("27%", 150)), None),  # nearest first
    ],
)
def test_the_other_parts_of_a_whole_give_back_a_share(
    shares: tuple[tuple[str, float], ...], expected: tuple[str, list[str]] | None
) -> None:
    page = _placed(("41%", 160), *shares)
    gold = (72.0, 160.0, 100.0, 170.0)
    assert whole_parts(page, gold_items("41")[0], [gold]) == expected


def test_a_pie_pasted_as_a_picture_gives_back_its_masked_slice() -> None:
    """STEPBACK p12 (a held-out reader's answer): the pie of Figure 7 is a raster image whose
    labels only OCR reads, under a paragraph of other percents that stand nearer the
    masked slice than the pie's own 74.6%. 100 - 74.6 - 3.9 - 6.1 gives the 15.4% back."""
    text = tuple(
        Word(t, (x, y, x + 26, y + 10), source=TEXT_LAYER)
        for t, x, y in (("6.1%", 108, 501), ("12.7%", 398, 501), ("4.4%.", 338, 512))
    )
    pie = (106.0, 552.0, 296.0, 662.0)
    labels = tuple(
        Word(t, (x, y, x + 18, y + 5), source="ocr")
        for t, x, y in (
            ("3.9%", 275, 569),
            ("15.4%", 272, 587),
            ("6.1%", 275, 605),
            ("74.6%", 113, 642),
        )
    )
    page = PageReadings(
        page=12,
        readings=[Reading(12, TEXT_LAYER, text), Reading(12, OCR_FIGURE, labels, region=pie)],
        has_text_layer=True,
        size=(612, 792),
    )
    masked = (270.0, 585.0, 292.0, 594.0)
    assert whole_parts(page, gold_items("15.4%")[0], [masked]) == (
        "15.4%",
        ["3.9%", "6.1%", "74.6%"],
    )


@pytest.mark.parametrize(
    ("question", "printed", "expected"),
    [
        ("How many square miles does the county cover?", "344,000 acres", "344,000 acres"),
        ("How many square miles does the county cover?", "345,000 acres", None),  # 539
        ("How many acres does the county cover?", "344,000 acres", None),  # same unit
        ("How many miles long is the river?", "866 km", "866 kilometres"),  # 538.1
        ("How many miles long is the river?", "866 sq km", None),  # an area is no length
    ],
)
def test_the_gold_printed_in_another_unit_gives_it_back(
    question: str, printed: str, expected: str | None
) -> None:
    words = tuple(
        Word(text, (72.0 + 40 * i, 100.0, 100.0 + 40 * i, 112.0), source=TEXT_LAYER)
        for i, text in enumerate(["roughly", *printed.split(), "in", "all"])
    )
    page = PageReadings(page=1, readings=[Reading(1, TEXT_LAYER, words)], has_text_layer=True)
    item = gold_items("538")[0]
    assert converted(page, item, asked_unit(question)) == expected


@pytest.mark.parametrize(
    ("text", "unit"),
    [("square miles and", "square miles"), ("sq. km of", "square kilometres"), ("miles", "miles")],
)
def test_units_are_read_area_before_length(text: str, unit: str) -> None:
    assert unit_of(text) == unit


def test_a_rest_to_100_counts_only_for_a_question_about_a_share() -> None:
    """ "How many stores opened?" (3) is no share: a 97% beside its words says nothing."""
    words = [
        "Nearly",
        "all",
        "stores",
        "opened",
        "on",
        "time",
        "(97%)",
        "in",
        "the",
        "new",
        "regions",
        "this",
        "year",
    ]
    placed = tuple(
        Word(w, (72.0 + 30 * i, 100.0, 100.0 + 30 * i, 112.0), source=TEXT_LAYER)
        for i, w in enumerate(words)
    )
    page = PageReadings(page=1, readings=[Reading(1, TEXT_LAYER, placed)], has_text_layer=True)
    item = gold_items("3")[0]
    asked = "How many stores opened on time in the new regions?"
    share = "What percentage of stores did not open on time in the new regions?"
    assert stated_complement(page, item, question_anchors(asked), asked) is None
    assert stated_complement(page, item, question_anchors(share), share) == "97%"
    gap = "How many percentage points more stores opened on time in the new regions than late?"
    assert stated_complement(page, item, question_anchors(gap), gap) is None
    # "this year" is no year the question names: a share of 2016 is not stated by it
    dated = "What percentage of stores did not open on time in the new regions in 2016?"
    assert stated_complement(page, item, question_anchors(dated), dated) is None
