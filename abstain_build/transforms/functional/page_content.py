"""Where a PDF page's content is: a density map on a coarse grid, and its figure regions.

All rectangles are in points of the *normalised* page: rotation removed, origin at the top
left of the visible page, exactly the space :mod:`.pdf_edit` edits in. Analyse a page
through :func:`normalised_page` so that what is planned here is what gets edited there.

Three detectors feed the analysis, and every result says which one found it:

* ``text_layer``: word boxes of the page's text layer;
* ``pdf_objects``: embedded image blocks and vector drawings;
* ``image_analysis``: pixels of the page rendered at :data:`ANALYSIS_DPI` ("ink" that
  differs from the local background colour, edges, solid or colourful areas). Used inside
  images (whose content the PDF objects do not describe) and on pages with no objects.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
import pymupdf

#: Resolution of the pixel analysis: coarse on purpose (letter page: 408 x 528 pixels).
ANALYSIS_DPI = 48
#: A page is cut into about this many cells along its longer side (12 pt on a letter page).
GRID_CELLS = 64
#: Visual evidence (images, drawings) weighs this much more than text per unit of area.
VISUAL_WEIGHT = 1.5
#: A cell whose density is above this holds content.
CONTENT_THRESHOLD = 0.03
#: An image covering at least this share of the page is a page background or a scan: its
#: content is found by pixel analysis, not taken whole.
LARGE_IMAGE = 0.6
#: Density floor over an embedded image with visible content, and over a drawing cluster
#: that looks like a figure: their whole area is visual evidence, white space included.
FIGURE_FLOOR = 0.8
#: Per-pixel thresholds (0..255) of the pixel analysis.
INK_DELTA = 40
EDGE_DELTA = 40
SATURATION = 60

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


# -- pixel features ------------------------------------------------------------------------


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


def gray(rgb: np.ndarray) -> np.ndarray:
    return rgb.astype(np.float32) @ np.array([0.299, 0.587, 0.114], dtype=np.float32)


def edge_mask(rgb: np.ndarray) -> np.ndarray:
    """Pixels with a strong horizontal or vertical step in brightness."""
    g = gray(rgb)
    out = np.zeros(g.shape, dtype=bool)
    out[:, 1:] |= np.abs(np.diff(g, axis=1)) > EDGE_DELTA
    out[1:, :] |= np.abs(np.diff(g, axis=0)) > EDGE_DELTA
    return out


def edge_energy(rgb: np.ndarray) -> float:
    """Mean absolute brightness step between neighbours: high for sharp text and lines."""
    g = gray(rgb)
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
    """3 x 3 binary dilation, ``steps`` times."""
    for _ in range(steps):
        mask = _shift_all(mask, np.logical_or, False)
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


# -- the grid ------------------------------------------------------------------------------


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
        """Mean of a per-pixel map (rendered over the whole page) within each cell."""
        height, width = array.shape
        ys = np.minimum(np.round(np.arange(self.rows) * height / self.rows).astype(int), height)
        xs = np.minimum(np.round(np.arange(self.cols) * width / self.cols).astype(int), width)
        ys_end = np.append(ys[1:], height)
        xs_end = np.append(xs[1:], width)
        sums = np.add.reduceat(np.add.reduceat(array.astype(np.float64), ys, axis=0), xs, axis=1)
        counts = np.outer(ys_end - ys, xs_end - xs)
        return np.where(counts > 0, sums / np.maximum(counts, 1), 0.0)


# -- drawings ------------------------------------------------------------------------------


@dataclass
class Drawing:
    """One visible vector path, reduced to what the analysis needs."""

    rect: pymupdf.Rect
    #: Rectangles where it actually puts ink: the path box for fills, thin boxes around
    #: the segments of a stroke-only path (an empty frame is not a filled area).
    ink: list[pymupdf.Rect]
    #: Curves, diagonal lines or slanted quads: shapes tables and text boxes do not have.
    shaped: bool
    #: Solid, dark or colourful, axis-aligned boxes of the path: bars of a chart, maybe.
    bars: list[pymupdf.Rect]


def _light(colour: Iterable[float] | None) -> bool:
    if not colour:
        return True
    values = list(colour)[:3]
    if len(values) == 1:
        values = values * 3
    return min(values) > 0.75 and max(values) - min(values) < 0.25


def _item_box(item: tuple, width: float) -> pymupdf.Rect:
    kind = item[0]
    if kind == "l":
        box = pymupdf.Rect(item[1], item[1]) | item[2]
    elif kind == "c":
        box = pymupdf.Rect(item[1], item[1]) | item[2] | item[3] | item[4]
    elif kind == "re":
        box = pymupdf.Rect(item[1])
    elif kind == "qu":
        box = pymupdf.Rect(item[1].rect)
    else:
        return pymupdf.Rect()
    pad = max(0.5, width / 2)
    return pymupdf.Rect(box.x0 - pad, box.y0 - pad, box.x1 + pad, box.y1 + pad)


def _shaped(item: tuple) -> bool:
    kind = item[0]
    if kind == "c":
        return True
    if kind == "l":
        return abs(item[1].x - item[2].x) > 1 and abs(item[1].y - item[2].y) > 1
    if kind == "qu":
        quad = item[1]
        return not quad.is_rectangular
    return False


def visible_drawings(page: pymupdf.Page) -> list[Drawing]:
    """Vector paths that show on the page, without page-size backgrounds or white fills."""
    page_area = page.rect.width * page.rect.height
    out: list[Drawing] = []
    for path in page.get_drawings():
        raw = pymupdf.Rect(path["rect"])
        page_rect = page.rect
        if raw.x1 < 0 or raw.y1 < 0 or raw.x0 > page_rect.x1 or raw.y0 > page_rect.y1:
            continue  # off the page
        rect = pymupdf.Rect(
            max(raw.x0, 0), max(raw.y0, 0), min(raw.x1, page_rect.x1), min(raw.y1, page_rect.y1)
        )
        kind = path.get("type") or ""
        fills = "f" in kind and (path.get("fill_opacity") or 1) > 0
        strokes = "s" in kind and (path.get("stroke_opacity") or 1) > 0
        white_fill = fills and _light(path.get("fill")) and min(path.get("fill") or (0,)) > 0.97
        if fills and rect.width * rect.height >= 0.5 * page_area:
            continue  # a page background
        if white_fill and not strokes:
            continue  # invisible on a white page
        items = path.get("items") or []
        width = float(path.get("width") or 1.0)
        if fills and not white_fill:
            ink = [pymupdf.Rect(rect)]
        else:
            ink = [_item_box(item, width) & page.rect for item in items]
            ink = [box for box in ink if not box.is_empty]
        if not ink:
            continue
        shaped = any(_shaped(item) for item in items)
        bars = []
        if fills and not _light(path.get("fill")) and all(item[0] == "re" for item in items):
            bars = [pymupdf.Rect(item[1]) for item in items]
            bars = [b for b in bars if b.width >= 2 and b.height >= 2]
        out.append(Drawing(rect=rect, ink=ink, shaped=shaped, bars=bars))
    return out


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


def graphic_mask(rgb: np.ndarray, ink: np.ndarray) -> np.ndarray:
    """Ink that is not thin strokes of text: solid areas (a core survives a 5 x 5 erosion:
    bars, pie wedges, photos) or colourful marks (a core survives a 3 x 3 erosion)."""
    channels = rgb.astype(np.int16)
    saturated = ink & ((channels.max(axis=2) - channels.min(axis=2)) > SATURATION)
    return erode(ink, 2) | erode(saturated, 1)


def _pixel_score(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per pixel: 0.4 * ink + 0.4 * edge + 0.6 * graphic (0 to 1.4), and the ink mask.

    Graphic ink (see :func:`graphic_mask`) weighs more, so a chart outweighs text of the
    same ink on a scanned or image-only page, as figures do among PDF objects.
    """
    ink = ink_mask(rgb)
    score = 0.4 * ink + 0.4 * edge_mask(rgb) + 0.6 * graphic_mask(rgb, ink)
    return score, ink


def _pixel_box(rect: pymupdf.Rect, scale: float, shape: tuple[int, ...]) -> tuple[int, ...]:
    height, width = shape[:2]
    x0 = max(0, min(width, math.floor(rect.x0 * scale)))
    y0 = max(0, min(height, math.floor(rect.y0 * scale)))
    x1 = max(x0, min(width, math.ceil(rect.x1 * scale)))
    y1 = max(y0, min(height, math.ceil(rect.y1 * scale)))
    return x0, y0, x1, y1


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
        x0, y0, x1, y1 = _pixel_box(box, scale, raster.shape)
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
    detector: str  # one of DETECTORS, or "fallback" on an empty page
    role: str  # "text", "figure", "image_content" or "empty"
    share: float  # share of the page's density inside the window


_ROLES = {"text_layer": "text", "pdf_objects": "figure", "image_analysis": "image_content"}


def densest_window(
    content: PageContent, width_frac: float, height_frac: float, centre_pref: float = 0.15
) -> Window:
    """The window (``width_frac`` x ``height_frac`` of the page, on the grid) holding the most
    density, each position's mass discounted by up to ``centre_pref`` with its distance
    from the page centre. An empty page gives the centred window (detector "fallback").
    """
    grid = content.grid
    kw = min(grid.cols, max(1, round(width_frac * grid.cols)))
    kh = min(grid.rows, max(1, round(height_frac * grid.rows)))
    density = content.density
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
    if total <= 0:
        return Window(rect, "fallback", "empty", 0.0)
    detector = content.detector_in(rect) or "fallback"
    return Window(rect, detector, _ROLES.get(detector, "empty"), float(sums[row, col]) / total)


# -- figure regions ------------------------------------------------------------------------


@dataclass(frozen=True)
class Figure:
    rect: pymupdf.Rect
    detector: str  # "pdf_objects" or "image_analysis"
    role: str  # "image" (embedded image), "figure" (drawing cluster or pixel blob)
    source: str  # human-readable origin, for notes


def _has_bar_series(bars: list[pymupdf.Rect]) -> bool:
    """Three or more solid boxes on a common baseline with different lengths: a bar chart.

    Vertical bars share their bottom edge and differ in height; horizontal bars share
    their left edge and differ in width. Table fills do neither: a header row's cells share
    both edges of their height, zebra rows share both edges of their width.
    """
    for edge, length in (("y1", "height"), ("x0", "width")):
        groups: dict[int, list[float]] = {}
        for bar in bars:
            groups.setdefault(round(getattr(bar, edge)), []).append(getattr(bar, length))
        for lengths in groups.values():
            if len(lengths) >= 3 and max(lengths) - min(lengths) > 1.0:
                return True
    return False


def drawing_figures(
    rect: pymupdf.Rect, drawings: list[Drawing], min_area: float = 0.0, min_side: float = 0.0
) -> list[pymupdf.Rect]:
    """Clusters of vector paths that look like a chart or diagram (not a table or a rule).

    Paths are clustered on a 4 pt grid (paths within about 12 pt of each other join, so
    the boxes and arrows of a diagram make one cluster); a cluster is a figure when it has
    at least three shaped paths (curves, diagonals) or a series of bars, and is neither
    tiny nor page-size.
    """
    if not drawings:
        return []
    fine = Grid.for_page(rect, max(8, round(max(rect.width, rect.height) / 4)))
    occupied = fine.coverage(box for d in drawings for box in d.ink) > 0
    labels, count = label_components(dilate(occupied, 3))
    out = []
    page_area = rect.width * rect.height
    for r0, c0, r1, c1 in component_boxes(labels, count):
        box = fine.rect(r0, c0, r1, c1) & rect
        area = box.width * box.height
        if area < min_area * page_area or min(box.width, box.height) < min_side:
            continue
        if area > 0.9 * page_area:
            continue
        inside = [d for d in drawings if box.contains((d.rect.tl + d.rect.br) * 0.5)]
        bars = [b for d in inside for b in d.bars]
        if sum(d.shaped for d in inside) >= 3 or _has_bar_series(bars):
            out.append(box)
    return out


def _pixel_figures(
    content: PageContent, region: pymupdf.Rect, min_area: float, min_side: float
) -> list[pymupdf.Rect]:
    """Solid or colourful blobs inside ``region`` (a scan or slide image), on an 8 pt grid.

    Text is thin: a 5 x 5 erosion of the ink removes it, while bars, pie wedges, photos
    and icons keep a core; colourful ink survives a 3 x 3 erosion. Figure cells are
    joined (8 pt tolerance), grown by the ink cells within 16 pt (axis labels, legends),
    and kept when large enough and not a thin header or footer band.
    """
    if content.raster is None:
        return []
    x0, y0, x1, y1 = _pixel_box(region, content.scale, content.raster.shape)
    rgb = content.raster[y0:y1, x0:x1]
    region = pymupdf.Rect(x0, y0, x1, y1) / content.scale
    page_area = content.rect.width * content.rect.height
    if rgb.shape[0] < 4 or rgb.shape[1] < 4:
        return []
    background = background_colour(rgb)
    ink = ink_mask(rgb, background)
    graphic = graphic_mask(rgb, ink)
    grid = Grid(
        float(region.width), float(region.height),
        max(1, round(region.width / 8)), max(1, round(region.height / 8)),
    )  # fmt: skip
    figure_cells = grid.cell_means(graphic) > 0.15
    ink_cells = grid.cell_means(ink) > 0.02
    labels, count = label_components(dilate(figure_cells, 1))
    out = []
    for k in range(1, count + 1):
        own = figure_cells & (labels == k)
        if not own.any():
            continue
        grown = (ink_cells & dilate(own, 2)) | own
        rows, cols = np.nonzero(grown)
        local = grid.rect(rows.min(), cols.min(), rows.max() + 1, cols.max() + 1)
        box = (
            pymupdf.Rect(
                local.x0 + region.x0,
                local.y0 + region.y0,
                local.x1 + region.x0,
                local.y1 + region.y0,
            )
            & region
        )
        area = box.width * box.height
        if area < min_area * page_area or min(box.width, box.height) < min_side:
            continue
        band_h = box.height < 0.12 * region.height and box.width > 0.7 * region.width
        band_v = box.width < 0.12 * region.width and box.height > 0.7 * region.height
        if band_h or band_v:
            continue
        out.append(box)
    return out


def merge_rects(rects: list[pymupdf.Rect], slack: float = 1.25) -> list[list[int]]:
    """Groups (indices) of overlapping rectangles whose bounding box adds little area.

    Two groups merge when their boxes intersect and the joint bounding box is at most
    ``slack`` times the area the two boxes cover together; otherwise they stay separate
    (and may overlap), so an L-shaped pair does not swallow the corner between them.
    """
    groups: list[list[int]] = [[k] for k in range(len(rects))]
    boxes = [pymupdf.Rect(r) for r in rects]
    merged = True
    while merged:
        merged = False
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                a, b = boxes[i], boxes[j]
                if not a.intersects(b):
                    continue
                joint = a | b
                inter = a & b
                covered = _area(a) + _area(b) - _area(inter)
                if _area(joint) <= slack * covered:
                    boxes[i] = joint
                    groups[i].extend(groups.pop(j))
                    boxes.pop(j)
                    merged = True
                    break
            if merged:
                break
    return [sorted(g) for g in groups]


def _area(rect: pymupdf.Rect) -> float:
    return 0.0 if rect.is_empty else rect.width * rect.height


def find_figures(
    page: pymupdf.Page,
    content: PageContent,
    *,
    min_area: float = 0.015,
    min_side: float = 24.0,
    margin: float = 12.0,
) -> list[Figure]:
    """Figure and chart regions of a (normalised) page, padded and merged.

    Sources: embedded images (not tiny, not page-size), clusters of shaped vector paths,
    and, inside page-size images (scans, slides) or on pages with no objects, solid or
    colourful pixel blobs. Each region is padded by ``margin`` points and widened to the
    whole of every word mostly inside it (axis labels, legends next to the plot);
    overlapping regions are merged when their joint box adds little (:func:`merge_rects`).
    """
    rect = content.rect
    page_area = rect.width * rect.height
    found: list[Figure] = []
    for box in content.images:
        area = box.width * box.height
        if area >= LARGE_IMAGE * page_area:
            for blob in _pixel_figures(content, box, min_area, min_side):
                found.append(Figure(blob, "image_analysis", "figure", "pixel blob in a page image"))
        elif area >= min_area * page_area and min(box.width, box.height) >= min_side:
            found.append(Figure(box, "pdf_objects", "image", "embedded image"))
    for box in content.figure_drawings:
        if _area(box) < min_area * page_area or min(box.width, box.height) < min_side:
            continue
        found.append(Figure(box, "pdf_objects", "figure", "vector drawing cluster"))
    if not content.words and not content.drawings and not content.images:
        for blob in _pixel_figures(content, rect, min_area, min_side):
            found.append(Figure(blob, "image_analysis", "figure", "pixel blob"))
    if not found:
        return []
    padded = []
    for figure in found:
        box = inflate(figure.rect, margin)
        grown = pymupdf.Rect(box)
        for word in content.words:
            if _area(word & box) >= 0.5 * _area(word):
                grown |= word
        box = grown
        padded.append(box & rect)
    merged = []
    for group in merge_rects(padded):
        box = pymupdf.Rect(padded[group[0]])
        for k in group[1:]:
            box |= padded[k]
        members = [found[k] for k in group]
        detectors = {m.detector for m in members}
        detector = "pdf_objects" if "pdf_objects" in detectors else members[0].detector
        roles = {m.role for m in members}
        role = members[0].role if len(roles) == 1 else "figure"
        source = " + ".join(sorted({m.source for m in members}))
        merged.append(Figure(box, detector, role, source))
    merged.sort(key=lambda f: (f.rect.y0, f.rect.x0))
    return merged


def inflate(rect: Iterable[float], by: float) -> pymupdf.Rect:
    """``rect`` grown by ``by`` points on every side (shrunk when negative)."""
    x0, y0, x1, y1 = (float(v) for v in rect)
    return pymupdf.Rect(x0 - by, y0 - by, x1 + by, y1 + by)


def rect_tuple(rect: Iterable[float], digits: int = 2) -> Box:
    """A JSON-friendly, rounded rectangle."""
    x0, y0, x1, y1 = (round(float(v), digits) for v in rect)
    return (x0, y0, x1, y1)
