"""Missing visual information: half the image, cut from one edge, is gone.

Question-aware: the edge is drawn among those whose cut takes every answer-bearing word
(the gold, the options, the labels the question names, the operands) with it; when no edge
does, the transform is not applicable to the image.

An image printing no answer-bearing word (a musical score, a radiograph, a specimen photo)
gives the crop nothing to aim at, and a half drawn at random often keeps what the question
is about: the notes under a bracket, the enlarged organs. There the cut goes where the
image's content is, measured as *detail density*: the gray image is reduced by block means
to :data:`DETAIL_SIDE` pixels on its longer side (so a 1,000 px film and a 150 px note are
judged at one scale), brightness steps between neighbours below :data:`FLAT_STEP` levels
count as flat background (smooth shading, JPEG noise, paper grain), as do steps within
the grain of an image grainy all over (:data:`GRAIN`: dithering, halftone), and a place
holds detail in proportion to the smaller of its average step across and its average
step along (over a window of :data:`DETAIL_REACH` cells each side). Glyphs, noteheads,
bones, tissue and texture change brightness both ways and count; a long straight rule
changes it one way only, so staff lines, ECG grid lines, frames and axes, which run across
the whole image and tell nothing, do not decide where the content is. The cut is the edge
whose removed part holds the most detail, and it must hold at least ``min_salient_removed``
of it; otherwise the content is spread over the image or sits in its centre, and a
half-crop cannot remove it. An image with no detail at all (blank, smoothly shaded, a few
pixels) has no content a cut could keep, and its edge is drawn at random.

The default, 65%, keeps the kept half under 35% of the detail. Among real MMMU images
printing no answer-bearing text, the spread ones stay under it (a photographed bowel
specimen 55%, an ECG strip 58%, an abdominal film with both kidneys enlarged 62%), and a
score whose bracketed notes sit left of the middle reaches it (68%, cut from the left).

The measure is plain numpy, not an OpenCV saliency model: it adds no ~50 MB wheel, it is
deterministic across platforms and versions, and it says exactly what it found (the share
of detail each edge's cut removes, written in the plan's notes), which a learned saliency
map does not.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...evidence.image_targets import summary
from ...media.images import box_mean, luma
from ...model import MODALITY, Region
from ...textregions.ocr import prepare_pixels
from ..base import ImagePlan, ImageTransform, NotApplicable, TransformContext
from ..functional.targets import ImageTargets, answer_targets
from ..params import Param
from ..registry import register_transform

EDGES = ("top", "bottom", "left", "right")

#: Longer side (pixels) of the block-mean image detail is measured on.
DETAIL_SIDE = 256
#: Brightness steps (0-255) between neighbouring cells below this are flat background.
FLAT_STEP = 8.0
#: Steps up to this many times the image's median step are grain (dithering, halftone,
#: film grain): pure noise makes 99% of its steps under four times their median, while
#: drawings, scans and radiographs mostly have a median step of 0 to 2 levels, which
#: leaves :data:`FLAT_STEP` in force.
GRAIN = 4.0
#: Cells on each side of a place over which its steps across and along are averaged.
DETAIL_REACH = 2
#: An image narrower or lower than this (pixels) is too small to say where its detail is.
MIN_MEASURED = 16


@register_transform
class AggressiveCrop(ImageTransform):
    name = "aggressive_crop"
    version = 2
    family = "missing_visual_information"
    axis = MODALITY
    changes_geometry = True
    description = (
        "Cut away the outer 50% of the image from one edge (top, bottom, left or right)."
        " On an image printing answer-bearing words (the gold, the options, the labels the"
        " question names) the edge is drawn at random among those whose cut takes every"
        " such word with it. On an image printing none, the cut is the edge whose part holds"
        " the most detail (local contrast across and along, flat background ignored), and"
        " that part must hold at least min_salient_removed (65%) of the image's detail;"
        " when the detail is spread over the image or sits in its centre, not applicable."
    )
    params = {
        "edge": Param("random", "edge to cut from", choices=("random", *EDGES)),
        "fraction": Param(0.5, "share of the image removed along that edge", low=0.05, high=0.95),
        "min_salient_removed": Param(
            0.65,
            "share of the image's detail the cut must remove when the image prints no"
            " answer-bearing text",
            low=0.0,
            high=1.0,
        ),
    }
    intensity_doc = "100 * share of the image area removed (50 by default)."

    def plan_image(
        self, image: np.ndarray, index: int, rng: np.random.Generator, ctx: TransformContext
    ) -> ImagePlan:
        height, width = image.shape[:2]
        fraction = self.config["fraction"]
        cuts = {edge: _cut(edge, fraction, width, height) for edge in EDGES}
        boxes = {edge: _box(edge, cut, width, height) for edge, cut in cuts.items() if cut >= 1}
        found = answer_targets(image, index, ctx)
        edge = self.config["edge"]
        if edge == "random" and not boxes:
            raise NotApplicable(f"image {index + 1} is {width}x{height}: too small to crop")
        if edge != "random" and edge not in boxes:
            raise NotApplicable(
                f"image {index + 1} is {width}x{height}: nothing to cut from the {edge} edge"
            )
        if found.targets:
            edge = _edge_for_text(edge, found, boxes, image.shape, index, fraction, rng)
            detector, measured = "ocr", []
        else:
            edge, detector, measured = self._edge_for_detail(edge, image, cuts, boxes, index, rng)
        along = height if edge in ("top", "bottom") else width
        cut = cuts[edge]
        return ImagePlan(
            params={"edge_used": edge, "removed_px": cut},
            regions=[
                Region(bbox=boxes[edge], kind="crop_removed", detector=detector, role=edge),
                *found.regions(),
            ],
            intensity=100.0 * cut / along,
            notes=[f"cut {cut} of {along} px from the {edge} edge", *measured, *found.notes],
        )

    def _edge_for_detail(
        self,
        edge: str,
        image: np.ndarray,
        cuts: dict[str, int],
        boxes: dict[str, tuple[int, int, int, int]],
        index: int,
        rng: np.random.Generator,
    ) -> tuple[str, str, list[str]]:
        """The edge whose cut removes the image's salient content, its detector and notes.

        An image with no detail to locate (blank, smoothly shaded, a few pixels) has no
        content a cut could keep: its edge is drawn at random.
        """
        shares = removed_detail(image, {e: cuts[e] for e in boxes})
        if shares is None:
            chosen = str(rng.choice(list(boxes))) if edge == "random" else edge
            return chosen, "random", ["no detail to locate (blank, smooth or tiny image)"]
        measured = f"detail removed per edge: {_percentages(shares)}"
        least = self.config["min_salient_removed"]
        if edge == "random":
            edge = max(boxes, key=lambda e: shares[e])
            if shares[edge] < least:
                raise NotApplicable(
                    f"image {index + 1} prints no answer-bearing text and its detail is spread"
                    f" over the image or sits in its centre: no edge's cut removes {least:.0%}"
                    f" of it ({measured}), so a half-crop cannot remove its content"
                )
        elif shares[edge] < least:
            raise NotApplicable(
                f"image {index + 1} prints no answer-bearing text and the {edge} cut removes"
                f" {shares[edge]:.0%} of its detail, under {least:.0%} ({measured})"
            )
        return edge, "image_analysis", [measured]

    def apply_image(self, image: np.ndarray, params: dict[str, Any]) -> np.ndarray:
        edge, cut = params["edge_used"], params["removed_px"]
        if edge == "top":
            kept = image[cut:]
        elif edge == "bottom":
            kept = image[: image.shape[0] - cut]
        elif edge == "left":
            kept = image[:, cut:]
        else:
            kept = image[:, : image.shape[1] - cut]
        return np.ascontiguousarray(kept)


def _edge_for_text(
    edge: str,
    found: ImageTargets,
    boxes: dict[str, tuple[int, int, int, int]],
    shape: tuple[int, ...],
    index: int,
    fraction: float,
    rng: np.random.Generator,
) -> str:
    """An edge whose cut takes every answer-bearing word: drawn at random among them."""
    left = {e: found.uncovered([box], shape) for e, box in boxes.items()}
    if edge == "random":
        reaching = [e for e in boxes if not left[e]]
        if not reaching:
            raise NotApplicable(
                f"image {index + 1}: no edge's {fraction:.0%} cut takes all the"
                f" answer-bearing text ({found.summary()})"
            )
        return str(rng.choice(reaching))
    if left[edge]:
        raise NotApplicable(
            f"image {index + 1}: the {edge} cut leaves answer-bearing text: {summary(left[edge])}"
        )
    return edge


# -- detail density ------------------------------------------------------------------------


def detail_map(image: np.ndarray) -> tuple[np.ndarray, int] | None:
    """Where the image's detail is, on block-mean cells of ``factor`` pixels a side.

    Returns the map and the factor; ``None`` when the image is too small to measure.
    """
    pixels = prepare_pixels(image)
    height, width = pixels.shape[:2]
    if min(height, width) < MIN_MEASURED:
        return None
    factor = max(1, math.ceil(max(height, width) / DETAIL_SIDE))
    rows, cols = height // factor, width // factor
    trimmed = pixels[: rows * factor, : cols * factor]
    blocks = trimmed.reshape(rows, factor, cols, factor, -1).mean(axis=(1, 3), dtype=np.float32)
    gray = blocks[..., 0] if blocks.shape[-1] == 1 else luma(blocks).astype(np.float32)
    across = np.zeros_like(gray)
    along = np.zeros_like(gray)
    across[:, :-1] = np.abs(np.diff(gray, axis=1))
    along[:-1, :] = np.abs(np.diff(gray, axis=0))
    floor = _flat_step(across[:, :-1], along[:-1, :])
    across[across < floor] = 0.0
    along[along < floor] = 0.0
    side = 2 * DETAIL_REACH + 1
    detail = np.minimum(box_mean(across, side), box_mean(along, side)).astype(np.float32)
    return np.maximum(detail, 0.0), factor


def _flat_step(across: np.ndarray, along: np.ndarray) -> float:
    """The step below which brightness changes are background: :data:`FLAT_STEP`, or
    :data:`GRAIN` times the image's median step when grain covers the whole image."""
    steps = np.concatenate([across.ravel(), along.ravel()])
    median = float(np.median(steps)) if steps.size else 0.0
    return max(FLAT_STEP, GRAIN * median)


def detail_profiles(image: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The image's detail summed per pixel row and per pixel column; ``None`` when there is
    none to locate (too small, blank, smoothly shaded or grain only)."""
    measured = detail_map(image)
    if measured is None:
        return None
    detail, factor = measured
    if float(detail.sum()) <= 0.0:
        return None
    height, width = image.shape[:2]
    rows = np.repeat(detail.sum(axis=1) / factor, factor)
    cols = np.repeat(detail.sum(axis=0) / factor, factor)
    return np.pad(rows, (0, height - rows.size)), np.pad(cols, (0, width - cols.size))


def removed_detail(image: np.ndarray, cuts: dict[str, int]) -> dict[str, float] | None:
    """Per edge, the share of the image's detail a cut of ``cuts[edge]`` pixels removes;
    ``None`` when the image has no detail to locate."""
    profiles = detail_profiles(image)
    if profiles is None:
        return None
    rows, cols = profiles
    total = float(rows.sum())
    return {edge: _removed_mass(edge, cut, rows, cols) / total for edge, cut in cuts.items()}


def _removed_mass(edge: str, cut: int, rows: np.ndarray, cols: np.ndarray) -> float:
    profile = rows if edge in ("top", "bottom") else cols
    part = profile[:cut] if edge in ("top", "left") else profile[profile.size - cut :]
    return float(part.sum())


def _percentages(shares: dict[str, float]) -> str:
    return ", ".join(f"{edge} {share:.0%}" for edge, share in shares.items())


def _cut(edge: str, fraction: float, width: int, height: int) -> int:
    return int((height if edge in ("top", "bottom") else width) * fraction)


def _box(edge: str, cut: int, width: int, height: int) -> tuple[int, int, int, int]:
    if edge == "top":
        return 0, 0, width, cut
    if edge == "bottom":
        return 0, height - cut, width, height
    if edge == "left":
        return 0, 0, cut, height
    return width - cut, 0, width, height
