"""Background-matched erasing: a number disappears into the paper it was printed on.

A black box says "something was here"; an erase in the colour of the surroundings (white
paper, a shaded table row, a coloured slide) leaves the layout intact and no hint of what
is missing. The fill is the most common colour in a thin ring around each box, read
before anything is edited.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pymupdf

from ...content.raster import background_colour
from .pdf_edit import normalise_rotation, redact_rects
from .pixels import clip_rect, has_alpha


def ring_colour(rgb: np.ndarray, box: Sequence[int], width: int) -> np.ndarray:
    """Most common colour (RGB, 0..255) in the ``width``-pixel ring around ``box``."""
    height, full_width = rgb.shape[:2]
    x0, y0, x1, y1 = box
    outer = (
        max(0, x0 - width),
        max(0, y0 - width),
        min(full_width, x1 + width),
        min(height, y1 + width),
    )
    region = rgb[outer[1] : outer[3], outer[0] : outer[2]]
    ring = np.ones(region.shape[:2], dtype=bool)
    ring[y0 - outer[1] : y1 - outer[1], x0 - outer[0] : x1 - outer[0]] = False
    pixels = region[ring]
    if pixels.size == 0:
        pixels = region.reshape(-1, 3)
    return background_colour(pixels.reshape(-1, 1, 3))


def _as_rgb(image: np.ndarray) -> np.ndarray:
    if image.ndim == 2:
        return np.repeat(image[..., None], 3, axis=2)
    colour = image[..., :-1] if has_alpha(image) else image
    return colour if colour.shape[2] == 3 else np.repeat(colour[..., :1], 3, axis=2)


def erase_pixels(
    image: np.ndarray, rects: Iterable[Iterable[float]], ring: int = 3
) -> tuple[np.ndarray, list[tuple[int, int, int]]]:
    """Fill each rectangle with the colour around it; returns the image and the fills."""
    out = image.copy()
    rgb = _as_rgb(image)
    height, width = image.shape[:2]
    boxes = [box for box in (clip_rect(r, width, height) for r in rects) if box is not None]
    fills = [tuple(int(v + 0.5) for v in ring_colour(rgb, box, ring)) for box in boxes]
    for (x0, y0, x1, y1), fill in zip(boxes, fills, strict=True):
        if image.ndim == 2:
            out[y0:y1, x0:x1] = round(sum(fill) / 3)
        elif has_alpha(image):
            channels = image.shape[2] - 1
            out[y0:y1, x0:x1, :-1] = fill[:channels] if channels == 3 else round(sum(fill) / 3)
        else:
            out[y0:y1, x0:x1] = fill[: image.shape[2]]
    return out, fills


def page_fills(
    page: pymupdf.Page, rects: Sequence[pymupdf.Rect], dpi: float = 144, ring_pt: float = 2.0
) -> list[tuple[float, float, float]]:
    """The surrounding colour of each rectangle on the page as it is now (0..1 RGB).

    The page is rendered once (each render rebuilds its display list, which dominated the
    cost of erasing dozens of numbers one clip at a time).
    """
    if not rects:
        return []
    scale = dpi / 72.0
    pix = page.get_pixmap(dpi=dpi, alpha=False, colorspace=pymupdf.csRGB)
    rgb = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.stride)
    rgb = rgb[:, : pix.width * pix.n].reshape(pix.height, pix.width, pix.n)[..., :3]
    ring = max(1, round(ring_pt * scale))
    origin = page.rect
    fills = []
    for rect in rects:
        box = (
            max(0, round((rect.x0 - origin.x0) * scale)),
            max(0, round((rect.y0 - origin.y0) * scale)),
            min(pix.width, max(1, round((rect.x1 - origin.x0) * scale))),
            min(pix.height, max(1, round((rect.y1 - origin.y0) * scale))),
        )
        colour = ring_colour(rgb, box, ring)
        fills.append(tuple(float(v) / 255.0 for v in colour))
    return fills


def over_pictures(page: pymupdf.Page, rects: Sequence[pymupdf.Rect]) -> list[bool]:
    """Whether each rectangle lies over a picture: redacting blanks the picture's pixels
    there to white, so it needs filling with the colour around it."""
    pictures = [pymupdf.Rect(info["bbox"]) for info in page.get_image_info()]
    return [any(rect.intersects(picture) for picture in pictures) for rect in rects]


def erase_text(
    page: pymupdf.Page, rects: Iterable[Iterable[float]], deferred: Iterable[int] = ()
) -> list[dict[str, object]]:
    """Redact ``rects`` (text layer, image pixels) and fill with the colour that surrounded
    it each one lying over a picture; elsewhere nothing is painted, so the vector art
    under the text (shading, rules, underlines) stays as it was.

    The fills of the rectangles at the ``deferred`` indices are not drawn: the caller
    draws them under the new text it writes there, in stream order (a fill drawn at the
    end of the page would cover that text). Returns per rectangle on the page ``{"index"
    (in ``rects``), "rect", "fill", "filled", "over_picture"}``, ``filled`` false when the
    fill is not needed or deferred.
    """
    normalise_rotation(page)
    on_page = [(i, pymupdf.Rect(r) & page.rect) for i, r in enumerate(rects)]
    on_page = [(i, rect) for i, rect in on_page if not rect.is_empty]
    if not on_page:
        return []
    clipped = [rect for _, rect in on_page]
    fills = page_fills(page, clipped)  # read before anything changes
    needed = over_pictures(page, clipped)
    later = set(deferred)
    painted = [need and i not in later for (i, _), need in zip(on_page, needed, strict=True)]
    redact_rects(
        page,
        clipped,
        fill=[fill if paint else None for fill, paint in zip(fills, painted, strict=True)],
        line_art=pymupdf.PDF_REDACT_LINE_ART_NONE,
    )
    return [
        {
            "index": i,
            "rect": [round(v, 2) for v in rect],
            "fill": [round(v, 4) for v in fill],
            "filled": paint,
            "over_picture": need,
        }
        for (i, rect), fill, paint, need in zip(on_page, fills, painted, needed, strict=True)
    ]
