"""Where a PDF page's content is: a density map on a coarse grid.

All rectangles are in points of the *normalised* page: rotation removed, origin at the top
left of the visible page, exactly the space :mod:`.pdf_edit` edits in. Analyse a page
through :func:`normalised_page` so that what is planned here is what gets edited there.

Three detectors feed the analysis, and every result says which one found it:

* ``text_layer``: word boxes of the page's text layer;
* ``pdf_objects``: embedded image blocks and vector drawings;
* ``image_analysis``: pixels of the page rendered at :data:`ANALYSIS_DPI` ("ink" that
  differs from the local background colour, edges, solid or colourful areas). Used inside
  images (whose content the PDF objects do not describe) and on pages with no objects.

The map is what the evidence-removal transforms aim at (the densest window, the content
box, the share of content hidden). Its building blocks live apart: pixel analysis in
:mod:`.raster`, cells in :mod:`.grid`, vector paths in :mod:`.drawings`; figure regions,
which read the map, in :mod:`.figures`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pymupdf

from .drawings import Drawing, drawing_figures, visible_drawings
from .grid import GRID_CELLS, Grid
from .raster import edge_mask, graphic_mask, ink_mask, pixel_box

if TYPE_CHECKING:
    from ..media.inputs import SampleInputs

#: Resolution of the pixel analysis: coarse on purpose (letter page: 408 x 528 pixels).
ANALYSIS_DPI = 48
#: Visual evidence (images, drawings) weighs this much more than text per unit of area.
VISUAL_WEIGHT = 1.5
#: How much the evidence map's regions outweigh the rest of the page when a window is placed.
AIM_WEIGHT = 4.0
#: A cell whose density is above this holds content.
CONTENT_THRESHOLD = 0.03
#: An image covering at least this share of the page is a page background or a scan: its
#: content is found by pixel analysis, not taken whole.
LARGE_IMAGE = 0.6
#: Density floor over an embedded image with visible content, and over a drawing cluster
#: that looks like a figure: their whole area is visual evidence, white space included.
FIGURE_FLOOR = 0.8

DETECTORS = ("text_layer", "pdf_objects", "image_analysis")

Box = tuple[float, float, float, float]


# -- the page to analyse -------------------------------------------------------------------


@contextmanager
def normalised_page(document: pymupdf.Document, number: int) -> Iterator[pymupdf.Page]:
    """Page ``number`` (1-based) with rotation removed, as :mod:`.pdf_edit` will edit it.

    An unrotated page is yielded as is; a rotated one through a temporary one-page copy,
    so the caller's document is never modified.
    """
    page = document[number - 1]
    if not page.rotation:
        yield page
        return
    copy = pymupdf.open()
    try:
        copy.insert_pdf(document, from_page=number - 1, to_page=number - 1)
        normal = copy[0]
        normal.remove_rotation()
        yield normal
    finally:
        copy.close()


def render_rgb(page: pymupdf.Page, dpi: float, clip: pymupdf.Rect | None = None) -> np.ndarray:
    """The page (or ``clip`` of it) as an H x W x 3 uint8 array."""
    pix = page.get_pixmap(dpi=dpi, clip=clip, alpha=False, colorspace=pymupdf.csRGB)
    array = np.frombuffer(pix.samples, dtype=np.uint8)
    return array.reshape(pix.height, pix.width, pix.n)[..., :3].copy()


# -- the density map -----------------------------------------------------------------------


@dataclass
class PageContent:
    """What is where on one page."""

    rect: pymupdf.Rect
    grid: Grid
    #: Per cell: share covered by text-layer words.
    text: np.ndarray
    #: Per cell: vector drawings, and embedded images weighted by their pixel detail.
    objects: np.ndarray
    #: Per cell: pixel detail of page-size images (scans, slides) and of pages without any
    #: text, drawing or image object.
    pixels: np.ndarray
    words: list[pymupdf.Rect] = field(default_factory=list)
    drawings: list[Drawing] = field(default_factory=list)
    images: list[pymupdf.Rect] = field(default_factory=list)
    #: Clusters of drawings that look like a chart or diagram (:func:`drawing_figures`).
    figure_drawings: list[pymupdf.Rect] = field(default_factory=list)
    #: The page rendered at :data:`ANALYSIS_DPI`.
    raster: np.ndarray | None = None

    @property
    def scale(self) -> float:
        return ANALYSIS_DPI / 72.0

    @property
    def has_text_layer(self) -> bool:
        return bool(self.words)

    @property
    def density(self) -> np.ndarray:
        return self.text + VISUAL_WEIGHT * (self.objects + self.pixels)

    def channels(self) -> dict[str, np.ndarray]:
        return {
            "text_layer": self.text,
            "pdf_objects": VISUAL_WEIGHT * self.objects,
            "image_analysis": VISUAL_WEIGHT * self.pixels,
        }

    def content_cells(self) -> np.ndarray:
        return self.density > CONTENT_THRESHOLD

    def content_box(self) -> pymupdf.Rect | None:
        """Bounding box of the cells holding content, ``None`` on an empty page."""
        cells = self.content_cells()
        if not cells.any():
            return None
        rows, cols = np.nonzero(cells)
        return self.grid.rect(rows.min(), cols.min(), rows.max() + 1, cols.max() + 1)

    def mass(self, rects: Iterable[Iterable[float]] | None = None) -> float:
        """Density summed over the page, or over the area of ``rects`` (union, per cell)."""
        if rects is None:
            return float(self.density.sum())
        covered = self.grid.coverage(rects).clip(0, 1)
        return float((self.density * covered).sum())

    def detector_in(self, rect: Iterable[float]) -> str | None:
        """The detector behind most of the density inside ``rect``; ``None`` if empty."""
        covered = self.grid.coverage([rect]).clip(0, 1)
        masses = {name: float((array * covered).sum()) for name, array in self.channels().items()}
        best = max(masses, key=lambda name: masses[name])
        return best if masses[best] > 0 else None


def _pixel_score(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per pixel: 0.4 * ink + 0.4 * edge + 0.6 * graphic (0 to 1.4), and the ink mask.

    Graphic ink (see :func:`graphic_mask`) weighs more, so a chart outweighs text of the
    same ink on a scanned or image-only page, as figures do among PDF objects.
    """
    ink = ink_mask(rgb)
    score = 0.4 * ink + 0.4 * edge_mask(rgb) + 0.6 * graphic_mask(rgb, ink)
    return score, ink


def sample_page_content(inputs: SampleInputs, page: pymupdf.Page, number: int) -> PageContent:
    """The content analysis of page ``number`` (as :func:`normalised_page` yields it) of a
    sample's document, made once per sample and kept on its ``inputs``: routing, the
    transforms and the re-read gate share it."""
    return inputs.derived(("page_content", number), lambda: analyse_page(page))


def analyse_page(page: pymupdf.Page, cells: int = GRID_CELLS) -> PageContent:
    """The density map of a (normalised) page from its text, objects and pixels."""
    rect = pymupdf.Rect(page.rect)
    grid = Grid.for_page(rect, cells)
    scale = ANALYSIS_DPI / 72.0
    words = [pymupdf.Rect(w[:4]) & rect for w in page.get_text("words")]
    words = [w for w in words if not w.is_empty]
    drawings = visible_drawings(page)
    page_area = rect.width * rect.height
    images: list[pymupdf.Rect] = []
    for info in page.get_image_info():
        box = pymupdf.Rect(info["bbox"]) & rect
        if not box.is_empty and box.width >= 1 and box.height >= 1:
            images.append(box)

    raster = render_rgb(page, ANALYSIS_DPI)
    score, _ = _pixel_score(raster)
    shape = raster.shape[:2]
    small = np.zeros(shape)
    large = np.zeros(shape)
    # Larger images first, so a smaller one drawn over a larger one keeps its own analysis.
    for box in sorted(images, key=lambda b: -b.width * b.height):
        x0, y0, x1, y1 = pixel_box(box, scale, raster.shape)
        if x1 <= x0 or y1 <= y0:
            continue
        local, local_ink = _pixel_score(raster[y0:y1, x0:x1])
        score[y0:y1, x0:x1] = local
        if box.width * box.height >= LARGE_IMAGE * page_area:
            large[y0:y1, x0:x1] = local
            small[y0:y1, x0:x1] = 0
        else:
            shows = local_ink.mean() > 0.005
            large[y0:y1, x0:x1] = 0
            small[y0:y1, x0:x1] = (FIGURE_FLOOR + 0.6 * local).clip(0, 1) if shows else 0.0

    figure_drawings = drawing_figures(rect, drawings)
    text = grid.coverage(words).clip(0, 1)
    drawn = grid.coverage(box for d in drawings for box in d.ink).clip(0, 1)
    # A chart's area is evidence, not only its thin lines: the cluster gets a floor.
    drawn = np.maximum(drawn, FIGURE_FLOOR * grid.coverage(figure_drawings).clip(0, 1))
    objects = (drawn + grid.cell_means(small)).clip(0, 1.5)
    pixels = grid.cell_means(large)
    if not words and not drawings and not images:
        # Content no object describes (or a blank page): the pixels are all we have.
        pixels = grid.cell_means(score)
    return PageContent(
        rect=rect,
        grid=grid,
        text=text,
        objects=objects,
        pixels=pixels,
        words=words,
        drawings=drawings,
        images=images,
        figure_drawings=figure_drawings,
        raster=raster,
    )


# -- the densest window --------------------------------------------------------------------


@dataclass(frozen=True)
class Window:
    rect: pymupdf.Rect
    detector: str  # one of DETECTORS, "evidence_map" when aimed, "fallback" on an empty page
    role: str  # "text", "figure", "image_content", "evidence" or "empty"
    share: float  # share of the page's density inside the window


_ROLES = {"text_layer": "text", "pdf_objects": "figure", "image_analysis": "image_content"}


def densest_window(
    content: PageContent,
    width_frac: float,
    height_frac: float,
    centre_pref: float = 0.15,
    aim: Iterable[Iterable[float]] = (),
) -> Window:
    """The window (``width_frac`` x ``height_frac`` of the page, on the grid) holding the most
    density, each position's mass discounted by up to ``centre_pref`` with its distance
    from the page centre. An empty page gives the centred window (detector "fallback").

    ``aim``: rectangles the window must hold before anything else (where the evidence map
    finds the answer): their cells outweigh any amount of other content.
    """
    grid = content.grid
    kw = min(grid.cols, max(1, round(width_frac * grid.cols)))
    kh = min(grid.rows, max(1, round(height_frac * grid.rows)))
    density = content.density
    aimed = grid.coverage(aim).clip(0, 1)
    if aimed.any():
        density = density + AIM_WEIGHT * max(1.0, float(density.sum())) * aimed / aimed.sum()
    total = float(density.sum())
    integral = np.zeros((grid.rows + 1, grid.cols + 1))
    integral[1:, 1:] = density.cumsum(0).cumsum(1)
    sums = integral[kh:, kw:] - integral[:-kh, kw:] - integral[kh:, :-kw] + integral[:-kh, :-kw]
    n_rows, n_cols = sums.shape
    ry = (np.arange(n_rows) - (n_rows - 1) / 2) / max(1.0, (n_rows - 1) / 2)
    rx = (np.arange(n_cols) - (n_cols - 1) / 2) / max(1.0, (n_cols - 1) / 2)
    distance = np.sqrt(ry[:, None] ** 2 + rx[None, :] ** 2) / math.sqrt(2)
    score = sums * (1 - centre_pref * distance) + 1e-9 * (1 - distance)
    row, col = np.unravel_index(int(np.argmax(score)), score.shape)
    rect = grid.rect(int(row), int(col), int(row) + kh, int(col) + kw)
    if aimed.any():
        total = float(content.density.sum())
        inside = content.mass([rect])
        return Window(rect, "evidence_map", "evidence", inside / total if total > 0 else 0.0)
    if total <= 0:
        return Window(rect, "fallback", "empty", 0.0)
    detector = content.detector_in(rect) or "fallback"
    return Window(rect, detector, _ROLES.get(detector, "empty"), float(sums[row, col]) / total)


# -- rectangles ----------------------------------------------------------------------------


def inflate(rect: Iterable[float], by: float) -> pymupdf.Rect:
    """``rect`` grown by ``by`` points on every side (shrunk when negative)."""
    x0, y0, x1, y1 = (float(v) for v in rect)
    return pymupdf.Rect(x0 - by, y0 - by, x1 + by, y1 + by)


def rect_tuple(rect: Iterable[float], digits: int = 2) -> Box:
    """A JSON-friendly, rounded rectangle."""
    x0, y0, x1, y1 = (round(float(v), digits) for v in rect)
    return (x0, y0, x1, y1)
