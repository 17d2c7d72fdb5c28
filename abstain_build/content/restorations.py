"""Pixels for the reference judges: gray decoding, undoing a perturbation, alignment, edges.

A reference judge compares a perturbed image with its original. Before comparing it tries
to undo what a perturbation can leave reversible: a contrast stretch for darkened or
veiled images (dividing by 15 keeps 17 gray levels, and stretching them back makes text
legible again), unsharp-mask sharpening for blur. Geometry is put back too: a cropped
image (or a page cropped to one half) is placed where it was cut from, on a canvas whose
missing part counts as lost.

Edges are what carries a chart's, a table's or a page's signal: a pixel is an edge when
its brightness differs from a neighbour by at least :data:`EDGE_STEP` gray levels.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageFilter

from ..media.images import luma
from ..textregions.ocr import prepare_pixels
from .raster import dilate

#: Smallest brightness step (0-255) between neighbouring pixels that counts as an edge.
#: Text and chart strokes step by 100-255; JPEG noise and anti-aliasing stay under 30.
EDGE_STEP = 40.0
#: An image whose central 98% of gray levels spans fewer levels than this is stretched
#: before reading, whatever the record says (a darkened or veiled image spans 17 or 102).
LOW_RANGE = 128.0
#: Unsharp mask used to undo a blur: radius (px), strength (%), threshold (levels).
SHARPEN = (4.0, 300, 0)

Box = tuple[float, float, float, float]


def gray(image: np.ndarray) -> np.ndarray:
    """A decoded image as uint8 gray (H x W), alpha composited on white."""
    pixels = prepare_pixels(image)
    if pixels.ndim == 2:
        return pixels
    return np.rint(luma(pixels)).clip(0, 255).astype(np.uint8)


def gray_range(image: np.ndarray) -> float:
    """Gray levels spanned by the central 98% of the pixels."""
    low, high = np.percentile(image, (1, 99))
    return float(high - low)


def stretch(image: np.ndarray) -> np.ndarray:
    """Contrast stretch: the 1st-99th percentile gray levels mapped onto 0-255."""
    low, high = np.percentile(image, (1, 99))
    if high - low < 1:
        return image
    scaled = (image.astype(np.float32) - float(low)) * (255.0 / float(high - low))
    return np.rint(scaled).clip(0, 255).astype(np.uint8)


def sharpen(image: np.ndarray) -> np.ndarray:
    """Unsharp mask (:data:`SHARPEN`): brings back what a mild blur softened."""
    radius, percent, threshold = SHARPEN
    filtered = Image.fromarray(image).filter(ImageFilter.UnsharpMask(radius, percent, threshold))
    return np.asarray(filtered)


#: Region kinds recorded by transforms whose effect a contrast stretch can undo.
STRETCHABLE = frozenset({"darken", "overlay"})
#: Region kinds recorded by transforms whose effect sharpening may partly undo.
SHARPENABLE = frozenset({"blur"})


def restorations(image: np.ndarray, kinds: Iterable[str]) -> dict[str, np.ndarray]:
    """The attempts to undo the perturbation worth making on ``image``, by name.

    Chosen from the record's region kinds (darken/overlay: stretch; blur: sharpen) and
    from the pixels themselves (a low gray range is stretched even without a record).
    """
    wanted = set(kinds)
    out: dict[str, np.ndarray] = {}
    if wanted & STRETCHABLE or gray_range(image) < LOW_RANGE:
        out["contrast stretch"] = stretch(image)
    if wanted & SHARPENABLE:
        out["unsharp mask"] = sharpen(out.get("contrast stretch", image))
    return out


# -- geometry ------------------------------------------------------------------------------


@dataclass
class Aligned:
    """A perturbed image on its original's canvas; ``valid`` marks pixels it still has."""

    image: np.ndarray
    valid: np.ndarray
    how: str


def align(
    original_shape: tuple[int, ...], image: np.ndarray, offset: tuple[int, int] | None
) -> Aligned:
    """``image`` placed on a canvas of ``original_shape``.

    Same shape: as is. ``offset`` (x, y): where a crop kept its part, when the record says.
    Otherwise the image is resized onto the canvas (a different render size).
    """
    height, width = original_shape[:2]
    if image.shape == (height, width):
        return Aligned(image, np.ones((height, width), dtype=bool), "same size")
    if offset is not None:
        x, y = offset
        h = min(image.shape[0], height - y)
        w = min(image.shape[1], width - x)
        # The kept part must fit where it was cut from (a pixel of rounding allowed).
        fits = x + image.shape[1] <= width + 2 and y + image.shape[0] <= height + 2
        if h > 0 and w > 0 and fits:
            canvas = np.full((height, width), 255, dtype=np.uint8)
            valid = np.zeros((height, width), dtype=bool)
            canvas[y : y + h, x : x + w] = image[:h, :w]
            valid[y : y + h, x : x + w] = True
            return Aligned(canvas, valid, f"placed at ({x}, {y})")
    resized = np.asarray(Image.fromarray(image).resize((width, height), Image.Resampling.BILINEAR))
    return Aligned(resized, np.ones((height, width), dtype=bool), "resized")


def crop_offset(shape: tuple[int, ...], removed: Box, edge: str | None) -> tuple[int, int]:
    """Where the kept part of an image starts, given the removed box (pixels)."""
    width = shape[1]
    x0, y0, x1, y1 = removed
    side = edge or (
        "left"
        if x0 <= 0 and x1 < width
        else "right"
        if x1 >= width and x0 > 0
        else "top"
        if y0 <= 0
        else "bottom"
    )
    if side == "left":
        return round(x1), 0
    if side == "top":
        return 0, round(y1)
    return 0, 0


def box_mask(shape: tuple[int, ...], boxes: Sequence[Box]) -> np.ndarray:
    """Pixels covered by any of ``boxes`` (pixel coordinates, clipped to the image)."""
    height, width = shape[:2]
    mask = np.zeros((height, width), dtype=bool)
    for x0, y0, x1, y1 in boxes:
        left, top = max(0, int(np.floor(x0))), max(0, int(np.floor(y0)))
        right, bottom = min(width, int(np.ceil(x1))), min(height, int(np.ceil(y1)))
        if right > left and bottom > top:
            mask[top:bottom, left:right] = True
    return mask


# -- edges ---------------------------------------------------------------------------------


def edges(image: np.ndarray) -> np.ndarray:
    """Edge pixels: a step of at least :data:`EDGE_STEP` to the right or bottom neighbour."""
    values = image.astype(np.int16)
    out = np.zeros(image.shape, dtype=bool)
    out[:, :-1] |= np.abs(np.diff(values, axis=1)) >= EDGE_STEP
    out[:-1, :] |= np.abs(np.diff(values, axis=0)) >= EDGE_STEP
    return out


#: A word's glyphs survive when the perturbed pixels of its box correlate with the
#: original's at least this much, in absolute value (normalised cross-correlation: blind
#: to a uniform darkening, veil or inversion, not to another digit printed in its place).
GLYPH_NCC = 0.8


@dataclass
class EdgeCount:
    """Original edge pixels in a region, and how many of them the perturbed image keeps."""

    original: int
    kept: int
    words: int = 0
    words_kept: int = 0

    @property
    def share(self) -> float:
        return self.kept / self.original if self.original else 1.0


def _ncc(a: np.ndarray, b: np.ndarray) -> float:
    x = a.astype(np.float64).ravel()
    y = b.astype(np.float64).ravel()
    x -= x.mean()
    y -= y.mean()
    norm = float(np.sqrt((x * x).sum() * (y * y).sum()))
    return float((x * y).sum()) / norm if norm > 0 else 0.0


def _word_boxes(shape: tuple[int, ...], boxes: Sequence[Box], region: np.ndarray) -> list[Box]:
    """Word boxes (grown by a pixel, clipped) whose centre lies in ``region``."""
    height, width = shape[:2]
    out = []
    for x0, y0, x1, y1 in boxes:
        left, top = max(0, int(np.floor(x0)) - 1), max(0, int(np.floor(y0)) - 1)
        right, bottom = min(width, int(np.ceil(x1)) + 1), min(height, int(np.ceil(y1)) + 1)
        if right - left < 3 or bottom - top < 3:
            continue
        if region[(top + bottom) // 2, (left + right) // 2]:
            out.append((left, top, right, bottom))
    return out


def retention(
    original: np.ndarray,
    candidates: Sequence[tuple[str, Aligned]],
    region: np.ndarray | None,
    words: Sequence[Box] = (),
) -> tuple[EdgeCount, str]:
    """How many of the original's edge pixels in ``region`` (None: everywhere) survive in
    the best of ``candidates`` (the perturbed image and its restorations), and which.

    Text is judged word by word: the edge pixels inside a word box of the original count
    as kept only when the word's glyphs survive (:data:`GLYPH_NCC`), so a digit printed in
    place of another is a loss even though its strokes sit where the old ones did.
    Elsewhere (graphics) an edge pixel is kept when the perturbed image has an edge within
    one pixel of it. Edges the perturbation added (a mask's border) are not counted.
    """
    if region is None:
        region = np.ones(original.shape, dtype=bool)
    rows, cols = np.flatnonzero(region.any(axis=1)), np.flatnonzero(region.any(axis=0))
    if not rows.size:
        return EdgeCount(0, 0), ""
    # Work on the region's bounding box only: a token edit is a few hundred pixels of a page.
    top, left = int(rows[0]), int(cols[0])
    window = (slice(top, int(rows[-1]) + 1), slice(left, int(cols[-1]) + 1))
    original, region = original[window], region[window]
    words = [(x0 - left, y0 - top, x1 - left, y1 - top) for x0, y0, x1, y1 in words]
    candidates = [
        (name, Aligned(c.image[window], c.valid[window], c.how)) for name, c in candidates
    ]
    wanted = edges(original) & region
    total = int(wanted.sum())
    boxes = _word_boxes(original.shape, words, region)
    text = box_mask(original.shape, boxes)
    graphic = wanted & ~text
    best = EdgeCount(total, -1)
    best_name = ""
    for name, candidate in candidates:
        found = dilate(edges(candidate.image)) & candidate.valid
        kept_graphic = int((graphic & found).sum())
        survived = []
        for x0, y0, x1, y1 in boxes:
            cell = (slice(y0, y1), slice(x0, x1))
            patch = np.where(candidate.valid[cell], candidate.image[cell], 255)
            if abs(_ncc(original[cell], patch)) >= GLYPH_NCC:
                survived.append((x0, y0, x1, y1))
        kept_text = int((wanted & text & box_mask(original.shape, survived)).sum())
        kept = kept_graphic + kept_text
        if kept > best.kept:
            best = EdgeCount(total, kept, len(boxes), len(survived))
            best_name = name
    return best, best_name
