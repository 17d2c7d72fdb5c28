"""Pixel kernels on uint8 arrays (H x W, or H x W x C with optional alpha last)."""

from __future__ import annotations

import numpy as np


def has_alpha(image: np.ndarray) -> bool:
    return image.ndim == 3 and image.shape[2] in (2, 4)


def darken(image: np.ndarray, divisor: float) -> np.ndarray:
    """Divide every colour value by ``divisor`` (rounded to nearest); alpha is kept."""
    out = np.rint(image.astype(np.float32) / np.float32(divisor)).astype(np.uint8)
    if has_alpha(image):
        out[..., -1] = image[..., -1]
    return out
