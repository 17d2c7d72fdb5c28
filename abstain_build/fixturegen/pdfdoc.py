"""Flowing text, ruled tables and figures onto PyMuPDF pages, and reproducible PDF bytes.

Only the base-14 fonts are used, so the PDFs embed no font files and extract as plain
text; only characters those fonts encode (ASCII and Latin-1) may appear in the text.
"""

from __future__ import annotations

from collections.abc import Sequence

import pymupdf

LETTER = (612.0, 792.0)
MARGIN = 72.0
TEXT_WIDTH = LETTER[0] - 2 * MARGIN
BOTTOM = LETTER[1] - MARGIN
INK = (0.12, 0.12, 0.12)
GREY = (0.4, 0.4, 0.4)
ACCENT = (0.05, 0.25, 0.5)


def _check_encodable(text: str) -> None:
    """Base-14 fonts silently print '?'-like dots for other characters; refuse them early."""
    bad = sorted({ch for ch in text if ord(ch) > 0xFF})
    if bad:
        raise ValueError(f"characters outside Latin-1 cannot be set in base-14 fonts: {bad}")


class PageWriter:
    """A top-to-bottom cursor on one page that refuses to run past the bottom margin."""

    def __init__(self, page: pymupdf.Page, number: int, top: float = MARGIN) -> None:
        self.page = page
        self.number = number  # 1-based, for error messages
        self.y = top

    def _fits(self, height: float) -> None:
        if self.y + height > BOTTOM:
            raise ValueError(f"page {self.number} overflows at y={self.y + height:.0f}")

    def space(self, height: float) -> None:
        self.y += height

    def line(
        self,
        text: str,
        size: float = 11,
        font: str = "helv",
        color: Sequence[float] = INK,
        align: str = "left",
        gap: float = 6,
    ) -> None:
        """A single line of text (title lines, headings)."""
        _check_encodable(text)
        self._fits(size * 1.3)
        width = pymupdf.get_text_length(text, fontname=font, fontsize=size)
        x = {
            "left": MARGIN,
            "center": (LETTER[0] - width) / 2,
            "right": MARGIN + TEXT_WIDTH - width,
        }
        self.page.insert_text(
            (x[align], self.y + size), text, fontname=font, fontsize=size, color=color
        )
        self.y += size * 1.3 + gap

    def heading(self, text: str, size: float = 14) -> None:
        self.space(4)
        self.line(text, size=size, font="hebo", color=ACCENT, gap=8)

    def paragraph(self, text: str, size: float = 10.5, font: str = "tiro", gap: float = 9) -> None:
        """Word-wrapped, justified body text."""
        _check_encodable(text)
        rect = pymupdf.Rect(MARGIN, self.y, MARGIN + TEXT_WIDTH, BOTTOM)
        left_over = self.page.insert_textbox(
            rect,
            text,
            fontname=font,
            fontsize=size,
            lineheight=1.35,
            align=pymupdf.TEXT_ALIGN_JUSTIFY,
            color=INK,
        )
        if left_over < 0:
            raise ValueError(f"page {self.number}: paragraph does not fit: {text[:40]!r}")
        self.y = BOTTOM - left_over + gap

    def table(
        self,
        header: Sequence[str],
        rows: Sequence[Sequence[str]],
        widths: Sequence[float],
        size: float = 9.5,
        bold_rows: Sequence[int] = (),
        row_height: float = 17,
    ) -> None:
        """A ruled financial table: first column left-aligned, the others right-aligned text."""
        height = row_height * (len(rows) + 1)
        self._fits(height)
        left, right = MARGIN, MARGIN + sum(widths)
        self.page.draw_rect(
            pymupdf.Rect(left, self.y, right, self.y + row_height),
            color=None,
            fill=(0.88, 0.92, 0.96),
        )
        for r, cells in enumerate([header, *rows]):
            font = "hebo" if r == 0 or (r - 1) in bold_rows else "helv"
            baseline = self.y + r * row_height + row_height * 0.68
            x = left
            for c, (cell, width) in enumerate(zip(cells, widths, strict=True)):
                _check_encodable(cell)
                text_w = pymupdf.get_text_length(cell, fontname=font, fontsize=size)
                tx = x + 4 if c == 0 else x + width - 4 - text_w
                self.page.insert_text((tx, baseline), cell, fontname=font, fontsize=size, color=INK)
                x += width
        for r in range(len(rows) + 2):
            y = self.y + r * row_height
            heavy = r in (0, 1, len(rows) + 1) or (r - 1) in bold_rows
            self.page.draw_line(
                (left, y),
                (right, y),
                color=INK if heavy else (0.7, 0.7, 0.7),
                width=1.0 if heavy else 0.5,
            )
        self.y += height + 6

    def caption(self, text: str, size: float = 9) -> None:
        self.line(text, size=size, font="heit", color=GREY, gap=10)

    def image(self, png: bytes, width: float, height: float) -> None:
        """Insert a raster centred horizontally at the cursor."""
        self._fits(height)
        x = (LETTER[0] - width) / 2
        self.page.insert_image(pymupdf.Rect(x, self.y, x + width, self.y + height), stream=png)
        self.y += height + 6


def new_page(doc: pymupdf.Document) -> PageWriter:
    page = doc.new_page(width=LETTER[0], height=LETTER[1])
    return PageWriter(page, doc.page_count)


def footer(page: pymupdf.Page, text: str) -> None:
    """A running footer with a rule above it, as printed reports have."""
    _check_encodable(text)
    y = LETTER[1] - 40
    page.draw_line((MARGIN, y - 10), (LETTER[0] - MARGIN, y - 10), color=(0.7, 0.7, 0.7), width=0.5)
    width = pymupdf.get_text_length(text, fontname="helv", fontsize=8)
    page.insert_text(((LETTER[0] - width) / 2, y), text, fontname="helv", fontsize=8, color=GREY)


def full_page_image(doc: pymupdf.Document, png: bytes) -> pymupdf.Page:
    """A page that is nothing but a raster (a scan): it has no text layer at all."""
    page = doc.new_page(width=LETTER[0], height=LETTER[1])
    page.insert_image(page.rect, stream=png)
    return page


def pdf_bytes(doc: pymupdf.Document, metadata: dict[str, str]) -> bytes:
    """Serialise with fixed metadata and no fresh /ID, so the bytes are reproducible."""
    doc.set_metadata({"creationDate": "", "modDate": "", "producer": "", **metadata})
    return doc.tobytes(garbage=3, deflate=True, no_new_id=True)
