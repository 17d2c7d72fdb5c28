"""The leak check: is the gold answer still readable on the perturbed evidence?"""

from __future__ import annotations

from pathlib import Path

import pytest

from abstain_build.media.inputs import SampleInputs
from abstain_build.pipeline.apply import run_transform
from abstain_build.qc.leak import (
    EvidenceText,
    answer_items,
    find_in_text,
    leak_check,
    read_evidence,
)
from abstain_build.textregions.ocr import ocr_available
from abstain_build.transforms import get_registry

from .conftest import fixture_sample


@pytest.mark.parametrize(
    ("answer", "text"),
    [
        ("1234", "total 1,234 units"),
        ("1234", "total 1234 units"),
        ("1234", "1.234 thousand"),
        ("1234", "a loss of (1,234)"),
        ("0.125", "grew 12.5% in"),
        ("12.5%", "a share of 0.125"),
        ("11642.4", "Total revenue 11,642.4 11.8%"),
        ("4500000000", "a $4.5bn deal"),
        ("$36.8 million", "grossed 36,800,000"),
        ("2019", "in 2019 sales"),
        ("2", "Figure 1 shows 2 prompts"),
        ("Energy Solutions", "the ENERGY  solutions segment"),
        # SPEC section 7: the gold rounded to what is printed still states it.
        ("1234", "1.2 thousand"),
        ("11642.4", "11,642 and 11,642.5"),
        ("8831", "was $8.8 billion in 2017"),
        ("56.8", "InstructGPT 56.82"),
    ],
)
def test_printed_forms_of_the_answer_are_found(answer: str, text: str) -> None:
    assert find_in_text(answer_items(answer, None), text)


@pytest.mark.parametrize(
    ("answer", "text"),
    [
        ("1234", "1.1 thousand and 1 thousand"),  # another value; one digit says nothing
        ("1234", "12345 and 123.4"),
        ("11642.4", "11,643 and 11,642.5"),
        ("0.125", "12.6%"),
        ("Energy Solutions", "energy and solutions"),
        ("2", "as shown in Figure 2 and (Table 2). See page 2, Section 2: Item 2"),
    ],
)
def test_other_numbers_and_words_do_not_count(answer: str, text: str) -> None:
    assert not find_in_text(answer_items(answer, None), text)


def test_list_answers_are_searched_item_by_item() -> None:
    items = answer_items("['Industrial Products', 'Consumer Devices']", "List")
    assert items == ["Industrial Products", "Consumer Devices"]
    assert find_in_text(items, "Consumer Devices 5,237.9") == ["Consumer Devices"]


def test_computed_answers_make_the_check_not_applicable() -> None:
    original = EvidenceText({4: {"text_layer": "North 61, South 44, West 52"}})
    report = leak_check("157", "Int", original, original)
    assert not report.applicable and not report.leaked
    assert "not printed on the original" in report.reason


def test_short_text_answers_are_not_searched() -> None:
    evidence = EvidenceText({1: {"text_layer": "B is the answer"}})
    report = leak_check("B", "Str", evidence, evidence)
    assert not report.applicable and "too short" in report.reason


@pytest.mark.skipif(not ocr_available(), reason="Tesseract is not installed")
@pytest.mark.parametrize(
    ("transform", "leaks"),
    [("temporal_drift", True), ("hide_evidence_page", False), ("full_page_blur", False)],
)
def test_leak_check_on_perturbed_documents(transform: str, leaks: bool, tmp_path: Path) -> None:
    sample = fixture_sample("ACME_2021_10K-fb753eb3")  # answer 11642.4, printed on page 4
    inputs = SampleInputs(sample)
    inputs.validate()
    pages = list(sample.evidence_pages)
    original = read_evidence(pages, inputs.evidence_renders(), inputs.document_bytes())
    assert any(
        "11,642.4" in text for channels in original.pages.values() for text in channels.values()
    )
    output = run_transform(get_registry().get(transform)(), sample, inputs, 7)
    pdf = output.pdf if output.pdf is not None else inputs.document_bytes()
    pngs = output.images if output.images is not None else inputs.evidence_renders()
    perturbed = read_evidence(pages, pngs, pdf)
    report = leak_check(sample.answer, sample.answer_format, original, perturbed)
    assert report.applicable
    assert report.leaked is leaks, report.reason
    if leaks:
        assert {hit.channel for hit in report.hits} == {"text_layer", "ocr"}
