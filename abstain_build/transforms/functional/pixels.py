"""Pixel kernels on uint8 arrays (H x W, or H x W x C with optional alpha last).

Every kernel returns a new array and leaves its input alone (inputs are shared read-only
between the transforms applied to one sample). Alpha is never painted: a mask makes
colour black, not transparent, so the result looks the same on any background.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from PIL import Image, ImageFilter

Rect = tuple[int, int, int, int]  # x0, y0, x1, y1 in pixels, half-open


def has_alpha(image: np.ndarray) -> bool:
    return image.ndim == 3 and image.shape[2] in (2, 4)


def colour_channels(image: np.ndarray) -> int:
    """Number of colour channels (alpha excluded)."""
    if image.ndim == 2:
        return 1
    return image.shape[2] - (1 if has_alpha(image) else 0)


def _lut(image: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Apply a 256-entry table to colour channels only (a table lookup is faster than maths)."""
    if has_alpha(image):
        out = image.copy()
        out[..., :-1] = table[image[..., :-1]]
        return out
    return table[image]


def darken(image: np.ndarray, divisor: float) -> np.ndarray:
    """Divide every colour value by ``divisor`` (rounded to nearest); alpha is kept."""
    table = np.rint(np.arange(256, dtype=np.float64) / divisor).clip(0, 255).astype(np.uint8)
    return _lut(image, table)


def clip_rect(rect: Iterable[float], width: int, height: int) -> Rect | None:
    """Round a rectangle to whole pixels inside the image; ``None`` if nothing is left."""
    x0, y0, x1, y1 = rect
    left, top = max(0, int(np.floor(x0))), max(0, int(np.floor(y0)))
    right, bottom = min(width, int(np.ceil(x1))), min(height, int(np.ceil(y1)))
    if right <= left or bottom <= top:
        return None
    return left, top, right, bottom


def fill_rects(image: np.ndarray, rects: Iterable[Iterable[float]], value: int = 0) -> np.ndarray:
    """Paint rectangles opaque ``value`` (black by default) on the colour channels."""
    out = image.copy()
    height, width = image.shape[:2]
    colour = slice(None, -1) if has_alpha(image) else slice(None)
    for rect in rects:
        clipped = clip_rect(rect, width, height)
        if clipped is None:
            continue
        x0, y0, x1, y1 = clipped
        if image.ndim == 2:
            out[y0:y1, x0:x1] = value
        else:
            out[y0:y1, x0:x1, colour] = value
    return out


def rect_mask(shape: tuple[int, int], rects: Iterable[Iterable[float]]) -> np.ndarray:
    """Boolean H x W mask, True inside any of ``rects``."""
    height, width = shape
    mask = np.zeros((height, width), dtype=bool)
    for rect in rects:
        clipped = clip_rect(rect, width, height)
        if clipped is not None:
            x0, y0, x1, y1 = clipped
            mask[y0:y1, x0:x1] = True
    return mask


def coverage(shape: tuple[int, int], rects: Iterable[Iterable[float]]) -> float:
    """Share of the image area inside the union of ``rects`` (overlaps counted once)."""
    height, width = shape
    if height * width == 0:
        return 0.0
    return float(rect_mask(shape, rects).mean())


def gaussian_blur(image: np.ndarray, radius: float) -> np.ndarray:
    """Gaussian blur of the colour channels (PIL's, whose cost does not grow with radius)."""
    if radius <= 0:
        return image.copy()
    if image.ndim == 2:
        return np.asarray(Image.fromarray(image).filter(ImageFilter.GaussianBlur(radius)))
    colour = image[..., :-1] if has_alpha(image) else image
    if colour.shape[2] == 1:
        blurred = _blur_plane(colour[..., 0], radius)[..., None]
    else:
        blurred = np.asarray(
            Image.fromarray(np.ascontiguousarray(colour)).filter(ImageFilter.GaussianBlur(radius))
        )
    if has_alpha(image):
        out = image.copy()
        out[..., :-1] = blurred
        return out
    return np.array(blurred)


def _blur_plane(plane: np.ndarray, radius: float) -> np.ndarray:
    return np.asarray(
        Image.fromarray(np.ascontiguousarray(plane)).filter(ImageFilter.GaussianBlur(radius))
    )


def blur_rects(image: np.ndarray, rects: Iterable[Iterable[float]], radius: float) -> np.ndarray:
    """Blur the whole image once, then keep the blurred pixels only inside ``rects``.

    Blurring the whole image (not each crop) keeps the blur continuous across a region's
    edge, as a photographic blur would be.
    """
    mask = rect_mask(image.shape[:2], rects)
    if not mask.any():
        return image.copy()
    blurred = gaussian_blur(image, radius)
    out = image.copy()
    out[mask] = blurred[mask]
    return out


def gray_overlay(image: np.ndarray, alpha: float, gray: int = 128) -> np.ndarray:
    """Composite a uniform gray layer of opacity ``alpha`` over the colour channels."""
    table = np.rint(np.arange(256) * (1.0 - alpha) + gray * alpha).clip(0, 255).astype(np.uint8)
    return _lut(image, table)
