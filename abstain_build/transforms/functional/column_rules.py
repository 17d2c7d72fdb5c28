"""The printed rule between two table columns about to be merged, and taking it away.

Merged values are printed across both columns' band; a rule left between them would
cut through "1,862 / 195". A merged cell has no rule inside it: a vector rule lying in
the gap between the columns is removed (its paths only: the horizontal rules crossing
the gap, and any shading, stay). A rule drawn in a picture (a scanned table under its
text layer) cannot be taken out cleanly, so the merge is refused there.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import pymupdf

from ...content.drawings import drawn_pieces
from ...textregions.table_model import Table
from .erase import over_pictures

#: A pixel column this dark (0-255 grey) ...
DARK = 128
#: ... over this share of the gap's height is a rule.
RULE_SHARE = 0.6
#: The widest a vector path may be to count as a column rule (points).
RULE_WIDTH = 2.0


def gap_strips(table: Table, span: Sequence[int]) -> list[pymupdf.Rect]:
    """Between each two merged columns, the strip no body cell of theirs reaches, over
    the table's height (header cells spanning columns are left out of the measure)."""
    body = [table.cells[i] for i in table.body_rows()]
    top, bottom = table.bbox[1], table.bbox[3]
    strips = []
    for left, right in itertools.pairwise(span):
        ends = [row[left].bbox[2] for row in body if row[left] is not None]
        starts = [row[right].bbox[0] for row in body if row[right] is not None]
        if not ends or not starts or min(starts) - max(ends) < 1.0:
            continue
        strips.append(pymupdf.Rect(max(ends) + 0.3, top, min(starts) - 0.3, bottom))
    return strips


def is_ruled(page: pymupdf.Page, strip: pymupdf.Rect, dpi: float = 144) -> bool:
    """Is a line printed down ``strip`` (in any channel: vector art or picture)?"""
    pixmap = page.get_pixmap(dpi=dpi, clip=strip, colorspace=pymupdf.csGRAY)
    if pixmap.width == 0 or pixmap.height == 0:
        return False
    grey = np.frombuffer(pixmap.samples, np.uint8).reshape(pixmap.height, pixmap.width)
    return float((grey < DARK).mean(axis=0).max()) >= RULE_SHARE


def _crosses(rect: pymupdf.Rect, strip: pymupdf.Rect) -> bool:
    inside = strip.x0 - 0.5 <= rect.x0 and rect.x1 <= strip.x1 + 0.5
    return inside and rect.width <= RULE_WIDTH and rect.y0 < strip.y1 and rect.y1 > strip.y0


def vector_rules(page: pymupdf.Page, strip: pymupdf.Rect) -> list[pymupdf.Rect]:
    """The thin vector paths within ``strip``'s width that cross its height: the rule's
    pieces (a frame's rule may run past the outermost rows)."""
    return [
        pymupdf.Rect(d["rect"])
        for d in page.get_drawings()
        if _crosses(pymupdf.Rect(d["rect"]), strip)
    ]


def shared_rules(page: pymupdf.Page, strip: pymupdf.Rect) -> bool:
    """Is the rule down ``strip`` one line of a path that draws more (every rule of the
    table as one path)? Such a path goes whole or not at all."""
    return any(
        _crosses(pymupdf.Rect(piece), strip)
        for drawing in page.get_drawings()
        for piece in drawn_pieces(drawing)
    )


def removable_rules(
    page: pymupdf.Page, table: Table, span: Sequence[int], text_layer: bool
) -> list[pymupdf.Rect] | str:
    """The strips whose vector rule is to be removed before merging, or why the merge
    would print across a rule that cannot be removed."""
    out = []
    for strip in gap_strips(table, span):
        if not is_ruled(page, strip):
            continue
        pieces = vector_rules(page, strip) if text_layer else []
        if not pieces and text_layer and shared_rules(page, strip):
            return (
                "the rule between the columns to merge is drawn in one path with the"
                " table's other rules: it cannot be taken out alone"
            )
        if not pieces or over_pictures(page, [strip])[0]:
            return "a rule printed in a picture separates the columns to merge"
        area = pymupdf.Rect(pieces[0])
        for piece in pieces[1:]:
            area |= piece
        out.append(pymupdf.Rect(strip.x0, area.y0 - 0.5, strip.x1, area.y1 + 0.5))
    return out


def remove_rules(page: pymupdf.Page, strips: Sequence[Sequence[float]]) -> None:
    """Remove the vector paths lying wholly inside ``strips``; text, pictures and the
    paths crossing a strip stay, and nothing is painted."""
    for strip in strips:
        page.add_redact_annot(pymupdf.Rect(strip), fill=False, cross_out=False)
    if strips:
        page.apply_redactions(
            images=pymupdf.PDF_REDACT_IMAGE_NONE,
            graphics=pymupdf.PDF_REDACT_LINE_ART_REMOVE_IF_COVERED,
            text=pymupdf.PDF_REDACT_TEXT_NONE,
        )
