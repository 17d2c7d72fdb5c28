"""Labels printed on colour: a second OCR pass that reads what layout analysis skips.

Tesseract's layout analysis takes a pie or a bar with its label for a picture and skips
it: on a slide exported as one image, "51%" in white on a blue slice, or "19.8%" beside a
bar, is in no word of the page's OCR, yet any reader sees it. Reading the whole page
again in sparse mode does not help (measured on the shared slide deck: 0-6 of 13 chart
labels, whatever the binarisation), because the shapes still confuse the segmentation.
So labels are found first and read one by one:

1. **Ink.** A pixel is ink when it differs from the mean of its neighbourhood (a square
   :data:`WINDOW_PT` points wide) by more than a contrast, whichever way: strokes of text,
   dark on light or light on dark, are ink; the inside of a bar, a slice or a flat photo
   area, wider than the window, is not.
2. **Glyphs.** Connected pieces of ink no taller than :data:`MAX_GLYPH_PT` and not much
   wider than tall; a bar's outline or a photo's texture is dropped.
3. **Words.** Glyphs a small gap apart on a line are one candidate box; boxes where the
   first pass already read a word are skipped.
4. **Reading.** Each box is cut out with its glyphs only (everything else set to paper),
   turned dark-on-light (a light label on a dark slice is inverted), scaled to a height
   Tesseract reads well and read as one line.

Two contrasts (:data:`PASSES`) are tried, because a label on a light tint and one on a
saturated bar need different ones. Measured on the deck's chart slides: 12 of 13 value
labels read (the first pass read 1), about 0.4 s a slide.

``scipy.ndimage`` does the labelling and the joining (connected components are not worth
writing again); the neighbourhood's sums are :func:`..media.images.box_sums`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

import numpy as np
from scipy import ndimage

from ..media.images import box_sums, luma
from . import ocr
from .words import Word, same_word_place

#: Width of the neighbourhood a pixel is compared with, in points: a label's strokes are
#: narrower, a bar or a slice wider.
WINDOW_PT = 7.0
#: The contrasts (gray levels from the neighbourhood's mean) that make a pixel ink, one
#: pass each.
PASSES = (30.0, 60.0)
#: A glyph taller than this (points) is a shape's outline, not a letter.
MAX_GLYPH_PT = 40.0
#: A candidate word lower than this (points) is a speck.
MIN_WORD_PT = 5.0
#: Glyphs closer than this (points) along a line are one word.
WORD_GAP_PT = 3.0
#: Height in pixels a candidate is scaled to before it is read.
READ_HEIGHT_PX = 36
#: Words read below this confidence are noise (an edge read as "|" or "!").
MIN_CONF = 50.0
#: A first-pass word this sure is not read again.
SURE_CONF = 60.0
#: Each candidate box is read as a line of its own, numbered from here up so that it
#: never shares a (block, line) with the first pass or another label: a map's labels all
#: read as Tesseract's block 1, line 1, and line-based matching would join them.
LABEL_LINES = 10_000

Box = tuple[int, int, int, int]


def _window(dpi: float) -> int:
    return max(3, round(WINDOW_PT * dpi / 72.0) | 1)


def _scaled_deviation(gray: np.ndarray, dpi: float) -> tuple[np.ndarray, int]:
    """``|pixel x n - sum of its neighbourhood|`` in integers, and ``n``, the
    neighbourhood's pixel count: the deviation times ``n``, with no rounding."""
    size = _window(dpi)
    count = size * size
    return np.abs(gray.astype(np.int32) * count - box_sums(gray, size)), count


def deviation(gray: np.ndarray, dpi: float) -> np.ndarray:
    """How far each pixel of ``gray`` is from its neighbourhood's mean, either way: over a
    contrast, it is ink."""
    scaled, count = _scaled_deviation(gray, dpi)
    return scaled / count


def ink(gray: np.ndarray, dpi: float, contrasts: Sequence[float]) -> list[np.ndarray]:
    """The ink of ``gray`` at each contrast: pixels whose :func:`deviation` exceeds it.
    Compared in integers (deviation x n against contrast x n), so no pixel on a contrast
    depends on how a mean was rounded."""
    scaled, count = _scaled_deviation(gray, dpi)
    limits = (contrast * count for contrast in contrasts)
    return [scaled > (int(limit) if limit == int(limit) else limit) for limit in limits]


def glyphs(mask: np.ndarray, dpi: float) -> np.ndarray:
    """The pieces of ``mask`` shaped like letters (see the module doc)."""
    pieces, count = ndimage.label(mask)
    tallest = MAX_GLYPH_PT * dpi / 72.0
    letter = np.zeros(count + 1, dtype=bool)  # by piece number; 0 is the ground
    for index, where in enumerate(ndimage.find_objects(pieces), start=1):
        if where is None:
            continue
        height = where[0].stop - where[0].start
        width = where[1].stop - where[1].start
        letter[index] = height <= tallest and width <= 2.5 * height + 2 * dpi / 72.0
    return letter[pieces]


def word_boxes(letters: np.ndarray, dpi: float) -> list[Box]:
    """Boxes (x0, y0, x1, y1, pixels) of glyphs joined along their lines."""
    gap = max(1, round(WORD_GAP_PT * dpi / 72.0))
    joined = ndimage.maximum_filter1d(letters.view(np.uint8), 2 * gap + 1, axis=1) > 0
    lowest = MIN_WORD_PT * dpi / 72.0
    boxes = []
    for where in ndimage.find_objects(ndimage.label(joined)[0]):
        if where is not None and where[0].stop - where[0].start >= lowest:
            boxes.append((where[1].start, where[0].start, where[1].stop, where[0].stop))
    return boxes


def _margin(box: Box, shape: tuple[int, ...]) -> Box:
    """The box with a margin of about half its height, inside the image."""
    x0, y0, x1, y1 = box
    pad = int((y1 - y0) * 0.4) + 2
    height, width = shape[:2]
    return max(0, x0 - pad), max(0, y0 - pad), min(width, x1 + pad), min(height, y1 + pad)


def _cut(gray: np.ndarray, letters: np.ndarray, box: Box) -> tuple[np.ndarray, Box]:
    """The box with a margin, dark on paper, its glyphs only; and where it was cut."""
    x0, y0, x1, y1 = box
    xa, ya, xb, yb = _margin(box, gray.shape)
    crop = gray[ya:yb, xa:xb].astype(np.float64)
    border = np.concatenate([crop[0], crop[-1], crop[:, 0], crop[:, -1]])
    if gray[y0:y1, x0:x1].mean() > np.median(border):
        crop = 255.0 - crop  # a light label on a dark ground
    low, high = np.percentile(crop, 2), np.percentile(crop, 98)
    crop = np.clip((crop - low) * 255.0 / max(high - low, 1.0), 0, 255)
    crop[~ndimage.binary_dilation(letters[ya:yb, xa:xb], iterations=2)] = 255.0
    return crop.astype(np.uint8), (xa, ya, xb, yb)


def _scale(box: Box) -> int:
    return max(1, round(READ_HEIGHT_PX / max(box[3] - box[1], 1)))


def _read(
    gray: np.ndarray, letters: np.ndarray, box: Box, backend: str | None, line: int
) -> list[Word]:
    """The words of one candidate box, in the image's pixels, as block and line ``line``."""
    crop, (xa, ya, _, _) = _cut(gray, letters, box)
    scale = _scale(box)
    if scale > 1:
        crop = np.kron(crop, np.ones((scale, scale), dtype=np.uint8))
    found = ocr.ocr_image(
        np.ascontiguousarray(crop), psm=ocr.PSM_SINGLE_LINE, backend=backend, use_cache=False
    )
    return [
        Word(
            w.text,
            (
                xa + w.bbox[0] / scale,
                ya + w.bbox[1] / scale,
                xa + w.bbox[2] / scale,
                ya + w.bbox[3] / scale,
            ),
            w.conf,
            line,
            line,
            "ocr",
        )
        for w in found
        if w.conf >= MIN_CONF and any(ch.isalnum() for ch in w.text)
    ]


def _as_gray(image: np.ndarray) -> np.ndarray:
    array = np.asarray(image)
    if array.ndim == 2:
        return array
    if array.shape[2] < 3:  # gray and alpha
        return array[:, :, 0]
    return np.clip(luma(array), 0, 255).astype(np.uint8)


def _covered(box: Box, words: Sequence[Word]) -> bool:
    x0, y0, x1, y1 = box
    probe = Word("", (float(x0), float(y0), float(x1), float(y1)))
    return any(same_word_place(probe, word) for word in words)


def label_words(
    image: np.ndarray, dpi: float, known: Sequence[Word] = (), backend: str | None = None
) -> list[Word]:
    """Labels of ``image`` (pixels) that no word of ``known`` (same pixels) already reads,
    kept in the run's OCR caches (:func:`.ocr.cached_words`).

    The candidates read, scaled up, add up to at most the image's own pixels: the pass
    costs at most what the first one did (a photo's texture makes many candidates)."""
    gray = np.ascontiguousarray(_as_gray(image))
    if gray.size == 0:
        return []
    digest = hashlib.sha256()
    settings = {
        "pass": "labels",
        "window": WINDOW_PT,
        "passes": PASSES,
        "glyph": [MAX_GLYPH_PT, MIN_WORD_PT, WORD_GAP_PT, READ_HEIGHT_PX, MIN_CONF],
        "dpi": round(dpi, 3),
        "lines": LABEL_LINES,
        "shape": list(gray.shape),
        "known": [[round(v, 1) for v in w.bbox] for w in known],
        "engine": ocr.engine_name(backend),
    }
    digest.update(json.dumps(settings, sort_keys=True).encode())
    digest.update(memoryview(gray).cast("B"))
    return ocr.cached_words(digest.hexdigest(), lambda: _label_words(gray, dpi, known, backend))


def _label_words(
    gray: np.ndarray, dpi: float, known: Sequence[Word], backend: str | None
) -> list[Word]:
    found: list[Word] = []
    budget = float(gray.size)
    for inked in ink(gray, dpi, PASSES):
        letters = glyphs(inked, dpi)
        for box in word_boxes(letters, dpi):
            if _covered(box, [*known, *found]):
                continue
            xa, ya, xb, yb = _margin(box, gray.shape)
            cost = float((xb - xa) * (yb - ya) * _scale(box) ** 2)
            if cost > budget:
                return found
            budget -= cost
            found += _read(gray, letters, box, backend, LABEL_LINES + len(found))
    return found


def with_labels(
    words: Sequence[Word], image: np.ndarray, dpi: float, backend: str | None = None
) -> list[Word]:
    """``words`` (OCR of ``image``, in its pixels) with the labels they miss. A label is
    looked for wherever no word reads with :data:`SURE_CONF`; read there, it replaces the
    less sure words at its place (the first pass reads a label's edge as "«::" or "2x")."""
    sure = [word for word in words if word.conf >= SURE_CONF]
    found = label_words(image, dpi, sure, backend)
    kept = [
        word
        for word in words
        if not any(same_word_place(word, label) and label.conf > word.conf for label in found)
    ]
    return [*kept, *found]
