"""Occlusion ambiguity by extreme underexposure: the image stays, its content does not.

Dividing by 15 keeps about 17 gray levels, and a contrast stretch spreads them back over
0-255: printed text comes back legible. So an image that prints answer-bearing words (the
gold, the options, the labels the question names) is not made unanswerable by darkness,
and the transform is not applicable to it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...model import MODALITY, Region
from ..base import ImagePlan, ImageTransform, NotApplicable, TransformContext
from ..functional.asks import shape_ask
from ..functional.pixels import darken
from ..functional.targets import answer_targets
from ..params import Param
from ..registry import register_transform


@register_transform
class AdaptiveDarkness(ImageTransform):
    name = "adaptive_darkness"
    version = 2
    declines_questions = (shape_ask,)
    family = "occlusion_ambiguity"
    axis = MODALITY
    target = "image"
    description = (
        "Divide every pixel value by 15 (about 3.9 stops darker); alpha is kept. Not"
        " applicable to an image printing answer-bearing text: a contrast stretch restores it."
        " Not applicable to a question about the shape of what a plot draws (a trend, a"
        " correlation): the edit leaves the cloud of points and the slope."
    )
    params = {
        "divisor": Param(15.0, "value every colour channel is divided by", low=2.0, high=255.0),
    }
    intensity_doc = "100 * (1 - 1/divisor): the share of brightness removed (93.3 at 15)."

    def plan_image(
        self, image: np.ndarray, index: int, rng: np.random.Generator, ctx: TransformContext
    ) -> ImagePlan:
        height, width = image.shape[:2]
        divisor = self.config["divisor"]
        found = answer_targets(image, index, ctx)
        if found.targets:
            raise NotApplicable(
                f"image {index + 1} prints answer-bearing text ({found.summary()}), which a"
                " contrast stretch makes legible again after darkening"
            )
        return ImagePlan(
            params={},
            regions=[Region(bbox=(0, 0, width, height), kind="darken", detector="geometry")],
            intensity=100.0 * (1.0 - 1.0 / divisor),
            notes=[
                f"mean brightness {image.mean():.1f} -> about {image.mean() / divisor:.1f}",
                *found.notes,
            ],
        )

    def apply_image(self, image: np.ndarray, params: dict[str, Any]) -> np.ndarray:
        return darken(image, params["divisor"])
