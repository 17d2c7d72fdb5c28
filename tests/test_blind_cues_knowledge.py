"""Knowledge cues of the blind check: a textbook problem named by its number, and options
that settle the answer whatever the figure draws (a whole as the sum of its parts).

Constructed questions pin each spelling and each refusal; the real MMMU questions in
``../shared/data`` (skipped without it) check the cues where they meet real wording.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from abstain_build.blind import BlindGate, blind_cues
from abstain_build.blind.cues import sum_of_parts, textbook_problem
from abstain_build.model import DocumentRef, Sample, SourceInfo

from .conftest import FIXTURES

INFO = SourceInfo("test", "test", "test.jsonl", 0)
NUMBERS = ("17940 N", "38750 N", "25150 N", "34560 N")


def question(text: str, options: tuple[str, ...] = NUMBERS, answer: str = "B") -> Sample:
    return Sample(id="q", source=INFO, question=text, answer=answer, options=options)


# -- textbook problems ---------------------------------------------------------------------

NAMED_PROBLEMS = {
    "Fig. P2.79": "Gate ABC in Fig. P2.79 is 1 m square and hinged at B. Find the level h.",
    "Figure P4-7": "For the truss of Figure P4-7, compute the force in bar BC. <image 1>",
    "Fig.P3.8": "Three pipes deliver water to a large exit pipe (see Fig.P3.8). Find V4.",
    "Problem 3.12": "<image 1> Repeat Problem 3.12 for a rectangular channel.",
    "Prob. 5-23": "Using the data of Prob. 5-23, estimate the heat loss. <image 1>",
    "problem 12.21": "Determine the area of the traverse of problem 12.21 in acres.",
    "Problems 16.37": "Estimate the power of the reducer in Problems 16.37 and 16.38.",
    "Example 7.4": "The beam of Example 7.4 carries twice the load. Find the deflection.",
    "Exercise 2.10": "<image 1> In Exercise 2.10, what is the reaction at A?",
}

PLAIN_REFERENCES = [
    "What is the force on the gate shown in Figure 2? <image 1>",
    "Compute the force in the figure. <image 1>",
    "Find the limit of [x] at 2 (see Fig. 6-1). <image 1>",
    "The graph in Figure 3.17 displays the sample sizes of people polled.",
    "Determine the area between the line AB and the stream (Fig. 12.5).",
    "The information is given in Table 11.41. Find the test statistic.",
    "A new sales tax (for example 2.5 m of cable) is introduced. Who bears it?",
    "For Example 2.5 the load doubles: which member fails first?",
    "Problem 3: which of the following is a prime number?",
    "In Example 2 above, which chord is the dominant?",
    "What is the stress on section 3.2 of the bar? <image 1>",
    "This problem demonstrates one of the similarities between two crystal structures.",
]


@pytest.mark.parametrize(("reference", "text"), NAMED_PROBLEMS.items(), ids=list(NAMED_PROBLEMS))
def test_a_textbook_problem_named_by_its_number_is_recognised(reference: str, text: str) -> None:
    sample = question(text)
    assert reference in (textbook_problem(sample) or "")
    verdict = BlindGate().check(sample)
    assert verdict.knowledge
    assert any(e.startswith("textbook_problem:") for e in verdict.evidence)


@pytest.mark.parametrize("text", PLAIN_REFERENCES, ids=lambda t: t[:40])
def test_a_plain_figure_or_table_reference_names_no_problem(text: str) -> None:
    assert textbook_problem(question(text)) is None


def test_a_document_question_naming_a_problem_is_left_to_the_document_cues() -> None:
    document = DocumentRef(path=FIXTURES / "x.pdf", doc_id="x")
    sample = Sample(
        id="d",
        source=INFO,
        question="What does the report give as the answer to Problem 3.12?",
        answer="42",
        document=document,
        evidence_pages=(1,),
    )
    assert blind_cues(sample) == []


# -- a whole as the sum of its parts -------------------------------------------------------

EFFECTS = ("E1", "E2 + E3", "E1 + E2 + E3", "E1 + 2E2 + E3", "E1 + E3")
HEAT = ("Q_1", "Q_1 + Q_2", "$Q_{1} + Q_{2} + Q_{3}$", "2Q_1 + Q_2 + Q_3")


def test_the_whole_as_the_sum_of_every_part_settles_the_answer() -> None:
    evaporator = question(
        "What is the capacity of the triple-effect evaporator shown in <image 1>?", EFFECTS, "C"
    )
    assert "'E1 + E2 + E3'" in (sum_of_parts(evaporator) or "")
    assert BlindGate().check(evaporator).knowledge
    dryer = question("<image 1> What is the total heat load of the three-zone dryer?", HEAT, "C")
    assert "total" in (sum_of_parts(dryer) or "")


def test_no_sum_of_parts_when_the_options_do_not_settle_it() -> None:
    text = "What is the capacity of the triple-effect evaporator shown in <image 1>?"
    # The gold is a partial or weighted sum: only the figure says which.
    assert sum_of_parts(question(text, EFFECTS, "B")) is None
    assert sum_of_parts(question(text, EFFECTS, "D")) is None
    # Not a whole: which stream the figure draws is asked.
    assert sum_of_parts(question("Which stream leaves the second effect?", EFFECTS, "C")) is None
    # Options that are not sums of indexed parts (letters, numbers).
    assert sum_of_parts(question(text, ("A", "A + B", "A + B + C"), "C")) is None
    assert sum_of_parts(question(text, ("3", "5", "8"), "C")) is None
    # Two options settle nothing.
    assert sum_of_parts(question(text, ("E1", "E1 + E2"), "B")) is None


@pytest.mark.parametrize(
    "text",
    [
        "What is the total load carried by beam AB in <image 1>?",
        "What is the combined capacity of the marked effects in <image 1>?",
        "<image 1> What is the total heat load of the shaded zones?",
        "What is the total flow between the second and the third effect? <image 1>",
    ],
)
def test_a_question_singling_out_some_pictured_parts_gets_no_sum_of_parts(text: str) -> None:
    sample = question(text, EFFECTS, "C")
    assert sum_of_parts(sample) is None
    assert not any(e.startswith("sum_of_parts:") for e in blind_cues(sample))


# -- the real MMMU questions ---------------------------------------------------------------


def load(path: Path) -> dict[str, Sample]:
    """MMMU rows as samples, keyed by id (or by the image's stem for the shared items)."""
    samples = {}
    for line in path.read_text().splitlines():
        row = json.loads(line)
        key = row.get("id") or Path(row["image_1"]).stem
        options = row["options"]
        if isinstance(options, str):
            options = ast.literal_eval(options)
        samples[key] = Sample(
            id=key,
            source=INFO,
            question=row["question"],
            answer=str(row["answer"]),
            options=tuple(str(o) for o in options),
        )
    return samples


@pytest.fixture(scope="module")
def mmmu() -> dict[str, Sample]:
    from .conftest import SHARED_DATA

    folder = SHARED_DATA / "mmmu"
    if not folder.is_dir():
        pytest.skip(f"{folder} is absent (real MMMU copies)")
    samples = load(folder / "questions_mmmu_pro.jsonl")
    samples.update(load(folder / "samples.jsonl"))
    return samples


@pytest.mark.shared_data
def test_real_textbook_problems_are_recognised_and_plain_figures_are_not(
    mmmu: dict[str, Sample],
) -> None:
    gate = mmmu["test_Energy_and_Power_276_1"]  # "Gate ABC in Fig. P2.79 is 1-msquare ..."
    assert "Fig. P2.79" in (textbook_problem(gate) or "")
    assert textbook_problem(mmmu["validation_Math_1"]) is None  # "See Fig. 6-1"
    assert textbook_problem(mmmu["test_Marketing_27"]) is None  # "The graph in Figure 3.17"
    problem_figure = re.compile(r"\bFig(?:ure)?s?\.?\s*P\d")
    chapter_figure = re.compile(r"\bFig(?:ure)?\.?\s*\d+[.-]\d+")
    for key, sample in mmmu.items():
        if problem_figure.search(sample.question):
            assert textbook_problem(sample), key
        elif chapter_figure.search(sample.question) and "roblem" not in sample.question:
            assert textbook_problem(sample) is None, key


@pytest.mark.shared_data
def test_the_real_evaporator_question_is_settled_by_its_options(mmmu: dict[str, Sample]) -> None:
    evaporator = mmmu["validation_Energy_and_Power_24_1"]
    assert evaporator.options[ord(evaporator.answer) - ord("A")].strip() == "E1 + E2 + E3"
    assert sum_of_parts(evaporator)
    moved = question(evaporator.question, evaporator.options, "F")  # "E1 + 2E2 + E3"
    assert sum_of_parts(moved) is None
    # Nowhere else among the real questions do the options settle a whole this way.
    firing = {key for key, sample in mmmu.items() if sum_of_parts(sample)}
    assert firing == {"validation_Energy_and_Power_24", "validation_Energy_and_Power_24_1"}
