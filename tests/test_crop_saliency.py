"""aggressive_crop on images printing no answer-bearing text: the cut removes the content.

Blind readers still answered half-crops of a score, a radiograph and a specimen photo that
kept the notes under the bracket or the enlarged organs. Without words to aim at, the
crop must take the image's detail with it, or decline.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from abstain_build.evidence.image_targets import image_targets
from abstain_build.loaders import open_source
from abstain_build.media.inputs import SampleInputs
from abstain_build.model import Sample
from abstain_build.pipeline.apply import run_transform
from abstain_build.textregions.ocr import ocr_available
from abstain_build.transforms import NotApplicable, get_registry
from abstain_build.transforms.builtin.aggressive_crop import EDGES, removed_detail
from abstain_build.transforms.params import ParamError

from .test_transforms_image import decode, run

WIDTH, HEIGHT = 240, 180
BACKGROUND = 205
DEFAULT_SHARE = get_registry().get("aggressive_crop").params["min_salient_removed"].default


def canvas() -> np.ndarray:
    return np.full((HEIGHT, WIDTH, 3), BACKGROUND, dtype=np.uint8)


def texture(height: int, width: int, seed: int = 1, cell: int = 3) -> np.ndarray:
    """Blocky random gray texture: detail in every direction, like tissue or a print."""
    rng = np.random.default_rng(seed)
    small = rng.integers(0, 256, (height // cell + 1, width // cell + 1), dtype=np.uint8)
    block = np.kron(small, np.ones((cell, cell), dtype=np.uint8))[:height, :width]
    return np.repeat(block[:, :, None], 3, axis=2)


def with_object(x0: int, y0: int, x1: int, y1: int, seed: int = 1) -> np.ndarray:
    image = canvas()
    image[y0:y1, x0:x1] = texture(y1 - y0, x1 - x0, seed)
    return image


def two_objects() -> np.ndarray:
    image = with_object(5, 5, 70, 60)
    image[120:175, 170:235] = texture(55, 65, seed=3)
    return image


def step_energy(image: np.ndarray) -> float:
    """Summed brightness steps between neighbours: what flat background lacks."""
    values = image.astype(np.int32)
    return float(np.abs(np.diff(values, axis=0)).sum() + np.abs(np.diff(values, axis=1)).sum())


def crop_of(output) -> dict:
    return output.plan.params["per_image"][0]


# -- synthetic images ----------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_the_cut_removes_a_textured_object_in_the_bottom_left(seed: int) -> None:
    # Reaches above the middle: only the left cut takes all of it.
    original = with_object(10, 60, 110, 170)
    output = run("aggressive_crop", original, seed=seed)
    assert crop_of(output)["edge_used"] == "left"
    kept = decode(output.images[0])
    assert kept.shape == (HEIGHT, WIDTH - WIDTH // 2, 3)
    assert step_energy(kept) <= 0.02 * step_energy(original)
    [removed] = [r for r in output.record.edits.regions if r.kind == "crop_removed"]
    assert removed.detector == "image_analysis" and removed.role == "left"
    assert any(
        "detail removed per edge" in note and "left 100%" in note for note in output.plan.notes
    )


def test_the_cut_removes_an_object_in_a_corner_whatever_its_size() -> None:
    original = with_object(150, 100, 235, 175, seed=4)
    output = run("aggressive_crop", original)
    assert crop_of(output)["edge_used"] in ("right", "bottom")
    assert step_energy(decode(output.images[0])) <= 0.02 * step_energy(original)


@pytest.mark.parametrize("seed", range(4))
def test_long_straight_rules_do_not_decide_the_edge(seed: int) -> None:
    # Staff-like rules across the bottom half outweigh the object top left in summed
    # steps, but a cut that only removes the rules would keep the object.
    image = with_object(15, 15, 105, 80, seed=2)
    for y in range(100, 170, 12):
        image[y : y + 2, :] = 0
    rules_only = canvas()
    rules_only[100:] = image[100:]
    assert step_energy(rules_only) > step_energy(image) - step_energy(rules_only)
    output = run("aggressive_crop", image, seed=seed)
    edge = crop_of(output)["edge_used"]
    assert edge in ("left", "top")
    assert set(np.unique(decode(output.images[0]))) <= {0, BACKGROUND}  # rules only


@pytest.mark.parametrize(
    "image",
    [with_object(60, 45, 180, 135), texture(HEIGHT, WIDTH, seed=5), two_objects()],
    ids=["centred object", "texture everywhere", "objects in opposite corners"],
)
def test_detail_a_half_crop_cannot_remove_is_not_applicable(image: np.ndarray) -> None:
    for seed in range(3):
        with pytest.raises(NotApplicable, match="spread over the image or sits in its centre"):
            run("aggressive_crop", image, seed=seed)


def test_a_named_edge_that_misses_the_object_is_not_applicable() -> None:
    image = with_object(10, 60, 110, 170)
    with pytest.raises(NotApplicable, match=r"the right cut removes 0% of its detail"):
        run("aggressive_crop", image, edge="right")
    assert crop_of(run("aggressive_crop", image, edge="left"))["edge_used"] == "left"


def test_the_required_share_is_a_parameter() -> None:
    centred = with_object(60, 45, 180, 135)
    output = run("aggressive_crop", centred, min_salient_removed=0.0)
    assert crop_of(output)["edge_used"] in EDGES
    off_centre = with_object(40, 45, 160, 135)  # left cut removes about 2/3 of it
    shares = removed_detail(off_centre, {"left": WIDTH // 2})
    assert shares is not None and 0.6 < shares["left"] < 0.75
    assert (
        crop_of(run("aggressive_crop", off_centre, min_salient_removed=0.6))["edge_used"] == "left"
    )
    with pytest.raises(NotApplicable):
        run("aggressive_crop", off_centre, min_salient_removed=0.8)
    with pytest.raises(ParamError):
        get_registry().get("aggressive_crop")(min_salient_removed=1.5)


def test_an_image_without_detail_is_still_cut_from_a_drawn_edge() -> None:
    edges = {crop_of(run("aggressive_crop", canvas(), seed=s))["edge_used"] for s in range(30)}
    assert edges == set(EDGES)
    output = run("aggressive_crop", canvas())
    [removed] = output.record.edits.regions
    assert removed.detector == "random"


def test_the_detail_shares_follow_the_cut_fraction() -> None:
    image = with_object(10, 60, 110, 170)
    narrow = removed_detail(image, {"left": 60, "bottom": 45})
    assert narrow is not None
    assert 0.4 < narrow["left"] < 0.6  # the object spans x 10-110: a 60 px cut takes half
    assert narrow["bottom"] < 0.5
    assert removed_detail(canvas(), {"left": 120}) is None


# -- real MMMU images ----------------------------------------------------------------------


@pytest.mark.shared_data
@pytest.mark.skipif(not ocr_available(), reason="Tesseract is not installed")
def test_on_real_mmmu_images_without_text_the_cut_removes_most_detail(shared_data: Path) -> None:
    samples = [
        s for s in open_source(shared_data / "mmmu" / "samples.jsonl") if isinstance(s, Sample)
    ]
    textless = []
    for sample in samples:
        images = SampleInputs(sample).images()
        if not any(image_targets(image, sample) for image in images):
            textless.append(sample)
    assert textless, "the shared MMMU images include some printing no answer-bearing text"
    crop = get_registry().get("aggressive_crop")()
    applied, declined = [], []
    for sample in textless:
        inputs = SampleInputs(sample)
        try:
            output = run_transform(crop, sample, inputs, 0)
        except NotApplicable as reason:
            assert "spread over the image or sits in its centre" in str(reason), sample.id
            declined.append(sample.id)
            continue
        applied.append(sample.id)
        assert any("detail removed per edge" in note for note in output.plan.notes), sample.id
        for image, plan, png in zip(
            inputs.images(), output.plan.params["per_image"], output.images, strict=True
        ):
            height, width = image.shape[:2]
            cuts = {
                edge: int((height if edge in ("top", "bottom") else width) * 0.5) for edge in EDGES
            }
            shares = removed_detail(image, cuts)
            assert shares is not None, sample.id
            edge = plan["edge_used"]
            assert shares[edge] >= DEFAULT_SHARE, (sample.id, shares)
            assert shares[edge] == max(shares.values()), (sample.id, shares)
            kept = decode(png)
            assert kept.shape[:2] == (
                (height - cuts[edge], width)
                if edge in ("top", "bottom")
                else (height, width - cuts[edge])
            )
    # The rule both cuts (concentrated content) and declines (spread content) on real data.
    assert applied and declined, (applied, declined)
