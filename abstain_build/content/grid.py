"""A uniform grid of cells over a page: how much of each cell rectangles or pixels cover.

The density map (:mod:`.page_content`), the clustering of vector drawings
(:mod:`.drawings`) and the pixel-blob detection (:mod:`.figures`) all reduce points or pixels
to cells; this is their shared, pure geometry (points in, numpy arrays out).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pymupdf

#: A page is cut into about this many cells along its longer side (12 pt on a letter page).
GRID_CELLS = 64


@dataclass(frozen=True)
class Grid:
    """Uniform cells over a page ``width`` x ``height`` points (origin 0, 0)."""

    width: float
    height: float
    cols: int
    rows: int

    @classmethod
    def for_page(cls, rect: pymupdf.Rect, cells: int = GRID_CELLS) -> Grid:
        size = max(rect.width, rect.height) / cells
        return cls(
            float(rect.width),
            float(rect.height),
            max(1, round(rect.width / size)),
            max(1, round(rect.height / size)),
        )

    @property
    def cell_w(self) -> float:
        return self.width / self.cols

    @property
    def cell_h(self) -> float:
        return self.height / self.rows

    def rect(self, row0: int, col0: int, row1: int, col1: int) -> pymupdf.Rect:
        """The points rectangle of cells ``[row0, row1) x [col0, col1)``."""
        return pymupdf.Rect(
            col0 * self.cell_w, row0 * self.cell_h, col1 * self.cell_w, row1 * self.cell_h
        )

    def coverage(self, rects: Iterable[Iterable[float]]) -> np.ndarray:
        """Per cell, the summed share of its area covered by ``rects`` (overlaps add up)."""
        out = np.zeros((self.rows, self.cols))
        cw, ch = self.cell_w, self.cell_h
        xs_edges = np.arange(self.cols + 1) * cw
        ys_edges = np.arange(self.rows + 1) * ch
        for rect in rects:
            x0, y0, x1, y1 = (float(v) for v in rect)
            x0, x1 = max(0.0, x0), min(self.width, x1)
            y0, y1 = max(0.0, y0), min(self.height, y1)
            if x1 <= x0 or y1 <= y0:
                continue
            c0, c1 = int(x0 // cw), min(self.cols, math.ceil(x1 / cw))
            r0, r1 = int(y0 // ch), min(self.rows, math.ceil(y1 / ch))
            c0, r0 = min(c0, self.cols - 1), min(r0, self.rows - 1)
            c1, r1 = max(c1, c0 + 1), max(r1, r0 + 1)
            xs = np.minimum(x1, xs_edges[c0 + 1 : c1 + 1]) - np.maximum(x0, xs_edges[c0:c1])
            ys = np.minimum(y1, ys_edges[r0 + 1 : r1 + 1]) - np.maximum(y0, ys_edges[r0:r1])
            out[r0:r1, c0:c1] += np.outer(ys.clip(0), xs.clip(0))
        return out / (cw * ch)

    def cell_means(self, array: np.ndarray) -> np.ndarray:
        """Mean of a per-pixel map (rendered over the whole page) within each cell; 0 for a
        cell no pixel falls in (a page rendered smaller than the grid)."""
        height, width = array.shape
        ys = np.minimum(np.round(np.arange(self.rows) * height / self.rows).astype(int), height)
        xs = np.minimum(np.round(np.arange(self.cols) * width / self.cols).astype(int), width)
        ys_end = np.append(ys[1:], height)
        xs_end = np.append(xs[1:], width)
        # Sums from an integral image: empty cells cost nothing (reduceat refuses them).
        integral = np.zeros((height + 1, width + 1))
        integral[1:, 1:] = array.astype(np.float64).cumsum(axis=0).cumsum(axis=1)
        sums = (
            integral[np.ix_(ys_end, xs_end)]
            - integral[np.ix_(ys, xs_end)]
            - integral[np.ix_(ys_end, xs)]
            + integral[np.ix_(ys, xs)]
        )
        counts = np.outer(ys_end - ys, xs_end - xs)
        return np.where(counts > 0, sums / np.maximum(counts, 1), 0.0)
