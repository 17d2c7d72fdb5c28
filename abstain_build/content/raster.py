"""Pixel analysis of a rendered page: which pixels hold ink, edges or graphics, and blobs.

Plain numpy on H x W x 3 uint8 arrays and H x W boolean masks, no PDF and no grid; the one
bridge to page points is :func:`pixel_box`. It exists apart from the density map
(:mod:`.page_content`), the drawing clusters (:mod:`.drawings`) and the figure detection
(:mod:`.figures`) because they read pixels the same way: one definition of "ink" and of a
connected component serves all three.
"""

from __future__ import annotations

import math

import numpy as np
import pymupdf

from ..media.images import luma

#: Per-pixel thresholds (0..255) of the pixel analysis.
INK_DELTA = 40
EDGE_DELTA = 40
SATURATION = 60


def background_colour(rgb: np.ndarray) -> np.ndarray:
    """The most frequent colour (16 levels per channel), as the mean of its pixels."""
    flat = rgb.reshape(-1, 3)
    if flat.shape[0] == 0:
        return np.array([255.0, 255.0, 255.0])
    keys = (flat[:, 0] >> 4).astype(np.int32) * 256 + (flat[:, 1] >> 4) * 16 + (flat[:, 2] >> 4)
    counts = np.bincount(keys, minlength=4096)
    mode = int(np.argmax(counts))
    return flat[keys == mode].mean(axis=0)


def ink_mask(rgb: np.ndarray, background: np.ndarray | None = None) -> np.ndarray:
    """Pixels that differ from the background colour by more than :data:`INK_DELTA`."""
    if background is None:
        background = background_colour(rgb)
    diff = np.abs(rgb.astype(np.int16) - background.astype(np.int16)).max(axis=2)
    return diff > INK_DELTA


def edge_mask(rgb: np.ndarray) -> np.ndarray:
    """Pixels with a strong horizontal or vertical step in brightness."""
    g = luma(rgb)
    out = np.zeros(g.shape, dtype=bool)
    out[:, 1:] |= np.abs(np.diff(g, axis=1)) > EDGE_DELTA
    out[1:, :] |= np.abs(np.diff(g, axis=0)) > EDGE_DELTA
    return out


def edge_energy(rgb: np.ndarray) -> float:
    """Mean absolute brightness step between neighbours: high for sharp text and lines."""
    g = luma(rgb)
    if g.shape[0] < 2 or g.shape[1] < 2:
        return 0.0
    return float(np.abs(np.diff(g, axis=1)).mean() + np.abs(np.diff(g, axis=0)).mean())


def _shift_all(mask: np.ndarray, combine: np.ufunc, fill: bool) -> np.ndarray:
    padded = np.pad(mask, 1, constant_values=fill)
    height, width = mask.shape
    out = mask.copy()
    for dy in (0, 1, 2):
        for dx in (0, 1, 2):
            out = combine(out, padded[dy : dy + height, dx : dx + width])
    return out


def erode(mask: np.ndarray, steps: int = 1) -> np.ndarray:
    """3 x 3 binary erosion, ``steps`` times (pixels beyond the border count as set)."""
    for _ in range(steps):
        mask = _shift_all(mask, np.logical_and, True)
    return mask


def dilate(mask: np.ndarray, steps: int = 1) -> np.ndarray:
    """3 x 3 binary dilation, ``steps`` times (pixels beyond the border count as unset):
    a row pass, then a column pass."""
    for _ in range(steps):
        rows = mask.copy()
        rows[1:, :] |= mask[:-1, :]
        rows[:-1, :] |= mask[1:, :]
        mask = rows.copy()
        mask[:, 1:] |= rows[:, :-1]
        mask[:, :-1] |= rows[:, 1:]
    return mask


def label_components(mask: np.ndarray) -> tuple[np.ndarray, int]:
    """8-connected components of ``mask``: labels 1..n (0 is background), and n.

    Min-label propagation with pointer jumping; plain numpy, fast on grids of a few
    hundred cells a side.
    """
    height, width = mask.shape
    if not mask.any():
        return np.zeros(mask.shape, dtype=np.int32), 0
    big = height * width
    labels = np.where(mask, np.arange(big).reshape(height, width), big)
    while True:
        padded = np.pad(labels, 1, constant_values=big)
        new = labels.copy()
        for dy in (0, 1, 2):
            for dx in (0, 1, 2):
                new = np.minimum(new, padded[dy : dy + height, dx : dx + width])
        new = np.where(mask, new, big)
        flat = new.ravel()
        fg = flat < big
        for _ in range(4):  # pointer jumping: a label's own label is at least as small
            flat[fg] = flat[flat[fg]]
        if np.array_equal(new, labels):
            break
        labels = new
    out = np.zeros(big, dtype=np.int32)
    fg = labels.ravel() < big
    _, inverse = np.unique(labels.ravel()[fg], return_inverse=True)
    out[fg] = inverse + 1
    return out.reshape(height, width), int(inverse.max()) + 1


def component_boxes(labels: np.ndarray, count: int) -> list[tuple[int, int, int, int]]:
    """Bounding box (row0, col0, row1, col1; half-open) of each component 1..count."""
    boxes = []
    rows, cols = np.nonzero(labels)
    ids = labels[rows, cols]
    for k in range(1, count + 1):
        sel = ids == k
        r, c = rows[sel], cols[sel]
        boxes.append((int(r.min()), int(c.min()), int(r.max()) + 1, int(c.max()) + 1))
    return boxes


def graphic_mask(rgb: np.ndarray, ink: np.ndarray) -> np.ndarray:
    """Ink that is not thin strokes of text: solid areas (a core survives a 5 x 5 erosion:
    bars, pie wedges, photos) or colourful marks (a core survives a 3 x 3 erosion)."""
    channels = rgb.astype(np.int16)
    saturated = ink & ((channels.max(axis=2) - channels.min(axis=2)) > SATURATION)
    return erode(ink, 2) | erode(saturated, 1)


def pixel_box(rect: pymupdf.Rect, scale: float, shape: tuple[int, ...]) -> tuple[int, ...]:
    """``rect`` (points) as pixels (x0, y0, x1, y1; half-open) of a raster of ``shape``
    rendered at ``scale`` pixels per point, widened to whole pixels and clipped to it."""
    height, width = shape[:2]
    x0 = max(0, min(width, math.floor(rect.x0 * scale)))
    y0 = max(0, min(height, math.floor(rect.y0 * scale)))
    x1 = max(x0, min(width, math.ceil(rect.x1 * scale)))
    y1 = max(y0, min(height, math.ceil(rect.y1 * scale)))
    return x0, y0, x1, y1
