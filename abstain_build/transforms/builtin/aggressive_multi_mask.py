"""Missing visual information: most of the image under randomly placed black rectangles."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...model import MODALITY, Region
from ..base import ImagePlan, ImageTransform, TransformContext
from ..functional.pixels import fill_rects
from ..params import Param
from ..registry import register_transform


def _rect_of_area(
    rng: np.random.Generator, area: float, width: int, height: int, centre: tuple[float, float]
) -> tuple[int, int, int, int]:
    """A rectangle of about ``area`` pixels, random aspect ratio, centred near ``centre``."""
    aspect = math.exp(rng.uniform(math.log(0.5), math.log(2.0)))  # width / height
    rect_w = min(width, max(1, round(math.sqrt(area * aspect))))
    rect_h = min(height, max(1, round(area / rect_w)))
    rect_w = min(width, max(rect_w, round(area / rect_h)))  # thin images: use the free side
    x0 = min(max(0, round(centre[0] - rect_w / 2)), width - rect_w)
    y0 = min(max(0, round(centre[1] - rect_h / 2)), height - rect_h)
    return x0, y0, x0 + rect_w, y0 + rect_h


@register_transform
class AggressiveMultiMask(ImageTransform):
    name = "aggressive_multi_mask"
    family = "missing_visual_information"
    axis = MODALITY
    description = (
        "Black rectangles of about 15% of the image area each, placed at random: 20 of them,"
        " then more (centred on still-visible pixels) until at least 70% of the image is covered."
    )
    params = {
        "n_rects": Param(20, "rectangles placed uniformly at random first", low=1, high=500),
        "rect_area": Param(
            0.15, "area of each rectangle, as a share of the image", low=0.01, high=1.0
        ),
        "min_coverage": Param(
            0.70, "share of the image that must end up covered", low=0.0, high=1.0
        ),
        "max_rects": Param(400, "most rectangles placed in total", low=1, high=10_000),
    }
    intensity_doc = "100 * share of the image area covered (the union of the rectangles)."

    def plan_image(
        self, image: np.ndarray, index: int, rng: np.random.Generator, ctx: TransformContext
    ) -> ImagePlan:
        height, width = image.shape[:2]
        area = self.config["rect_area"] * width * height
        covered = np.zeros((height, width), dtype=bool)
        rects: list[tuple[int, int, int, int]] = []
        target = self.config["min_coverage"]
        while len(rects) < self.config["max_rects"]:
            if len(rects) < self.config["n_rects"]:
                centre = (rng.uniform(0, width), rng.uniform(0, height))
            else:
                if covered.mean() >= target:
                    break
                # Aim at a pixel that is still visible, so coverage always grows.
                free = np.flatnonzero(~covered)
                pick = int(free[rng.integers(free.size)])
                centre = (pick % width + 0.5, pick // width + 0.5)
            rect = _rect_of_area(rng, area, width, height, centre)
            x0, y0, x1, y1 = rect
            covered[y0:y1, x0:x1] = True
            rects.append(rect)
        share = float(covered.mean())
        notes = [f"{len(rects)} rectangles cover {share:.1%} of the image"]
        if share < target:
            notes.append(f"stopped at max_rects={self.config['max_rects']} below {target:.0%}")
        return ImagePlan(
            params={"rects": [list(r) for r in rects], "coverage": round(share, 4)},
            regions=[Region(bbox=r, kind="mask", detector="random") for r in rects],
            intensity=100.0 * share,
            notes=notes,
        )

    def apply_image(self, image: np.ndarray, params: dict[str, Any]) -> np.ndarray:
        return fill_rects(image, params["rects"])
