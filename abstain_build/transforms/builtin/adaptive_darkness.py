"""Occlusion ambiguity by extreme underexposure: the image stays, its content does not."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...model import MODALITY, Region
from ..base import ImagePlan, ImageTransform, TransformContext
from ..functional.pixels import darken
from ..params import Param
from ..registry import register_transform


@register_transform
class AdaptiveDarkness(ImageTransform):
    name = "adaptive_darkness"
    family = "occlusion_ambiguity"
    axis = MODALITY
    target = "image"
    description = "Divide every pixel value by 15 (about 3.9 stops darker); alpha is kept."
    params = {
        "divisor": Param(15.0, "value every colour channel is divided by", low=2.0, high=255.0),
    }
    intensity_doc = "100 * (1 - 1/divisor): the share of brightness removed (93.3 at 15)."

    def plan_image(
        self, image: np.ndarray, index: int, rng: np.random.Generator, ctx: TransformContext
    ) -> ImagePlan:
        height, width = image.shape[:2]
        divisor = self.config["divisor"]
        return ImagePlan(
            params={},
            regions=[Region(bbox=(0, 0, width, height), kind="darken", detector="geometry")],
            intensity=100.0 * (1.0 - 1.0 / divisor),
            notes=[f"mean brightness {image.mean():.1f} -> about {image.mean() / divisor:.1f}"],
        )

    def apply_image(self, image: np.ndarray, params: dict[str, Any]) -> np.ndarray:
        return darken(image, params["divisor"])
