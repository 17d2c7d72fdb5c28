"""The forms of a gold answer, on strings printed in the shared PDFs (SPEC section 7).

Every text here is copied from a page of ../shared/data/mmlongbench-doc/documents (the
page is named), so the unit tests run without the data; the regression tests that open
the PDFs themselves live in test_evidence_map.py.
"""

from __future__ import annotations

import pytest

from abstain_build.evidence.form_search import find_in_string
from abstain_build.evidence.forms import FormMatch, allowed_errors, gold_items, normalise

# (gold, answer_format, printed text, what the page prints for it, form)
STATED = [
    # NETFLIX_2015_10K p54: the operating-lease question's answer with its scale word
    ("34.7", "Float", "Rent expense associated with the operating leases was $34.7 million ,",
     "$34.7 million", "scaled"),
    # AMAZON_2017_10K p71: the depreciation table in millions, for "8.8 (billion)"
    ("8.8", "Float", "Consolidated $ 4,949 $ 6,362 $ 8,831", "$ 8,831", "rounded"),
    # AMAZON_2017_10K p52: the same figure in billions, for a gold in millions
    ("8831", "Int", "and $8.8 billion which includes amortization", "$8.8 billion", "coarser"),
    # 2023.acl-long.386 p8: a table printing one more decimal than the gold
    ("56.8", "Float", "InstructGPT - Self-Ask 56.82 60.49", "56.82", "rounded"),
    # PIP_Seniors-and-Tech-Use p6: a fraction gold printed as a percent
    ("0.41", "Float", "41% do not go online", "41%", "scaled"),
    # NETFLIX_2015_10K p57: an accountant's negative
    ("-253", "Int", "Stock-based compensation expense (253)", "(253)", "exact"),
    # AMAZON_2017_10K p58: thousands separators
    ("8438", "Int", "Total long-term capital lease obligation 8,438", "8,438", "exact"),
    # reportq32015 p7 (OCR): a date in another format than the gold's
    ("2015-09-19", "Str", "done by the App Store on September 19, 2015.", "September 19, 2015",
     "date"),
    # 698bba... p3: a month asked for as YYYY-MM, printed on the title page in words
    ("2009-07", "Str", "Prepared by Jason July 2009", "July 2009", "date"),
    ("2009-07", "Str", "Revised 07/2009", "07/2009", "date"),
    # NETFLIX_2015_10K p48: spacing and case inside a text answer
    ("seven-for-one stock split", "Str", "a Seven -for-one stock split in the form",
     "Seven -for-one stock split", "text"),
    # 0e94b4... p2: a name wrapped over two lines with a hyphen
    ("Berlin School of Experimental Psychology", "Str",
     "the Berlin School of Experi-\nmental Psychology",
     "Berlin School of Experi- mental Psychology", "fuzzy"),
    # e79deb02... p16 restates the p5 objective in other words
    ("By December 31,2018, reduce the average time to issue a facility license from 60 days"
     " (2015) to 45 days", "Str",
     "By 2018, reduce the average time to issue a facility license by 25% from 60 days (2015)"
     " to 45 days.",
     "By 2018, reduce the average time to issue a facility license by 25% from 60 days (2015)"
     " to 45 days.", "paraphrase"),
    # 0e94b4... p10: a map legend prints the range; the unit is in the legend's title
    ("0-375 miles", "Str", "Approximate Distance (miles) 0 - 375 376 - 750", "0 - 375", "text"),
    # PP_2021.04.22_voting-access_REPORT p11 (held out): an age group spelled out in prose
    ("18-34", "Str", "(63% of 18- to 34-year-old Republicans vs. 47% of those 65 and older)",
     "18- to 34-year-old", "text"),
    # watch_d p6: a figure label with a space before the unit
    ("2.5-3cm", "Str", "about 2.5-3 cm away", "2.5-3 cm", "text"),
    # reportq32015 p13 (OCR): a European-style chart prints 1.3 with a decimal comma
    ("1.3", "Float", "Vietnam 1,3 Indonesia 1,6", "1,3", "decimal comma"),
    ("0.513", "Float", "share of installs 51,3%", "51,3%", "decimal comma"),
    # an OCR misreading of a word of e79deb02... p5 ("V" for "Y": one edit in eight letters)
    ("Priority", "Str", "STRATEGIC PRIORITV AREA", "PRIORITV", "fuzzy"),
]  # fmt: skip


@pytest.mark.parametrize(("gold", "fmt", "text", "printed", "form"), STATED)
def test_each_form_of_the_gold_is_found(
    gold: str, fmt: str, text: str, printed: str, form: str
) -> None:
    matches = find_in_string(gold_items(gold, fmt), text)
    assert [(m.printed, m.form) for m in matches] == [(printed, form)]


NOT_STATED = [
    # AMAZON_2017_10K p56: total debt rounds to 8.8 thousand too, but carries 8,838: it is a
    # mention the statement rules must weigh; a ratio of 0.109 is not "$109 million".
    ("0.109", "Float", "net of tax, of $109 million"),
    # a count is not an amount in thousands
    ("3", "Int", "a stipend of $3,000 per year"),
    # "Table 2" numbers a table
    ("2", "Int", "as shown in Table 2 and Figure 2"),
    # one significant digit printed says nothing about 1,234
    ("1234", "Int", "about 1 thousand units"),
    # a neighbour value at the same precision
    ("56.8", "Float", "Self-Ask 56.9 and 56.7"),
    # a decimal comma reads the digits after it as decimals, nothing else
    ("1.3", "Float", "Thailand 2,13 Malaysia 1,7 and 13,0"),
    # another range, and a range's ends apart
    ("18-34", "Str", "adults 18 to 29 and 30 to 34"),
    # a longer name that holds the gold's letters
    ("Fax", "Str", "Fairfax County"),
    # two objectives that differ only in their numbers
    ("reduce the time from 60 days to 45 days", "Str", "reduce the time from 65 days to 49 days"),
    ("By December 31, 2018, reduce the average time to issue a facility license from 60 days"
     " (2015) to 45 days", "Str",
     "By December 31, 2018, reduce the average time to issue a license from 65 days (2015)"
     " 49 days."),
]  # fmt: skip


@pytest.mark.parametrize(("gold", "fmt", "text"), NOT_STATED)
def test_other_values_and_words_are_not_the_gold(gold: str, fmt: str, text: str) -> None:
    assert find_in_string(gold_items(gold, fmt), text) == []


def test_list_answers_are_matched_item_by_item() -> None:
    items = gold_items("['90%', '42%', '39%']", "List")
    assert [i.text for i in items] == ["90%", "42%", "39%"]
    # PIP_Seniors-and-Tech-Use p9 prints two of the three
    found = find_in_string(items, "90% go online and 42% own a smartphone")
    assert sorted(m.item for m in found) == ["42%", "90%"]


def test_a_letter_answer_means_its_option() -> None:
    items = gold_items("B", None, ("Circle", "Rectangle", "Triangle"))
    assert [i.text for i in items] == ["Rectangle"]


def test_small_counts_are_found_as_words() -> None:
    # f8d3a162... p15: "three critical thinking case studies"
    matches = find_in_string(
        gold_items("3", "Int"), "includes three critical thinking case studies"
    )
    assert [(m.printed, m.form) for m in matches] == [("three", "words")]


def test_distinctive_forms_are_strong_and_unmistakable_ones_unique() -> None:
    def match(gold: str, text: str) -> FormMatch:
        (found,) = find_in_string(gold_items(gold), text)
        return found

    assert match("1902216", "Working capital 1,902,216").unique  # NETFLIX p17
    assert match("34.7", "was $34.7 million").strong
    assert not match("34.7", "was $34.7 million").unique
    assert not match("8.8", "$8.8 billion").strong  # two digits: needs anchors
    assert match("Florida Department of Health", "the Florida Department of Health").unique


def test_unsearchable_answers_give_no_forms() -> None:
    assert gold_items("Yes", "Str") == []
    assert gold_items("No", "Str") == []


def test_normalising_and_error_budget() -> None:
    assert normalise("U.S.-based  Café") == "u s based cafe"
    assert allowed_errors(5) == 0
    assert allowed_errors(8) == 1
    assert allowed_errors(40) == 5


@pytest.mark.parametrize(
    ("plural", "singular"),
    [("quizzes", "quiz"), ("taxes", "tax"), ("classes", "class"), ("matches", "match"),
     ("companies", "company"), ("cases", "case"), ("units", "unit")],
)  # fmt: skip
def test_a_plural_anchor_meets_its_singular(plural: str, singular: str) -> None:
    from abstain_build.evidence.anchors import stem

    assert stem(plural) == stem(singular)
