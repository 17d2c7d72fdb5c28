"""Offline rewrite generators: built from the question's own parts, varied, reproducible."""

from __future__ import annotations

import json
import re
from collections import Counter

import numpy as np
import pytest

from abstain_build.rewrites.caption import (
    caption_candidates,
    contradictable,
    genre_of,
    sibling_names,
)
from abstain_build.rewrites.offline import GENERATORS, template_count
from abstain_build.rewrites.slots import PLACEHOLDER, parse_question
from abstain_build.transforms.functional.numbers import find_numbers

from .conftest import FIXTURES, SHARED_DATA

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


def placeholders(text: str) -> Counter[str]:
    return Counter(m.group() for m in PLACEHOLDER.finditer(text))


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_candidates_keep_the_placeholders_and_change_the_question(name: str) -> None:
    made = 0
    for question in QUESTIONS:
        parts = parse_question(question)
        for candidate in GENERATORS[name](parts, np.random.default_rng(0)):
            made += 1
            assert placeholders(candidate.text) == placeholders(parts.text), candidate
            assert candidate.text != parts.text
            assert candidate.template.startswith(name)
            if candidate.appended is not None:
                assert candidate.text.endswith(candidate.appended)
    assert made >= len(QUESTIONS)


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_generation_is_a_function_of_the_seed(name: str) -> None:
    parts = parse_question(QUESTIONS[1])
    first = GENERATORS[name](parts, np.random.default_rng(5))
    again = GENERATORS[name](parts, np.random.default_rng(5))
    assert first == again
    others = [GENERATORS[name](parts, np.random.default_rng(s)) for s in range(6, 12)]
    assert any(o != first for o in others)


def test_the_asked_for_noun_is_not_a_slot() -> None:
    parts = parse_question("What organ appears abnormal in this radiograph? <image 1>")
    assert [p.text for p in parts.phrases] == ["radiograph"]
    # The replacement takes the determiner along: no "this the ...".
    (first,) = GENERATORS["ambiguous_reference"](parts, np.random.default_rng(0))[:1]
    assert "this the" not in first.text and first.text.startswith("What organ appears")
    # "How many X" and "how much X" ask for X too (a real AI2D question).
    parts = parse_question(
        "<image 1> Based on the food web, how many organisms feed on the microalgae?"
    )
    assert all("organisms" not in p.text and "how" not in p.text.lower() for p in parts.phrases)
    assert [
        p.text for p in parse_question("How much revenue did the West region make?").phrases
    ] == ["West region"]


def all_candidates(name: str, question: str) -> list[str]:
    parts = parse_question(question)
    return [
        c.text for seed in range(4) for c in GENERATORS[name](parts, np.random.default_rng(seed))
    ]


def test_which_two_takes_a_plural_verb() -> None:
    texts = all_candidates(
        "multiple_correct_answers",
        "Which of the following types of tissue does not regenerate in <image 1>?",
    )
    edited = [t for t in texts if t.startswith("Which two")]
    assert edited and all(" do not regenerate" in t for t in edited), edited
    texts = all_candidates("multiple_correct_answers", "Which of the following is true?")
    assert "Which two of the following are true?" in texts


def test_a_new_element_replaces_the_whole_phrase_and_a_name_is_left_alone() -> None:
    question = "<image 1> The architect's philosophy of building is expressed by which idea?"
    replaced = all_candidates("nonexistent_reference", question)
    assert "<image 1> Panel" in " ".join(replaced)
    for text in replaced:  # the new element takes the complement's place...
        assert not re.search(r"(labelled|marked|line|entry|point|panel) \S+ of building", text)
    # ...unless the template describes the phrase's own head: "the philosophy of building
    # next to the scale bar".
    ambiguous = all_candidates("ambiguous_reference", question)
    assert any("of building" in t for t in ambiguous)  # "the other philosophy of building"

    named = "<image 1> of Louis Black, a formerly enslaved man, was painted by which artist?"
    for name in ("nonexistent_reference", "ambiguous_reference", "multiple_correct_answers"):
        for text in all_candidates(name, named):
            assert "Louis Black" in text and "the black" not in text.lower(), (name, text)


def test_contradictions_use_quantities_with_units_only() -> None:
    parts = parse_question(
        "For the circuit in <image 1>, find $I_1$ (like 0.2 + j0.4) when R = 5 ohm and 12%."
    )
    assert [t.text for t in parts.numbers] == ["5", "12%"]


@pytest.mark.skipif(
    not (SHARED_DATA / "mmmu" / "questions_mmmu_pro.jsonl").is_file(),
    reason="../shared/data/mmmu/questions_mmmu_pro.jsonl is absent",
)
def test_templates_vary_over_real_questions() -> None:
    lines = (SHARED_DATA / "mmmu" / "questions_mmmu_pro.jsonl").read_text().splitlines()
    questions = [json.loads(line)["question"] for line in lines[:150]]
    for name, generate in GENERATORS.items():
        firsts = Counter()
        texts = set()
        for index, question in enumerate(questions):
            candidates = generate(parse_question(question), np.random.default_rng(index))
            if candidates:
                firsts[candidates[0].template.split("+")[0]] += 1
                texts.add(candidates[0].text)
        bank = template_count(name)
        # Most of each bank gets used, no template dominates, and outputs rarely repeat.
        assert len(firsts) >= min(bank, 6), (name, firsts)
        assert max(firsts.values()) <= 0.35 * sum(firsts.values()), (name, firsts)
        assert len(texts) >= 0.9 * sum(firsts.values()), name


def test_a_caption_contradicts_a_numeric_answer_in_its_format() -> None:
    candidates = caption_candidates(
        "What was the revenue in FY2021?", "$11,642.4", "Float", [], np.random.default_rng(3)
    )
    assert len(candidates) >= 4
    for candidate in candidates:
        # A companion of the document disagrees with it: no correction a reader would
        # believe, no place in the document a reader could check.
        assert not re.search(r"erratum|correct|revised|typo|elsewhere", candidate.appended)
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
