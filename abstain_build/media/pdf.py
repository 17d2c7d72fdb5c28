"""PDF access through PyMuPDF: strict opening, rendering, deterministic saving."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import pymupdf

from ..errors import InputError

#: Evidence pages are rendered at 144 dpi, as MMLongBench-Doc's own evaluation renders them.
DEFAULT_DPI = 144

pymupdf.TOOLS.mupdf_display_errors(False)
pymupdf.TOOLS.mupdf_display_warnings(False)


def open_pdf(data: bytes, what: str) -> pymupdf.Document:
    """Open PDF bytes; a file MuPDF had to repair (truncated, broken xref) is refused, and
    so is one that is no PDF at all, whatever its name says."""
    if b"%PDF-" not in data[:1024]:
        raise InputError(f"{what}: not a PDF: its content is {content_kind(data)}")
    try:
        document = pymupdf.open(stream=data, filetype="pdf")
    except Exception as exc:
        raise InputError(
            f"{what}: not a readable PDF: the file is truncated, corrupt or not a PDF ({exc})"
        ) from None
    if document.needs_pass:
        raise InputError(f"{what}: the PDF is password-protected")
    if document.is_repaired:
        raise InputError(
            f"{what}: the PDF is damaged (truncated or with a broken cross-reference table) and"
            " could only be opened by repairing it; its pages cannot be trusted"
        )
    if document.page_count == 0:
        raise InputError(f"{what}: the PDF has no pages")
    return document


def drawing_errors(document: pymupdf.Document) -> set[str]:
    """What MuPDF reports while interpreting every page's content (without rasterising):
    a drawn resource missing, a broken stream. An edit that leaves a new one behind has
    broken a page ("cannot find XObject resource 'Im3'": a picture gone from its figure)."""
    pymupdf.TOOLS.reset_mupdf_warnings()
    for page in document:
        page.get_bboxlog()
    reported = pymupdf.TOOLS.mupdf_warnings()
    pymupdf.TOOLS.reset_mupdf_warnings()
    # "... repeated 4 times..." counts a message MuPDF may have logged before the reset.
    return {
        line.strip()
        for line in reported.splitlines()
        if line.strip() and not _REPEATED.match(line.strip())
    }


_REPEATED = re.compile(r"^\.\.\. repeated \d+ times?\.\.\.$")


_SIGNATURES = (
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"PK\x03\x04", "a ZIP archive (a Word or Excel file?)"),
    (b"RIFF", "a RIFF file (WebP image or audio)"),
)


def content_kind(data: bytes) -> str:
    """What bytes look like, for a reason that says what a misnamed file really is."""
    if not data:
        return "empty (0 bytes)"
    for signature, kind in _SIGNATURES:
        if data.startswith(signature):
            return kind
    head = data[:512].lstrip().lower()
    if head.startswith((b"<!doctype html", b"<html")) or b"<html" in head:
        return "an HTML page"
    if head.startswith(b"{") or head.startswith(b"["):
        return "JSON text"
    return "not a recognised file type (no %PDF- header)"


def save_pdf(document: pymupdf.Document) -> bytes:
    """Compact bytes that depend only on the content: no new /ID; unused and duplicate
    objects dropped (garbage=4); streams, images and fonts deflated; small objects packed
    into object streams. Every perturbed document is a whole PDF, so this is most of a
    document build's size (on the shared 10-Ks and reports: 0-35% smaller than garbage=3
    alone, at no measurable time)."""
    return document.tobytes(
        garbage=4,
        deflate=True,
        deflate_images=True,
        deflate_fonts=True,
        use_objstms=1,
        no_new_id=True,
    )


def pages_only(document: pymupdf.Document, pages: Sequence[int]) -> bytes:
    """A PDF of ``pages`` of ``document`` (1-based, in the order given) and nothing else:
    no outline, link, annotation, form field, structure tree or metadata comes along, so
    no channel of it speaks of a page it does not hold."""
    subset = pymupdf.open()
    try:
        for number in pages:
            subset.insert_pdf(
                document, from_page=number - 1, to_page=number - 1, links=False, annots=False
            )
        subset.set_metadata({})
        return save_pdf(subset)
    finally:
        subset.close()


def check_render_size(page: pymupdf.Page, dpi: int, max_pixels: int) -> None:
    """Refuse a page that would exceed ``max_pixels`` rendered at ``dpi``."""
    scale = dpi / 72.0
    width = int(page.rect.width * scale)
    height = int(page.rect.height * scale)
    if width * height > max_pixels:
        raise InputError(
            f"page {page.number + 1}: {width}x{height} pixels at {dpi} dpi is above the limit of"
            f" {max_pixels:,} (--max-pixels)"
        )


def render_page_png(page: pymupdf.Page, dpi: int, max_pixels: int) -> bytes:
    """Render one page to PNG at ``dpi``; refuse pages that would exceed ``max_pixels``."""
    check_render_size(page, dpi, max_pixels)
    return page.get_pixmap(dpi=dpi, alpha=False).tobytes("png")


def render_pages(
    document: pymupdf.Document, pages: list[int] | tuple[int, ...], dpi: int, max_pixels: int
) -> list[bytes]:
    """PNG renders of the given 1-based pages."""
    return [render_page_png(document[number - 1], dpi, max_pixels) for number in pages]


def has_text_layer(page: pymupdf.Page) -> bool:
    return bool(page.get_text("text").strip())


#: An XObject drawn by a content stream: "/Im3 Do".
_DRAWN = re.compile(rb"/([^\s/\[\]()<>{}%]+)\s*Do\b")


def page_digest(page: pymupdf.Page) -> str:
    """The page's content: its content stream and the raw streams of the images and forms
    it draws (not decoded), its size and rotation. Unchanged pages agree, whatever object
    numbers a save gave them."""
    document = page.parent
    digest = hashlib.sha256()
    contents = page.read_contents()
    digest.update(contents)
    # The images it draws, not every image its resources list: a resource dictionary
    # shared by a deck's slides lists them all, and dropping one no slide draws any more
    # (:func:`..media.pdf_channels.drop_undrawn_images`) leaves the other slides as they were.
    used = set(_DRAWN.findall(contents))
    images = [
        xref
        for xref, *_rest, name, _filter, referencer in page.get_images(full=True)
        if referencer not in (0, page.xref) or name.encode() in used
    ]
    for xref in images + [x[0] for x in page.get_xobjects()]:
        if xref > 0:
            digest.update(hashlib.sha256(document.xref_stream_raw(xref) or b"").digest())
    digest.update(repr(tuple(round(v, 2) for v in page.rect)).encode())
    digest.update(str(page.rotation).encode())
    return digest.hexdigest()
