"""Occlusion ambiguity: the image heavily blurred, its titles and edge labels blacked out."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...model import MODALITY, Region
from ...routing.features import Features
from ..base import ImagePlan, ImageTransform, TransformContext
from ..functional.asks import shape_ask
from ..functional.labels import label_masks, parse_roles
from ..functional.pixels import blur_rects, coverage, fill_rects
from ..functional.targets import answer_targets
from ..params import Param
from ..registry import register_transform


def central_box(width: int, height: int, area: float) -> tuple[int, int, int, int]:
    """The centred rectangle with the image's aspect ratio and ``area`` of its surface."""
    scale = math.sqrt(area)
    box_w, box_h = max(1, round(width * scale)), max(1, round(height * scale))
    x0, y0 = (width - box_w) // 2, (height - box_h) // 2
    return x0, y0, x0 + box_w, y0 + box_h


@register_transform
class BlurEdgeMask(ImageTransform):
    name = "blur_edge_mask"
    version = 2
    declines_questions = (shape_ask,)
    family = "occlusion_ambiguity"
    axis = MODALITY
    description = (
        "Gaussian blur of radius 18 px over the central 85% of the image, then black masks"
        " over the titles, axis labels and captions found by OCR (edge bands when none is"
        " found), and over every answer-bearing word (the gold, the options, the labels the"
        " question names)."
        " Not applicable to a question about the shape of what a plot draws (a trend, a"
        " correlation): the edit leaves the cloud of points and the slope."
    )
    params = {
        "radius": Param(18.0, "Gaussian blur radius, in pixels of the image", low=0.5, high=500.0),
        "blur_area": Param(
            0.85, "share of the image blurred (a centred rectangle)", low=0.05, high=1.0
        ),
        "mask_roles": Param(
            "title,axis_label,caption", "comma-separated text roles to black out", check=parse_roles
        ),
    }
    intensity_doc = "100 * share of the image blurred or masked."

    def affinity(self, features: Features) -> float:
        """Routing: labels matter most to questions about charts and diagrams."""
        return min(1.0, super().affinity(features) + 0.1 * features.visual_keywords)

    def plan_image(
        self, image: np.ndarray, index: int, rng: np.random.Generator, ctx: TransformContext
    ) -> ImagePlan:
        height, width = image.shape[:2]
        blurred = central_box(width, height, self.config["blur_area"])
        masks, notes, detector = label_masks(image, parse_roles(self.config["mask_roles"]))
        found = answer_targets(image, index, ctx)
        masks += found.masks_over([list(region.bbox) for region in masks], image.shape)
        rects = [list(region.bbox) for region in masks]
        touched = coverage((height, width), [blurred, *rects])
        blur_region = Region(bbox=blurred, kind="blur", detector="geometry")
        return ImagePlan(
            params={"blur_box": list(blurred), "masks": rects, "detector": detector},
            regions=[blur_region, *masks, *found.regions()],
            intensity=100.0 * touched,
            notes=[
                f"blurred {blurred} with radius {self.config['radius']:g} px",
                *notes,
                *found.notes,
            ],
        )

    def apply_image(self, image: np.ndarray, params: dict[str, Any]) -> np.ndarray:
        blurred = blur_rects(image, [params["blur_box"]], params["radius"])
        return fill_rects(blurred, params["masks"])
