"""One call for image transforms: the labelled text regions of an image, and who found them."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .layout import TextRegion, edge_band_regions, text_regions
from .ocr import PSM_AUTO, PSM_SPARSE_TEXT, OcrError, engine_name, ocr_image
from .words import Word, same_word_place


@dataclass
class ImageText:
    """What text detection found on one image."""

    regions: list[TextRegion]
    detector: str  # "ocr" or "fallback"
    engine: str | None = None
    notes: list[str] = field(default_factory=list)


def image_words(image: np.ndarray) -> list[Word]:
    """OCR words of a figure, from two passes.

    Layout analysis (PSM 3) reads rotated axis titles; sparse-text mode (PSM 11) finds
    isolated labels that layout analysis skips. Words of the second pass that overlap a
    word of the first are dropped. Both passes are cached by pixel content.
    """
    words = list(ocr_image(image, psm=PSM_AUTO))
    for extra in ocr_image(image, psm=PSM_SPARSE_TEXT):
        if not any(same_word_place(extra, word) for word in words):
            words.append(extra)
    return words


def image_text(image: np.ndarray) -> ImageText:
    """Labelled text regions of ``image``; edge bands when OCR is unavailable or reads nothing."""
    height, width = image.shape[:2]
    try:
        words = image_words(image)
        engine = engine_name()
    except OcrError as exc:
        return ImageText(
            edge_band_regions(width, height),
            "fallback",
            notes=[f"OCR unavailable ({exc}); masked the edge bands where labels usually are"],
        )
    regions = text_regions(words, width, height, image)
    if not regions:
        return ImageText(
            edge_band_regions(width, height),
            "fallback",
            engine,
            notes=["OCR read no text; masked the edge bands where labels usually are"],
        )
    return ImageText(regions, "ocr", engine)
