"""A word with its box: the unit every text-region detector produces."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

Box = tuple[float, float, float, float]  # x0, y0, x1, y1


@dataclass(frozen=True)
class Word:
    """One word and where it is.

    ``bbox`` is in the coordinates of what was read: pixels for an image, points for a PDF
    page (unrotated page space). ``block`` and ``line`` group words as the detector found
    them (Tesseract's block/line numbers, or MuPDF's); they are comparable only within one
    detector run.
    """

    text: str
    bbox: Box
    conf: float = 100.0  # 0..100; text-layer words are exact, so 100
    block: int = 0
    line: int = 0
    source: str = "ocr"  # "ocr" or "text_layer"

    @property
    def width(self) -> float:
        return self.bbox[2] - self.bbox[0]

    @property
    def height(self) -> float:
        return self.bbox[3] - self.bbox[1]

    @property
    def centre(self) -> tuple[float, float]:
        return ((self.bbox[0] + self.bbox[2]) / 2, (self.bbox[1] + self.bbox[3]) / 2)

    def scaled(self, factor: float) -> Word:
        """The same word with its box multiplied (points to pixels: ``dpi / 72``)."""
        x0, y0, x1, y1 = self.bbox
        return Word(
            self.text,
            (x0 * factor, y0 * factor, x1 * factor, y1 * factor),
            self.conf,
            self.block,
            self.line,
            self.source,
        )


def same_word_place(a: Word, b: Word) -> bool:
    """Whether two OCR passes read ``a`` and ``b`` at one place: their boxes share at least
    30% of the smaller one."""
    x0, y0 = max(a.bbox[0], b.bbox[0]), max(a.bbox[1], b.bbox[1])
    x1, y1 = min(a.bbox[2], b.bbox[2]), min(a.bbox[3], b.bbox[3])
    if x1 <= x0 or y1 <= y0:
        return False
    inter = (x1 - x0) * (y1 - y0)
    return inter >= 0.3 * min(a.width * a.height, b.width * b.height)


def union_box(boxes: Iterable[Box]) -> Box:
    """The smallest box holding every box of ``boxes`` (at least one)."""
    boxes = list(boxes)
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def share_a_line(a: Sequence[float], b: Sequence[float]) -> bool:
    """Do two boxes sit on one visual line (their heights overlap by half the shorter)?"""
    overlap = min(a[3], b[3]) - max(a[1], b[1])
    height = min(a[3] - a[1], b[3] - b[1])
    return height > 0 and overlap >= 0.5 * height


def centre_inside(
    box: Sequence[float], regions: Iterable[Sequence[float]], slack: float = 2.0
) -> bool:
    """Does ``box``'s centre fall inside one of ``regions`` (grown by ``slack``)?"""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return any(
        r[0] - slack <= cx <= r[2] + slack and r[1] - slack <= cy <= r[3] + slack for r in regions
    )


def connected_groups(count: int, linked: Callable[[int, int], bool]) -> list[list[int]]:
    """Indices ``0 .. count - 1`` grouped by ``linked(i, j)`` (``i < j``), chains included:
    each group ascending, groups in the order of their first member."""
    parent = list(range(count))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(count):
        for j in range(i + 1, count):
            if linked(i, j):
                parent[root(j)] = root(i)
    groups: dict[int, list[int]] = {}
    for i in range(count):
        groups.setdefault(root(i), []).append(i)
    return sorted(groups.values())
