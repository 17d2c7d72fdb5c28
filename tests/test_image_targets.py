"""Question-aware image edits: the words an image prints that its question is about are
found (real Tesseract), every image transform hides them or says it cannot, and the image
re-read gate fails an edit that leaves one readable."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image, ImageDraw

from abstain_build.evidence.image_gate import image_reread_gate
from abstain_build.evidence.image_targets import GOLD, NAMED, OPERAND, OPTION, find_targets
from abstain_build.fixturegen.raster import font
from abstain_build.media.inputs import SampleInputs
from abstain_build.model import ImageRef, Sample, SourceInfo
from abstain_build.pipeline.apply import reread, run_transform
from abstain_build.textregions.ocr import ocr_available
from abstain_build.textregions.words import Word
from abstain_build.transforms import NotApplicable, get_registry
from abstain_build.transforms.base import ImagePlan, ImageTransform

from .conftest import png_bytes

INFO = SourceInfo("test", "test", "test.jsonl", 0)
needs_ocr = pytest.mark.skipif(not ocr_available(), reason="Tesseract is not installed")

#: A labelled diagram: four labels the options name, two on each side.
LABELS = {"Cloud": (40, 60), "River": (40, 300), "Mountain": (560, 60), "Ocean": (560, 300)}
#: The same labels one per corner cell of a 3 x 3 grid, where each corner bar can reach one.
CORNERS = {"Cloud": (40, 40), "River": (40, 340), "Mountain": (660, 40), "Ocean": (660, 340)}


def labelled(labels: dict[str, tuple[int, int]], size: tuple[int, int] = (900, 420)) -> np.ndarray:
    canvas = Image.new("RGB", size, "white")
    pen = ImageDraw.Draw(canvas)
    pen.ellipse((330, 120, 570, 300), outline="black", width=4)  # something to look at
    for text, xy in labels.items():
        pen.text(xy, text, fill="black", font=font(40))
    return np.asarray(canvas)


def sample_of(image: np.ndarray, question: str, options: tuple[str, ...], answer: str) -> Sample:
    return Sample(
        id="diagram",
        source=INFO,
        question=question,
        answer=answer,
        options=options,
        images=(ImageRef(key="image_1", data=png_bytes(image)),),
    )


def water_cycle(labels: dict[str, tuple[int, int]] = LABELS) -> Sample:
    return sample_of(
        labelled(labels),
        "Which label in <image 1> names where rain forms?",
        ("Cloud", "River", "Mountain", "Ocean"),
        "A",
    )


def run(name: str, sample: Sample, **params):
    return run_transform(get_registry().get(name)(**params), sample, SampleInputs(sample), 3)


def decode(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def answer_boxes(output) -> list[tuple[float, ...]]:
    return [r.bbox for r in output.record.edits.regions if r.kind == "answer_bearing"]


def hidden(image: np.ndarray, box: tuple[float, ...]) -> bool:
    x0, y0, x1, y1 = (round(v) for v in box)
    return bool((image[y0:y1, x0:x1] < 60).all())


# -- what counts as answer-bearing ---------------------------------------------------------


def word(text: str, x: float, conf: float = 95.0) -> Word:
    return Word(text, (x, 10.0, x + 40.0, 30.0), conf)


def test_words_are_answer_bearing_for_the_reason_that_tells_most() -> None:
    sample = Sample(
        id="s",
        source=INFO,
        question="What is the pressure of the Steam line in <image 1>?",
        answer="B",
        options=("120 kPa", "450 kPa", "Feed"),
    )
    words = [
        word("450", 0),
        word("kPa", 45),
        word("Feed", 100),
        word("Steam", 200),
        word("Condensate", 300),
        word("image", 400),  # the picture itself, not a label
        word("Steam", 500, conf=10.0),  # noise
        word("75", 600),
    ]
    found = {(t.text, t.why) for t in find_targets(words, sample)}
    assert ("450", GOLD) in found
    assert ("Feed", OPTION) in found and ("Steam", NAMED) in found
    assert ("75", OPERAND) in found  # every option is a number: the image's numbers count
    assert not {text for text, _ in found} & {"Condensate", "image"}
    assert len([t for t in found if t[0] == "Steam"]) == 1


def test_an_options_own_word_printed_alone_or_misspelt_is_answer_bearing() -> None:
    sample = Sample(
        id="s",
        source=INFO,
        question="At what phase will the black fly gain wings? <image 1>",
        answer="C",
        options=("pupa stage", "egg stage", "Adult stage", "strobolia stage"),
    )
    words = [word("Adult", 0), word("STROBILA", 100), word("Eggs", 200)]
    found = {t.text: t.why for t in find_targets(words, sample)}
    assert found == {"Adult": GOLD, "STROBILA": OPTION, "Eggs": OPTION}
    # "stage" is in every option: alone, it tells which one no more than "the" would.
    assert not find_targets([word("stage", 0)], sample)


def test_a_number_the_question_names_is_a_label() -> None:
    sample = Sample(
        id="s",
        source=INFO,
        question="In the section of the left leg, identify the 170 structure. <image 1>",
        answer="A",
        options=("Soleus", "Plantaris"),
    )
    found = find_targets([word("166", 0), word("170", 50), word("1", 100)], sample)
    assert [(t.text, t.why) for t in found] == [("170", NAMED)]


# -- each transform hides them, or says it cannot ------------------------------------------


@needs_ocr
def test_the_crop_takes_the_half_that_prints_every_option() -> None:
    left_only = {"Cloud": (40, 60), "River": (40, 300), "Mountain": (200, 60), "Ocean": (200, 300)}
    sample = water_cycle(left_only)
    for seed_run in range(3):
        output = run_transform(
            get_registry().get("aggressive_crop")(), sample, SampleInputs(sample), seed_run
        )
        assert output.record.params["per_image"][0]["edge_used"] == "left"
    assert {len(answer_boxes(output))} == {4}


@needs_ocr
def test_the_crop_is_not_applicable_when_both_halves_print_options() -> None:
    with pytest.raises(NotApplicable, match=r"answer-bearing text.*Cloud"):
        run("aggressive_crop", water_cycle())
    with pytest.raises(NotApplicable, match="the left cut leaves answer-bearing text"):
        run("aggressive_crop", water_cycle(), edge="left")


@needs_ocr
@pytest.mark.parametrize(
    "name", ["aggressive_multi_mask", "blur_edge_mask", "overlay_label_mask", "partial_occlusion"]
)
def test_masks_and_bars_cover_every_answer_bearing_word(name: str) -> None:
    sample = water_cycle()
    try:
        output = run(name, sample)
    except NotApplicable as reason:  # nine bars cannot reach every label: said, not shipped
        assert name == "partial_occlusion" and "answer-bearing" in str(reason)
        return
    boxes = answer_boxes(output)
    assert len(boxes) == 4
    (image,) = [decode(png) for png in output.images]
    assert all(hidden(image, box) for box in boxes), name
    assert reread(get_registry().get(name)(), sample, SampleInputs(sample), output).passed


@needs_ocr
def test_the_bars_move_onto_the_labels_their_cells_hold() -> None:
    # One label per corner cell of the 3 x 3 grid: each corner bar can lie over it.
    output = run("partial_occlusion", water_cycle(CORNERS))
    bars = output.record.params["per_image"][0]["bars"]
    assert sum(bar["aimed"] for bar in bars) == 4
    (image,) = [decode(png) for png in output.images]
    assert all(hidden(image, box) for box in answer_boxes(output))


@needs_ocr
def test_darkness_is_not_applicable_to_an_image_that_prints_the_options() -> None:
    with pytest.raises(NotApplicable, match="contrast stretch"):
        run("adaptive_darkness", water_cycle())
    blank = sample_of(labelled({}), "What is drawn in <image 1>?", ("A ring", "A cat"), "A")
    assert run("adaptive_darkness", blank).record.intensity > 90


@needs_ocr
@pytest.mark.parametrize("name", ["overlay_label_mask", "partial_occlusion"])
def test_veils_and_bars_refuse_an_image_that_prints_nothing_answer_bearing(name: str) -> None:
    # A drawing with no text: a veil or half-width bars would leave the ring in view.
    blank = sample_of(labelled({}), "What is drawn in <image 1>?", ("A ring", "A cat"), "A")
    with pytest.raises(NotApplicable, match="prints no answer-bearing text"):
        run(name, blank)
    edited = run(name, blank, needs_answer_text=False)  # the paper's placement, on request
    assert edited.images[0] != blank.images[0].data
    assert run(name, water_cycle(CORNERS)).images  # labels to hide: applicable


# -- the re-read gate ----------------------------------------------------------------------


class _Veil(ImageTransform):
    """A light gray veil: darker, and every label still legible."""

    name = "test_veil"
    family = "occlusion_ambiguity"
    axis = "modality"
    description = "test"

    def plan_image(self, image, index, rng, ctx):
        return ImagePlan(params={}, regions=[])

    def apply_image(self, image, params):
        return (image.astype(np.float32) * 0.5 + 100).astype(np.uint8)


@needs_ocr
def test_the_gate_fails_an_edit_that_leaves_a_label_readable() -> None:
    sample = water_cycle()
    inputs = SampleInputs(sample)
    output = run_transform(_Veil(), sample, inputs, 0)
    gate = reread(_Veil(), sample, inputs, output)
    assert gate is not None and not gate.passed
    read = {hit["text"] for hit in gate.to_json()["read_again"]}
    assert {"Cloud", "River", "Mountain", "Ocean"} <= read
    assert "Cloud" in gate.reason() and "as shipped" in gate.reason()


@needs_ocr
def test_the_gate_reads_a_darkened_image() -> None:
    sample = water_cycle()
    (original,) = SampleInputs(sample).images()
    darkened = (original // 15).astype(np.uint8)
    record = {"edits": {"regions": [{"kind": "darken", "image": 0, "bbox": [0, 0, 900, 420]}]}}
    gate = image_reread_gate(sample, [original], [darkened], record)
    assert not gate.passed  # 17 gray levels: Tesseract reads them, stretched or not
    assert {hit.target.text for hit in gate.found} == {"Cloud", "River", "Mountain", "Ocean"}


@needs_ocr
def test_the_gate_finds_a_cropped_images_words_where_they_were() -> None:
    sample = water_cycle()
    (original,) = SampleInputs(sample).images()
    kept = np.ascontiguousarray(original[:, 450:])  # the left half cut: Mountain and Ocean stay
    region = {"kind": "crop_removed", "image": 0, "bbox": [0, 0, 450, 420], "role": "left"}
    gate = image_reread_gate(sample, [original], [kept], {"edits": {"regions": [region]}})
    assert {hit.target.text for hit in gate.found} == {"Mountain", "Ocean"}
