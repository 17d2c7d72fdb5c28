"""PDF page edits that remove content from every channel: pixels, vector art and text layer."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pymupdf

from ...media.images import encode_png
from .pixels import gaussian_blur

WHITE = (1, 1, 1)


def normalise_rotation(page: pymupdf.Page) -> None:
    """Work in unrotated coordinates so rectangles mean the same thing everywhere."""
    if page.rotation:
        page.remove_rotation()


def blank_page(page: pymupdf.Page) -> None:
    """Erase everything on the page (text, images, drawings, links, annotations)."""
    normalise_rotation(page)
    for annot in list(page.annots() or []):
        page.delete_annot(annot)
    for link in page.get_links():
        page.delete_link(link)
    page.add_redact_annot(page.rect, fill=WHITE)
    page.apply_redactions(
        images=pymupdf.PDF_REDACT_IMAGE_REMOVE,
        graphics=pymupdf.PDF_REDACT_LINE_ART_REMOVE_IF_TOUCHED,
        text=pymupdf.PDF_REDACT_TEXT_REMOVE,
    )


def page_halves(page: pymupdf.Page) -> dict[str, pymupdf.Rect]:
    """The top and bottom halves of the visible page, split at the vertical midpoint."""
    rect = page.rect
    middle = rect.y0 + rect.height / 2
    return {
        "top": pymupdf.Rect(rect.x0, rect.y0, rect.x1, middle),
        "bottom": pymupdf.Rect(rect.x0, middle, rect.x1, rect.y1),
    }


def crop_to_half(page: pymupdf.Page, kept: str) -> pymupdf.Rect:
    """Redact the other half (so its text is gone), then crop the page to ``kept``.

    Returns the removed rectangle in page coordinates before cropping.
    """
    normalise_rotation(page)
    halves = page_halves(page)
    removed = halves["bottom" if kept == "top" else "top"]
    page.add_redact_annot(removed, fill=WHITE)
    page.apply_redactions(
        images=pymupdf.PDF_REDACT_IMAGE_PIXELS,
        graphics=pymupdf.PDF_REDACT_LINE_ART_REMOVE_IF_COVERED,
        text=pymupdf.PDF_REDACT_TEXT_REMOVE,
    )
    keep = halves[kept]
    # page.rect starts at (0, 0); the cropbox is expressed from the current cropbox origin.
    origin = page.cropbox.tl
    page.set_cropbox(
        pymupdf.Rect(keep.x0 + origin.x, keep.y0 + origin.y, keep.x1 + origin.x, keep.y1 + origin.y)
    )
    return removed


# -- region edits: masks and pixel replacement ---------------------------------------------

BLACK = (0, 0, 0)


def clip_to_page(page: pymupdf.Page, rects: Iterable[Iterable[float]]) -> list[pymupdf.Rect]:
    """``rects`` clipped to the page, the empty ones dropped."""
    out = []
    for rect in rects:
        clipped = pymupdf.Rect(rect) & page.rect
        if not clipped.is_empty:
            out.append(clipped)
    return out


def _drop_annotations_over(page: pymupdf.Page, rects: list[pymupdf.Rect]) -> None:
    """Annotations draw over page content, so one touching an edited region goes entirely."""
    for annot in list(page.annots() or []):
        if any(annot.rect.intersects(rect) for rect in rects):
            page.delete_annot(annot)


def redact_rects(
    page: pymupdf.Page,
    rects: Iterable[Iterable[float]],
    fill: tuple[float, ...] | Sequence[tuple[float, ...]] = BLACK,
    line_art: int = pymupdf.PDF_REDACT_LINE_ART_REMOVE_IF_COVERED,
) -> list[pymupdf.Rect]:
    """Remove what lies under ``rects`` from every channel, then paint them ``fill``.

    Text under a rectangle leaves the text layer (a character goes when its box overlaps),
    image pixels under it are blanked inside the image data, vector paths wholly inside are
    removed (``line_art``: a PyMuPDF ``PDF_REDACT_LINE_ART_*`` mode) and the rest is covered
    by the opaque fill; annotations touching a rectangle are deleted. ``fill`` is one colour
    for all, or one per rectangle (rectangles given already clipped to the page). Rectangles
    are in normalised page coordinates (the page's rotation is removed first). Returns the
    rectangles as clipped to the page.
    """
    normalise_rotation(page)
    clipped = clip_to_page(page, rects)
    if not clipped:
        return []
    fills = [fill] * len(clipped) if isinstance(fill[0], (int, float)) else list(fill)
    _drop_annotations_over(page, clipped)
    for rect, colour in zip(clipped, fills, strict=True):
        page.add_redact_annot(rect, fill=colour, cross_out=False)
    page.apply_redactions(
        images=pymupdf.PDF_REDACT_IMAGE_PIXELS,
        graphics=line_art,
        text=pymupdf.PDF_REDACT_TEXT_REMOVE,
    )
    return clipped


def render_region(
    page: pymupdf.Page, rect: Iterable[float], dpi: float, context: float = 0.0
) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """RGB pixels of ``rect`` plus up to ``context`` points around it (clipped to the page).

    Returns the array and the pixel box (x0, y0, x1, y1) of ``rect`` inside it, so a filter
    can see the surroundings (a blur then continues across the region's edge) before the
    region itself is cut out.
    """
    normalise_rotation(page)
    rect = pymupdf.Rect(rect) & page.rect
    outer = (
        pymupdf.Rect(rect.x0 - context, rect.y0 - context, rect.x1 + context, rect.y1 + context)
        & page.rect
    )
    pix = page.get_pixmap(dpi=dpi, clip=outer, alpha=False, colorspace=pymupdf.csRGB)
    array = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, pix.n)
    array = array[..., :3].copy()
    scale_x = pix.width / max(outer.width, 1e-9)
    scale_y = pix.height / max(outer.height, 1e-9)
    x0 = round((rect.x0 - outer.x0) * scale_x)
    y0 = round((rect.y0 - outer.y0) * scale_y)
    x1 = max(x0 + 1, min(pix.width, round((rect.x1 - outer.x0) * scale_x)))
    y1 = max(y0 + 1, min(pix.height, round((rect.y1 - outer.y0) * scale_y)))
    return array, (x0, y0, x1, y1)


def replace_with_pixels(page: pymupdf.Page, rect: Iterable[float], array: np.ndarray) -> None:
    """Make ``array`` (RGB) all that remains inside ``rect``.

    Everything under ``rect`` is redacted first (text layer, image pixels, vector paths as
    in :func:`redact_rects`), then the pixels are placed there as an opaque PNG image.
    """
    clipped = redact_rects(page, [rect], fill=WHITE)
    if clipped:
        page.insert_image(clipped[0], stream=encode_png(array), keep_proportion=False)


def blur_regions(
    page: pymupdf.Page, rects: Iterable[Iterable[float]], radius_px: float, dpi: float
) -> list[pymupdf.Rect]:
    """Replace each rectangle by a Gaussian blur (``radius_px`` at ``dpi``) of itself.

    Every region is rendered from the page before any of them is edited, with three radii
    of context around it so the blur is continuous across its edge; then all are redacted
    (:func:`redact_rects`) and each is replaced by its blurred pixels as an opaque image.
    """
    normalise_rotation(page)
    clipped = clip_to_page(page, rects)
    context = 3.0 * radius_px * 72.0 / dpi
    blurred = []
    for rect in clipped:
        array, (x0, y0, x1, y1) = render_region(page, rect, dpi, context)
        blurred.append(gaussian_blur(array, radius_px)[y0:y1, x0:x1])
    redact_rects(page, clipped, fill=WHITE)
    for rect, pixels in zip(clipped, blurred, strict=True):
        page.insert_image(rect, stream=encode_png(pixels), keep_proportion=False)
    return clipped


def blur_page(page: pymupdf.Page, radius_px: float, dpi: float) -> None:
    """Replace the whole page by a Gaussian blur of its rendering.

    The page is rendered (annotations included), emptied as by :func:`blank_page` (text
    layer, images, drawings, links, annotations all gone), and the blurred pixels become
    its only content.
    """
    normalise_rotation(page)
    array, _ = render_region(page, page.rect, dpi)
    blurred = gaussian_blur(array, radius_px)
    blank_page(page)
    page.insert_image(page.rect, stream=encode_png(blurred), keep_proportion=False)
