"""PDF page edits that remove content from every channel: pixels, vector art and text layer."""

from __future__ import annotations

import pymupdf

WHITE = (1, 1, 1)


def _normalise(page: pymupdf.Page) -> None:
    """Work in unrotated coordinates so rectangles mean the same thing everywhere."""
    if page.rotation:
        page.remove_rotation()


def blank_page(page: pymupdf.Page) -> None:
    """Erase everything on the page (text, images, drawings, links, annotations)."""
    _normalise(page)
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
    _normalise(page)
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
