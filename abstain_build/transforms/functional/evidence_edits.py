"""Making sure an evidence edit reaches every place the evidence map says states the answer.

Transforms place most of their edits by the method's own rules (random rectangles around
the densest evidence, blur over figures). These helpers add what those rules missed: a
rectangle over each printed form of the answer that is still uncovered, a blur over the
sentence or row of each statement outside every blurred figure.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pymupdf

from ...content.page_content import PageContent
from ...evidence.statements import CANDIDATE, CHART, OPERAND, TO_REMOVE, Mention
from ...model import Plan, Region
from ...textregions.words import Box

#: Padding left and right of a word sealed by its own rectangle (points): takes in
#: anti-aliasing.
SEAL_PAD = 1.5
#: Sample points across a word's box (x, y) when checking it is covered.
_SAMPLES = (5, 3)


def covered(box: Box, rects: Sequence[Iterable[float]]) -> bool:
    """Is every sample point of ``box`` under one of ``rects``?"""
    boxes = [tuple(float(v) for v in r) for r in rects]
    nx, ny = _SAMPLES
    x0, y0, x1, y1 = box
    for i in range(nx):
        x = x0 + (x1 - x0) * (i + 0.5) / nx
        for j in range(ny):
            y = y0 + (y1 - y0) * (j + 0.5) / ny
            if not any(r[0] <= x <= r[2] and r[1] <= y <= r[3] for r in boxes):
                return False
    return True


def _clip(box: Box, page_rect: pymupdf.Rect, pad: float) -> Box | None:
    # Padded sideways only: a line's word boxes touch the next line's, and a redaction
    # takes every character its rectangle overlaps ("2015-03" on the line above lost
    # its middle to a padded seal and read "20 3").
    rect = pymupdf.Rect(box[0] - pad, box[1], box[2] + pad, box[3]) & page_rect
    if rect.is_empty:
        return None
    return (round(rect.x0, 2), round(rect.y0, 2), round(rect.x1, 2), round(rect.y1, 2))


def seal_evidence(
    rects: Sequence[Iterable[float]],
    mentions: Iterable[Mention],
    page_rect: pymupdf.Rect,
    pad: float = SEAL_PAD,
    whole: bool = False,
) -> list[Box]:
    """Rectangles over each word of a statement (each number of an operand row) that
    ``rects`` leave uncovered. With ``whole`` (a name for an answer), a statement is sealed
    with its printed line and its sentence (:meth:`Mention.local`): a mask the size of a name,
    in the sentence that describes it, is a blank a reader fills in. So is every candidate
    (the name printed among others): "Which news appear in both lists?" is answered by the
    one name both pages still print, "Bluebird awar" half under a mask included."""
    have = list(rects)
    added: list[Box] = []
    values: set[int] = set()  # the seals over a printed value (not a row, a sentence)
    for mention in mentions:
        named = whole and mention.status == CANDIDATE
        if mention.status not in TO_REMOVE and not named:
            continue
        boxes = mention.boxes
        if mention.form == CHART and mention.figure is not None:
            boxes = (mention.figure,)  # a chart of compared values: its bars rank them
        elif whole and mention.status != OPERAND:
            boxes = (mention.row, mention.local())
        value = boxes is mention.boxes and any(c.isdigit() for c in mention.printed)
        for box in boxes:
            if covered(box, have):
                continue
            sealed = _clip(box, page_rect, pad)
            if sealed is not None:
                if value:
                    values.add(len(added))
                added.append(sealed)
                have.append(sealed)
    return even_columns(added, values)


#: Seals at most this wide (points) are a cell's value and are evened with their column.
CELL_WIDTH = 90.0
#: A column's seals are evened only while its widest takes in the rest within this factor:
#: a wider union would reach into the next column.
_COLUMN_SPAN = 1.6
#: Seals of one column are a table's when each starts within this many of its heights
#: below the one above (a row without a value between them included).
_ROW_GAP = 2.5


def even_columns(seals: Sequence[Box], values: Iterable[int]) -> list[Box]:
    """``seals`` with the cell-sized ones stacked in one column widened to the column's
    widest: a mask as wide as its value tells its digits. Masked alone, "741.2" is
    narrower than "5,614.8" above it, and a reader ranked the segments by the masks'
    widths. Only the seals at the indices ``values`` (over a printed value) are evened,
    and only down a run of rows; seals side by side on one line, wide ones, and a value
    in the prose under a table stay."""
    out: list[Box] = [(box[0], box[1], box[2], box[3]) for box in seals]
    cells = [i for i in sorted(set(values)) if out[i][2] - out[i][0] <= CELL_WIDTH]
    columns: list[list[int]] = []
    for i in sorted(cells, key=lambda i: (out[i][1], out[i][0])):
        x0, y0, x1, y1 = out[i]
        reach = _ROW_GAP * (y1 - y0)  # the next row of a table, not a paragraph below it
        for column in columns:
            last = out[column[-1]]
            if last[0] < x1 and x0 < last[2] and y0 - last[3] <= reach:
                column.append(i)
                break
        else:
            columns.append([i])
    for column in columns:
        if len({round(out[i][1], 1) for i in column}) < 2:
            continue
        left = min(out[i][0] for i in column)
        right = max(out[i][2] for i in column)
        widest = max(out[i][2] - out[i][0] for i in column)
        if right - left > _COLUMN_SPAN * widest:
            continue
        for i in column:
            out[i] = (left, out[i][1], right, out[i][3])
    return out


def uncovered_statements(
    regions: Sequence[Iterable[float]], mentions: Iterable[Mention]
) -> list[Mention]:
    """Statements (and operand rows) whose printed form is not inside ``regions``."""
    have = list(regions)
    return [
        m for m in mentions if m.status in TO_REMOVE and not all(covered(b, have) for b in m.boxes)
    ]


def local_regions(
    mentions: Iterable[Mention], page_rect: pymupdf.Rect, pad: float = 4.0
) -> list[Box]:
    """The sentence (or table row) around each mention, padded, merged when they overlap."""
    out: list[pymupdf.Rect] = []
    for mention in mentions:
        rect = pymupdf.Rect(mention.local()) | pymupdf.Rect(mention.span)
        rect = pymupdf.Rect(rect.x0 - pad, rect.y0 - pad, rect.x1 + pad, rect.y1 + pad) & page_rect
        if rect.is_empty:
            continue
        for index, other in enumerate(out):
            if rect.intersects(other):
                out[index] = other | rect
                break
        else:
            out.append(rect)
    return [(round(r.x0, 2), round(r.y0, 2), round(r.x1, 2), round(r.y1, 2)) for r in out]


def seal_related_page(
    number: int,
    plan: Plan,
    page_rect: pymupdf.Rect,
    evidence: Iterable[Mention],
    content: PageContent | None = None,
) -> float:
    """Plan a page edited only for the operand rows it prints (see
    :meth:`~abstain_build.evidence.map.EvidenceMap.related_only`): a black rectangle over
    each of their numbers, nothing else. Returns the share of the page's content covered
    (0 without ``content``)."""
    rects = seal_evidence([], evidence, page_rect)
    for rect in rects:
        plan.edits.regions.append(
            Region(bbox=rect, kind="mask", page=number, unit="pt", detector="evidence_map")
        )
    plan.notes.append(
        f"page {number}: {len(rects)} rectangle(s) over the numbers of the rows the answer is"
        " computed from (no evidence page, and it states nothing)"
    )
    if content is None:
        return 0.0
    total = content.mass()
    return content.mass(rects) / total if total > 0 else 0.0
