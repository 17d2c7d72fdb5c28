"""Label-masking transforms: the chart's titles, axis labels and legends become unreadable."""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from abstain_build.media.inputs import SampleInputs
from abstain_build.model import ImageRef, Sample, SourceInfo
from abstain_build.pipeline.apply import run_transform
from abstain_build.textregions.detect import image_words
from abstain_build.textregions.ocr import ocr_available
from abstain_build.transforms import get_registry
from abstain_build.transforms.functional.pixels import rect_mask

from .conftest import FIXTURES

pytestmark = pytest.mark.skipif(not ocr_available(), reason="Tesseract is not installed")

INFO = SourceInfo("test", "test", "test.jsonl", 0)
IMAGES = FIXTURES / "mmmu" / "images"

# The furniture of the fixture charts, as fixturegen draws it (title, axis titles, legend).
CHART_LABELS = {
    "fixture_chart_bar_1.png": "Quarterly Revenue by Region | Quarter (FY2023) | Revenue "
    "($ millions) | North South West | Q2 Q3 Q4",
    "fixture_chart_line_1.png": "Annual Unit Sales, 2015-2022 | Year | Units sold (thousands) "
    "| Product A | Product B | 2016 2017 2018 2019 2020 2021",
    "fixture_chart_scatter_1.png": "Study Time vs. Exam Score | Weekly study time (hours) | "
    "Exam score (%)",
    "fixture_chart_pie_1.png": "Household Energy Use by Category | Heating Cooling Lighting "
    "Appliances | Water heating",
}


def label_words(text: str) -> set[str]:
    """Distinctive words (3+ characters) in lower case, punctuation stripped."""
    return {w for w in (_clean(t) for t in text.split()) if len(w) >= 3}


def _clean(token: str) -> str:
    return re.sub(r"[^a-z0-9]", "", token.lower())


def readable_words(image: np.ndarray) -> set[str]:
    return {_clean(w.text) for w in image_words(image) if w.conf >= 40}


#: Label masks as the paper places them, on any image (by default an image printing no
#: answer-bearing word is refused: see test_image_targets).
ANY_IMAGE = {"needs_answer_text": False}


def run(name: str, path: Path, seed: int = 0, **params):
    sample = Sample(
        id=path.stem,
        source=INFO,
        question="What does <image 1> show?",
        answer="A",
        images=(ImageRef(key="image_1", path=path),),
    )
    return run_transform(get_registry().get(name)(**params), sample, SampleInputs(sample), seed)


def decode(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)))


def load(path: Path) -> np.ndarray:
    return np.asarray(Image.open(path).convert("RGB"))


@pytest.mark.parametrize("chart", sorted(CHART_LABELS))
def test_original_labels_are_readable(chart: str) -> None:
    """The premise of the next tests: OCR reads most label words on the untouched chart."""
    wanted = label_words(CHART_LABELS[chart])
    found = wanted & readable_words(load(IMAGES / chart))
    assert len(found) >= 0.7 * len(wanted), sorted(wanted - found)


@pytest.mark.parametrize("chart", sorted(CHART_LABELS))
def test_overlay_label_mask_leaves_no_label_readable(chart: str) -> None:
    original = load(IMAGES / chart)
    output = run("overlay_label_mask", IMAGES / chart, **ANY_IMAGE)
    result = decode(output.images[0])
    assert result.shape == original.shape
    leaked = label_words(CHART_LABELS[chart]) & readable_words(result)
    assert not leaked, f"still readable after overlay_label_mask: {sorted(leaked)}"
    masks = [r for r in output.record.edits.regions if r.kind == "mask"]
    assert masks and all(r.detector == "ocr" for r in masks)
    assert {"title", "axis_label"} <= {r.role for r in masks}


def test_overlay_is_a_gray_veil_outside_the_masks() -> None:
    path = IMAGES / "fixture_chart_bar_1.png"
    original = load(path).astype(float)
    output = run("overlay_label_mask", path, **ANY_IMAGE)
    result = decode(output.images[0]).astype(float)
    masks = [r.bbox for r in output.record.edits.regions if r.kind == "mask"]
    masked = rect_mask(original.shape[:2], masks)
    assert (result[masked] == 0).all(), "masks are opaque black"
    expected = original * 0.4 + 128 * 0.6
    assert np.abs(result[~masked] - expected[~masked]).max() <= 0.5


@pytest.mark.parametrize("chart", sorted(CHART_LABELS))
def test_blur_edge_mask_blurs_and_hides_labels(chart: str) -> None:
    original = load(IMAGES / chart).astype(float)
    output = run("blur_edge_mask", IMAGES / chart)
    result = decode(output.images[0])
    [blur] = [r for r in output.record.edits.regions if r.kind == "blur"]
    x0, y0, x1, y1 = (int(v) for v in blur.bbox)
    height, width = original.shape[:2]
    assert (x1 - x0) * (y1 - y0) / (width * height) == pytest.approx(0.85, abs=0.01)
    masks = [r.bbox for r in output.record.edits.regions if r.kind == "mask"]
    # away from the masks' own edges (2 px margin), which are sharp on purpose
    grown = [(a - 2, b - 2, c + 2, d + 2) for a, b, c, d in masks]
    free = ~rect_mask((height, width), grown)[y0:y1, x0:x1]

    def edge_energy(image: np.ndarray) -> float:
        """Mean squared gradient: blur spreads an edge out, which lowers it sharply."""
        gray = image[y0:y1, x0:x1].astype(float).mean(axis=-1)
        gx = np.diff(gray, axis=1)[:-1, :]
        gy = np.diff(gray, axis=0)[:, :-1]
        return float((gx**2 + gy**2)[free[:-1, :-1]].mean())

    assert edge_energy(result) < edge_energy(original) / 10
    leaked = label_words(CHART_LABELS[chart]) & readable_words(result)
    assert not leaked, f"still readable after blur_edge_mask: {sorted(leaked)}"


def test_label_masks_fall_back_to_edge_bands_when_no_text_is_found(tmp_path: Path) -> None:
    canvas = np.full((300, 400, 3), 255, dtype=np.uint8)
    canvas[100:200, 150:250] = (30, 120, 200)  # a shape, no text
    path = tmp_path / "figure.png"
    Image.fromarray(canvas).save(path)
    output = run("overlay_label_mask", path, **ANY_IMAGE)
    masks = [r for r in output.record.edits.regions if r.kind == "mask"]
    assert masks and all(r.detector == "fallback" for r in masks)
    assert any("edge bands" in note for note in output.record.notes)
    result = decode(output.images[0])
    assert (result[:30] == 0).all(), "the top band (title position) is masked"


def test_label_masks_are_deterministic_and_recorded() -> None:
    path = IMAGES / "fixture_chart_line_1.png"
    first = run("overlay_label_mask", path, seed=1, **ANY_IMAGE)
    second = run("overlay_label_mask", path, seed=2, **ANY_IMAGE)
    assert first.images == second.images, "no randomness: the masks follow the detected text"
    params = first.plan.params["per_image"][0]
    assert params["detector"] == "ocr"
    assert len(params["masks"]) == len([r for r in first.record.edits.regions if r.kind == "mask"])
