"""What a model judge is shown of a document: what a model under test will be shown.

MMLongBench-Doc's evaluation gives a model the whole document, so a judge that sees only
the evidence pages misses the appendix, the summary or the chart on page 1 that restate
the answer. The judge gets the text layer of every page (in page order, up to a cap) and
the rendered images of the evidence pages and of every page the transform edited (up to
a cap): the pages whose pixels matter, since their text layer may be gone.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ...media.pdf import open_pdf
from ...model import edited_pages

#: Characters of text layer a judge is shown (about 30k tokens); the evidence and edited
#: pages' text always comes first, then the other pages in order until the cap.
TEXT_CAP = 120_000
#: Page images a judge is shown: the evidence pages' renders plus edited pages beyond them.
IMAGE_CAP = 8
EDITED_PAGE_DPI = 110


@dataclass(frozen=True)
class DocumentView:
    """The text and the page images of one document item, as a judge receives them."""

    text: str
    #: 1-based page numbers of ``images``, in order.
    image_pages: tuple[int, ...]
    images: tuple[bytes, ...]
    pages: int
    #: Pages whose text did not fit under the cap.
    omitted: tuple[int, ...] = ()


def _page_order(count: int, first: Iterable[int]) -> list[int]:
    seen: list[int] = []
    for page in [*first, *range(1, count + 1)]:
        if 1 <= page <= count and page not in seen:
            seen.append(page)
    return seen


def document_view(
    document: bytes,
    evidence_pages: tuple[int, ...],
    evidence_images: tuple[bytes, ...],
    transform: dict[str, Any],
    *,
    text_cap: int = TEXT_CAP,
    image_cap: int = IMAGE_CAP,
) -> DocumentView:
    """The whole (perturbed) document as a judge sees it; see the module docstring."""
    with open_pdf(document, "perturbed document") as pdf:
        count = pdf.page_count
        edited = [p for p in edited_pages(transform.get("edits") or {}) if 1 <= p <= count]
        texts: dict[int, str] = {}
        used = 0
        omitted: list[int] = []
        for page in _page_order(count, [*evidence_pages, *edited]):
            text = pdf[page - 1].get_text("text").strip()
            if used + len(text) > text_cap:
                omitted.append(page)
                continue
            texts[page] = text
            used += len(text)
        image_pages = list(evidence_pages[: len(evidence_images)])
        images = list(evidence_images[:image_cap])
        image_pages = image_pages[: len(images)]
        for page in edited:
            if len(images) >= image_cap:
                break
            if page not in image_pages:
                pixmap = pdf[page - 1].get_pixmap(dpi=EDITED_PAGE_DPI, alpha=False)
                images.append(pixmap.tobytes("png"))
                image_pages.append(page)
    body = [
        f"--- page {page} ---\n{texts[page] or '(no text layer)'}"
        for page in range(1, count + 1)
        if page in texts
    ]
    return DocumentView(
        text="\n\n".join(body),
        image_pages=tuple(image_pages),
        images=tuple(images),
        pages=count,
        omitted=tuple(sorted(omitted)),
    )
