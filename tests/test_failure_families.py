"""The failure families blind readers found, each closed by a rule a test can break.

Counts survive: a blur keeps the shapes and colours of the charts a question counts or
colours, and wrong digits leave the number of tables as it was, so those transforms
decline such questions (while still taking questions about printed values).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from abstain_build.media.inputs import SampleInputs
from abstain_build.pipeline.apply import run_transform
from abstain_build.transforms import NotApplicable, get_registry
from abstain_build.transforms.functional.asks import counts_parts, graphical_ask

from .test_transforms_document import ACME, doc_sample

# Questions of MMLongBench-Doc (its all_questions.json), and value questions beside them.
GRAPHICAL = [
    "How many pie charts are there in the paper?",
    "How many pages contain tables?",
    "How many line plots are in this report?",
    "What is the color of the bike in the picture on page 2?",
    "How many people can be found in the figures in Pages 18-19?",
    "How many times does the image of a tiger appear in the PPT?",
    "In figure 3, how many distinct icons are used?",
    "What range does red color represents in the chart?",
    "On which page is the organisation chart?",
]
VALUES = [
    "What was ACME's total revenue in FY2021? Answer in millions.",
    "How many Hispanics believe the U.S. can learn a great deal from other countries?",
    "How many people were surveyed in 2019?",
    "How many more times did Recruiter A view profiles than Recruiter B?",
    "Where are the two plants of GODFREY PHILLIPS INDIA LIMITED located?",
    "How many employees does PWC Assurance have?",
    "Which platform in Table 1 had the largest increase in usage between 2016 and 2019?",
]
PARTS = [
    "How many tables are included in the document?",
    "How many Exhibits are mentioned in the document?",
    "How many times does mobile phone appear on pages 16 and 18?",
    "How many chapters are in this report?",
    "How many pages contain tables?",
]


@pytest.mark.parametrize("question", GRAPHICAL)
def test_questions_about_graphical_things_are_recognised(question: str) -> None:
    assert graphical_ask(question)


@pytest.mark.parametrize("question", VALUES)
def test_questions_about_printed_values_are_not_graphical(question: str) -> None:
    assert graphical_ask(question) is None
    assert counts_parts(question) is None


@pytest.mark.parametrize("question", PARTS)
def test_questions_that_count_parts_of_the_document_are_recognised(question: str) -> None:
    assert counts_parts(question)


def _plan(name: str, question: str, answer: str, pages: tuple[int, ...] = (4,)):
    sample = replace(doc_sample(ACME, pages), question=question, answer=answer)
    inputs = SampleInputs(sample)
    inputs.validate()
    return run_transform(get_registry().get(name)(), sample, inputs, run_seed=0)


@pytest.mark.parametrize("name", ["full_page_blur", "dense_mask", "blur_figure_region"])
def test_blurs_and_dense_masks_decline_questions_that_count_or_colour_charts(name: str) -> None:
    for question in ("How many bar charts does page 4 show?", "What colour is the Cloud bar?"):
        with pytest.raises(NotApplicable, match=r"graphical things|colour"):
            _plan(name, question, "2")
    # A printed value on the same page is still theirs to take away.
    output = _plan(name, "What was ACME's total revenue in FY2021?", "11642.4")
    assert output.pdf is not None


def test_number_corruption_declines_counts_and_still_corrupts_values() -> None:
    with pytest.raises(NotApplicable, match="count"):
        _plan("corrupt_numeric_tokens", "How many tables are included in the document?", "4")
    output = _plan("corrupt_numeric_tokens", "What was ACME's total revenue in FY2021?", "11642.4")
    assert output.record.edits.tokens
