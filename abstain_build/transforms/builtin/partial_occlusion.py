"""Occlusion ambiguity: a regular lattice of black bars over the image.

Question-aware: each bar still crosses its own cell of the grid, with the method's
orientation and thickness range, but it slides across the cell (and thickens within the
range) to lie over the answer-bearing words printed there. When the words cannot all be
hidden by the nine bars, with either chequerboard, the transform is not applicable; so it
is on an image that prints no answer-bearing word, where bars about half as wide as a
cell leave the picture readable between them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...model import MODALITY, Region
from ..base import ImagePlan, ImageTransform, TransformContext
from ..functional.asks import shape_ask
from ..functional.pixels import coverage, fill_rects
from ..functional.targets import ImageTargets, answer_targets
from ..params import Param
from ..registry import register_transform


@register_transform
class PartialOcclusion(ImageTransform):
    name = "partial_occlusion"
    version = 2
    declines_questions = (shape_ask,)
    family = "occlusion_ambiguity"
    axis = MODALITY
    description = (
        "9 solid black bars at regular intervals: the image is split into a 3 x 3 grid and each"
        " cell gets one bar across its full length through its centre, horizontal and vertical"
        " alternating like a chequerboard; each bar is W/10 to W/5 thick (H/10 to H/5 for"
        " horizontal bars), drawn at random, and slides across its cell (thickening within"
        " that range) to lie over the answer-bearing words OCR finds there. Not applicable to"
        " an image that prints no answer-bearing word."
        " Not applicable to a question about the shape of what a plot draws (a trend, a"
        " correlation): the edit leaves the cloud of points and the slope."
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
        "needs_answer_text": Param(
            True,
            "not applicable to an image printing no answer-bearing word (false: edit any"
            " image, as the paper does)",
        ),
    }
    intensity_doc = "100 * share of the image area covered by the bars."

    def plan_image(
        self, image: np.ndarray, index: int, rng: np.random.Generator, ctx: TransformContext
    ) -> ImagePlan:
        height, width = image.shape[:2]
        n_bars = self.config["n_bars"]
        low = self.config["min_width"]
        high = max(low, self.config["max_width"])
        first = self.config["first"]
        if first == "random":
            first = "horizontal" if rng.random() < 0.5 else "vertical"
            orders = [first, "vertical" if first == "horizontal" else "horizontal"]
        else:
            orders = [first]
        shares = [float(rng.uniform(low, high)) for _ in range(n_bars)]
        found = answer_targets(image, index, ctx)
        if self.config["needs_answer_text"]:
            found.require_some(index, f"{n_bars} bars leave about half of a picture in view")
        for first in orders:
            bars = _lattice(image.shape, shares, first, high, found)
            if not found.uncovered([bar["rect"] for bar in bars], image.shape):
                break
        else:
            found.require_covered(
                [bar["rect"] for bar in bars], image.shape, index, f"{n_bars} bars"
            )
        rects = [bar["rect"] for bar in bars]
        share = coverage((height, width), rects)
        side = math.ceil(math.sqrt(n_bars))
        rows = math.ceil(n_bars / side)
        return ImagePlan(
            params={"bars": bars, "first_used": first},
            regions=[
                *(
                    Region(
                        bbox=tuple(bar["rect"]),
                        kind="bar",
                        detector="ocr" if bar["aimed"] else "geometry",
                        role=bar["orientation"],
                    )
                    for bar in bars
                ),
                *found.regions(),
            ],
            intensity=100.0 * share,
            notes=[
                f"{n_bars} bars on a {rows} x {side} grid cover {share:.1%} of the image",
                *found.notes,
            ],
        )

    def apply_image(self, image: np.ndarray, params: dict[str, Any]) -> np.ndarray:
        return fill_rects(image, [bar["rect"] for bar in params["bars"]])


def _lattice(
    shape: tuple[int, ...],
    shares: list[float],
    first: str,
    high: float,
    found: ImageTargets,
) -> list[dict[str, Any]]:
    """One bar per grid cell, alternating from ``first``; a bar whose cell holds
    answer-bearing words lies over as many of them as a bar ``high`` thick can."""
    height, width = shape[:2]
    n_bars = len(shares)
    side = math.ceil(math.sqrt(n_bars))
    rows = math.ceil(n_bars / side)
    bars: list[dict[str, Any]] = []
    for k, share in enumerate(shares):
        row, col = divmod(k, side)
        x0, x1 = col * width / side, (col + 1) * width / side
        y0, y1 = row * height / rows, (row + 1) * height / rows
        horizontal = ((row + col) % 2 == 0) == (first == "horizontal")
        across = height if horizontal else width
        thickness = max(1, round(share * across))
        centre = (y0 + y1) / 2 if horizontal else (x0 + x1) / 2
        spans = _spans_in_cell(found, (x0, y0, x1, y1), horizontal)
        aimed = _window(spans, max(thickness, round(high * across)))
        if aimed is not None:
            thickness = max(thickness, math.ceil(aimed[1] - aimed[0]))
            centre = (aimed[0] + aimed[1]) / 2
        start = min(max(0, round(centre - thickness / 2)), across - thickness)
        if horizontal:
            rect = (round(x0), start, round(x1), start + thickness)
        else:
            rect = (start, round(y0), start + thickness, round(y1))
        bars.append(
            {
                "rect": list(rect),
                "orientation": "horizontal" if horizontal else "vertical",
                "thickness_px": thickness,
                "aimed": aimed is not None,
            }
        )
    return bars


def _spans_in_cell(
    found: ImageTargets, cell: tuple[float, float, float, float], horizontal: bool
) -> list[tuple[float, float]]:
    """The extent, across the bar, of each answer-bearing word with a part in ``cell``."""
    x0, y0, x1, y1 = cell
    spans = []
    for target in found.targets:
        a0, b0, a1, b1 = target.bbox
        if min(a1, x1) - max(a0, x0) <= 0 or min(b1, y1) - max(b0, y0) <= 0:
            continue
        spans.append((b0, b1) if horizontal else (a0, a1))
    return spans


def _window(spans: list[tuple[float, float]], longest: int) -> tuple[float, float] | None:
    """The stretch no longer than ``longest`` holding the most ``spans`` whole (the span
    they cover), or None when there are none."""
    best: tuple[int, float, float] | None = None
    for start, _ in sorted(spans):
        inside = [(a, b) for a, b in spans if a >= start and b <= start + longest]
        if not inside:
            continue
        candidate = (len(inside), min(a for a, _ in inside), max(b for _, b in inside))
        if best is None or candidate[0] > best[0]:
            best = candidate
    return None if best is None else (best[1], best[2])
