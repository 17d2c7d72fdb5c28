"""Missing visual information: a gray veil over the image and its labels blacked out."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...model import MODALITY, Region
from ...routing.features import Features
from ..base import ImagePlan, ImageTransform, TransformContext
from ..functional.asks import shape_ask
from ..functional.labels import label_masks, parse_roles
from ..functional.pixels import coverage, fill_rects, gray_overlay
from ..functional.targets import answer_targets
from ..params import Param
from ..registry import register_transform


@register_transform
class OverlayLabelMask(ImageTransform):
    name = "overlay_label_mask"
    version = 2
    declines_questions = (shape_ask,)
    family = "missing_visual_information"
    axis = MODALITY
    description = (
        "A semi-transparent gray layer (alpha 0.6) over the whole image, then opaque black"
        " masks over the titles, axis labels, legends and captions found by OCR (edge bands"
        " when no such text is found), and over every answer-bearing word (the gold, the"
        " options, the labels the question names). Not applicable to an image that prints"
        " no answer-bearing word: a veil leaves a picture readable."
        " Not applicable to a question about the shape of what a plot draws (a trend, a"
        " correlation): the edit leaves the cloud of points and the slope."
    )
    params = {
        "alpha": Param(0.6, "opacity of the gray layer", low=0.0, high=1.0),
        "gray": Param(128, "gray level of the layer", low=0, high=255),
        "mask_roles": Param(
            "title,axis_label,legend,caption",
            "comma-separated text roles to black out",
            check=parse_roles,
        ),
        "needs_answer_text": Param(
            True,
            "not applicable to an image printing no answer-bearing word (false: edit any"
            " image, as the paper does)",
        ),
    }
    intensity_doc = "100 * (alpha + (1 - alpha) * share of the image under masks)."

    def affinity(self, features: Features) -> float:
        """Routing: labels matter most to questions about charts and diagrams."""
        return min(1.0, super().affinity(features) + 0.1 * features.visual_keywords)

    def plan_image(
        self, image: np.ndarray, index: int, rng: np.random.Generator, ctx: TransformContext
    ) -> ImagePlan:
        height, width = image.shape[:2]
        found = answer_targets(image, index, ctx)
        if self.config["needs_answer_text"]:
            found.require_some(index, "under a gray veil the picture itself stays readable")
        masks, notes, detector = label_masks(image, parse_roles(self.config["mask_roles"]))
        masks += found.masks_over([list(region.bbox) for region in masks], image.shape)
        rects = [list(region.bbox) for region in masks]
        masked = coverage((height, width), rects)
        alpha = self.config["alpha"]
        overlay = Region(bbox=(0, 0, width, height), kind="overlay", detector="geometry")
        return ImagePlan(
            params={"masks": rects, "detector": detector, "masked_share": round(masked, 4)},
            regions=[overlay, *masks, *found.regions()],
            intensity=100.0 * (alpha + (1.0 - alpha) * masked),
            notes=[*notes, *found.notes],
        )

    def apply_image(self, image: np.ndarray, params: dict[str, Any]) -> np.ndarray:
        veiled = gray_overlay(image, params["alpha"], params["gray"])
        return fill_rects(veiled, params["masks"])
