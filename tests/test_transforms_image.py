"""The image transforms of the modality axis keep the properties the method demands."""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from abstain_build.media.inputs import SampleInputs
from abstain_build.model import ImageRef, Sample, SourceInfo
from abstain_build.pipeline.apply import run_transform
from abstain_build.transforms import NotApplicable, get_registry

from .conftest import gradient_image, png_bytes

INFO = SourceInfo("test", "test", "test.jsonl", 0)


def image_sample(*arrays: np.ndarray, sample_id: str = "img") -> Sample:
    return Sample(
        id=sample_id,
        source=INFO,
        question="What does <image 1> show?",
        answer="A",
        images=tuple(
            ImageRef(key=f"image_{i + 1}", data=png_bytes(a)) for i, a in enumerate(arrays)
        ),
    )


def run(name: str, *arrays: np.ndarray, seed: int = 0, sample_id: str = "img", **params):
    sample = image_sample(*arrays, sample_id=sample_id)
    return run_transform(get_registry().get(name)(**params), sample, SampleInputs(sample), seed)


def decode(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)))


def white(width: int, height: int, channels: int = 3) -> np.ndarray:
    shape = (height, width) if channels == 1 else (height, width, channels)
    return np.full(shape, 255, dtype=np.uint8)


def black_share(array: np.ndarray) -> float:
    colour = array if array.ndim == 2 else array[..., : 3 if array.shape[2] >= 3 else 1]
    black = colour == 0 if colour.ndim == 2 else (colour == 0).all(axis=-1)
    return float(black.mean())


# -- aggressive_crop -----------------------------------------------------------------------


@pytest.mark.parametrize("edge", ["top", "bottom", "left", "right"])
@pytest.mark.parametrize(("width", "height"), [(120, 80), (101, 77), (3, 900)])
def test_aggressive_crop_keeps_exactly_the_other_half(edge: str, width: int, height: int) -> None:
    original = gradient_image(width, height, 3)
    output = run("aggressive_crop", original, edge=edge)
    cropped = decode(output.images[0])
    if edge in ("top", "bottom"):
        assert cropped.shape[1] == width
        assert cropped.shape[0] == height - height // 2
        kept = original[height // 2 :] if edge == "top" else original[: height - height // 2]
    else:
        assert cropped.shape[0] == height
        assert cropped.shape[1] == width - width // 2
        kept = original[:, width // 2 :] if edge == "left" else original[:, : width - width // 2]
    assert np.array_equal(cropped, kept)
    [region] = output.record.edits.regions
    assert region.kind == "crop_removed" and region.role == edge
    assert output.qc["passed"], output.qc


def test_aggressive_crop_draws_every_edge_over_seeds() -> None:
    original = gradient_image(60, 40, 3)
    edges = {
        run("aggressive_crop", original, seed=s).plan.params["per_image"][0]["edge_used"]
        for s in range(40)
    }
    assert edges == {"top", "bottom", "left", "right"}


def test_aggressive_crop_refuses_a_single_pixel() -> None:
    with pytest.raises(NotApplicable, match="too small"):
        run("aggressive_crop", white(1, 1))


# -- aggressive_multi_mask -----------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    width=st.integers(1, 500),
    height=st.integers(1, 500),
    seed=st.integers(0, 2**32 - 1),
)
def test_aggressive_multi_mask_covers_at_least_70_percent(
    width: int, height: int, seed: int
) -> None:
    output = run("aggressive_multi_mask", white(width, height), seed=seed)
    masked = decode(output.images[0])
    assert masked.shape == (height, width, 3)
    assert black_share(masked) >= 0.70
    params = output.plan.params["per_image"][0]
    assert len(params["rects"]) >= 20
    assert params["coverage"] == pytest.approx(black_share(masked), abs=1e-4)


@pytest.mark.parametrize(("width", "height"), [(640, 480), (300, 900), (1200, 200)])
def test_aggressive_multi_mask_rectangles_are_about_15_percent(width: int, height: int) -> None:
    output = run("aggressive_multi_mask", white(width, height), seed=3)
    rects = output.plan.params["per_image"][0]["rects"]
    areas = [(x1 - x0) * (y1 - y0) / (width * height) for x0, y0, x1, y1 in rects]
    assert all(0.12 <= a <= 0.18 for a in areas), areas
    assert all(0 <= x0 < x1 <= width and 0 <= y0 < y1 <= height for x0, y0, x1, y1 in rects)


def test_aggressive_multi_mask_depends_on_the_seed_only() -> None:
    image = gradient_image(200, 150, 3)
    first = run("aggressive_multi_mask", image, seed=5)
    again = run("aggressive_multi_mask", image, seed=5)
    other = run("aggressive_multi_mask", image, seed=6)
    assert first.images == again.images
    assert first.images != other.images


# -- partial_occlusion ---------------------------------------------------------------------


@pytest.mark.parametrize(("width", "height"), [(640, 480), (333, 1000), (90, 90)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_partial_occlusion_draws_nine_alternating_bars(width: int, height: int, seed: int) -> None:
    output = run("partial_occlusion", white(width, height), seed=seed, needs_answer_text=False)
    result = decode(output.images[0])
    bars = output.plan.params["per_image"][0]["bars"]
    assert len(bars) == 9
    painted = np.zeros((height, width), dtype=bool)
    for k, bar in enumerate(bars):
        x0, y0, x1, y1 = bar["rect"]
        assert not painted[y0:y1, x0:x1].any(), "bars must not overlap"
        painted[y0:y1, x0:x1] = True
        side = height if bar["orientation"] == "horizontal" else width
        thickness = (y1 - y0) if bar["orientation"] == "horizontal" else (x1 - x0)
        assert side / 10 - 1 <= thickness <= side / 5 + 1
        row, col = divmod(k, 3)
        neighbour_orientation = bars[k - 1]["orientation"] if col else None
        if neighbour_orientation is not None:
            assert bar["orientation"] != neighbour_orientation, "bars must alternate"
    black = (result == 0).all(axis=-1)
    assert np.array_equal(black, painted), "the black pixels are exactly the nine bars"
    # regular intervals: bar centres sit at the centres of a 3 x 3 grid
    for k, bar in enumerate(bars):
        row, col = divmod(k, 3)
        x0, y0, x1, y1 = bar["rect"]
        assert abs((x0 + x1) / 2 - (col + 0.5) * width / 3) <= 1.5
        assert abs((y0 + y1) / 2 - (row + 0.5) * height / 3) <= 1.5


# -- every image transform on awkward images ----------------------------------------------

IMAGE_TRANSFORMS = [
    "aggressive_crop",
    "aggressive_multi_mask",
    "partial_occlusion",
    "adaptive_darkness",
    "overlay_label_mask",
    "blur_edge_mask",
]
#: These refuse an image printing no answer-bearing word unless told to edit any image.
ANY_IMAGE = {
    name: {"needs_answer_text": False} for name in ("partial_occlusion", "overlay_label_mask")
}


@pytest.mark.parametrize("name", IMAGE_TRANSFORMS)
@pytest.mark.parametrize("mode", ["L", "LA", "RGB", "RGBA", "P", "I;16", "CMYK"])
def test_image_modes_are_kept_or_normalised(name: str, mode: str) -> None:
    rgb = gradient_image(64, 48, 3)
    image = Image.fromarray(rgb)
    if mode == "I;16":
        image = Image.fromarray(rgb[..., 0].astype(np.uint16) * 257)
    elif mode != "RGB":
        image = image.convert(mode)
    if mode in ("LA", "RGBA"):  # a real alpha channel, with transparent parts
        image.putalpha(Image.fromarray(rgb[..., 1]))
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG" if mode == "CMYK" else "PNG")
    sample = Sample(
        id="modes",
        source=INFO,
        question="What does <image 1> show?",
        answer="A",
        images=(ImageRef(key="image_1", data=buffer.getvalue()),),
    )
    inputs = SampleInputs(sample)
    output = run_transform(get_registry().get(name)(**ANY_IMAGE.get(name, {})), sample, inputs, 0)
    result = Image.open(io.BytesIO(output.images[0]))
    expected_mode = {"P": "RGB", "I;16": "L", "CMYK": "RGB"}.get(mode, mode)
    assert result.mode == expected_mode
    assert output.qc["passed"], output.qc


@pytest.mark.parametrize(("mode", "read_as"), [("RGBA", "RGB"), ("LA", "L")])
def test_an_opaque_alpha_channel_is_dropped(mode: str, read_as: str) -> None:
    from abstain_build.media.images import decode_image

    image = Image.fromarray(gradient_image(40, 30, 3)).convert(mode)  # alpha 255 everywhere
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    array = decode_image(buffer.getvalue(), "opaque")
    assert np.array_equal(array, np.asarray(image.convert(read_as)))
    image.putpixel((0, 0), (0,) * (len(mode) - 1) + (254,))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    assert decode_image(buffer.getvalue(), "one translucent pixel").shape[-1] == len(mode)


@pytest.mark.parametrize("name", IMAGE_TRANSFORMS)
@pytest.mark.parametrize(("width", "height"), [(2, 2), (1, 300), (300, 1)])
def test_tiny_and_thin_images(name: str, width: int, height: int) -> None:
    output = run(name, gradient_image(width, height, 3), **ANY_IMAGE.get(name, {}))
    result = decode(output.images[0])
    assert result.ndim == 3 and result.shape[2] == 3


@pytest.mark.parametrize("channels", [1, 2, 3, 4])
def test_lookup_table_kernels_agree_with_and_without_simd(
    channels: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from abstain_build.transforms.functional import pixels

    image = gradient_image(37, 23, channels) if channels != 1 else gradient_image(37, 23, 3)[..., 0]
    if channels == 2:
        image = gradient_image(37, 23, 4)[..., 2:]
    expected_dark = np.rint(image.astype(float) / 15)
    results = []
    for accelerated in (True, False):
        if not accelerated:
            monkeypatch.setattr(pixels, "_stringzilla", None)
        dark = pixels.darken(image, 15)
        veiled = pixels.gray_overlay(image, 0.6)
        if pixels.has_alpha(image):
            assert np.array_equal(dark[..., -1], image[..., -1])
            colour = slice(None, -1)
            assert np.array_equal(dark[..., colour], expected_dark[..., colour])
        else:
            assert np.array_equal(dark, expected_dark)
        results.append((dark, veiled))
    assert np.array_equal(results[0][0], results[1][0])
    assert np.array_equal(results[0][1], results[1][1])


# -- the downsampled Gaussian blur ---------------------------------------------------------


def _full_size_blur(image: np.ndarray, radius: float) -> np.ndarray:
    """PIL's Gaussian at full size, channel by channel: the reference."""
    from PIL import ImageFilter

    planes = [image] if image.ndim == 2 else [image[..., c] for c in range(image.shape[2])]
    blurred = [
        np.asarray(
            Image.fromarray(np.ascontiguousarray(p)).filter(ImageFilter.GaussianBlur(radius))
        )
        for p in planes
    ]
    return blurred[0] if image.ndim == 2 else np.stack(blurred, axis=-1)


def _test_images() -> list[np.ndarray]:
    from .conftest import FIXTURES

    chart = np.asarray(
        Image.open(FIXTURES / "mmmu" / "images" / "fixture_chart_bar_1.png").convert("RGB")
    )
    rng = np.random.default_rng(3)
    noise = rng.integers(0, 256, (301, 457, 3), dtype=np.uint8)
    step = np.zeros((240, 333), dtype=np.uint8)
    step[:, 160:] = 255
    checker = ((np.indices((200, 260)).sum(axis=0) // 7) % 2 * 255).astype(np.uint8)
    return [chart, noise, step, checker, gradient_image(517, 389)]


@pytest.mark.parametrize("radius", [9, 18, 25])
def test_large_blurs_stay_within_a_few_levels_of_the_full_size_gaussian(radius: float) -> None:
    from abstain_build.transforms.functional.pixels import _blur_factor, gaussian_blur

    assert _blur_factor(radius) > 1  # the downsampled path is the one under test
    for image in _test_images():
        ours = gaussian_blur(image, radius).astype(int)
        reference = _full_size_blur(image, radius).astype(int)
        difference = np.abs(ours - reference)
        inner = difference[radius:-radius, radius:-radius]
        assert ours.shape == reference.shape
        # Borders differ most (block averages meet PIL's edge repetition): up to 10 levels
        # in the corners of a 14-pixel black and white checkerboard.
        assert difference.mean() < 0.6, (image.shape, difference.mean())
        assert inner.max() <= 3 and difference.max() <= 12, (image.shape, difference.max())


def test_large_blurs_keep_alpha_and_the_image_mode() -> None:
    from abstain_build.transforms.functional.pixels import gaussian_blur

    rgba = np.dstack([gradient_image(300, 200), np.arange(300 * 200).reshape(200, 300) % 256])
    out = gaussian_blur(rgba.astype(np.uint8), 18)
    assert out.shape == rgba.shape and out.dtype == np.uint8
    assert np.array_equal(out[..., 3], rgba[..., 3])
    la = rgba[..., [0, 3]].astype(np.uint8)
    out = gaussian_blur(la, 18)
    assert out.shape == la.shape and np.array_equal(out[..., 1], la[..., 1])
    tiny = gradient_image(5, 3)
    assert np.array_equal(gaussian_blur(tiny, 18), _full_size_blur(tiny, 18))


def test_blurred_regions_match_the_whole_image_blur() -> None:
    from abstain_build.transforms.functional.pixels import blur_rects, gaussian_blur

    image = _test_images()[0]
    box = (150, 100, 420, 300)
    out = blur_rects(image, [box], 18)
    whole = gaussian_blur(image, 18)
    x0, y0, x1, y1 = box
    inside = np.abs(out[y0:y1, x0:x1].astype(int) - whole[y0:y1, x0:x1].astype(int))
    assert inside.max() <= 2
    outside = out.copy()
    outside[y0:y1, x0:x1] = image[y0:y1, x0:x1]
    assert np.array_equal(outside, image)
