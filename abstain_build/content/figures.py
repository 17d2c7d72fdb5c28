"""Figure and chart regions of an analysed page, for transforms that hide figures.

Built on the density map (:class:`.page_content.PageContent`): embedded images, the
drawing clusters found by :mod:`.drawings`, and solid or colourful pixel blobs inside
page-size images or on pages without objects; each padded, widened to its labels and
merged with its overlapping neighbours. Points of the normalised page throughout.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pymupdf

from ..textregions.words import centre_inside
from .grid import Grid
from .page_content import LARGE_IMAGE, PageContent, inflate
from .raster import (
    background_colour,
    dilate,
    graphic_mask,
    ink_mask,
    label_components,
    pixel_box,
)


@dataclass(frozen=True)
class Figure:
    rect: pymupdf.Rect
    detector: str  # "pdf_objects" or "image_analysis"
    role: str  # "image" (embedded image), "figure" (drawing cluster or pixel blob)
    source: str  # human-readable origin, for notes


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
    x0, y0, x1, y1 = pixel_box(region, content.scale, content.raster.shape)
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


#: A figure box covering more of the page than this is the page's design (a coloured
#: panel behind the text), not a chart.
MAX_CHART_SHARE = 0.5
#: Numbers that must label a figure before it counts as a chart (two bars, two slices).
MIN_CHART_LABELS = 2


def chart_boxes(
    figures: list[tuple[float, ...]], labels: list[tuple[float, ...]], page_rect: pymupdf.Rect
) -> list[tuple[float, ...]]:
    """The figure boxes that are charts: at least :data:`MIN_CHART_LABELS` of ``labels``
    (the boxes of the page's numbers) are centred in them, and they are no page-wide panel."""
    area = page_rect.width * page_rect.height
    out = []
    for box in figures:
        if (box[2] - box[0]) * (box[3] - box[1]) > MAX_CHART_SHARE * area:
            continue
        if sum(1 for label in labels if centre_inside(label, [box])) >= MIN_CHART_LABELS:
            out.append(box)
    return out
