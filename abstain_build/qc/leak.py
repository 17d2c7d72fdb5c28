"""Is the gold answer still readable on the perturbed evidence?

A perturbation meant to remove or corrupt evidence has failed if a model can still read
the answer. This check looks where a model would: the PDF text layer and the pixels (OCR
of the rendered pages). Numbers are compared by value, allowing for how reports print
them: 1,234 = 1234 = 1.234 thousand = $1,234; 0.125 = 12.5%; (1,234) holds 1234. A
printed number matches only if it carries all the precision of the answer (1.2 thousand
does not give away 1234).

Where the answer is not printed on the *original* evidence pages either (a sum, a
difference, a paraphrase), there is nothing to leak and the report says the check does
not apply.
"""

from __future__ import annotations

import ast
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

import numpy as np
from PIL import Image

from ..transforms.functional.number_rewrite import printed_digits
from ..transforms.functional.numbers import NumericToken, find_numbers, follows_reference_word

#: Powers of ten a printed number may differ from the answer by: scale words are already
#: resolved, so these cover tables "in thousands/millions" and percent vs fraction.
_UNIT_SHIFTS = (Decimal(1), Decimal(100), Decimal("0.01"), Decimal(1000), Decimal(10) ** 6)
_MIN_TEXT_ANSWER = 3


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


def answer_items(answer: str, answer_format: str | None) -> list[str]:
    """The pieces of the answer to look for: list items for List answers, else the answer."""
    text = answer.strip()
    if (answer_format or "").lower() == "list" or (text.startswith("[") and text.endswith("]")):
        try:
            parsed = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            parsed = None
        if isinstance(parsed, (list, tuple)):
            return [str(item).strip() for item in parsed if str(item).strip()]
    return [text] if text else []


def _magnitude(token: NumericToken) -> Decimal | None:
    """The size a token prints, scale word applied, exactly (no float rounding)."""
    if token.value is None:
        return None
    digits = printed_digits(token)
    if digits is None:
        return None
    return Decimal(digits.replace(",", "")) * Decimal(int(token.multiplier))


def _as_decimal(item: str) -> Decimal | None:
    """The number an answer item states, if it is just a number (units and % allowed)."""
    tokens = [t for t in find_numbers(item) if t.is_quantity or t.kind == "year"]
    if len(tokens) == 1:
        return _magnitude(tokens[0])
    try:
        return abs(Decimal(item.replace(",", "").strip()))
    except InvalidOperation:
        return None


def number_matches(answer: Decimal, token: NumericToken) -> bool:
    """Does ``token`` print ``answer``, exactly, up to a unit shift (thousands, percent)?

    Exact equality is what makes precision count: "1.2 thousand" prints 1200, not 1234.
    """
    printed = _magnitude(token)
    return printed is not None and any(answer / shift == printed for shift in _UNIT_SHIFTS)


def answer_numbers(answer: str, answer_format: str | None) -> list[Decimal]:
    """The numbers the gold answer states (each numeric item of a List answer)."""
    numbers = (_as_decimal(item) for item in answer_items(answer, answer_format))
    return [number for number in numbers if number is not None]


def prints_answer(numbers: Sequence[Decimal], token: NumericToken) -> bool:
    """Does ``token`` print one of the answer's ``numbers`` (see :func:`number_matches`)?"""
    return any(number_matches(number, token) for number in numbers)


def would_print(numbers: Sequence[Decimal], magnitude: Decimal, multiplier: float = 1.0) -> bool:
    """Would printing ``magnitude`` (before its scale word) state one of ``numbers``?"""
    printed = magnitude * Decimal(int(multiplier))
    return any(number / shift == printed for number in numbers for shift in _UNIT_SHIFTS)


def find_in_text(items: Sequence[str], text: str) -> list[str]:
    """The printed forms of any answer item found in ``text``."""
    found: list[str] = []
    tokens: list[NumericToken] | None = None
    flat = " ".join(text.split()).lower()
    for item in items:
        number = _as_decimal(item)
        if number is not None:
            if tokens is None:
                # "Figure 2" numbers a figure; it does not state a value of 2.
                tokens = [
                    t
                    for t in find_numbers(text)
                    if t.value is not None and not follows_reference_word(text, t)
                ]
            found.extend(t.text for t in tokens if number_matches(number, t))
        elif len(item) >= _MIN_TEXT_ANSWER and " ".join(item.split()).lower() in flat:
            found.append(item)
    return found


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
    searchable = [i for i in items if _as_decimal(i) is not None or len(i) >= _MIN_TEXT_ANSWER]
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
