"""Is the gold answer still readable on the perturbed evidence?

A perturbation meant to remove or corrupt evidence has failed if a model can still read
the answer. This check looks where a model would: the PDF text layer and the pixels (OCR
of the rendered pages). What counts as printing the answer is decided in one place,
:mod:`abstain_build.evidence.forms`: numbers by value after scale words, unit shifts and
rounding ("$34.7 million" prints 34.7, "$8.8 billion" prints 8,831 million, "56.82"
prints 56.8, "51%" prints 0.51, "(1,234)" prints -1,234), dates in any common format,
text regardless of case, spacing, punctuation and small OCR errors.

Where the answer is not printed on the *original* evidence pages either (a sum, a
difference, a paraphrase), there is nothing to leak and the report says the check does
not apply.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

import numpy as np
from PIL import Image

from ..evidence.form_search import find_in_string
from ..evidence.forms import GoldItem, answer_items, gold_items, number_form, value_form
from ..numbers import NumericToken

__all__ = ["answer_items"]


@dataclass(frozen=True)
class Hit:
    page: int  # 1-based page number (or image index + 1)
    channel: str  # "text_layer" or "ocr"
    text: str  # what was found, as printed


@dataclass
class LeakReport:
    applicable: bool
    leaked: bool
    reason: str
    hits: list[Hit] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {
            "applicable": self.applicable,
            "leaked": self.leaked,
            "reason": self.reason,
            "hits": [hit.__dict__ for hit in self.hits],
        }


@dataclass
class EvidenceText:
    """What can be read on each evidence page, by channel: ``{page: {channel: text}}``."""

    pages: dict[int, dict[str, str]] = field(default_factory=dict)

    def add(self, page: int, channel: str, text: str) -> None:
        self.pages.setdefault(page, {})[channel] = text


# -- the answer ----------------------------------------------------------------------------


def numeric_gold(answer: str, answer_format: str | None) -> list[GoldItem]:
    """The numbers (and years) the gold answer states, with their printed precision."""
    return [i for i in gold_items(answer, answer_format) if i.kind in ("number", "year")]


def answer_numbers(answer: str, answer_format: str | None) -> list[Decimal]:
    """The values the gold answer states (each numeric item of a List answer)."""
    return [i.number for i in numeric_gold(answer, answer_format) if i.number is not None]


def prints_answer(gold: Sequence[GoldItem], token: NumericToken) -> bool:
    """Does ``token`` print one of the ``gold`` numbers, in any of their forms?"""
    return any(number_form(item, token) is not None for item in gold)


def would_print(
    gold: Sequence[GoldItem], magnitude: Decimal, multiplier: float = 1.0, percent: bool = False
) -> bool:
    """Would printing ``magnitude`` (before its scale word) state one of the ``gold``
    numbers? A new value that merely rounds to the gold states it too."""
    scale = Decimal(int(multiplier))
    quantum = Decimal(1).scaleb(magnitude.as_tuple().exponent) * scale  # type: ignore[arg-type]
    return any(
        value_form(item, abs(magnitude) * scale, quantum, percent) is not None for item in gold
    )


def find_in_text(items: Sequence[str], text: str) -> list[str]:
    """The printed forms of any answer item found in ``text`` (see :mod:`..evidence.forms`)."""
    golds = [g for item in items for g in gold_items(item)]
    return [match.printed for match in find_in_string(golds, text)]


# -- reading the evidence ------------------------------------------------------------------


def pdf_texts(pdf: bytes, pages: Iterable[int]) -> dict[int, str]:
    """Text layer of the given 1-based pages of a PDF."""
    import pymupdf

    with pymupdf.open(stream=pdf, filetype="pdf") as document:
        return {page: document[page - 1].get_text("text") for page in pages}


def ocr_text(png: bytes) -> str:
    """Words Tesseract reads on an image, in reading order."""
    from ..textregions.ocr import ocr_image

    with Image.open(io.BytesIO(png)) as image:
        pixels = np.asarray(image.convert("RGB"))
    return " ".join(word.text for word in ocr_image(pixels))


def read_evidence(
    pages: Sequence[int], pngs: Sequence[bytes], pdf: bytes | None = None, ocr: bool = True
) -> EvidenceText:
    """Everything readable on the evidence: text layer (when a PDF is given) and OCR."""
    evidence = EvidenceText()
    numbers = list(pages) if pages else list(range(1, len(pngs) + 1))
    if pdf is not None and pages:
        for page, text in pdf_texts(pdf, pages).items():
            evidence.add(page, "text_layer", text)
    if ocr:
        for page, png in zip(numbers, pngs, strict=True):
            evidence.add(page, "ocr", ocr_text(png))
    return evidence


# -- the check -----------------------------------------------------------------------------


def _hits(items: Sequence[str], evidence: EvidenceText) -> list[Hit]:
    hits: list[Hit] = []
    for page, channels in sorted(evidence.pages.items()):
        for channel, text in sorted(channels.items()):
            hits.extend(Hit(page, channel, found) for found in find_in_text(items, text))
    return hits


def leak_check(
    answer: str, answer_format: str | None, original: EvidenceText, perturbed: EvidenceText
) -> LeakReport:
    """Compare what the original and the perturbed evidence give away about ``answer``."""
    items = answer_items(answer, answer_format)
    if not items:
        return LeakReport(False, False, "the answer is empty")
    searchable = [i for i in items if gold_items(i)]
    if not searchable:
        return LeakReport(False, False, f"the answer {answer!r} is too short to search for")
    if not _hits(searchable, original):
        return LeakReport(
            False,
            False,
            "the answer is not printed on the original evidence pages (computed, counted or"
            " paraphrased), so there is nothing to leak",
        )
    hits = _hits(searchable, perturbed)
    if hits:
        where = ", ".join(sorted({f"page {h.page} ({h.channel})" for h in hits}))
        return LeakReport(True, True, f"the answer is still readable: {where}", hits)
    return LeakReport(True, False, "the answer is printed on the original and gone from the result")
