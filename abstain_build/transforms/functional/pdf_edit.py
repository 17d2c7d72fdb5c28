"""PDF page edits that remove content from every channel: pixels, vector art and text layer."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Sequence

import numpy as np
import pymupdf

from ...media.images import encode_png
from ...textregions.ruled_tables import ruled_finds
from ...textregions.tables import find_tables
from ...textregions.words import Word
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


#: A cut between the halves is looked for this share of the page's height either side of
#: the midpoint ...
CUT_REACH = 0.15
#: ... in a blank band at least this tall (points): a break between paragraphs or blocks;
#: else in any blank band (between two lines); else at the midpoint itself.
BLOCK_GAP = 6.0
#: A pixel row is blank when no more than this share of it (at least one pixel) differs
#: from the row's median grey by more than :data:`_INK` levels: paper or a flat fill, with
#: a scan's specks ...
_SPECKS = 0.002
_INK = 48
#: ... and no more than this share by more than :data:`_FILL` levels: a row through the
#: light shading of a table's cells is no gap (the white between the cells differs by 20
#: to 40 levels, no ink, but the cut would leave stubs of the cells).
_FILL_SHARE = 0.02
_FILL = 12
#: Tables found by PyMuPDF this close above each other are one table (a 10-K's shaded
#: rows are found one by one), and no cut goes between its rows.
TABLE_GAP = 16.0


def blank_rows(page: pymupdf.Page, dpi: int = 72) -> list[tuple[float, float]]:
    """The page's blank horizontal bands, (top, bottom) in points."""
    rect = page.rect
    pixmap = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
    if pixmap.height < 2:
        return []
    grey = np.frombuffer(pixmap.samples, np.uint8).reshape(pixmap.height, pixmap.width)
    median = np.median(grey, axis=1, keepdims=True)
    off = np.abs(grey.astype(np.int16) - median)
    inked = (off > _INK).sum(axis=1)
    filled = (off > _FILL).sum(axis=1)
    blank = (inked <= max(1, _SPECKS * pixmap.width)) & (filled <= _FILL_SHARE * pixmap.width)
    scale = rect.height / pixmap.height
    runs: list[tuple[float, float]] = []
    start = None
    for row, empty in enumerate([*blank.tolist(), False]):
        if empty and start is None:
            start = row
        elif not empty and start is not None:
            runs.append((rect.y0 + start * scale, rect.y0 + row * scale))
            start = None
    return runs


def table_spans(page: pymupdf.Page) -> list[tuple[float, float]]:
    """(top, bottom) of the tables on ``page``'s text layer, ruled or laid out with
    whitespace (:func:`~abstain_build.textregions.tables.find_tables`), those closer than
    :data:`TABLE_GAP` above each other taken as one. A page without a text layer has none
    here: its shaded tables are no blank rows (:func:`blank_rows`), and OCR is not worth
    a cut."""
    words = [
        Word(text, (x0, y0, x1, y1), source="text_layer")
        for x0, y0, x1, y1, text, *_ in page.get_text("words")
    ]
    boxes = [t.bbox for t in find_tables(words, page)]
    # PyMuPDF's own finds, however few their rows: a 10-K's shaded rows come one by one.
    with contextlib.suppress(ValueError, RuntimeError):
        boxes += [t.bbox for t in ruled_finds(page)]
    spans: list[tuple[float, float]] = []
    for top, bottom in sorted((box[1], box[3]) for box in boxes):
        if spans and top - spans[-1][1] <= TABLE_GAP:
            spans[-1] = (spans[-1][0], max(spans[-1][1], bottom))
        else:
            spans.append((top, bottom))
    return spans


def cut_line(page: pymupdf.Page) -> float | None:
    """Where the page splits cleanly into halves: the point nearest the vertical midpoint
    of a blank band (a paragraph break first, else a gap between lines), within
    :data:`CUT_REACH` of it, never between the rows of a table; None when every row near
    the middle is printed on (a chart, a table or a picture across it), where any cut
    would go through them."""
    rect = page.rect
    middle = rect.y0 + rect.height / 2
    reach = CUT_REACH * rect.height
    runs = blank_rows(page)
    tables = table_spans(page)
    for tallest in (BLOCK_GAP, 0.0):
        # The point of each band nearest the midpoint, kept off the band's edges (its ink).
        cuts = []
        for y0, y1 in runs:
            if y1 - y0 < tallest:
                continue
            edge = min(2.0, (y1 - y0) / 2)
            cuts.append(min(max(middle, y0 + edge), y1 - edge))
        cuts = [
            y
            for y in cuts
            if abs(y - middle) <= reach and not any(top < y < bottom for top, bottom in tables)
        ]
        if cuts:
            return min(cuts, key=lambda y: (abs(y - middle), y))
    return None


def page_split(page: pymupdf.Page) -> tuple[float, bool]:
    """Where the page splits into halves, and whether cleanly: :func:`cut_line`, else the
    vertical midpoint itself."""
    cut = cut_line(page)
    if cut is None:
        return page.rect.y0 + page.rect.height / 2, False
    return cut, True


def page_halves(page: pymupdf.Page, split: float | None = None) -> dict[str, pymupdf.Rect]:
    """The top and bottom halves of the visible page, split at ``split`` (by default
    :func:`page_split`)."""
    rect = page.rect
    middle = page_split(page)[0] if split is None else split
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


FLATTEN_DPI = 216


def _path_vertices(drawing: dict) -> list[pymupdf.Point]:
    """Every point a drawing's path visits (line ends, curve points, rectangle corners)."""
    points: list[pymupdf.Point] = []
    for item in drawing["items"]:
        for value in item[1:]:
            if isinstance(value, pymupdf.Point):
                points.append(value)
            elif isinstance(value, pymupdf.Rect):
                points += [value.tl, value.tr, value.bl, value.br]
            elif isinstance(value, pymupdf.Quad):
                points += [value.ul, value.ur, value.ll, value.lr]
    return points


def _strictly_inside(point: pymupdf.Point, rect: pymupdf.Rect, margin: float = 0.5) -> bool:
    return (
        rect.x0 + margin < point.x < rect.x1 - margin
        and rect.y0 + margin < point.y < rect.y1 - margin
    )


def _is_blank_fill(drawing: dict) -> bool:
    """A white fill without a stroke: a background that tells nothing about what it lies under."""
    fill = drawing.get("fill")
    return drawing.get("color") is None and fill is not None and min(fill) >= 0.99


def paths_hidden_under(page: pymupdf.Page, rects: Sequence[pymupdf.Rect]) -> list[pymupdf.Rect]:
    """Boxes of the vector paths that would keep geometry under ``rects`` after a redaction.

    A redaction removes a path only when a rectangle covers it whole. A path that crosses
    a rectangle keeps its coordinates in the content stream: a bar whose top lies under a
    black box, or a line chart's points, still give the values to anyone reading the PDF.
    A path counts when one of its vertices lies inside a rectangle and it is not inside
    one whole; a rule that merely crosses a box (both ends outside) tells nothing new.
    """
    hidden = []
    for drawing in page.get_drawings():
        box = pymupdf.Rect(drawing["rect"])
        if _is_blank_fill(drawing) or any(box in rect for rect in rects):
            continue
        vertices = _path_vertices(drawing)
        if any(_strictly_inside(point, rect) for point in vertices for rect in rects):
            # Padded by the stroke, so the region covers the path as drawn (a redaction
            # removes a path only when it covers the whole of it).
            pad = (drawing.get("width") or 0.0) + 1.0
            hidden.append(
                pymupdf.Rect(box.x0 - pad, box.y0 - pad, box.x1 + pad, box.y1 + pad) & page.rect
            )
    return [box for box in hidden if not box.is_empty]


def flatten_regions(
    page: pymupdf.Page, rects: Sequence[pymupdf.Rect], dpi: float = FLATTEN_DPI
) -> None:
    """Replace the vector art inside ``rects`` (not overlapping) by a picture of it, as it
    looks now.

    Each region is rendered, the paths wholly inside the regions are removed (text, images
    and everything outside stay), and each rendering is placed over its region. The page
    looks the same; the paths' coordinates are gone.
    """
    pictures = [render_region(page, rect, dpi)[0] for rect in rects]
    for rect in rects:
        page.add_redact_annot(rect, fill=False, cross_out=False)
    page.apply_redactions(
        images=pymupdf.PDF_REDACT_IMAGE_NONE,
        graphics=pymupdf.PDF_REDACT_LINE_ART_REMOVE_IF_COVERED,
        text=pymupdf.PDF_REDACT_TEXT_NONE,
    )
    for rect, array in zip(rects, pictures, strict=True):
        page.insert_image(rect, stream=encode_png(array), keep_proportion=False)


def _merged(boxes: list[pymupdf.Rect]) -> list[pymupdf.Rect]:
    """Overlapping boxes joined until none overlap (one picture per chart, not per series)."""
    merged: list[pymupdf.Rect] = []
    for box in boxes:
        box = pymupdf.Rect(box)
        changed = True
        while changed:
            changed = False
            for other in merged:
                if box.intersects(other):
                    merged.remove(other)
                    box |= other
                    changed = True
                    break
        merged.append(box)
    return merged


def redact_rects(
    page: pymupdf.Page,
    rects: Iterable[Iterable[float]],
    fill: tuple[float, ...] | Sequence[tuple[float, ...] | None] = BLACK,
    line_art: int = pymupdf.PDF_REDACT_LINE_ART_REMOVE_IF_COVERED,
) -> list[pymupdf.Rect]:
    """Remove what lies under ``rects`` from every channel, then paint them ``fill``.

    Text under a rectangle leaves the text layer (a character goes when its box overlaps),
    image pixels under it are blanked inside the image data, vector paths wholly inside are
    removed (``line_art``: a PyMuPDF ``PDF_REDACT_LINE_ART_*`` mode) and the rest is covered
    by the opaque fill (``None`` for one rectangle: no fill, what was not removed shows);
    annotations touching a rectangle are deleted. Unless ``line_art`` is
    ``PDF_REDACT_LINE_ART_NONE``, paths that cross a rectangle with a vertex inside it are
    flattened to pixels (:func:`paths_hidden_under`), so no chart geometry survives under
    the fill. ``fill`` is one colour for all, or one per rectangle (rectangles given already
    clipped to the page). Rectangles are in normalised page coordinates (the page's rotation
    is removed first). Returns the rectangles as clipped to the page.
    """
    normalise_rotation(page)
    clipped = clip_to_page(page, rects)
    if not clipped:
        return []
    fills = [fill] * len(clipped) if isinstance(fill[0], (int, float)) else list(fill)
    hidden = paths_hidden_under(page, clipped) if line_art else []
    _drop_annotations_over(page, clipped)
    pristine = pymupdf.open()
    pristine.insert_pdf(page.parent, from_page=page.number, to_page=page.number)
    words = page.get_text("words")
    hit = _touching(words, clipped)
    kept = [w for w, touched in zip(words, hit, strict=True) if not touched]
    cut = [pymupdf.Rect(w[:4]) for w, touched in zip(words, hit, strict=True) if touched]
    for rect, colour in zip(clipped, fills, strict=True):
        page.add_redact_annot(rect, fill=False if colour is None else colour, cross_out=False)
    page.apply_redactions(
        images=pymupdf.PDF_REDACT_IMAGE_PIXELS,
        graphics=line_art,
        text=pymupdf.PDF_REDACT_TEXT_REMOVE,
    )
    # What is left of a word a rectangle cut through is no word moved.
    after = _untouched(page.get_text("words"), [*clipped, *cut])
    damaged = _damaged_bands(page, kept, after)
    if damaged:
        # MuPDF's redaction re-lays some text objects wrongly (labels shifted beside the
        # removed values, "revenu2015s"): those lines are shown as they should look.
        if hidden:
            flatten_regions(page, _merged(hidden))
        cover_with_picture(page, pristine[0], clipped, fills, damaged)
    elif hidden:
        flatten_regions(page, _merged(hidden))
    pristine.close()
    return clipped


def _untouched(words: Sequence[tuple], rects: Sequence[pymupdf.Rect]) -> list[tuple]:
    """The ``words`` no rectangle overlaps."""
    return [w for w, hit in zip(words, _touching(words, rects), strict=True) if not hit]


def _touching(words: Sequence[tuple], rects: Sequence[pymupdf.Rect]) -> np.ndarray:
    """Per word (PyMuPDF word tuples), whether a rectangle overlaps its box."""
    if not words or not rects:
        return np.zeros(len(words), dtype=bool)
    boxes = np.array([w[:4] for w in words], dtype=float)[:, None, :]
    areas = np.array([tuple(r) for r in rects], dtype=float)[None, :, :]
    return (
        (boxes[..., 0] < areas[..., 2])
        & (areas[..., 0] < boxes[..., 2])
        & (boxes[..., 1] < areas[..., 3])
        & (areas[..., 1] < boxes[..., 3])
    ).any(axis=1)


def _damaged_bands(
    page: pymupdf.Page, before: Sequence[tuple], after: Sequence[tuple], slack: float = 0.5
) -> list[pymupdf.Rect]:
    """Full-width bands of the page over every word of ``before`` that is no longer printed
    where it was, and every word of ``after`` printed where nothing was (merged; none when
    the redaction left everything it did not cover in place)."""

    def missing(words: Sequence[tuple], among: Sequence[tuple]) -> list[tuple]:
        where: dict[str, list[tuple]] = {}
        for word in among:
            where.setdefault(word[4], []).append(word)
        return [
            w
            for w in words
            if not any(
                abs(o[0] - w[0]) <= slack and abs(o[1] - w[1]) <= slack for o in where.get(w[4], [])
            )
        ]

    boxes = [w[:4] for w in missing(before, after) + missing(after, before)]
    bands = [pymupdf.Rect(page.rect.x0, y0 - 1, page.rect.x1, y1 + 1) for _, y0, _, y1 in boxes]
    return [band & page.rect for band in _merged(bands)]


def cover_with_picture(
    page: pymupdf.Page,
    pristine: pymupdf.Page,
    rects: Sequence[pymupdf.Rect],
    fills: Sequence[tuple[float, ...] | None],
    bands: Sequence[pymupdf.Rect] | None = None,
    dpi: float = FLATTEN_DPI,
) -> None:
    """Cover ``bands`` of ``page`` (all of it by default) with a picture of ``pristine``
    (the page before the redaction) with ``rects`` painted ``fills``; a rectangle without
    a fill is a hole in the picture, so what is drawn there later (a rewritten value)
    shows. The redacted content stays under the picture: the text layer keeps every word
    the rectangles did not touch (where MuPDF moved one, a little off its place); what a
    reader sees is the page minus the rectangles."""
    for rect, colour in zip(rects, fills, strict=True):
        if colour is not None:
            pristine.draw_rect(rect, color=None, fill=colour, overlay=True)
    for band in bands if bands is not None else [page.rect]:
        pixmap = pristine.get_pixmap(dpi=dpi, alpha=False, annots=False, clip=band)
        rgb = np.frombuffer(pixmap.samples, np.uint8).reshape(pixmap.height, pixmap.width, 3)
        alpha = np.full(rgb.shape[:2], 255, np.uint8)
        scale_x, scale_y = pixmap.width / band.width, pixmap.height / band.height
        for rect, colour in zip(rects, fills, strict=True):
            hole = rect & band
            if colour is None and not hole.is_empty:
                x0, y0 = int((hole.x0 - band.x0) * scale_x), int((hole.y0 - band.y0) * scale_y)
                x1 = int(np.ceil((hole.x1 - band.x0) * scale_x))
                y1 = int(np.ceil((hole.y1 - band.y0) * scale_y))
                alpha[y0:y1, x0:x1] = 0
        picture = np.dstack([rgb, alpha]) if (alpha == 0).any() else rgb
        page.insert_image(band, stream=encode_png(picture), overlay=True, keep_proportion=False)


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
