"""Words of a PDF page: the text layer when there is a usable one, OCR of a render otherwise.

Coordinates: every box returned here is in PDF points in PyMuPDF's *unrotated* page space,
the space ``page.get_text``, ``page.search_for`` and the drawing/redaction methods use (top-
left origin, y down, relative to the CropBox). A render (``page.get_pixmap``) shows the page
*as rotated* by ``/Rotate``, so OCR boxes are scaled from pixels to points and then mapped
through ``page.derotation_matrix``; on a rotated page a horizontal OCR word therefore comes
back as a tall box, exactly where the text layer would have put it. To draw on a render
again, map back with ``page.rotation_matrix`` and scale by ``dpi / 72``.

Limitation: on a page with a usable text layer, text inside embedded images (a chart
pasted as a picture) is not read; OCR such a region with
:func:`abstain_build.textregions.ocr.ocr_image` if it matters.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import pymupdf

from abstain_build.textregions import ocr
from abstain_build.textregions.labels import with_labels
from abstain_build.textregions.words import Word

DEFAULT_DPI = 144
# A text layer is "usable" when it has at least this many words containing a letter or
# digit. Scanned or image-only pages often still carry a stray page number or one hidden
# watermark word (one real deck's title slide has 2); three such words is the smallest
# count that no such page reached in the data we have, while a real content page has dozens.
MIN_TEXT_LAYER_WORDS = 3


@dataclass
class PageWords:
    """The words of one page (PDF points, unrotated page space) and where they came from.

    ``source``: "text_layer", "ocr", or "none" (no text layer and no OCR engine; ``reason``
    says why). ``seconds``: wall time of the whole lookup, rendering and OCR included (near
    zero for a cached OCR result). ``dpi`` and ``engine`` are set when OCR was used.
    """

    words: list[Word]
    source: str
    seconds: float
    reason: str = ""
    dpi: float | None = None
    engine: str = ""
    page_size: tuple[float, float] = field(default=(0.0, 0.0))  # unrotated width, height

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)


def _is_wordlike(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


def text_layer_words(page: pymupdf.Page) -> list[Word]:
    """The words of the page's text layer, boxes in points (unrotated page space).

    From ``page.get_text("words")``, which clips to the page and gives
    ``(x0, y0, x1, y1, word, block_no, line_no, word_no)``. ``block`` is MuPDF's block
    number; ``line`` numbers the lines over the whole page (MuPDF's ``line_no`` restarts in
    every block), as the OCR backends do. conf is 100, source "text_layer".
    """
    words: list[Word] = []
    lines: dict[tuple[int, int], int] = {}
    for x0, y0, x1, y1, text, block, line, _ in page.get_text("words"):
        line_id = lines.setdefault((block, line), len(lines) + 1)
        if not text.strip():
            continue
        words.append(
            Word(
                text,
                (float(x0), float(y0), float(x1), float(y1)),
                100.0,
                int(block),
                line_id,
                "text_layer",
            )
        )
    return words


def has_usable_text_layer(page: pymupdf.Page) -> bool:
    """Whether the text layer has at least :data:`MIN_TEXT_LAYER_WORDS` alphanumeric words."""
    return _usable(text_layer_words(page))


def _usable(words: list[Word]) -> bool:
    return sum(1 for w in words if _is_wordlike(w.text)) >= MIN_TEXT_LAYER_WORDS


def render_page(page: pymupdf.Page, dpi: float = DEFAULT_DPI) -> np.ndarray:
    """The page rendered (as displayed, i.e. rotated) at ``dpi``: uint8 gray, H x W."""
    pixmap = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False)
    array = np.frombuffer(pixmap.samples, dtype=np.uint8)
    array = array.reshape(pixmap.height, pixmap.stride)[:, : pixmap.width * pixmap.n]
    return array.reshape(pixmap.height, pixmap.width, pixmap.n)[:, :, 0].copy()


def pixel_words_to_points(
    words: list[Word], page: pymupdf.Page, image_shape: tuple[int, ...]
) -> list[Word]:
    """OCR words of a full-page render mapped to points in unrotated page space.

    The scale comes from the render's own size against ``page.rect`` (the displayed page),
    so a render at any resolution works.
    """
    height, width = image_shape[:2]
    scale_x = page.rect.width / width
    scale_y = page.rect.height / height
    to_page = pymupdf.Matrix(scale_x, 0, 0, scale_y, page.rect.x0, page.rect.y0)
    to_page = to_page * page.derotation_matrix
    mapped: list[Word] = []
    for word in words:
        rect = pymupdf.Rect(word.bbox) * to_page  # Rect * Matrix gives the normalised hull
        mapped.append(
            Word(
                word.text,
                (rect.x0, rect.y0, rect.x1, rect.y1),
                word.conf,
                word.block,
                word.line,
                word.source,
            )
        )
    return mapped


def _check_render(page: pymupdf.Page, image: np.ndarray) -> None:
    if image.ndim < 2 or not image.shape[0] or not image.shape[1]:
        raise ValueError(f"render has no pixels (shape {image.shape})")
    expected = page.rect.width / page.rect.height
    actual = image.shape[1] / image.shape[0]
    if abs(actual / expected - 1) > 0.02:
        raise ValueError(
            f"render is {image.shape[1]}x{image.shape[0]} px, which is not the shape of the "
            f"displayed page ({page.rect.width:g}x{page.rect.height:g} pt); pass a render of "
            "the whole page as page.get_pixmap makes it"
        )


def page_words(
    page: pymupdf.Page,
    dpi: float = DEFAULT_DPI,
    render: np.ndarray | None = None,
    *,
    psm: int = ocr.PSM_AUTO,
    min_conf: float = 0.0,
    backend: str | None = None,
    labels: bool = True,
) -> PageWords:
    """The page's words, the cheap way first.

    If :func:`has_usable_text_layer`, its words. Otherwise the page is rendered at ``dpi``
    (or ``render`` is used: a uint8 render of the whole displayed page, e.g. one the caller
    already made; any resolution) and OCR'd, boxes converted to points, with the labels
    on colour a second pass finds (``labels``, :mod:`.labels`). Without an OCR engine:
    ``source="none"``, no words, and ``reason`` says how to install one.
    """
    started = time.perf_counter()
    unrotated = page.rect * page.derotation_matrix
    size = (abs(unrotated.width), abs(unrotated.height))
    layer = text_layer_words(page)
    if _usable(layer):
        return PageWords(layer, "text_layer", time.perf_counter() - started, page_size=size)
    try:
        engine = ocr.engine_name(backend)
    except ocr.OcrUnavailable as error:
        return PageWords(
            [],
            "none",
            time.perf_counter() - started,
            reason=f"no usable text layer ({len(layer)} words) and no OCR: {error}",
            page_size=size,
        )
    image = render_page(page, dpi) if render is None else np.asarray(render)
    if render is not None:
        _check_render(page, image)
    used_dpi = 72.0 * image.shape[1] / page.rect.width if page.rect.width else None
    found = ocr.ocr_image(
        image,
        psm=psm,
        min_conf=min_conf,
        dpi=round(used_dpi) if used_dpi else None,
        backend=backend,
    )
    if labels and used_dpi:
        found = with_labels(found, image, used_dpi, backend)
    return PageWords(
        pixel_words_to_points(found, page, image.shape),
        "ocr",
        time.perf_counter() - started,
        dpi=used_dpi,
        engine=engine,
        page_size=size,
    )
