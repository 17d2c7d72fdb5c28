"""An example plugin transform: coarse pixelation hides fine visual detail."""

from __future__ import annotations

from typing import Any

import numpy as np

from abstain_build.model import MODALITY, Region
from abstain_build.transforms import ImagePlan, ImageTransform, Param, TransformContext


def pixelate(image: np.ndarray, block: int) -> np.ndarray:
    """Replace each block x block tile by its mean (edge tiles are smaller)."""
    out = image.copy()
    height, width = image.shape[:2]
    for y in range(0, height, block):
        for x in range(0, width, block):
            tile = image[y : y + block, x : x + block]
            out[y : y + block, x : x + block] = tile.mean(axis=(0, 1)).round().astype(np.uint8)
    return out


class Pixelate(ImageTransform):
    name = "pixelate"
    family = "occlusion_ambiguity"
    axis = MODALITY
    description = "Average the image over square blocks so labels and fine marks disappear."
    params = {
        "block_fraction": Param(0.06, "block side over the longer side", low=0.01, high=0.5),
    }
    intensity_doc = "100 * block side / longer image side, capped at 100."

    def plan_image(
        self, image: np.ndarray, index: int, rng: np.random.Generator, ctx: TransformContext
    ) -> ImagePlan:
        height, width = image.shape[:2]
        block = max(2, round(self.config["block_fraction"] * max(height, width)))
        return ImagePlan(
            params={"block": block},
            regions=[Region(bbox=(0, 0, width, height), kind="pixelate")],
            intensity=min(100.0, 100.0 * block / max(height, width)),
        )

    def apply_image(self, image: np.ndarray, params: dict[str, Any]) -> np.ndarray:
        return pixelate(image, params["block"])
