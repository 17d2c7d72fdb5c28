"""Missing visual information: half the image, cut from one edge, is gone."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...model import MODALITY, Region
from ..base import ImagePlan, ImageTransform, NotApplicable, TransformContext
from ..params import Param
from ..registry import register_transform

EDGES = ("top", "bottom", "left", "right")


@register_transform
class AggressiveCrop(ImageTransform):
    name = "aggressive_crop"
    family = "missing_visual_information"
    axis = MODALITY
    changes_geometry = True
    description = (
        "Cut away the outer 50% of the image from one edge (top, bottom, left or right, drawn"
        " at random), taking with it the labels, legend or data on that side."
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
        usable = [
            edge
            for edge in EDGES
            if int((height if edge in ("top", "bottom") else width) * fraction) >= 1
        ]
        edge = self.config["edge"]
        if edge == "random":
            if not usable:
                raise NotApplicable(f"image {index + 1} is {width}x{height}: too small to crop")
            edge = str(rng.choice(usable))
        elif edge not in usable:
            raise NotApplicable(
                f"image {index + 1} is {width}x{height}: nothing to cut from the {edge} edge"
            )
        along = height if edge in ("top", "bottom") else width
        cut = int(along * fraction)
        box = _box(edge, cut, width, height)
        return ImagePlan(
            params={"edge_used": edge, "removed_px": cut},
            regions=[Region(bbox=box, kind="crop_removed", detector="random", role=edge)],
            intensity=100.0 * cut / along,
            notes=[f"cut {cut} of {along} px from the {edge} edge"],
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


def _box(edge: str, cut: int, width: int, height: int) -> tuple[int, int, int, int]:
    if edge == "top":
        return 0, 0, width, cut
    if edge == "bottom":
        return 0, height - cut, width, height
    if edge == "left":
        return 0, 0, cut, height
    return width - cut, 0, width, height
