"""Make room for one more table row and print it, on a text-layer page or in pixels.

The rows under the insertion point (the *block*) move down by one row pitch. When the
page has no free space under the table for that, the block is instead squeezed into its
own height minus the pitch (at most down to :data:`MIN_SQUEEZE` of it), so nothing below
the table moves and the table stays within the page.

* **text layer**: the block is cut from a private copy of the page (everything outside it
  redacted, so only its own text comes along), redacted from the page, and shown again at
  its new place as a form XObject: its text stays text, its rules and shading stay vector.
  A cell the new row repeats (the label) is shown again as printed, from a copy of the
  page holding only that cell's text: same font, weight and kerning. The new values are
  inserted as real text in the template row's style.
* **pixels**: the page is rendered once, the block's pixels are moved (or resized), the
  gap is filled with the template row's background and the new cells are drawn in the
  font matched to the template row; the edited band goes back as one opaque image.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pymupdf
from PIL import Image

from ...content.drawings import drawn_pieces
from .erase import page_fills, ring_colour
from .pdf_edit import WHITE, normalise_rotation, redact_rects, render_region
from .text_edits import (
    TextEdit,
    _fallback_style,
    baseline_of,
    draw_text,
    fit_size,
    ink_colour,
    ink_mask,
    match_font,
    page_spans,
    pixel_box,
    put_pixels_back,
    style_of_spans,
    write_text_edits,
)

#: The block may be squeezed down to this share of its height, no further.
MIN_SQUEEZE = 0.6

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class RowInsert:
    """Where the new row goes and what it says (page points, rotation removed).

    ``block``: the rows under the insertion point, moved down; its top is where the new
    row starts. ``pitch``: the new row's height. ``room``: free space under the block
    (if >= pitch the block moves, else it is squeezed). ``cells``: one edit per new cell,
    ``rect`` already at the new row's place, ``style_rect`` on the template row.
    """

    block: Box
    pitch: float
    room: float
    cells: tuple[TextEdit, ...]

    def to_json(self) -> dict[str, Any]:
        """JSON values, for the plan's record (:attr:`...model.Plan.replay`)."""
        return {
            "block": list(self.block),
            "pitch": self.pitch,
            "room": self.room,
            "cells": [cell.to_json() for cell in self.cells],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RowInsert:
        return cls(
            tuple(data["block"]),  # type: ignore[arg-type]
            data["pitch"],
            data["room"],
            tuple(TextEdit.from_json(cell) for cell in data["cells"]),
        )

    @property
    def squeeze(self) -> float:
        """The block's vertical scale: 1 when it can move down whole."""
        if self.room >= self.pitch:
            return 1.0
        height = self.block[3] - self.block[1]
        return max(0.0, (height - (self.pitch - self.room)) / height) if height > 0 else 0.0

    @property
    def target(self) -> Box:
        """Where the block lands."""
        x0, y0, x1, y1 = self.block
        if self.squeeze >= 1.0:
            return (x0, y0 + self.pitch, x1, y1 + self.pitch)
        return (x0, y0 + self.pitch, x1, y1 + max(self.room, 0.0))


def insert_row_text_layer(page: pymupdf.Page, insert: RowInsert) -> dict[str, object]:
    """Insert the row on a page with a text layer (see the module docstring)."""
    normalise_rotation(page)
    spans = page_spans(page)
    styles = [
        style_of_spans(spans, cell.style_rect or cell.rect) or _fallback_style(cell.rect)
        for cell in insert.cells
    ]
    template_top = min((cell.style_rect or cell.rect)[1] for cell in insert.cells)
    new_top = min(cell.rect[1] for cell in insert.cells)
    shift = new_top - template_top
    gap_fill = page_fills(page, [pymupdf.Rect(insert.cells[0].style_rect or insert.cells[0].rect)])[
        0
    ]
    block = pymupdf.Rect(insert.block)
    source = _page_copy(page)
    cut = source[0]
    redact_rects(
        cut,
        _around(cut.rect, block),
        fill=WHITE,
        line_art=pymupdf.PDF_REDACT_LINE_ART_NONE,
    )
    template = _template_band(insert)
    repeated = [cell for cell in insert.cells if _repeats(cell)]
    changed = [cell for cell in insert.cells if not _repeats(cell)]
    labels = [_cell_alone(page, cell) for cell in repeated]
    bare = _page_copy(page)
    _remove_text(bare[0], template)
    target = pymupdf.Rect(insert.target)
    redact_rects(page, [block | target], fill=gap_fill)
    page.show_pdf_page(target, source, 0, clip=block, keep_proportion=False)
    # The gap gets the template row's rules and shading, without its text: a ruled table's
    # column rules and frame run on through the new row.
    gap = pymupdf.Rect(block.x0, block.y0, block.x1, block.y0 + insert.pitch)
    page.show_pdf_page(gap, bare, 0, clip=template, keep_proportion=False)
    source.close()
    bare.close()
    # The gap's fill and the moved block are drawn after the page's content: the new row
    # goes after them, or they would cover it.
    copied = []
    for cell, (alone, clip) in zip(repeated, labels, strict=True):
        down = cell.rect[1] - (cell.style_rect or cell.rect)[1]
        there = pymupdf.Rect(clip.x0, clip.y0 + down, clip.x1, clip.y1 + down)
        page.show_pdf_page(there, alone, 0, clip=clip)
        alone.close()
        copied.append({"copied": cell.text, "from": [round(v, 2) for v in clip]})
    moved = [
        dataclasses.replace(
            style, baseline=None if style.baseline is None else style.baseline + shift
        )
        for cell, style in zip(insert.cells, styles, strict=True)
        if not _repeats(cell)
    ]
    written = write_text_edits(page, changed, moved, at_end=True)
    return {
        "block": [round(v, 2) for v in block],
        "target": [round(v, 2) for v in target],
        "written": copied + written,
    }


def _repeats(cell: TextEdit) -> bool:
    """Whether the new row prints ``cell`` exactly as its template row does."""
    return cell.style_rect is not None and cell.text == (cell.like or cell.text)


def _cell_alone(page: pymupdf.Page, cell: TextEdit) -> tuple[pymupdf.Document, pymupdf.Rect]:
    """A copy of ``page`` whose only text is the template cell of ``cell``, and the
    clip that shows it (padded a point: no glyph of the cell is cut)."""
    x0, y0, x1, y1 = cell.style_rect
    clip = pymupdf.Rect(x0 - 1, y0 - 1, x1 + 1, y1 + 1)
    alone = _page_copy(page)
    _remove_text(alone[0], *_around(alone[0].rect, clip))
    return alone, clip


def _page_copy(page: pymupdf.Page) -> pymupdf.Document:
    """A private one-page copy of ``page`` to cut pieces from."""
    copy = pymupdf.open()
    copy.insert_pdf(page.parent, from_page=page.number, to_page=page.number)
    return copy


def _around(page_rect: pymupdf.Rect, box: pymupdf.Rect) -> list[pymupdf.Rect]:
    """The page outside ``box``, as the (non-empty) bands above, below, left and right."""
    bands = [
        pymupdf.Rect(page_rect.x0, page_rect.y0, page_rect.x1, box.y0),
        pymupdf.Rect(page_rect.x0, box.y1, page_rect.x1, page_rect.y1),
        pymupdf.Rect(page_rect.x0, box.y0, box.x0, box.y1),
        pymupdf.Rect(box.x1, box.y0, page_rect.x1, box.y1),
    ]
    return [band for band in bands if not band.is_empty]


def _template_band(insert: RowInsert) -> pymupdf.Rect:
    """One row pitch of the page, across the block, centred on the template row."""
    tops = [(cell.style_rect or cell.rect)[1] for cell in insert.cells]
    bottoms = [(cell.style_rect or cell.rect)[3] for cell in insert.cells]
    centre = (min(tops) + max(bottoms)) / 2
    half = insert.pitch / 2
    return pymupdf.Rect(insert.block[0], centre - half, insert.block[2], centre + half)


def _remove_text(page: pymupdf.Page, *rects: pymupdf.Rect) -> None:
    """Take the text out of ``rects`` on ``page``; its drawings and images stay."""
    for rect in rects:
        page.add_redact_annot(rect, fill=False, cross_out=False)
    page.apply_redactions(
        images=pymupdf.PDF_REDACT_IMAGE_NONE,
        graphics=pymupdf.PDF_REDACT_LINE_ART_NONE,
        text=pymupdf.PDF_REDACT_TEXT_REMOVE,
    )


def insert_row_pixels(page: pymupdf.Page, insert: RowInsert, dpi: float = 200) -> dict[str, object]:
    """Insert the row on an image-only page, in pixels (see the module docstring)."""
    normalise_rotation(page)
    rgb, _ = render_region(page, page.rect, dpi)
    original = rgb.copy()

    def px(box: Sequence[float]) -> tuple[int, int, int, int]:
        return pixel_box(box, page, rgb.shape)

    bx0, by0, bx1, by1 = px(insert.block)
    _, ty0, _, ty1 = px(insert.target)
    template = px(insert.cells[0].style_rect or insert.cells[0].rect)
    paper = ring_colour(original, template, 3)
    block_pixels = original[by0:by1, bx0:bx1]
    height = max(1, ty1 - ty0)
    if height != block_pixels.shape[0]:
        block_pixels = np.asarray(
            Image.fromarray(block_pixels).resize((bx1 - bx0, height), Image.LANCZOS)
        )
    rgb[by0:ty1, bx0:bx1] = paper
    rgb[ty0 : ty0 + block_pixels.shape[0], bx0:bx1] = block_pixels[: rgb.shape[0] - ty0]
    drawn: list[dict[str, object]] = []
    changed = [cell for cell in insert.cells if cell.text != (cell.like or cell.text)]
    # One size for the row's new values: OCR boxes of single cells can be off (a misread
    # word's box spans two lines), their median is not.
    fitted = []
    for cell in changed:
        style_box = px(cell.style_rect or cell.rect)
        ink = ink_colour(original, style_box, paper)
        like = cell.like or cell.text
        fontname = match_font([(like, ink_mask(original, style_box, paper, ink))])
        fitted.append((fontname, fit_size(like, fontname, style_box[3] - style_box[1]), ink))
    size = int(np.median([f[1] for f in fitted])) if fitted else 0
    for cell in insert.cells:
        box = px(cell.rect)
        source = px(cell.style_rect or cell.rect)
        if cell not in changed:
            # An unchanged cell (the label) is copied as printed: same glyphs, no misreading.
            patch = original[source[1] : source[3], source[0] : source[2]]
            h = min(patch.shape[0], rgb.shape[0] - box[1])
            w = min(patch.shape[1], rgb.shape[1] - box[0])
            rgb[box[1] : box[1] + h, box[0] : box[0] + w] = patch[:h, :w]
            drawn.append({"copied": cell.text, "from_px": list(source), "to_px": list(box)})
            continue
        fontname, _, ink = fitted[changed.index(cell)]
        like = cell.like or cell.text
        baseline = baseline_of(like, fontname, size, box[3])
        inked = draw_text(
            rgb, box, cell.text, ink, fontname, size, baseline, cell.align, cell.growth
        )
        drawn.append({"text": cell.text, "font": fontname, "size_px": size, "ink_px": list(inked)})
    band = (bx0, by0, bx1, max(ty1, by1))
    put_pixels_back(page, rgb, [band])
    return {"band_px": list(band), "written": drawn}


def page_obstacles(page: pymupdf.Page, words: Sequence[Sequence[float]]) -> list[Box]:
    """Boxes of everything printed on the page: words, each piece of its vector drawings,
    images (a scan's full-page image excluded: on such a page the OCR words are what is
    printed)."""
    tall = 0.9 * page.rect.height
    boxes = [tuple(box[:4]) for box in words]
    boxes += [box for drawing in page.get_drawings() for box in drawn_pieces(drawing)]
    boxes += [tuple(info["bbox"]) for info in page.get_image_info()]
    return [b for b in boxes if b[3] - b[1] < tall]


def plan_block(
    page: pymupdf.Page,
    obstacles: Sequence[Box],
    table: Box,
    start: float,
    pitch: float,
    margin: float = 18.0,
) -> tuple[Box, float]:
    """The block to move down from ``start`` and the free room under it.

    The block is the table's rows under ``start``, extended over whatever follows the
    table without a gap of one ``pitch`` (a note, a paragraph), so that content moves
    along instead of being overprinted; it widens to take in whatever it meets that is
    wider than the table (the column of text under a table), and no further: the other
    column of a two-column page, and a table set beside this one, stay where they are.
    The room ends ``margin`` above the page's edge.
    """
    left, right = table[0] - 2, table[2] + 2
    while True:
        cursor, room, widened = table[3] + 2, None, False
        for box in sorted(obstacles, key=lambda b: b[1]):
            if box[3] <= cursor + 0.5 or box[2] <= left or box[0] >= right:
                continue
            if box[1] < start:
                continue
            if box[1] - cursor >= pitch:
                room = box[1] - cursor
                break
            if box[0] < left or box[2] > right:
                left, right = min(left, box[0] - 2), max(right, box[2] + 2)
                widened = True
                break
            cursor = max(cursor, box[3])
        if widened:
            continue
        bottom_room = page.rect.y1 - margin - cursor
        room = bottom_room if room is None else min(room, bottom_room)
        return (left, start, right, max(cursor, start + 1)), max(0.0, room)
