"""The correctness graders (abstain_build.scoring.answers): each rule's right and wrong."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from abstain_build.scoring.answers import Grade, anls, grade, rule_for

OPTIONS = ["cat", "dog", "goldfish", "parrot"]
SEGMENTS = "['Industrial Products', 'Consumer Devices']"


def choice(response: str, gold: str = "B", options: list[str] = OPTIONS) -> Grade:
    return grade(response, gold, options=options)


# -- rule_for ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer_format", "options", "gold", "rule"),
    [
        (None, ["x", "y"], "A", "mmmu-choice"),
        ("Int", ["x", "y"], "A", "mmmu-choice"),  # options win over the format
        ("multiple-choice", ["x", "y"], "B", "mmmu-choice"),
        ("multiple-choice", None, "B", "mmmu-open"),
        ("multiple-choice", [], "B", "mmmu-open"),
        ("open", None, "3.429", "mmmu-open"),
        ("Int", None, "Paris", "int"),
        ("int", None, "4", "int"),
        ("Float", None, "4", "float"),
        ("FLOAT", None, "4", "float"),
        ("Str", None, "4", "str"),
        ("List", None, "4", "list"),
        (None, None, "['a', 'b']", "list"),
        ("None", None, "['a', 'b']", "list"),  # an unknown format falls back on the gold
        (None, None, "12", "int"),
        (None, None, "1,234", "int"),
        (None, None, "-3", "int"),
        (None, None, "4.0", "float"),
        (None, None, "32.9%", "float"),
        (None, None, "1,234.5", "float"),
        (None, None, "YouTube", "str"),
        (None, None, "12 kg", "str"),
        (None, None, "", "str"),
    ],
)
def test_rule_for(answer_format, options, gold, rule):
    assert rule_for(answer_format, options, gold) == rule


def test_grade_reports_the_rule_it_applied():
    assert grade("Answer: 4", "4", answer_format="Int").rule == "int"
    # An Int gold that is not an integer is graded as a float, a number-less one as a string.
    assert grade("Answer: 4.5", "4.5", answer_format="Int") == Grade(True, "float", "4.5")
    assert grade("Answer: Paris", "Paris", answer_format="Float").rule == "str"


# -- mmmu-choice ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "response",
    [
        "(B)",
        "B",
        "The answer is B.",
        "Answer: **B**",
        "Answer: B) dog",
        "Answer: Option B",
        "Answer: b",
        "Final answer: (B) dog",
        "Answer: dog",  # the option's text
        "I considered (A) for a while, but the picture shows (B).",
    ],
)
def test_choice_reads_the_letter(response):
    assert choice(response) == Grade(True, "mmmu-choice", "B")


def test_choice_wrong_letter_is_parsed_and_wrong():
    assert choice("Answer: **C**") == Grade(False, "mmmu-choice", "C")
    assert choice("Answer: **C**", gold="C") == Grade(True, "mmmu-choice", "C")


def test_choice_content_match_in_a_long_response():
    response = "Looking closely at the picture, the animal in the bowl is a goldfish"
    assert choice(response, gold="C") == Grade(True, "mmmu-choice", "C")
    # Five words or fewer: MMMU does not look for option texts.
    assert choice("It is a goldfish", gold="C").parsed is None


def test_choice_content_match_last_occurrence_wins():
    response = "At first glance it looks like a cat, but on closer inspection it is a dog"
    assert choice(response, gold="B").correct


def test_choice_last_letter_wins():
    assert choice("Not A but maybe B") == Grade(True, "mmmu-choice", "B")
    assert choice("Maybe B, or rather A", gold="B") == Grade(False, "mmmu-choice", "A")


def test_choice_bracketed_letters_beat_bare_ones():
    # MMMU looks for "(X)" first; a bare letter only counts when there is none.
    assert choice("(B) looks right, though C is tempting").parsed == "B"


def test_choice_letter_outside_the_options_is_not_read():
    assert choice("Answer: E", options=["x", "y"]).parsed is None


def test_choice_unparseable_is_unparsed_and_never_guessed():
    grades = {choice("I really cannot tell from this image.") for _ in range(50)}
    assert grades == {Grade(False, "mmmu-choice", None)}


def test_choice_marked_answer_beats_a_later_article():
    response = "Answer: C. A quick check of the table confirms this."
    assert choice(response, gold="C") == Grade(True, "mmmu-choice", "C")


def test_choice_unmarked_article_is_read_as_a_letter_like_mmmu():
    # The documented MMMU weakness: without a marked answer the article "A" is a letter.
    response = "I pick C. A quick check of the table confirms this."
    assert choice(response, gold="C") == Grade(False, "mmmu-choice", "A")


def test_choice_marked_article_is_not_a_letter_unless_it_is_the_option():
    options = ["A strong correlation", "No correlation"]
    assert choice("Answer: A strong correlation", gold="A", options=options).correct
    # "A dog" is not option A ("cat"), so the marked answer gives no letter and MMMU's
    # parse finds "(B)".
    assert choice("Answer: A dog, which is option (B).") == Grade(True, "mmmu-choice", "B")


def test_choice_gold_given_as_option_text_or_bracketed():
    assert choice("Answer: B", gold="(B)").correct
    assert choice("Answer: B", gold="dog").correct


# -- mmmu-open -----------------------------------------------------------------------------


def test_open_number_within_rounding():
    assert grade("The value is approximately 3.43", "3.429", answer_format="open") == Grade(
        True, "mmmu-open", "approximately 3.43"
    )
    assert not grade("The value is approximately 3.44", "3.429", answer_format="open").correct


def test_open_rounding_is_exact_not_a_tolerance():
    assert not grade("So it is 3.42", "3.429", answer_format="open").correct


def test_open_list_gold_any_element():
    gold = "['24/7', '3.429']"
    assert grade("So the shop is open 24/7.", gold, answer_format="open").correct
    assert grade("The ratio is 3.43.", gold, answer_format="open").correct
    assert not grade("The ratio is 2.5.", gold, answer_format="open").correct


def test_open_string_containment_and_key_sentence():
    response = "Several factors matter.\nTherefore the main cause is erosion by wind"
    assert grade(response, "erosion", answer_format="open").correct
    assert not grade(response, "flooding", answer_format="open").correct


def test_open_numbers_with_commas_and_signs():
    assert grade("The total is 1,234.", "1234", answer_format="open").correct
    assert grade("Thus x = -3.5", "-3.5", answer_format="open").correct
    assert grade("The probability is .5", "0.5", answer_format="open").correct
    assert grade("The rate is 1e-3", "0.001", answer_format="open").correct


def test_open_single_character_gold_needs_a_whole_word():
    assert grade("The vertex is b", "b", answer_format="open").correct
    assert not grade("The vertex is abc", "b", answer_format="open").correct


def test_open_empty_response_is_unparsed():
    assert grade("", "3", answer_format="open") == Grade(False, "mmmu-open", None)


# -- int -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("response", "correct", "parsed"),
    [
        ("Answer: 4", True, "4"),
        ("There are four people in the photo.", True, "4"),
        ("Answer: 4.0", True, "4.0"),
        ("Answer: 4.5", False, "4.5"),
        ("Answer: 5", False, "5"),
        ("Answer: 14", False, "14"),
        ("I count several people.", False, None),
    ],
)
def test_int(response, correct, parsed):
    assert grade(response, "4", answer_format="Int") == Grade(correct, "int", parsed)


def test_int_thousands_separators():
    assert grade("The answer is 1,234.", "1234", answer_format="Int").correct
    assert grade("The answer is 1234.", "1,234", answer_format="Int").correct


def test_int_reads_the_final_answer_not_the_working():
    response = "The table lists 4 regions and 7 countries.\nAnswer: 7"
    assert grade(response, "4", answer_format="Int") == Grade(False, "int", "7")


# -- float ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("response", "correct"),
    [
        ("Answer: 0.329", True),  # fraction for a percent gold
        ("Answer: 32.9", True),
        ("Answer: 32.9%", True),
        ("Answer: 33.5%", False),
        ("Answer: 3.29", False),
    ],
)
def test_float_percent_scale(response, correct):
    assert grade(response, "32.9%", answer_format="Float").correct is correct


def test_float_fraction_gold_accepts_percent():
    assert grade("Answer: 32.9%", "0.329", answer_format="Float").correct


@pytest.mark.parametrize(
    ("response", "correct"),
    [
        ("Answer: 2158.7", True),
        ("Answer: 2180", True),  # |diff| 21.3 <= 1% of 2180
        ("Answer: 2140", True),  # 18.7 <= 1% of 2158.7
        ("Answer: 2137", False),  # 21.7 > 21.587
        ("Answer: 2200", False),  # 41.3 > 22
        ("Answer: 2100", False),
    ],
)
def test_float_one_percent_tolerance(response, correct):
    assert grade(response, "2158.7", answer_format="Float").correct is correct


def test_float_rounding_equality_for_small_numbers():
    # 1% of 0.014 is tiny, but to two decimals 0.014 is the gold 0.01.
    assert grade("Answer: 0.014", "0.01", answer_format="Float").correct
    assert not grade("Answer: 0.02", "0.01", answer_format="Float").correct


def test_float_gold_with_currency_commas_and_units():
    assert grade("Answer: 1234567", "$1,234,567", answer_format="Float").correct
    assert grade("It weighs 12.5 kilograms.", "12.5 kg", answer_format="Float").correct


def test_float_without_a_number_is_unparsed():
    assert grade("The chart does not say.", "3.2", answer_format="Float") == Grade(
        False, "float", None
    )


# -- str -----------------------------------------------------------------------------------


def test_str_exact_and_cleaned():
    assert grade('Answer: "Netherlands".', "Netherlands", answer_format="Str") == Grade(
        True, "str", "netherlands"
    )


def test_str_near_miss_spelling_passes_by_anls():
    assert grade("Answer: Netherland", "Netherlands", answer_format="Str").correct
    assert grade("Answer: Neterlands", "Netherlands", answer_format="Str").correct


def test_str_unrelated_word_fails():
    assert not grade("Answer: Belgium", "Netherlands", answer_format="Str").correct


def test_str_anls_boundary_is_inclusive():
    # "abcdef" vs "abcxyz": distance 3 of 6, similarity exactly 0.5.
    assert anls("abcdef", "abcxyz") == 0.5
    assert grade("Answer: abcxyz", "abcdef", answer_format="Str").correct
    # "abcdef" vs "abxyzw": 4 of 6, similarity 0.33.
    assert not grade("Answer: abxyzw", "abcdef", answer_format="Str").correct


def test_str_whole_word_containment():
    response = "Based on the chart, YouTube is the most popular platform."
    assert grade(response, "YouTube", answer_format="Str").correct
    assert not grade("Answer: YouTubers love it", "YouTube", answer_format="Str").correct


def test_str_short_and_numeric_golds_need_the_whole_word():
    assert grade("Answer: UK", "UK", answer_format="Str").correct
    assert not grade("Answer: UKR", "UK", answer_format="Str").correct  # ANLS 0.67, too short
    assert not grade("Answer: 2018-05", "2019-05", answer_format="Str").correct
    assert grade("It was 2019-05, per the memo.", "2019-05", answer_format="Str").correct


def test_str_empty_response_is_unparsed():
    assert grade("   ", "Paris", answer_format="Str") == Grade(False, "str", None)


def test_anls_values():
    assert anls("Paris", "paris") == 1.0
    assert anls("", "") == 1.0
    assert anls("abc", "") == 0.0
    assert anls("kitten", "sitting") == pytest.approx(1 - 3 / 7)


# -- list ----------------------------------------------------------------------------------


def test_list_order_insensitive():
    response = "Answer: Consumer Devices, Industrial Products"
    assert grade(response, SEGMENTS, answer_format="List") == Grade(
        True, "list", "['Consumer Devices', 'Industrial Products']"
    )


def test_list_wrong_length_fails():
    assert not grade("Answer: Consumer Devices", SEGMENTS, answer_format="List").correct
    response = "Answer: Consumer Devices, Industrial Products, Services"
    assert not grade(response, SEGMENTS, answer_format="List").correct


def test_list_near_miss_item_passes_by_anls():
    response = "The two segments are Industrial Prodcts and Consumer Devices."
    assert grade(response, SEGMENTS, answer_format="List").correct


def test_list_wrong_item_fails():
    response = "Answer: Consumer Devices, Financial Services"
    assert not grade(response, SEGMENTS, answer_format="List").correct


def test_list_repr_and_bullets():
    assert grade("Answer: ['Consumer Devices', 'Industrial Products']", SEGMENTS).correct
    bullets = "The segments:\nAnswer:\n- Consumer Devices\n- Industrial Products\n\nHope it helps"
    assert grade(bullets, SEGMENTS).correct
    closing = "From the report, the segments are:\n1. Consumer Devices\n2. Industrial Products"
    assert grade(closing, SEGMENTS).correct


def test_list_and_splits_only_when_items_are_missing():
    gold = "['Research and Development']"
    assert grade("Answer: Research and Development", gold, answer_format="List").correct
    gold_two = "['Research', 'Development']"
    assert grade("Answer: Research and Development", gold_two, answer_format="List").correct


def test_list_numbers_compare_numerically():
    gold = "['12.5', '300']"
    assert grade("Answer: 300, 12.5", gold, answer_format="List").correct
    assert grade("Answer: 301, 12.5", gold, answer_format="List").correct  # within 1%
    assert not grade("Answer: 310, 12.5", gold, answer_format="List").correct


def test_list_thousands_commas_are_not_separators():
    assert grade("Answer: 1,234; 5,678", "[1234, 5678]", answer_format="List").correct


def test_list_pairs_items_by_matching_not_by_sorted_position():
    # Sorted pairing would put "Applez" against "Banana"; matching pairs it with "Apples".
    gold = "['Apples', 'Banana']"
    assert grade("Answer: Bananna, Applez", gold, answer_format="List").correct


def test_list_short_items_compare_exactly():
    assert grade("Answer: UK, US", "['US', 'UK']", answer_format="List").correct
    assert not grade("Answer: UK, USA", "['US', 'UK']", answer_format="List").correct


def test_list_citation_brackets_are_not_the_answer():
    response = "According to [1], the segments are Consumer Devices and Industrial Products."
    assert grade(response, SEGMENTS, answer_format="List").correct


def test_list_nothing_readable_is_unparsed():
    assert grade("", SEGMENTS, answer_format="List") == Grade(False, "list", None)


# -- robustness ----------------------------------------------------------------------------


@pytest.mark.parametrize("rule_format", [None, "Int", "Float", "Str", "List", "open"])
def test_none_and_empty_responses_are_unparsed(rule_format):
    for response in (None, "", "  \n "):
        result = grade(response, "4", answer_format=rule_format)  # type: ignore[arg-type]
        assert result.correct is False
        assert result.parsed is None


@settings(max_examples=300, deadline=None)
@given(
    response=st.text(max_size=300),
    gold=st.sampled_from(["B", "4", "32.9%", "Paris", SEGMENTS, "['24/7', '3.429']", "", "["]),
    answer_format=st.sampled_from([None, "Int", "Float", "Str", "List", "open", "weird"]),
    options=st.sampled_from([None, [], OPTIONS, ["A strong correlation", ""]]),
)
def test_grade_never_raises(response, gold, answer_format, options):
    result = grade(response, gold, answer_format=answer_format, options=options)
    assert isinstance(result.correct, bool)
    assert result.parsed is None or isinstance(result.parsed, str)
    assert result.rule in {rule_for(answer_format, options, gold), "float", "str"}


@settings(max_examples=200, deadline=None)
@given(
    response=st.text(alphabet="0123456789.,-+eE%$ []'\"ABab:\n()andor", max_size=80),
    gold=st.text(alphabet="0123456789.,-%$ []'\"abAB", max_size=20),
)
def test_grade_never_raises_on_numbery_text(response, gold):
    for answer_format in (None, "Int", "Float", "Str", "List", "open"):
        assert isinstance(grade(response, gold, answer_format=answer_format).correct, bool)


@pytest.mark.parametrize(
    ("response", "letter"),
    [("B. dog", "B"), ("**C**", "C"), ("(d)", "D"), ("a", "A"), ("goldfish", "C")],
)
def test_choice_short_replies_are_read_whole(response, letter):
    result = grade(response, letter, options=OPTIONS)
    assert result.parsed == letter and result.correct


def test_numbers_a_marked_answer_gives_only_its_first_number():
    assert not grade("Answer: 3 (one of them red)", "1", answer_format="Int").correct
    assert grade("Answer: 3 (one of them red)", "3", answer_format="Int").correct
    assert not grade("Answer: 40% (down from 32.9%)", "32.9%", answer_format="Float").correct


def test_numbers_years_are_not_answers_unless_the_gold_is_a_year():
    # An unmarked sentence: any of its numbers may be the answer (a year gold keeps years).
    assert grade("In 2019 there were 5 charts.", "2019", answer_format="Int").parsed == "2019, 5"
    assert grade("In 2019 there were 4 charts.", "4", answer_format="Int").correct
    assert grade("In 2019 there were 4 charts.", "4", answer_format="Int").parsed == "4"
    assert grade("The report is from 2019.", "2019", answer_format="Int").correct
    # A year alone is still read when nothing else is written.
    assert grade("It was 2019.", "2018", answer_format="Int").parsed == "2019"


@pytest.mark.parametrize(
    ("response", "gold", "answer_format"),
    [
        ("Capt. John W. Sanders", "Capt. John W. Sanders", "Str"),
        ("Mr. S.V. Shanbhag", "Mr. S.V. Shanbhag", "Str"),
        ("Foreign born (excl. PR)", "Foreign born (excl. PR)", "Str"),
        ("-3.65%", "-3.65%", "Float"),
        ("The change was -3.65%.", "-3.65%", "Float"),
        ("[]", "[]", "List"),
    ],
)
def test_real_gold_answers_given_back_are_correct(response, gold, answer_format):
    # Golds from MMLongBench-Doc that a sentence splitter or a bullet stripper used to break.
    assert grade(response, gold, answer_format=answer_format).correct


def test_a_sign_is_not_a_bullet():
    assert not grade("-3.65%", "3.65%", answer_format="Float").correct
    assert not grade("Answer: ['a']", "[]", answer_format="List").correct
