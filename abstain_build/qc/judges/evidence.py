"""One item's original and perturbed evidence, decoded once and read on demand.

Both reference judges need the same things: the original and perturbed images (or
rendered evidence pages) as gray pixels on the same canvas, the part of each the transform
says it edited, the attempts to undo the perturbation, and the words each of them shows
(PDF text layer, OCR). Everything is computed on first use: a verdict that is settled by
the text layer never pays for OCR.

Coordinates: everything is in pixels of the *original* image or render. Regions recorded
on PDF pages are in points of the page as displayed (the transforms remove a page's
rotation before planning), so they are only scaled; text-layer words come in the unrotated
page space and are mapped with the page's rotation first.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pymupdf

from ...content.restorations import Aligned, Box, align, box_mask, crop_offset, gray, restorations
from ...media.images import decode_image
from ...media.pdf import open_pdf
from ...textregions import ocr
from ...textregions.detect import image_words
from ...textregions.pages import text_layer_words
from ...textregions.words import Word
from ..leak import answer_items
from .base import JudgeItem

#: Region kinds a record names that the transform did not edit (the table a merge or an
#: inserted row keeps its values in; the answer-bearing words an image edit aimed at).
NOT_EDITED = frozenset({"table", "answer_bearing"})
#: Channels a word can be read through. OCR of a restored image counts as OCR.
TEXT_LAYER = "text_layer"
OCR = "ocr"
#: OCR words of the original below this confidence are not evidence (legend swatches and
#: bar edges come back as low-confidence junk).
MIN_OCR_CONF = 50.0
#: A page's text layer is used for word boxes from this many words with a letter or digit.
MIN_LAYER_WORDS = 3


@dataclass(frozen=True)
class PageInfo:
    """What the judges need of an original PDF page: its size and rotation."""

    width: float
    height: float
    rotation: pymupdf.Matrix
    words: tuple[Word, ...]  # text layer, points, unrotated page space


_PAGES_KEPT = 8
_pages_by_digest: OrderedDict[tuple[str, int], PageInfo] = OrderedDict()
_pages_lock = threading.Lock()
#: The judges of one item run side by side and read the same original: one OCR at a time
#: (the engine is serialised anyway), so the second asks the cache, not the engine.
_ocr_lock = threading.Lock()


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def page_info(document: bytes, digest: str, number: int) -> PageInfo:
    """Size, rotation and text-layer words of one page, kept per document content."""
    key = (digest, number)
    with _pages_lock:
        info = _pages_by_digest.pop(key, None)
        if info is None:
            with open_pdf(document, "original document") as pdf:
                page = pdf[number - 1]
                info = PageInfo(
                    page.rect.width,
                    page.rect.height,
                    page.rotation_matrix,
                    tuple(text_layer_words(page)),
                )
        _pages_by_digest[key] = info
        while len(_pages_by_digest) > _PAGES_KEPT:
            _pages_by_digest.popitem(last=False)
    return info


def gold_items(item: JudgeItem) -> list[str]:
    """The gold answer's pieces: the option text for a letter answer, else its list items."""
    reference = item.reference
    if reference is None:
        return []
    answer = reference.answer.strip()
    if item.options and re.fullmatch(r"[A-Z]", answer):
        index = ord(answer) - ord("A")
        if index < len(item.options):
            return [str(item.options[index]).strip()]
    return answer_items(answer, reference.answer_format)


def _box(region: dict[str, Any]) -> Box:
    x0, y0, x1, y1 = (float(v) for v in region["bbox"])
    return x0, y0, x1, y1


def _to_pixels(box: Box, info: PageInfo, shape: tuple[int, ...]) -> Box:
    """A box in points of the *unrotated* page space (text-layer words) in pixels of the
    page's render, which shows the page rotated."""
    return _display_to_pixels(pymupdf.Rect(box) * info.rotation, info, shape)


def _display_to_pixels(box: Box | pymupdf.Rect, info: PageInfo, shape: tuple[int, ...]) -> Box:
    """A box in points of the page *as displayed* (rotation removed, as the document
    transforms plan and record their regions) in pixels of the page's render."""
    rect = pymupdf.Rect(box)
    height, width = shape
    sx, sy = width / info.width, height / info.height
    return (rect.x0 * sx, rect.y0 * sy, rect.x1 * sx, rect.y1 * sy)


class Evidence:
    """The evidence of one :class:`JudgeItem`, original beside perturbed.

    Raises ``InputError`` (from decoding) when an image or PDF is unreadable, and
    ``ValueError`` when the item does not carry what a reference judge needs.
    """

    def __init__(self, item: JudgeItem) -> None:
        reference = item.reference
        if reference is None:
            raise ValueError("the item carries no reference (original) to compare with")
        if len(item.images) != len(reference.images):
            raise ValueError(
                f"{len(item.images)} perturbed image(s) against {len(reference.images)}"
                " original(s): cannot pair them"
            )
        self.item = item
        self.reference = reference
        self.record: dict[str, Any] = item.transform or {}
        self.is_document = reference.document is not None and bool(item.pages)
        if self.is_document and len(item.pages) != len(item.images):
            raise ValueError(f"{len(item.images)} page image(s) for pages {list(item.pages)}")
        edits = self.record.get("edits") or {}
        self._regions: list[dict[str, Any]] = list(edits.get("regions") or [])
        self._hidden = {int(p) for p in edits.get("pages_hidden") or []}
        self._cropped = {int(c["page"]): c.get("kept") for c in edits.get("pages_cropped") or []}
        self._digest = _digest(reference.document) if self.is_document else ""

    # -- what the item is ------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.item.images)

    def label(self, index: int) -> str:
        return f"page {self.item.pages[index]}" if self.is_document else f"image {index + 1}"

    @cached_property
    def evidence_unchanged(self) -> bool:
        """The perturbed evidence is byte for byte the original (a question rewrite)."""
        return (
            self.item.images == self.reference.images
            and self.item.document == self.reference.document
        )

    def page(self, index: int) -> PageInfo:
        assert self.reference.document is not None
        return page_info(self.reference.document, self._digest, self.item.pages[index])

    # -- pixels ----------------------------------------------------------------------------

    @cached_property
    def _original_arrays(self) -> list[np.ndarray]:
        return [
            decode_image(data, f"original {self.label(i)}")
            for i, data in enumerate(self.reference.images)
        ]

    @cached_property
    def _perturbed_arrays(self) -> list[np.ndarray]:
        return [
            decode_image(data, f"perturbed {self.label(i)}")
            for i, data in enumerate(self.item.images)
        ]

    @cached_property
    def originals(self) -> list[np.ndarray]:
        """Original images (or page renders), gray."""
        return [gray(array) for array in self._original_arrays]

    @cached_property
    def perturbed(self) -> list[np.ndarray]:
        """Perturbed images (or page renders), gray, in their own geometry."""
        return [gray(array) for array in self._perturbed_arrays]

    def kinds(self, index: int) -> set[str]:
        """The kinds of the regions recorded on ``index`` (darken, blur, mask...)."""
        return {str(r.get("kind")) for r in self._regions_of(index)}

    @cached_property
    def restored(self) -> list[dict[str, np.ndarray]]:
        """Attempts to undo the perturbation, per image, by name (see :mod:`.pixels`)."""
        return [restorations(image, self.kinds(i)) for i, image in enumerate(self.perturbed)]

    def _offset(self, index: int) -> tuple[int, int] | None:
        """Where a cropped perturbed image sits on its original's canvas (None: not cropped)."""
        original, perturbed = self.originals[index], self.perturbed[index]
        if original.shape == perturbed.shape:
            return None
        if self.is_document:
            kept = self._cropped.get(self.item.pages[index])
            if kept == "top":
                return 0, 0
            if kept == "bottom":
                return 0, max(0, original.shape[0] - perturbed.shape[0])
            return None
        for region in self._regions_of(index):
            if region.get("kind") == "crop_removed":
                return crop_offset(original.shape, _box(region), region.get("role"))
        return None

    def candidates(self, index: int) -> list[tuple[str, Aligned]]:
        """The perturbed image and each restoration, on the original's canvas."""
        shape = self.originals[index].shape
        offset = self._offset(index)
        out = [("as perturbed", align(shape, self.perturbed[index], offset))]
        for name, image in self.restored[index].items():
            out.append((f"after {name}", align(shape, image, offset)))
        return out

    # -- regions ---------------------------------------------------------------------------

    def _regions_of(self, index: int) -> Iterator[dict[str, Any]]:
        for region in self._regions:
            if self.is_document:
                page = region.get("page")
                if page is None or int(page) == self.item.pages[index]:
                    yield region
            else:
                image = region.get("image")
                if image is None or int(image) == index:
                    yield region

    def region_mask(self, index: int) -> np.ndarray | None:
        """Pixels of the original the transform edited on ``index``; None when it names none.

        A hidden page is edited everywhere; a cropped page where its other half was.
        """
        shape = self.originals[index].shape
        if self.is_document and self.item.pages[index] in self._hidden:
            return np.ones(shape, dtype=bool)
        boxes = []
        for region in self._regions_of(index):
            if region.get("kind") in NOT_EDITED:
                continue
            box = _box(region)
            if self.is_document and region.get("unit", "pt") == "pt":
                box = _display_to_pixels(box, self.page(index), shape)
            boxes.append(box)
        if not boxes:
            return None
        return box_mask(shape, boxes)

    # -- words -----------------------------------------------------------------------------

    def original_words(self, index: int, channel: str) -> list[Word]:
        """Words of the original through ``channel``, boxes in pixels of the original."""
        if channel == TEXT_LAYER:
            if not self.is_document:
                return []
            info = self.page(index)
            shape = self.originals[index].shape
            return [
                Word(w.text, _to_pixels(w.bbox, info, shape), w.conf, w.block, w.line, w.source)
                for w in info.words
            ]
        return self._ocr(self._original_arrays[index])

    def word_boxes(self, index: int) -> list[Box]:
        """Boxes of the original's words (pixels): the text layer when the page has one,
        else confident OCR words; none when no OCR engine is available."""
        if self.is_document:
            layer = self.original_words(index, TEXT_LAYER)
            if sum(any(c.isalnum() for c in w.text) for w in layer) >= MIN_LAYER_WORDS:
                return [w.bbox for w in layer]
        try:
            words = self.original_words(index, OCR)
        except ocr.OcrError:
            return []
        return [w.bbox for w in words if w.conf >= MIN_OCR_CONF]

    def perturbed_words(self, index: int, channel: str) -> list[Word]:
        """Words of the perturbed item through ``channel`` ("text_layer", "ocr", or
        "ocr after <restoration>"); boxes in the perturbed image's own pixels."""
        if channel == TEXT_LAYER:
            return self._perturbed_text_layer[index]
        if channel == OCR:
            return self._ocr(self._perturbed_arrays[index])
        name = channel.removeprefix("ocr after ")
        return self._ocr(self.restored[index][name])

    def perturbed_channels(self, index: int) -> list[str]:
        """Channels to read the perturbed item through, cheapest first."""
        channels = [TEXT_LAYER] if self.is_document else []
        channels.append(OCR)
        channels.extend(f"ocr after {name}" for name in self.restored[index])
        return channels

    @cached_property
    def _perturbed_text_layer(self) -> list[list[Word]]:
        if not self.is_document or self.item.document is None:
            return [[] for _ in self.item.images]
        with open_pdf(self.item.document, "perturbed document") as pdf:
            return [
                text_layer_words(pdf[number - 1]) if 0 < number <= pdf.page_count else []
                for number in self.item.pages
            ]

    def _ocr(self, image: np.ndarray) -> list[Word]:
        """OCR as the transforms read: two passes for a figure, layout analysis for a page."""
        with _ocr_lock:
            if self.is_document:
                return list(ocr.ocr_image(image))
            return image_words(image)
