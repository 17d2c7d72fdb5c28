"""Numbers that are not quantities stay as printed: dates, page numbers, markers, citation
years, section numbers and product names (SPEC 7, no collateral damage)."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from abstain_build.content.number_roles import (
    CITATION,
    DATE_PART,
    MARKER,
    NAME,
    PAGE_NUMBER,
    SECTION,
    VALUE,
)
from abstain_build.content.page_numbers import page_numbers
from abstain_build.textregions.pages import page_words

MONTHS = [
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
]  # fmt: skip


def roles_on_page(lines: list[tuple[float, str]], tmp_path: Path) -> dict[str, str]:
    """{number as printed: role} for text lines written at the given heights."""
    document = pymupdf.open()
    page = document.new_page()
    for y, text in lines:
        page.insert_text((72, y), text, fontsize=10)
    path = tmp_path / "roles.pdf"
    document.save(path)
    with pymupdf.open(path) as saved:
        found = page_numbers(saved[0], page_words(saved[0]))
        return {n.text: n.role for n in found}


@settings(max_examples=40, deadline=None)
@given(month=st.sampled_from(MONTHS), day=st.integers(1, 31), year=st.integers(1990, 2030))
def test_the_day_of_a_date_is_never_a_value(month: str, day: int, year: int) -> None:
    from abstain_build.content.number_roles import number_role
    from abstain_build.textregions.number_boxes import place_numbers
    from abstain_build.textregions.words import Word

    for text in (f"signed on {month} {day}, {year} by", f"on {day} {month} {year} the"):
        words = []
        x = 0.0
        for part in text.split():
            words.append(Word(part, (x, 100.0, x + 6 * len(part), 110.0), source="text_layer"))
            x += 6 * len(part) + 4
        placed = [p for p in place_numbers(words) if p.token.text.strip("(),") == str(day)]
        assert placed, text
        assert number_role(placed[0], words, 792.0) == DATE_PART, text


def test_furniture_is_told_apart_from_values(tmp_path: Path) -> None:
    roles = roles_on_page(
        [
            (40, "ACME Corp. Annual Report"),
            (120, "3.2 Results"),
            (150, "Revenue rose to $4,512 million and depreciation(2) fell by 12.5%."),
            (180, "as shown by Smith et al. (2019) and in prior work (Jones, 2021)."),
            (210, "The MCS 51 controller sold 1,240 units in the quarter [14]."),
            (240, "Net income was 734.2 in fiscal 2015."),
            (270, "Settled in June of 1867; Andreas (1882) counted 1862 people."),
            (300, "Interstate 80 and US Highway 34 cross 538 square miles."),
            (330, 'See "Note 9 - Income Taxes" for 412 more.'),
            (360, "Unit 2 and Question 3 of Week 4 cost 96 hours (Jiang et al., 2021b)."),
            (390, "Quarter 6 covers Units 7 & 11, the 8th of 12 steps; #5 costs 63%."),
            (420, "15. What steps are companies taking against 27 kinds of bias?"),
            (800, "17"),
            (700, "18"),
            (500, "The last paragraph of a page with a wide bottom margin."),
        ],
        tmp_path,
    )
    assert roles["3.2"] == SECTION
    assert roles["$4,512 million"] == VALUE and roles["12.5%"] == VALUE
    assert roles["(2)"] == MARKER
    assert roles["(2019)"] == CITATION and roles["2021"] == CITATION
    assert roles["51"] == NAME and roles["1,240"] == VALUE
    assert roles["14"] == MARKER
    assert roles["734.2"] == VALUE and roles["2015"] == VALUE
    assert roles["1867"] == DATE_PART and roles["(1882)"] == DATE_PART
    assert roles["1862"] == VALUE  # a count that looks like an old year
    assert roles["80"] == NAME and roles["34"] == NAME and roles["538"] == VALUE
    assert "9" not in roles  # a quoted reference ("Note 9") is no number of the evidence
    assert not {"2", "3", "4", "6", "7", "11"} & set(roles) and roles["96"] == VALUE
    assert roles["8"] == MARKER and roles["5"] == MARKER  # ranks: "8th", "#5"
    assert roles["15"] == MARKER and roles["27"] == VALUE  # a numbered list's item
    assert roles["12"] == VALUE and roles["63%"] == VALUE
    assert all(role == CITATION for text, role in roles.items() if text.startswith("2021"))
    assert roles["17"] == PAGE_NUMBER
    assert roles["18"] == VALUE  # alone on a line, but in the body of the page


def test_a_page_number_under_the_last_paragraph_is_furniture(tmp_path: Path) -> None:
    roles = roles_on_page(
        [(100, "Total revenue was 4,512 in the year."), (560, "The end of the text."), (600, "36")],
        tmp_path,
    )
    assert roles["36"] == PAGE_NUMBER and roles["4,512"] == VALUE


def test_a_four_digit_page_number_of_proceedings_is_furniture(tmp_path: Path) -> None:
    roles = roles_on_page([(100, "We ran 6,985 claims in total."), (780, "6985")], tmp_path)
    assert roles["6985"] == PAGE_NUMBER and roles["6,985"] == VALUE


def test_a_superscript_marker_is_not_a_value(tmp_path: Path) -> None:
    document = pymupdf.open()
    page = document.new_page()
    page.insert_text((72, 150), "Total revenue grew strongly", fontsize=11)
    width = pymupdf.get_text_length("Total revenue grew strongly", fontsize=11)
    page.insert_text((72 + width + 0.5, 145), "3", fontsize=6)
    page.insert_text((72, 175), "Deferred revenue was 3 million.", fontsize=11)
    path = tmp_path / "sup.pdf"
    document.save(path)
    with pymupdf.open(path) as saved:
        found = page_numbers(saved[0], page_words(saved[0]))
    roles = sorted((n.rect[1], n.role) for n in found)
    assert [role for _, role in roles] == [MARKER, VALUE]


@pytest.mark.parametrize(
    ("text", "year"),
    [("In 2015, revenue was 12.3 million.", "2015"), ("Revenue (2015) was 12.3.", "(2015)")],
)
def test_a_year_in_a_sentence_is_not_a_citation(text: str, year: str, tmp_path: Path) -> None:
    roles = roles_on_page([(100, text)], tmp_path)
    assert roles[year] == VALUE
