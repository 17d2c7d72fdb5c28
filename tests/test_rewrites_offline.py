"""Offline rewrite generators: built from the question's own parts, varied, reproducible."""

from __future__ import annotations

import json
import re
from collections import Counter

import numpy as np
import pytest

from abstain_build.numbers import find_numbers
from abstain_build.rewrites.anchored import ImageFacts, marker_colours
from abstain_build.rewrites.caption import (
    caption_candidates,
    contradictable,
    genre_of,
    sibling_names,
)
from abstain_build.rewrites.offline import GENERATORS, OFFLINE_UNAVAILABLE, UNCHECKED
from abstain_build.rewrites.slots import PLACEHOLDER, parse_question

from .conftest import FIXTURES

FIXTURE_QUESTIONS = [
    json.loads(line)["question"]
    for line in (FIXTURES / "mmmu" / "samples.jsonl").read_text().splitlines()
]
EXTRA = [
    "What organ appears abnormal in this radiograph? <image 1>",
    "Air flows into a heat engine at 100 kPa, 300 K, as shown in <image 1>. Find the"
    " first-law efficiency.",
    "Compare <image 1> and <image 2>. Which of the following best describes the change?",
    "Which of the following is the most likely diagnosis?",
]
QUESTIONS = FIXTURE_QUESTIONS + EXTRA
OPTIONS = ("first", "second", "third", "fourth")


def placeholders(text: str) -> Counter[str]:
    return Counter(m.group() for m in PLACEHOLDER.finditer(text))


def rewrites(name: str, question: str, options=OPTIONS, facts=UNCHECKED, seeds=4) -> list[str]:
    parts = parse_question(question, options)
    return [
        c.text
        for seed in range(seeds)
        for c in GENERATORS[name](parts, np.random.default_rng(seed), facts)
    ]


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_candidates_keep_the_placeholders_and_change_the_question(name: str) -> None:
    for question in QUESTIONS:
        parts = parse_question(question, OPTIONS)
        for candidate in GENERATORS[name](parts, np.random.default_rng(0)):
            assert placeholders(candidate.text) == placeholders(parts.text), candidate
            assert candidate.text != parts.text
            assert candidate.template.startswith(name)


@pytest.mark.parametrize("name", ["nonexistent_reference", "impossible_visual_task"])
def test_generation_is_a_function_of_the_seed(name: str) -> None:
    parts = parse_question("Which city is shown in <image 1>?", OPTIONS)
    first = GENERATORS[name](parts, np.random.default_rng(5))
    assert first and first == GENERATORS[name](parts, np.random.default_rng(5))
    others = [GENERATORS[name](parts, np.random.default_rng(s)) for s in range(6, 12)]
    assert any(o != first for o in others)


def test_a_reference_points_at_an_element_the_image_lacks_and_keeps_the_ask() -> None:
    made = rewrites("nonexistent_reference", "Which city is shown in <image 1>?")
    assert made and all(t.startswith("Which city is shown in ") for t in made), made
    assert all("<image 1>" in t and t.endswith("?") for t in made)
    # A lone placeholder moves into a phrase put in front of the ask, which is lower-cased.
    made = rewrites(
        "nonexistent_reference", "<image 1> The arrow refers to which component of the nerve?"
    )
    assert made and all(re.match(r"In .*<image 1>[^,]*, the arrow refers", t) for t in made), made


def test_a_fabricated_label_is_one_the_image_does_not_print() -> None:
    question = "Which process will finish last in the resource-allocation graph in <image 1>?"
    labels = {
        m
        for t in rewrites("nonexistent_reference", question, seeds=30)
        for m in re.findall(r"\b[QKRZMTW]\d\b|\(\w\)", t)
    }
    printed = ImageFacts(" ".join(sorted(labels)).lower(), checked=True)
    again = rewrites("nonexistent_reference", question, facts=printed, seeds=30)
    assert not any(label in text for label in labels for text in again)


def test_a_colour_marking_is_named_only_when_no_image_shows_that_colour() -> None:
    question = "Which city is shown in <image 1>?"
    assert any("red" in t for t in rewrites("ambiguous_reference", question))
    red = np.zeros((40, 40, 3), np.uint8)
    red[:10, :10] = (220, 20, 20)
    facts = ImageFacts(colours=marker_colours([red]), checked=True)
    made = rewrites("ambiguous_reference", question, facts=facts)
    assert made and not any("red" in t for t in made)


def test_a_question_that_does_not_look_at_its_image_is_not_pointed_elsewhere() -> None:
    vignette = (
        "A 54-year-old woman has a 1 cm infiltrating ductal carcinoma in her right breast."
        " Which of the following statements regarding death certification is most accurate"
        " in her case? <image 1>"
    )
    infant = (
        "Within three days of birth the infant has not passed any stool. Laparotomy is"
        " performed and the resected specimen is shown here. Later the child develops"
        " recurrent pneumonia with Pseudomonas. Which of the following inherited disorders"
        " is this infant most likely to have? <image 1>"
    )
    for name in ("nonexistent_reference", "ambiguous_reference", "impossible_visual_task"):
        assert rewrites(name, vignette) == [], name
        assert rewrites(name, infant) == [], name


def test_an_ask_a_phrase_cannot_precede_is_left_alone() -> None:
    # "It" would lose its referent; "Refer to ..." is not a question to point elsewhere.
    for question in (
        "<image 1> An EEG scan is a popular tool. It is used to study which part of the brain?",
        "Refer to the description <image 1>, which term refers to the writer's choices?",
    ):
        for name in ("nonexistent_reference", "impossible_visual_task"):
            assert all(not t.startswith("In ") or "It is" in t for t in rewrites(name, question))
            assert not any(
                ", it is used" in t or ", refer to" in t for t in rewrites(name, question)
            )


def test_withheld_givens_drop_every_stated_quantity_of_a_computation() -> None:
    question = (
        "During the year, a company purchased raw materials of 77,321 dollars. Overhead is"
        " applied at 75% of the direct labor cost. These are the inventory balances: <image 1>"
        " Compute the cost of materials used in production."
    )
    (text,) = rewrites("missing_context", question, options=("$76,283", "$80,283", "$74,283"))[:1]
    assert "77,321" not in text and "75%" not in text
    assert text.endswith("<image 1> Compute the cost of materials used in production.")
    # Not when the image prints them: the reader would read them there.
    facts = ImageFacts("77,321 75%", checked=True)
    made = rewrites("missing_context", question, ("$76,283", "$80,283", "$74,283"), facts)
    assert all("77,321" in t for t in made)
    # Not for a question that computes nothing.
    assert not any(
        "77,321" not in t
        for t in rewrites(
            "missing_context", question.replace("Compute the cost", "Describe the role")
        )
    )


def test_a_contradictory_premise_restates_a_condition_of_the_ask_with_its_unit() -> None:
    question = (
        "A 25 ft ladder leans against a wall <image 1>. How fast is its foot slipping when"
        " the foot is 7 ft from the wall?"
    )
    made = rewrites("contradictory_premise", question, options=("1 ft/s", "2 ft/s", "3 ft/s"))
    assert made and all(re.search(r"gives? \S+ ft instead of 7 ft\.", t) for t in made), made
    # A given the answer may not need (one of several in the context) is not contradicted.
    assert (
        rewrites(
            "contradictory_premise",
            "A 25 ft ladder weighs 30 lb <image 1>. Which way does it slide?",
            options=("left", "right", "neither"),
        )
        == []
    )


@pytest.mark.parametrize("name", ["image_question_mismatch", "multiple_correct_answers"])
def test_no_offline_form_means_not_applicable(name: str) -> None:
    for question in QUESTIONS:
        assert rewrites(name, question) == []
    assert "--llm" in OFFLINE_UNAVAILABLE[name]


def test_contradictions_use_quantities_with_units_only() -> None:
    parts = parse_question(
        "For the circuit in <image 1>, find $I_1$ (like 0.2 + j0.4) when R = 5 ohm and 12%."
    )
    assert [t.text for t in parts.numbers] == ["5", "12%"]


def test_a_caption_contradicts_a_numeric_answer_in_its_format() -> None:
    candidates = caption_candidates(
        "What was the revenue in FY2021?", "$11,642.4", "Float", [], np.random.default_rng(3)
    )
    assert len(candidates) >= 3
    for candidate in candidates:
        # The document's own authority disagrees with it (SPEC 7): a later revision or an
        # erratum of this report, never a third party a reader overrules, nor a place in
        # the document a reader could check.
        assert re.search(
            r"revision of this report|this report.s (erratum|corrected edition)",
            candidate.appended,
        )
        assert not re.search(r"press|summary|slides|source|elsewhere|page", candidate.appended)
        (token,) = [t for t in find_numbers(candidate.appended) if t.is_quantity]
        assert (token.text.startswith("$") and "," in token.text) or token.value < 1000
        assert token.value != 11642.4
        assert 0.2 - 1e-3 <= abs(token.value / 11642.4 - 1) <= 0.5 + 1e-3
        assert candidate.text.startswith("What was the revenue in FY2021? ")


@pytest.mark.parametrize(("answer", "printed"), [("1375500.00", r"\d{3},\d{3}"), ("12.0", r"\d+")])
def test_a_caption_prints_a_bare_gold_number_as_a_document_would(answer, printed) -> None:
    """A dataset's float format ("1375500.00" for a count in thousands) is no way to print
    it: the false value gets separators and no zero decimals, as the report would."""
    question = "What did memberships contribute in FY2015? Answer in thousands."
    for candidate in caption_candidates(question, answer, "Float", [], np.random.default_rng(5)):
        (token,) = [t for t in find_numbers(candidate.appended) if t.is_quantity]
        assert re.fullmatch(printed, token.text), candidate.appended


def test_a_caption_starts_a_sentence_of_its_own() -> None:
    candidates = caption_candidates(
        "what is the advertising expense in FY 2015? Answer in millions",
        "714.3",
        "Float",
        [],
        np.random.default_rng(0),
    )
    assert candidates
    for candidate in candidates:
        assert candidate.text.startswith("what is the advertising expense in FY 2015? ")
        assert "Answer in millions. Note: " in candidate.text


def test_a_caption_names_another_entity_of_the_golds_list() -> None:
    evidence = [
        "Revenue by segment\nIndustrial Products\nCloud Services\nEnergy Solutions\n"
        "Total\nThe segments grew in 2021 as demand rose across our markets."
    ]
    names = sibling_names("Energy Solutions", evidence)
    assert "Cloud Services" in names and "Energy Solutions" not in names
    assert all(len(n.split()) <= 2 for n in names)  # not the sentence below the list
    candidates = caption_candidates(
        "Which segment had the lowest revenue?",
        "Energy Solutions",
        "Str",
        evidence,
        np.random.default_rng(0),
    )
    named = [c for c in candidates if c.template.split("/")[1].startswith("name_")]
    assert named and all("Energy Solutions" not in c.appended for c in named)
    assert any("Energy Solutions" in c.appended for c in candidates)  # ruled out, as well
    # A name printed only in prose has no kin to stand in for it: ruled out only.
    prose = ["Energy Solutions fell, while Cloud Services led the year."]
    only = caption_candidates(
        "Which segment?", "Energy Solutions", "Str", prose, np.random.default_rng(0)
    )
    assert only and all("Energy Solutions" in c.appended for c in only)


@pytest.mark.parametrize(
    ("question", "answer", "kind", "pattern"),
    [
        ("When was the bridge built?", "1862", "year", r"\b1(8[56]\d)\b"),
        ("In which month was it revised?", "2009-07", "date", r"\b20(08|09|10)-\d\d\b"),
        ("When was it revised?", "May 2016", "date", r"\b[A-Z][a-z]+ 20(15|16|17)\b"),
    ],
)
def test_a_caption_gives_a_value_of_the_golds_type(question, answer, kind, pattern) -> None:
    candidates = caption_candidates(question, answer, "Str", [], np.random.default_rng(1))
    assert candidates
    for candidate in candidates:
        assert candidate.template.split("/")[1].startswith(kind + "_"), candidate.template
        assert re.search(pattern, candidate.appended), candidate.appended
        assert answer not in candidate.appended


def test_an_answer_of_no_contradictable_type_gets_no_caption() -> None:
    for answer in ("2.5-3cm", "A-113 / B-7"):
        assert caption_candidates("What size?", answer, "Str", [], np.random.default_rng(0)) == []


def test_an_empty_answer_gives_no_caption() -> None:
    assert caption_candidates("Q?", "", "Str", [], np.random.default_rng(0)) == []


def test_a_list_of_values_gets_no_caption() -> None:
    # One number against three F1 scores: a reader cannot tell which it denies and
    # answers from the document (read on a shared paper's question).
    question = "Please list the F1 scores for ProgramFC on the three datasets."
    assert (
        caption_candidates(
            question, "['64.4', '62.5', '62.2']", "List", [], np.random.default_rng(0)
        )
        == []
    )
    assert not contradictable("['64.4', '62.5', '62.2']", "List")
    assert contradictable("64.4", "Float")


def test_a_caption_names_the_document_by_its_kind() -> None:
    """A watch manual has no "authors' summary of this report", and slides are not
    presented with a presentation."""
    question = "How long does the battery last? Answer in days."
    guide = caption_candidates(question, "14", "Int", [], np.random.default_rng(2), "guide")
    assert guide and all("report" not in c.appended for c in guide)
    assert any("this guide" in c.appended or "guide's" in c.appended for c in guide)
    talk = caption_candidates(question, "14", "Int", [], np.random.default_rng(2), "presentation")
    assert talk and not any("slides" in c.appended for c in talk)
    assert genre_of("Guidebook") == "guide" and genre_of("Financial report") == "report"
    assert genre_of(None) == "report"


def test_labels_and_formula_delimiters_are_not_givens() -> None:
    # "Job 10" names a job: dropping its sentence withholds nothing the answer needs.
    labelled = (
        "A new company started production. Job 10 was completed, and Job 20 remains in"
        " production. Here are its job cost sheets: <image 1> What is the predetermined"
        " overhead rate?"
    )
    assert rewrites("missing_context", labelled, options=("$0.60", "$0.80", "$0.55")) == []
    # The "$" closing "$\ge $" is no dollar sign: "5" is not five dollars to contradict.
    formula = (
        "Let X be the number of years a new hire stays, as tabulated in <image 1>."
        " P(x $\\ge $ 5) = _______"
    )
    assert rewrites("contradictory_premise", formula, options=("0.20", "0.45", "0.25")) == []
    # A real amount still is.
    priced = "A parcel costs $ 5 to send <image 1>. What is the cost of sending the parcels shown?"
    made = rewrites("contradictory_premise", priced, options=("$15", "$12", "$18"))
    assert made and all("instead of $ 5." in t for t in made), made


def test_a_caption_does_not_take_a_title_in_capitals_for_another_name() -> None:
    """The cover prints "GOVERNOR" under "Rick Scott": a note naming GOVERNOR as the
    governor is no name of the gold's kind, and a reader dismisses it."""
    cover = ["Rick Scott\nGOVERNOR\nJohn H. Armstrong\nSURGEON GENERAL\nCeleste Philip"]
    names = sibling_names("Rick Scott", cover)
    assert "GOVERNOR" not in names and "SURGEON GENERAL" not in names
    assert "Celeste Philip" in names
