"""A sample's files, read and checked once, shared by every transform applied to it."""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pymupdf

from ..errors import InputError
from ..model import Sample
from .images import DEFAULT_MAX_PIXELS, decode_image, encode_png, image_format, normalisation
from .pdf import DEFAULT_DPI, check_render_size, open_pdf, render_pages
from .pdf_sanitise import Sanitised, sanitise_pdf

T = TypeVar("T")


@dataclass(frozen=True)
class InputLimits:
    max_pixels: int = DEFAULT_MAX_PIXELS
    dpi: int = DEFAULT_DPI


def _read(path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{what}: file not found: {path}") from None
    except OSError as exc:
        raise InputError(f"{what}: cannot read {path}: {exc.strerror or exc}") from None


_TEXTS_KEPT = 16
_page_texts_by_digest: OrderedDict[str, tuple[str, ...]] = OrderedDict()


def _page_texts(digest: str, document: pymupdf.Document) -> tuple[str, ...]:
    """Text layer of every page, kept per document content (several samples share a PDF)."""
    texts = _page_texts_by_digest.pop(digest, None)
    if texts is None:
        texts = tuple(page.get_text("text") for page in document)
    _page_texts_by_digest[digest] = texts
    while len(_page_texts_by_digest) > _TEXTS_KEPT:
        _page_texts_by_digest.popitem(last=False)
    return texts


_SANITISED_KEPT = 4
_sanitised_by_digest: OrderedDict[str, tuple[Sanitised, str]] = OrderedDict()


def _sanitised(data: bytes, what: str) -> tuple[Sanitised, str]:
    """The PDF without active content, and the digest of what is kept; once per document
    content (the samples of a document come one after another)."""
    digest = hashlib.sha256(data).hexdigest()
    found = _sanitised_by_digest.pop(digest, None)
    if found is None:
        clean = sanitise_pdf(data, what)
        kept = digest if clean.data is data else hashlib.sha256(clean.data).hexdigest()
        found = clean, kept
    _sanitised_by_digest[digest] = found
    while len(_sanitised_by_digest) > _SANITISED_KEPT:
        _sanitised_by_digest.popitem(last=False)
    return found


class SampleInputs:
    """Lazily decoded images and the opened PDF of one sample.

    ``validate()`` reads everything a transform could need and raises :class:`InputError`
    with a clear reason when something is unusable, so a broken sample fails once, before
    any transform runs.
    """

    def __init__(self, sample: Sample, limits: InputLimits | None = None) -> None:
        self.sample = sample
        self.limits = limits or InputLimits()
        self._image_bytes: list[bytes] | None = None
        self._images: list[np.ndarray] | None = None
        self._document_bytes: bytes | None = None
        self._document: pymupdf.Document | None = None
        self._renders: list[bytes] | None = None
        self._digest: str | None = None
        self._removed: tuple[str, ...] = ()
        self._derived: dict[Hashable, Any] = {}

    def validate(self, *, render: bool = True) -> None:
        """Refuse a sample that cannot be built, with its reason. ``render`` False checks the
        evidence pages' render size without rendering them: the routing pass only scores
        the sample, and rendering there too drew every evidence page twice."""
        if not self.sample.question.strip():
            raise InputError("the question is empty")
        self.images()
        if self.sample.document is not None:
            document = self.document()
            if not self.sample.evidence_pages:
                raise InputError("the record lists no evidence pages")
            for page in self.sample.evidence_pages:
                if not 1 <= page <= document.page_count:
                    raise InputError(
                        f"evidence page {page} is out of range: {self.sample.document.doc_id}"
                        f" has {document.page_count} pages (pages are 1-based)"
                    )
            if render:
                self.evidence_renders()
            else:
                for page in self.sample.evidence_pages:
                    check_render_size(document[page - 1], self.limits.dpi, self.limits.max_pixels)

    def image_bytes(self) -> list[bytes]:
        """The images exactly as stored in the source."""
        if self._image_bytes is None:
            self._image_bytes = [
                ref.data if ref.data is not None else _read(ref.path, ref.key)  # type: ignore[arg-type]
                for ref in self.sample.images
            ]
        return self._image_bytes

    def image_extensions(self) -> list[str]:
        return [image_format(data) for data in self.image_bytes()]

    def control_images(self) -> list[tuple[bytes, str]]:
        """The originals as the control ships them, with their extensions: the stored bytes,
        or, where decoding normalised the picture (an EXIF turn, 16-bit samples), the
        decoded pixels as PNG, so the control shows what its counterparts were made from."""
        out = []
        for data, ext, pixels in zip(
            self.image_bytes(), self.image_extensions(), self.images(), strict=True
        ):
            out.append((encode_png(pixels), "png") if normalisation(data) else (data, ext))
        return out

    def images(self) -> list[np.ndarray]:
        """Decoded pixels. Transforms must not modify these arrays in place."""
        if self._images is None:
            decoded = [
                decode_image(data, ref.describe(), self.limits.max_pixels)
                for ref, data in zip(self.sample.images, self.image_bytes(), strict=True)
            ]
            for array in decoded:
                array.flags.writeable = False
            self._images = decoded
        return self._images

    def document_bytes(self) -> bytes:
        """The PDF everything of the sample is made from and ships: the source without its
        active content (JavaScript, actions that leave the document, embedded files, XFA;
        :mod:`.pdf_sanitise`), the source's very bytes when it has none."""
        if self.sample.document is None:
            raise InputError("the sample has no document")
        if self._document_bytes is None:
            ref = self.sample.document
            clean, self._digest = _sanitised(_read(ref.path, ref.doc_id), ref.doc_id)
            self._document_bytes, self._removed = clean.data, clean.removed
        return self._document_bytes

    def document_removed(self) -> list[str]:
        """What :meth:`document_bytes` removed from the source PDF (empty: nothing)."""
        self.document_bytes()
        return list(self._removed)

    def document(self) -> pymupdf.Document:
        """The original PDF, opened once; read-only by convention (transforms edit a copy)."""
        if self._document is None:
            self._document = open_pdf(self.document_bytes(), self.sample.document.doc_id)  # type: ignore[union-attr]
        return self._document

    def writable_document(self) -> pymupdf.Document:
        """A fresh private copy of the PDF for a transform to edit."""
        return open_pdf(self.document_bytes(), self.sample.document.doc_id)  # type: ignore[union-attr]

    def document_digest(self) -> str:
        """SHA-256 of :meth:`document_bytes`."""
        self.document_bytes()
        return self._digest  # type: ignore[return-value]

    def page_texts(self) -> tuple[str, ...]:
        """Text layer of every page of the document ('' for pages without one)."""
        return _page_texts(self.document_digest(), self.document())

    def derived(self, key: Hashable, compute: Callable[[], T]) -> T:
        """Something computed from this sample's files, once, for every transform applied to it.

        Several transforms analyse the same evidence page; the first computes, the others
        reuse. Callers must treat the result as read-only.
        """
        if key not in self._derived:
            self._derived[key] = compute()
        return self._derived[key]

    def evidence_renders(self) -> list[bytes]:
        """PNG renders of the original evidence pages, in ``sample.evidence_pages`` order."""
        if self._renders is None:
            self._renders = render_pages(
                self.document(), self.sample.evidence_pages, self.limits.dpi, self.limits.max_pixels
            )
        return self._renders

    def close(self) -> None:
        if self._document is not None:
            self._document.close()
            self._document = None
