"""Missing visual information: half the image, cut from one edge, is gone.

Question-aware: the edge is drawn among those whose cut takes every answer-bearing word
(the gold, the options, the labels the question names, the operands) with it; when no edge
does, the transform is not applicable to the image.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...evidence.image_targets import summary
from ...model import MODALITY, Region
from ..base import ImagePlan, ImageTransform, NotApplicable, TransformContext
from ..functional.targets import answer_targets
from ..params import Param
from ..registry import register_transform

EDGES = ("top", "bottom", "left", "right")


@register_transform
class AggressiveCrop(ImageTransform):
    name = "aggressive_crop"
    version = 1
    family = "missing_visual_information"
    axis = MODALITY
    changes_geometry = True
    description = (
        "Cut away the outer 50% of the image from one edge (top, bottom, left or right),"
        " drawn at random among the edges whose cut takes every answer-bearing word the"
        " image prints (the gold, the options, the labels the question names) with it."
    )
    params = {
        "edge": Param("random", "edge to cut from", choices=("random", *EDGES)),
        "fraction": Param(0.5, "share of the image removed along that edge", low=0.05, high=0.95),
    }
    intensity_doc = "100 * share of the image area removed (50 by default)."

    def plan_image(
        self, image: np.ndarray, index: int, rng: np.random.Generator, ctx: TransformContext
    ) -> ImagePlan:
        height, width = image.shape[:2]
        fraction = self.config["fraction"]
        boxes = {
            edge: _box(edge, _cut(edge, fraction, width, height), width, height)
            for edge in EDGES
            if _cut(edge, fraction, width, height) >= 1
        }
        found = answer_targets(image, index, ctx)
        left = {edge: found.uncovered([box], image.shape) for edge, box in boxes.items()}
        reaching = [edge for edge in boxes if not left[edge]]
        edge = self.config["edge"]
        if edge == "random":
            if not boxes:
                raise NotApplicable(f"image {index + 1} is {width}x{height}: too small to crop")
            if not reaching:
                raise NotApplicable(
                    f"image {index + 1}: no edge's {fraction:.0%} cut takes all the"
                    f" answer-bearing text ({found.summary()})"
                )
            edge = str(rng.choice(reaching))
        elif edge not in boxes:
            raise NotApplicable(
                f"image {index + 1} is {width}x{height}: nothing to cut from the {edge} edge"
            )
        elif left[edge]:
            raise NotApplicable(
                f"image {index + 1}: the {edge} cut leaves answer-bearing text:"
                f" {summary(left[edge])}"
            )
        along = height if edge in ("top", "bottom") else width
        cut = _cut(edge, fraction, width, height)
        detector = "ocr" if found.targets else "random"
        return ImagePlan(
            params={"edge_used": edge, "removed_px": cut},
            regions=[
                Region(bbox=boxes[edge], kind="crop_removed", detector=detector, role=edge),
                *found.regions(),
            ],
            intensity=100.0 * cut / along,
            notes=[f"cut {cut} of {along} px from the {edge} edge", *found.notes],
        )

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
