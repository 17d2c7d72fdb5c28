"""Occlusion ambiguity: a regular lattice of black bars over the image."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...model import MODALITY, Region
from ..base import ImagePlan, ImageTransform, TransformContext
from ..functional.pixels import coverage, fill_rects
from ..params import Param
from ..registry import register_transform


@register_transform
class PartialOcclusion(ImageTransform):
    name = "partial_occlusion"
    family = "occlusion_ambiguity"
    axis = MODALITY
    description = (
        "9 solid black bars at regular intervals: the image is split into a 3 x 3 grid and each"
        " cell gets one bar across its full length through its centre, horizontal and vertical"
        " alternating like a chequerboard; each bar is W/10 to W/5 thick (H/10 to H/5 for"
        " horizontal bars), drawn at random."
    )
    params = {
        "n_bars": Param(
            9, "number of bars (laid out on the smallest square grid holding them)", low=1, high=100
        ),
        "min_width": Param(
            0.10, "thinnest bar, as a share of the image side it crosses", low=0.01, high=1.0
        ),
        "max_width": Param(
            0.20, "thickest bar, as a share of the image side it crosses", low=0.01, high=1.0
        ),
        "first": Param(
            "random", "orientation of the first bar", choices=("random", "horizontal", "vertical")
        ),
    }
    intensity_doc = "100 * share of the image area covered by the bars."

    def plan_image(
        self, image: np.ndarray, index: int, rng: np.random.Generator, ctx: TransformContext
    ) -> ImagePlan:
        height, width = image.shape[:2]
        n_bars = self.config["n_bars"]
        side = math.ceil(math.sqrt(n_bars))
        rows = math.ceil(n_bars / side)
        low = self.config["min_width"]
        high = max(low, self.config["max_width"])
        first = self.config["first"]
        if first == "random":
            first = "horizontal" if rng.random() < 0.5 else "vertical"
        bars: list[dict[str, Any]] = []
        for k in range(n_bars):
            row, col = divmod(k, side)
            x0, x1 = col * width / side, (col + 1) * width / side
            y0, y1 = row * height / rows, (row + 1) * height / rows
            horizontal = ((row + col) % 2 == 0) == (first == "horizontal")
            share = float(rng.uniform(low, high))
            if horizontal:
                thickness = max(1, round(share * height))
                centre = (y0 + y1) / 2
                top = min(max(0, round(centre - thickness / 2)), height - thickness)
                rect = (round(x0), top, round(x1), top + thickness)
            else:
                thickness = max(1, round(share * width))
                centre = (x0 + x1) / 2
                left = min(max(0, round(centre - thickness / 2)), width - thickness)
                rect = (left, round(y0), left + thickness, round(y1))
            bars.append(
                {
                    "rect": list(rect),
                    "orientation": "horizontal" if horizontal else "vertical",
                    "thickness_px": thickness,
                }
            )
        rects = [bar["rect"] for bar in bars]
        share = coverage((height, width), rects)
        return ImagePlan(
            params={"bars": bars, "first_used": first},
            regions=[
                Region(
                    bbox=tuple(bar["rect"]),
                    kind="bar",
                    detector="geometry",
                    role=bar["orientation"],
                )
                for bar in bars
            ],
            intensity=100.0 * share,
            notes=[f"{n_bars} bars on a {rows} x {side} grid cover {share:.1%} of the image"],
        )

    def apply_image(self, image: np.ndarray, params: dict[str, Any]) -> np.ndarray:
        return fill_rects(image, [bar["rect"] for bar in params["bars"]])
