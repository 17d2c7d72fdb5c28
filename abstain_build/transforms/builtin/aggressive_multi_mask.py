"""Missing visual information: most of the image under randomly placed black rectangles.

Question-aware: the first rectangles are centred on the answer-bearing words (the gold, the
options, the labels the question names), one after another until each is hidden; the rest
are placed at random as the method draws them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...model import MODALITY, Region
from ..base import ImagePlan, ImageTransform, TransformContext
from ..functional.pixels import fill_rects
from ..functional.targets import answer_targets
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


class _TargetQueue:
    """The answer-bearing words still visible, each aimed at in turn (its first visible
    pixel in reading order) until every one is hidden."""

    def __init__(self, targets: list, width: int, height: int) -> None:
        self.boxes = [
            (
                max(0, int(t.bbox[0])),
                max(0, int(t.bbox[1])),
                min(width, math.ceil(t.bbox[2])),
                min(height, math.ceil(t.bbox[3])),
            )
            for t in targets
        ]
        self.aimed = 0

    def next_centre(self, covered: np.ndarray) -> tuple[float, float] | None:
        for x0, y0, x1, y1 in self.boxes:
            visible = ~covered[y0:y1, x0:x1]
            if visible.any():
                ys, xs = np.nonzero(visible)
                self.aimed += 1
                # The visible pixel nearest the middle of what is left of the word: one
                # rectangle usually hides it, and each one hides at least a pixel more.
                k = int(np.argmin((xs - xs.mean()) ** 2 + (ys - ys.mean()) ** 2))
                return (x0 + float(xs[k]) + 0.5, y0 + float(ys[k]) + 0.5)
        return None

    def detector(self, k: int) -> str:
        return "ocr" if k < self.aimed else "random"


@register_transform
class AggressiveMultiMask(ImageTransform):
    name = "aggressive_multi_mask"
    version = 1
    family = "missing_visual_information"
    axis = MODALITY
    description = (
        "Black rectangles of about 15% of the image area each: 20 of them, the first centred"
        " on the answer-bearing words OCR finds (the gold, the options, the labels the"
        " question names) until each is hidden, the others at random; then more (centred on"
        " still-visible pixels) until at least 70% of the image is covered."
    )
    params = {
        "n_rects": Param(
            20,
            "rectangles placed first (on the answer-bearing words, then at random)",
            low=1,
            high=500,
        ),
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
        found = answer_targets(image, index, ctx)
        aimed = _TargetQueue(found.targets, width, height)
        while len(rects) < self.config["max_rects"]:
            centre = aimed.next_centre(covered)
            if centre is None and len(rects) < self.config["n_rects"]:
                centre = (rng.uniform(0, width), rng.uniform(0, height))
            elif centre is None:
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
        found.require_covered([list(r) for r in rects], image.shape, index, f"{len(rects)} masks")
        share = float(covered.mean())
        notes = [f"{len(rects)} rectangles cover {share:.1%} of the image"]
        if share < target:
            notes.append(f"stopped at max_rects={self.config['max_rects']} below {target:.0%}")
        return ImagePlan(
            params={"rects": [list(r) for r in rects], "coverage": round(share, 4)},
            regions=[
                *(
                    Region(bbox=r, kind="mask", detector=aimed.detector(k))
                    for k, r in enumerate(rects)
                ),
                *found.regions(),
            ],
            intensity=100.0 * share,
            notes=[*notes, *found.notes],
        )

    def apply_image(self, image: np.ndarray, params: dict[str, Any]) -> np.ndarray:
        return fill_rects(image, params["rects"])
