"""The evidence map and the re-read gate on the shared MMLongBench-Doc documents: the cases
that made accepted counterparts answerable (skipped without ../shared/data)."""

from __future__ import annotations

import pymupdf
import pytest

from abstain_build.evidence.map import evidence_map
from abstain_build.loaders import open_source
from abstain_build.media.inputs import SampleInputs
from abstain_build.model import Sample
from abstain_build.pipeline.apply import reread, run_transform
from abstain_build.qc.leak import find_in_text
from abstain_build.textregions.ocr import ocr_available
from abstain_build.transforms import get_registry

from .conftest import SHARED_DATA

pytestmark = [
    pytest.mark.shared_data,
    pytest.mark.skipif(not SHARED_DATA.is_dir(), reason=f"{SHARED_DATA} is absent"),
]


@pytest.fixture(scope="module")
def samples() -> dict[str, Sample]:
    source = open_source(SHARED_DATA / "mmlongbench-doc")
    return {s.id: s for s in source if isinstance(s, Sample)}


def statements(sample: Sample) -> set[tuple[int, str]]:
    return {(m.page, m.printed) for m in evidence_map(sample, SampleInputs(sample)).statements()}


def text_of(pdf: bytes, number: int) -> str:
    with pymupdf.open(stream=pdf, filetype="pdf") as document:
        return document[number - 1].get_text()


def test_the_issue_examples_are_found() -> None:
    assert find_in_text(["34.7"], "$34.7 million") == ["$34.7 million"]
    assert find_in_text(["8831"], "$8,831 million") == ["$8,831 million"]
    assert find_in_text(["56.8"], "56.82") == ["56.82"]


def test_netflix_lease_expense_is_located_with_its_scale_word(samples) -> None:
    assert statements(samples["NETFLIX_2015_10K-de3bfc51"]) == {(54, "$34.7 million")}


def test_amazon_depreciation_is_stated_again_in_a_segment_table(samples) -> None:
    sample = samples["AMAZON_2017_10K-baa8344f"]
    assert statements(sample) == {(52, "$8.8 billion"), (71, "8,831")}
    # The total debt (8,838, page 56) also rounds to 8.8 thousand: no anchor, no statement.
    emap = evidence_map(sample, SampleInputs(sample))
    assert any(m.page == 56 and m.status == "mention" for m in emap.mentions)


def test_an_answer_printed_only_on_an_unlisted_page_is_found(samples) -> None:
    sample = samples["NETFLIX_2015_10K-99faebf6"]  # working capital, listed page 43
    assert statements(sample) == {(17, "1,902,216")}


def test_printed_page_numbers_are_recognised(samples) -> None:
    sample = samples["PIP_Seniors-and-Tech-Use_040314-cd0495d0"]  # listed 5, printed 5 = PDF 6
    emap = evidence_map(sample, SampleInputs(sample))
    assert 6 in emap.statement_pages()
    assert emap.printed == {6: "5"}
    assert any("prints the page number 5" in note for note in emap.notes)


@pytest.mark.skipif(not ocr_available(), reason="Tesseract is not installed")
@pytest.mark.parametrize(
    ("sample_id", "name", "pages", "printed"),
    [
        ("NETFLIX_2015_10K-de3bfc51", "remove_visual_element", (54,), "34.7"),
        ("AMAZON_2017_10K-baa8344f", "remove_visual_element", (52, 71), "8,831"),
        ("AMAZON_2017_10K-baa8344f", "hide_evidence_page", (52, 71), "8,831"),
    ],
)
def test_removal_takes_the_answer_from_every_page_that_states_it(
    samples,
    sample_id: str,
    name: str,
    pages: tuple[int, ...],
    printed: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The 10-Ks restate their figures most; the edits decline public filings by default
    (readers recall them), so the filing rule is set aside to test the removal itself."""
    from abstain_build.transforms import base

    monkeypatch.setattr(base, "public_filing", lambda emap: None)
    sample = samples[sample_id]
    inputs = SampleInputs(sample)
    transform = get_registry().get(name)()
    output = run_transform(transform, sample, inputs, run_seed=7)
    gate = reread(transform, sample, inputs, output)
    assert gate is not None and gate.passed, gate.reason()
    edited = {r.page for r in output.record.edits.regions}
    assert edited >= set(pages)
    assert output.pdf is not None
    assert all(printed not in text_of(output.pdf, p) for p in pages)
    assert "8.8 billion" not in text_of(output.pdf, 52) or sample_id != "AMAZON_2017_10K-baa8344f"
