"""What can be read on a PDF page, through every channel a model could use.

A page is read through:

* ``text_layer``: the PDF's own words (what a model given the PDF reads exactly);
* ``ocr``: Tesseract on the page render, for pages without a usable text layer (scans,
  slides exported as pictures) and, when asked (:func:`read_pixels`), on any render;
* ``ocr_figure``: Tesseract in sparse-text mode on each raster image of a text page large
  enough to hold a chart (a pie label or a count printed on a screenshot is in no text
  layer).

Boxes are in points of the *normalised* page (rotation removed, origin at the top left of
the visible page), the space the document transforms plan and edit in, so a reading's
boxes can be masked as they are. OCR results are cached by pixel content
(:mod:`abstain_build.textregions.ocr`), so a page read once is never read again, in this
process or another of the same run.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pymupdf

from ..content.page_content import normalised_page
from ..media.pdf import page_digest
from ..textregions import labels as label_ocr
from ..textregions import ocr
from ..textregions.pages import DEFAULT_DPI, page_words, text_layer_words
from ..textregions.words import Box, Word, connected_groups, union_box
from .page_cache import cached_reading

TEXT_LAYER = "text_layer"
OCR = "ocr"
OCR_FIGURE = "ocr_figure"
#: A raster image on a text page is read when it covers this share of the page...
MIN_FIGURE_SHARE = 0.02
#: ... and both its sides are at least this long (points): logos and icons are skipped.
MIN_FIGURE_SIDE = 60.0
#: Charts are read at this resolution: small labels need more pixels than body text.
FIGURE_DPI = 200
#: OCR words below this confidence are noise (swatches, bar edges, photo texture).
MIN_CONF = 30.0
#: Pixels one OCR pass may read. A page or picture larger than this at the wanted
#: resolution (a 14,400-pt poster, a spread printed at full size) is read at a lower one,
#: and the reading says so. A budget in pixels, not seconds: OCR time grows with pixels,
#: and a budget in seconds would make the same input read differently on a busy machine.
MAX_READ_PIXELS = 24_000_000


def budget_dpi(width: float, height: float, dpi: int) -> int:
    """``dpi``, or the highest whole resolution at which a ``width`` x ``height`` pt region
    fits :data:`MAX_READ_PIXELS`."""
    area = max(width, 1.0) * max(height, 1.0)
    if area * (dpi / 72) ** 2 <= MAX_READ_PIXELS:
        return dpi
    return max(1, int(72 * (MAX_READ_PIXELS / area) ** 0.5))


def _reduced(what: str, width: float, height: float, wanted: int, used: int) -> str:
    return (
        f"{what} ({width:.0f} x {height:.0f} pt) read at {used} dpi instead of"
        f" {wanted}: {MAX_READ_PIXELS / 1e6:g} million pixels per reading at most"
    )


@dataclass(frozen=True)
class Reading:
    """The words one channel reads on one page (points, normalised page space)."""

    page: int  # 1-based
    channel: str
    words: tuple[Word, ...]
    #: The part of the page read (a raster image); None for the whole page.
    region: Box | None = None

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)


@dataclass
class PageReadings:
    """Every reading of one page, and what could not be read."""

    page: int
    readings: list[Reading] = field(default_factory=list)
    #: A digest of the page's content stream: equal digests, equal pages.
    digest: str = ""
    #: Why a channel is missing (no OCR engine), empty when nothing is.
    unread: str = ""
    has_text_layer: bool = False
    size: tuple[float, float] = (0.0, 0.0)  # normalised width, height
    #: Regions read at a lower resolution than wanted (:data:`MAX_READ_PIXELS`), and why.
    reduced: list[str] = field(default_factory=list)

    def channels(self) -> list[str]:
        return sorted({r.channel for r in self.readings})


def figure_boxes(page: pymupdf.Page) -> list[Box]:
    """Raster images on the (normalised) page large enough to hold a chart's labels."""
    area = page.rect.width * page.rect.height
    boxes: list[Box] = []
    for info in page.get_image_info():
        rect = pymupdf.Rect(info["bbox"]) & page.rect
        if rect.is_empty or rect.width < MIN_FIGURE_SIDE or rect.height < MIN_FIGURE_SIDE:
            continue
        if rect.width * rect.height < MIN_FIGURE_SHARE * area:
            continue
        box = (rect.x0, rect.y0, rect.x1, rect.y1)
        if box not in boxes:
            boxes.append(box)
    return boxes


def in_points(
    found: Sequence[Word], origin: tuple[float, float], scale: tuple[float, float]
) -> tuple[Word, ...]:
    """OCR words of an image (pixels) placed on the page (points): ``origin`` is where the
    image's top left corner sits, ``scale`` the points per pixel along x and y."""
    (ox, oy), (sx, sy) = origin, scale
    return tuple(
        Word(
            w.text,
            (ox + w.bbox[0] * sx, oy + w.bbox[1] * sy, ox + w.bbox[2] * sx, oy + w.bbox[3] * sy),
            w.conf,
            w.block,
            w.line,
            "ocr",
        )
        for w in found
    )


def _render_clip(page: pymupdf.Page, box: Box, dpi: float) -> np.ndarray:
    pix = page.get_pixmap(dpi=dpi, clip=pymupdf.Rect(box), colorspace=pymupdf.csGRAY, alpha=False)
    array = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.stride)
    return array[:, : pix.width].copy()


def read_figure(page: pymupdf.Page, number: int, box: Box) -> Reading:
    """Sparse-text OCR of one raster region of the page, words mapped to points."""
    dpi = budget_dpi(box[2] - box[0], box[3] - box[1], FIGURE_DPI)
    image = _render_clip(page, box, dpi)
    found = ocr.ocr_image(image, psm=ocr.PSM_SPARSE_TEXT, min_conf=MIN_CONF, dpi=dpi)
    scale = ((box[2] - box[0]) / max(image.shape[1], 1), (box[3] - box[1]) / max(image.shape[0], 1))
    words = in_points(found, (box[0], box[1]), scale)
    return Reading(number, OCR_FIGURE, words, box)


def overlapping_groups(boxes: Sequence[Box]) -> list[list[int]]:
    """Indices of ``boxes`` grouped by overlap (nested or crossing, chained), each group in
    the boxes' order: a photo spread's spread, halves and photos are one group."""

    def overlap(i: int, j: int) -> bool:
        a, b = boxes[i], boxes[j]
        return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])

    return connected_groups(len(boxes), overlap)


def _unions(boxes: Sequence[Box]) -> list[tuple[list[int], Box]]:
    """Each group of overlapping boxes and the region read for it (their union)."""
    return [(group, union_box(boxes[i] for i in group)) for group in overlapping_groups(boxes)]


def reduced_figures(boxes: Sequence[Box]) -> list[str]:
    """What :func:`read_figures` reads below :data:`FIGURE_DPI`, said as a reading note."""
    out = []
    for _, (x0, y0, x1, y1) in _unions(boxes):
        dpi = budget_dpi(x1 - x0, y1 - y0, FIGURE_DPI)
        if dpi < FIGURE_DPI:
            out.append(_reduced("a picture", x1 - x0, y1 - y0, FIGURE_DPI, dpi))
    return out


def read_figures(page: pymupdf.Page, number: int, boxes: Sequence[Box]) -> list[Reading]:
    """One reading per figure box, each pixel OCR'd once: overlapping boxes (a spread, its
    halves and its photos) are read as their union in one pass, and each box keeps the
    words whose centre it holds."""
    readings: dict[int, Reading] = {}
    for group, union in _unions(boxes):
        if len(group) == 1:
            readings[group[0]] = read_figure(page, number, boxes[group[0]])
            continue
        words = read_figure(page, number, union).words
        for i in group:
            x0, y0, x1, y1 = boxes[i]
            inside = tuple(
                w
                for w in words
                if x0 <= (w.bbox[0] + w.bbox[2]) / 2 <= x1
                and y0 <= (w.bbox[1] + w.bbox[3]) / 2 <= y1
            )
            readings[i] = Reading(number, OCR_FIGURE, inside, boxes[i])
    return [readings[i] for i in range(len(boxes))]


def add_figure_readings(page: pymupdf.Page, number: int, out: PageReadings) -> None:
    """The pictures of ``page`` read into ``out`` (:func:`read_figures`), with a note for
    those read below :data:`FIGURE_DPI`."""
    boxes = figure_boxes(page)
    out.readings += read_figures(page, number, boxes)
    out.reduced += reduced_figures(boxes)


def read_normalised_page(page: pymupdf.Page, number: int, figures: bool = True) -> PageReadings:
    """Every reading of one page already normalised (see :func:`read_page`)."""
    width, height = page.rect.width, page.rect.height
    out = PageReadings(number, size=(width, height))
    dpi = budget_dpi(width, height, DEFAULT_DPI)
    layer = page_words(page, dpi, min_conf=0.0)
    if layer.source == "ocr" and dpi < DEFAULT_DPI:
        out.reduced.append(_reduced("the page", width, height, DEFAULT_DPI, dpi))
    if layer.source == "text_layer":
        out.has_text_layer = True
        out.readings.append(Reading(number, TEXT_LAYER, tuple(layer.words)))
    else:
        if layer.source == "ocr":
            words = tuple(w for w in layer.words if w.conf >= MIN_CONF)
            out.readings.append(Reading(number, OCR, words))
        else:
            out.unread = layer.reason
        few = text_layer_words(page)  # the text layer's few words (a page number) count too
        if few:
            out.readings.append(Reading(number, TEXT_LAYER, tuple(few)))
    if figures and out.has_text_layer:
        try:
            add_figure_readings(page, number, out)
        except ocr.OcrUnavailable as error:
            out.unread = f"charts on the page not read: {error}"
    return out


def read_page(document: pymupdf.Document, number: int, figures: bool = True) -> PageReadings:
    """Every reading of page ``number`` (1-based) of ``document``, from the run's page
    cache when another worker or an earlier run read the same page (:mod:`.page_cache`)."""
    readings = _read_page(document, number, figures, wait=True)
    assert readings is not None  # waiting always ends with a reading
    return readings


def _read_page(
    document: pymupdf.Document, number: int, figures: bool, wait: bool
) -> PageReadings | None:
    """:func:`read_page`; with ``wait=False``, None while another worker reads the page."""
    digest = page_digest(document[number - 1])

    def read() -> PageReadings:
        with normalised_page(document, number) as page:
            readings = read_normalised_page(page, number, figures)
        readings.digest = digest
        return readings

    return cached_reading(document[number - 1], digest, _settings(figures), read, wait)


def _settings(figures: bool) -> dict[str, object]:
    """Everything besides the page that changes its reading."""
    try:
        engine = ocr.engine_name()
    except ocr.OcrUnavailable:
        engine = "none"
    return {
        "dpi": DEFAULT_DPI,
        "figure_dpi": FIGURE_DPI,
        "figures": figures,
        "min_conf": MIN_CONF,
        "min_figure": [MIN_FIGURE_SHARE, MIN_FIGURE_SIDE],
        "max_pixels": MAX_READ_PIXELS,
        "engine": engine,
        "labels": [
            label_ocr.WINDOW_PT,
            *label_ocr.PASSES,
            label_ocr.MAX_GLYPH_PT,
            label_ocr.SURE_CONF,
            label_ocr.LABEL_LINES,
        ],
    }


def read_pixels(
    page_number: int,
    image: np.ndarray,
    page_size: tuple[float, float],
    channel: str = OCR,
    labels: bool = False,
) -> Reading:
    """OCR of a full-page image (a render of page ``page_number``), words in points;
    with ``labels``, the labels on colour too (:mod:`..textregions.labels`), as a page
    without a text layer is read."""
    # Asked as the judges ask (every word kept), so both share the cached result.
    found = [w for w in ocr.ocr_image(image) if w.conf >= MIN_CONF]
    width, height = page_size
    if labels and width > 0:
        found = label_ocr.with_labels(found, image, 72.0 * image.shape[1] / width)
    scale = (width / max(image.shape[1], 1), height / max(image.shape[0], 1))
    words = in_points(found, (0.0, 0.0), scale)
    return Reading(page_number, channel, words)


# -- a whole document, read once per process -----------------------------------------------

_DOCUMENTS_KEPT = 4
_documents: OrderedDict[str, dict[int, PageReadings]] = OrderedDict()
_documents_lock = threading.Lock()


def read_document(
    document: pymupdf.Document, digest: str, pages: Sequence[int] | None = None
) -> dict[int, PageReadings]:
    """Readings of ``pages`` (default: every page) of a document, kept per content digest
    (the samples of one document share them).

    Pages another worker is reading are passed over and collected at the end: two workers
    starting on questions of one document split its pages between them instead of the
    second waiting page by page behind the first."""
    wanted = list(pages) if pages is not None else list(range(1, document.page_count + 1))
    with _documents_lock:
        known = _documents.pop(digest, {})
        _documents[digest] = known
        while len(_documents) > _DOCUMENTS_KEPT:
            _documents.popitem(last=False)
    busy = []
    for number in [n for n in wanted if n not in known]:
        readings = _read_page(document, number, figures=True, wait=False)
        if readings is None:
            busy.append(number)
        else:
            known[number] = readings
    for number in busy:
        known[number] = read_page(document, number)
    return {n: known[n] for n in wanted}


def forget_documents() -> None:
    """Drop the per-process readings (tests; the OCR cache still holds)."""
    with _documents_lock:
        _documents.clear()
