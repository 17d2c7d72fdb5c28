"""The offline reference judges: identity is answerable, blackout is not, and in between
each judge measures what it says it measures (real Tesseract, real fixture PDFs)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from abstain_build.loaders import open_source
from abstain_build.media.images import decode_image, encode_png
from abstain_build.media.inputs import SampleInputs
from abstain_build.model import Sample
from abstain_build.pipeline.apply import TransformOutput, run_transform
from abstain_build.qc.items import judge_item
from abstain_build.qc.judges import (
    ANSWERABLE,
    CONFIDENCES,
    ERROR,
    UNANSWERABLE,
    JudgeItem,
    Verdict,
    get_judge,
    judge_names,
)
from abstain_build.qc.judges.evidence import Evidence
from abstain_build.qc.judges.offline import LEAK_SURVIVAL, RETENTION
from abstain_build.qc.judges.offline_checks import (
    confidence,
    is_selection,
    numbers_changed,
    prints_year,
    same_question,
    searchable,
)
from abstain_build.textregions.ocr import ocr_available
from abstain_build.transforms import get_registry
from abstain_build.transforms.functional.pixels import darken

from .conftest import FIXTURES

pytestmark = pytest.mark.skipif(not ocr_available(), reason="Tesseract is not installed")
JUDGES = ("offline:leak", "offline:retention")


def samples(source: Path) -> list[Sample]:
    return [s for s in open_source(str(source), None) if isinstance(s, Sample)]


MMMU = samples(FIXTURES / "mmmu")
DOCS = [s for s in samples(FIXTURES / "mmlongbench-doc") if s.evidence_pages]


def by_id(pool: list[Sample], sample_id: str) -> Sample:
    return next(s for s in pool if s.id == sample_id)


@pytest.fixture(scope="module")
def judges() -> Iterator[dict[str, Any]]:
    made = {name: get_judge(name) for name in JUDGES}
    yield made
    for judge in made.values():
        judge.close()


def item_for(
    sample: Sample,
    *,
    output: TransformOutput | None = None,
    images: list[bytes] | None = None,
    question: str | None = None,
    transform: dict[str, Any] | None = None,
) -> JudgeItem:
    inputs = SampleInputs(sample)
    inputs.validate()
    return judge_item(
        sample,
        inputs,
        item_id=f"{sample.id}/test",
        question=question or (output.question if output else sample.question),
        images=output.images if output else images,
        pdf=output.pdf if output else None,
        transform=output.record.to_json() if output else (transform or {}),
    )


def transformed(sample: Sample, name: str, **params: Any) -> JudgeItem:
    inputs = SampleInputs(sample)
    inputs.validate()
    output = run_transform(get_registry().get(name)(**params), sample, inputs, 7)
    return item_for(sample, output=output)


def cropped(sample: Sample, edge: str, fraction: float = 0.5) -> JudgeItem:
    """``sample``'s image with half cut from ``edge``, recorded as ``aggressive_crop`` does
    (the transform itself refuses a chart whose labels sit on both halves)."""
    (image,) = SampleInputs(sample).images()
    height, width = image.shape[:2]
    cut = int((height if edge in ("top", "bottom") else width) * fraction)
    kept = {
        "top": image[cut:],
        "bottom": image[: height - cut],
        "left": image[:, cut:],
        "right": image[:, : width - cut],
    }[edge]
    removed = {
        "top": [0, 0, width, cut],
        "bottom": [0, height - cut, width, height],
        "left": [0, 0, cut, height],
        "right": [width - cut, 0, width, height],
    }[edge]
    region = {"kind": "crop_removed", "image": 0, "bbox": removed, "role": edge}
    record = {"target": "image", "edits": {"regions": [region]}}
    return item_for(sample, images=[encode_png(np.ascontiguousarray(kept))], transform=record)


def both(judges: dict[str, Any], item: JudgeItem) -> dict[str, Verdict]:
    return {name: judge.judge(item) for name, judge in judges.items()}


def assert_reference_record(verdict: Verdict) -> None:
    assert verdict.kind == "reference"
    assert verdict.justification.startswith("reference check")
    assert verdict.confidence in CONFIDENCES


# -- the registry --------------------------------------------------------------------------


def test_both_judges_are_registered_as_reference_judges() -> None:
    assert set(JUDGES) <= set(judge_names())
    for name in JUDGES:
        judge = get_judge(name)
        assert judge.name == name and judge.kind == "reference"


# -- the two properties ---------------------------------------------------------------------


@pytest.mark.parametrize("sample", MMMU + DOCS, ids=lambda s: s.id)
def test_the_original_itself_is_answerable(sample: Sample, judges: dict[str, Any]) -> None:
    verdicts = both(judges, item_for(sample))
    for verdict in verdicts.values():
        assert_reference_record(verdict)
    assert verdicts["offline:retention"].verdict == ANSWERABLE
    assert verdicts["offline:retention"].score == pytest.approx(1.0)
    leak = verdicts["offline:leak"]
    if "nothing to read" in leak.justification:  # an item with no readable text at all
        assert leak.confidence == "LOW"
    else:
        assert leak.verdict == ANSWERABLE, leak.justification
        assert leak.score == pytest.approx(1.0)


def test_identity_is_answerable_on_nearly_every_fixture(judges: dict[str, Any]) -> None:
    leak = [judges["offline:leak"].judge(item_for(s)).verdict for s in MMMU + DOCS]
    assert leak.count(ANSWERABLE) >= len(leak) - 1


@pytest.mark.parametrize("sample", MMMU, ids=lambda s: s.id)
def test_a_blacked_out_image_is_unanswerable(sample: Sample, judges: dict[str, Any]) -> None:
    inputs = SampleInputs(sample)
    black = [encode_png(np.zeros_like(decode_image(b, "x"))) for b in inputs.image_bytes()]
    for name, verdict in both(judges, item_for(sample, images=black)).items():
        assert verdict.verdict == UNANSWERABLE, (name, verdict.justification)
        if verdict.score is not None:
            assert verdict.score < 0.05


@pytest.mark.parametrize("sample", DOCS[:6], ids=lambda s: s.id)
def test_hidden_evidence_pages_are_unanswerable(sample: Sample, judges: dict[str, Any]) -> None:
    item = transformed(sample, "hide_evidence_page", hide_fraction=1.0)
    for name, verdict in both(judges, item).items():
        assert_reference_record(verdict)
        assert verdict.verdict == UNANSWERABLE, (name, verdict.justification)
    assert both(judges, item)["offline:retention"].confidence == "HIGH"


# -- what each judge measures ---------------------------------------------------------------


def test_darkening_is_undone_by_a_contrast_stretch(judges: dict[str, Any]) -> None:
    """Dividing by 15 keeps 17 gray levels: stretched back, the chart reads again (which is
    why ``adaptive_darkness`` refuses such a chart; the pixels are darkened here directly)."""
    sample = by_id(MMMU, "fixture_chart_line")
    inputs = SampleInputs(sample)
    (image,) = inputs.images()
    darkened = [encode_png(darken(image, 15.0))]
    whole = [0, 0, image.shape[1], image.shape[0]]
    record = {
        "target": "image",
        "edits": {"regions": [{"kind": "darken", "image": 0, "bbox": whole}]},
    }
    verdicts = both(judges, item_for(sample, images=darkened, transform=record))
    retention = verdicts["offline:retention"]
    assert retention.verdict == ANSWERABLE and "contrast stretch" in retention.justification
    assert verdicts["offline:leak"].verdict == ANSWERABLE


def test_inverted_colours_are_still_answerable(judges: dict[str, Any]) -> None:
    """Inversion moves no edge and keeps every glyph's shape: nothing was removed."""
    sample = by_id(MMMU, "fixture_table_rainfall")
    inputs = SampleInputs(sample)
    inverted = [encode_png(255 - decode_image(b, "x")) for b in inputs.image_bytes()]
    item = item_for(sample, images=inverted, transform={"target": "image"})
    for name, verdict in both(judges, item).items():
        assert verdict.verdict == ANSWERABLE, (name, verdict.justification)


def test_a_full_mask_leaves_nothing(judges: dict[str, Any]) -> None:
    sample = by_id(MMMU, "fixture_chart_bar")
    verdicts = both(judges, transformed(sample, "aggressive_multi_mask", min_coverage=1.0))
    assert {v.verdict for v in verdicts.values()} == {UNANSWERABLE}


def test_a_crop_is_measured_on_the_original_canvas(judges: dict[str, Any]) -> None:
    """Half the image cut away: about half the signal, none of it from the cut half."""
    sample = by_id(MMMU, "fixture_chart_bar")
    item = cropped(sample, "right")
    retention = judges["offline:retention"].judge(item)
    assert retention.score is not None and 0.2 < retention.score < 0.8
    kept = judges["offline:retention"].judge(cropped(sample, "right", fraction=0.05))
    assert kept.score is not None and kept.score > retention.score
    assert kept.verdict == ANSWERABLE


@pytest.mark.parametrize("edge", ["left", "right", "top", "bottom"])
def test_a_cropped_image_goes_back_where_it_was_cut_from(edge: str) -> None:
    sample = by_id(MMMU, "fixture_chart_bar")
    evidence = Evidence(cropped(sample, edge))
    _, placed = evidence.candidates(0)[0]
    assert placed.how.startswith("placed at")
    assert 0.4 < placed.valid.mean() < 0.6
    original = evidence.originals[0]
    assert np.array_equal(placed.image[placed.valid], original[placed.valid])


def test_a_page_cropped_to_one_half_is_compared_with_that_half() -> None:
    sample = by_id(DOCS, "ACME_2021_10K-faa72d51")  # evidence pages 3 and 4
    evidence = Evidence(transformed(sample, "hide_evidence_page"))
    pairs = zip(evidence.originals, evidence.perturbed, strict=True)
    shapes = [(original.shape, perturbed.shape) for original, perturbed in pairs]
    cropped = [i for i, (before, after) in enumerate(shapes) if before != after]
    assert cropped
    for index in cropped:
        _, placed = evidence.candidates(index)[0]
        assert placed.how.startswith("placed at")
        kept = evidence.originals[index][placed.valid].astype(int)
        assert np.abs(placed.image[placed.valid].astype(int) - kept).mean() < 2


def test_an_erased_gold_number_is_gone_and_a_kept_one_is_read(judges: dict[str, Any]) -> None:
    sample = by_id(DOCS, "ACME_2021_10K-fb753eb3")  # 11642.4, printed on page 4
    erased = judges["offline:leak"].judge(transformed(sample, "remove_numeric_tokens"))
    assert erased.verdict == UNANSWERABLE and erased.confidence == "HIGH"
    assert "no longer readable" in erased.justification
    kept = judges["offline:leak"].judge(transformed(sample, "full_page_blur", radius=1.0))
    assert kept.verdict == ANSWERABLE and "11,642.4" in kept.justification


def test_a_weak_blur_retains_the_page_and_a_strong_one_does_not(judges: dict[str, Any]) -> None:
    sample = by_id(DOCS, "ACME_2021_10K-fb753eb3")
    retention = judges["offline:retention"]
    weak = retention.judge(transformed(sample, "full_page_blur", radius=1.0))
    strong = retention.judge(transformed(sample, "full_page_blur"))
    assert weak.verdict == ANSWERABLE and weak.score is not None and weak.score >= RETENTION
    assert strong.verdict == UNANSWERABLE and strong.score is not None and strong.score < 0.1


def test_a_corrupted_number_counts_as_lost_though_its_strokes_stay(
    judges: dict[str, Any],
) -> None:
    """New digits sit where the old ones did; the glyph check still sees the change."""
    sample = by_id(DOCS, "ACME_2021_10K-fb753eb3")
    verdicts = both(judges, transformed(sample, "corrupt_numeric_tokens"))
    assert verdicts["offline:retention"].verdict == UNANSWERABLE
    assert verdicts["offline:leak"].verdict == UNANSWERABLE


def test_an_answer_among_printed_options_is_not_a_leak_by_itself(
    judges: dict[str, Any],
) -> None:
    """'West' is a legend entry beside 'North' and 'South': the bars decide, so with the
    labels masked the leak judge counts the evidence words, not the option's name."""
    sample = by_id(MMMU, "fixture_chart_bar")
    leak = judges["offline:leak"].judge(transformed(sample, "overlay_label_mask"))
    assert "one of several candidates" in leak.justification
    assert leak.verdict == UNANSWERABLE and leak.score is not None
    assert leak.score < LEAK_SURVIVAL


# -- question rewrites -----------------------------------------------------------------------


def test_temporal_drift_asks_about_a_period_the_evidence_does_not_print(
    judges: dict[str, Any],
) -> None:
    sample = by_id(DOCS, "ACME_2021_10K-fb753eb3")
    verdicts = both(judges, transformed(sample, "temporal_drift"))
    assert verdicts["offline:retention"].verdict == UNANSWERABLE
    assert "other numbers" in verdicts["offline:retention"].justification
    assert verdicts["offline:leak"].verdict == UNANSWERABLE
    assert "does not print" in verdicts["offline:leak"].justification


def test_a_year_moved_inside_the_documents_period_may_be_answerable(
    judges: dict[str, Any],
) -> None:
    sample = by_id(DOCS, "ACME_2021_10K-fb753eb3")
    question = sample.question.replace("FY2021", "FY2020")
    assert question != sample.question
    item = item_for(sample, question=question, transform={"target": "question"})
    verdicts = both(judges, item)
    assert verdicts["offline:leak"].verdict == ANSWERABLE
    assert verdicts["offline:retention"].verdict == UNANSWERABLE


def test_a_cosmetic_rewrite_is_the_same_question(judges: dict[str, Any]) -> None:
    sample = by_id(DOCS, "ACME_2021_10K-fb753eb3")
    item = item_for(sample, question=sample.question.upper(), transform={"target": "question"})
    for verdict in both(judges, item).values():
        assert verdict.verdict == ANSWERABLE, verdict.justification


def test_a_rewrite_asking_something_else_is_left_to_retention(
    judges: dict[str, Any],
) -> None:
    sample = by_id(MMMU, "fixture_chart_bar")
    asked = "<image 1> What did the people who drew this chart eat for breakfast that day?"
    verdicts = both(judges, item_for(sample, question=asked, transform={"target": "question"}))
    leak, retention = verdicts["offline:leak"], verdicts["offline:retention"]
    assert leak.verdict == UNANSWERABLE and leak.confidence == "LOW"
    assert "retention judge decides" in leak.justification
    assert retention.verdict == UNANSWERABLE and retention.score is not None
    assert "MiniLM cosine" in retention.justification


@pytest.mark.parametrize(
    ("note", "verdict"),
    [
        ("Note: the document reports 11,642.4.", ANSWERABLE),
        ("Note: the document says it is not 11,642.4.", UNANSWERABLE),
        ("Note: the document reports 9,874.1.", UNANSWERABLE),
    ],
)
def test_a_caption_that_states_the_gold_answer_gives_it_away(
    note: str, verdict: str, judges: dict[str, Any]
) -> None:
    sample = by_id(DOCS, "ACME_2021_10K-fb753eb3")
    item = item_for(sample, question=f"{sample.question} {note}", transform={"target": "question"})
    assert judges["offline:leak"].judge(item).verdict == verdict


# -- failures and helpers --------------------------------------------------------------------


def test_an_item_without_its_original_is_an_error(judges: dict[str, Any]) -> None:
    item = JudgeItem(id="x", axis="modality_dependency", question="What is shown?")
    for verdict in both(judges, item).values():
        assert verdict.verdict == ERROR and verdict.confidence == ""


def test_an_unreadable_image_is_an_error(judges: dict[str, Any]) -> None:
    sample = by_id(MMMU, "fixture_chart_bar")
    for verdict in both(judges, item_for(sample, images=[b"not a png"])).values():
        assert verdict.verdict == ERROR and "could not read" in verdict.justification


@pytest.mark.parametrize(
    ("score", "threshold", "expected"),
    [(1.0, 0.5, "HIGH"), (0.8, 0.5, "HIGH"), (0.65, 0.5, "MEDIUM"), (0.55, 0.5, "LOW"),
     (0.45, 0.5, "LOW"), (0.3, 0.5, "MEDIUM"), (0.0, 0.5, "HIGH"), (0.96, 0.9, "HIGH"),
     (0.5, 0.9, "MEDIUM")],
)  # fmt: skip
def test_confidence_grows_with_the_margin(score: float, threshold: float, expected: str) -> None:
    assert confidence(score, threshold) == expected


def test_question_helpers() -> None:
    assert searchable(["3", "B", "12", "West", "1.5"]) == ["12", "West", "1.5"]
    assert numbers_changed("Revenue in FY2020?", "Revenue in FY2015?") == (["fy2020"], ["fy2015"])
    assert same_question("What was revenue?", "what was REVENUE ?") is not None
    assert same_question("Revenue in 2020?", "Revenue in 2021?") is None
    assert prints_year("fiscal 2015 results", 2015) and prints_year("FY '15 totals", 2015)
    assert not prints_year("$12,015.3 million", 2015)


def test_selection_needs_another_candidate_printed() -> None:
    item = JudgeItem(id="x", axis="m", question="q", options=("West", "North", "South"))
    assert is_selection(item, ["West"], ["West North South Q1 Q4"])
    assert not is_selection(item, ["West"], ["West revenue grew the most"])


# -- real data -------------------------------------------------------------------------------


def test_identity_and_hidden_pages_on_real_documents(
    shared_data: Path, judges: dict[str, Any]
) -> None:
    pool = [s for s in samples(shared_data / "mmlongbench-doc") if s.evidence_pages]
    checked = 0
    for sample in pool:
        try:
            SampleInputs(sample).validate()
        except Exception:
            continue  # known data-quality problems of the source records
        identity = both(judges, item_for(sample))
        assert identity["offline:retention"].verdict == ANSWERABLE
        leak = identity["offline:leak"]
        assert leak.verdict == ANSWERABLE or "nothing to read" in leak.justification
        hidden = both(judges, transformed(sample, "hide_evidence_page", hide_fraction=1.0))
        assert {v.verdict for v in hidden.values()} == {UNANSWERABLE}
        checked += 1
        if checked == 4:
            break
    assert checked == 4
