"""The vector drawings of a page: which paths show, and which clusters look like a chart.

A chart or diagram drawn as vector paths is visual evidence over its whole area, white
space included, so the density map (:mod:`.page_content`) needs the clusters before it can
weigh the page, and the figure detection (:mod:`.figures`) reuses them. Points of the
normalised page throughout.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pymupdf

from .grid import Grid
from .raster import component_boxes, dilate, label_components


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


#: The kinds of item a PyMuPDF path is made of: line, curve, rectangle, quad.
PATH_ITEMS = ("l", "c", "re", "qu")


def item_box(item: tuple) -> pymupdf.Rect:
    """The box of one item of a path (a line, a curve, a rectangle, a quad); empty for
    other kinds."""
    kind = item[0]
    if kind == "l":
        return pymupdf.Rect(item[1], item[1]) | item[2]
    if kind == "c":
        return pymupdf.Rect(item[1], item[1]) | item[2] | item[3] | item[4]
    if kind == "re":
        return pymupdf.Rect(item[1])
    if kind == "qu":
        return pymupdf.Rect(item[1].rect)
    return pymupdf.Rect()


def _item_box(item: tuple, width: float) -> pymupdf.Rect:
    if item[0] not in PATH_ITEMS:
        return pymupdf.Rect()
    box = item_box(item)
    pad = max(0.5, width / 2)
    return pymupdf.Rect(box.x0 - pad, box.y0 - pad, box.x1 + pad, box.y1 + pad)


def drawn_pieces(drawing: dict) -> list[tuple[float, float, float, float]]:
    """Boxes of each line, curve and rectangle of a vector path: one path may draw a page's
    header rule and its footer rule, and its own box then spans the whole page."""
    items = drawing.get("items") or []
    boxes = [tuple(item_box(item)) for item in items if item[0] in PATH_ITEMS]
    return boxes or ([tuple(drawing["rect"])] if drawing.get("rect") is not None else [])


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
