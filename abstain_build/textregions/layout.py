"""From word boxes to labelled text regions: titles, axis labels, legends, captions.

The image transforms that hide a chart's furniture need to know *which* text is furniture.
Words are first grouped into lines (horizontal, or vertical for rotated y-axis titles),
then each line gets a role from where it sits and what is next to it:

* ``title``: a text line in the top band of the image (not a tick row);
* ``axis_label``: rotated text near the left/right edge, tick rows and tick columns
  (short tokens aligned along one axis), and text in the left or bottom edge bands;
* ``legend``: a short line with a colour swatch just left of it (a saturated patch, or a
  marker that OCR reads as a low-confidence junk word), and lines stacked under one; in a
  figure without axes (a pie, a labelled diagram), the short category labels;
* ``caption``: a line in the bottom band starting with Figure/Fig./Source/Note/Table, or
  a long line (4+ words) there;
* ``body``: anything else (data labels, text inside a diagram).

When there are no words (OCR unavailable or nothing read), :func:`edge_band_regions` gives
the bands where such labels usually are; the caller records that the fallback was used.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from .words import Box, Word, connected_groups, union_box

ROLES = ("title", "axis_label", "legend", "caption", "body")
LABEL_ROLES = ("title", "axis_label", "legend", "caption")

_CAPTION_START = re.compile(r"^(fig(ure)?\.?|source|note|table|chart)\b", re.IGNORECASE)
_TICK = re.compile(r"^[(\-−+$€£]?\d[\d.,:/]*[%)kKmMbBx]?$|^(Q[1-4]|H[12]|FY\d{2,4})$")
_WORD_CHARS = re.compile(r"[A-Za-z0-9]")

#: Words OCR reads with lower confidence than this are junk unless placed like a swatch.
MIN_CONF = 30.0


@dataclass
class TextLine:
    words: list[Word]
    vertical: bool = False

    @property
    def bbox(self) -> Box:
        return union_box(w.bbox for w in self.words)

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)

    @property
    def size(self) -> float:
        """Character height: box height for a horizontal line, width for a vertical one."""
        sizes = [min(w.width, w.height) if self.vertical else w.height for w in self.words]
        return float(np.median(sizes))


@dataclass
class TextRegion:
    """A padded box around one line of text with the role it plays in the figure."""

    bbox: Box
    role: str
    text: str
    detector: str  # "ocr", "text_layer" or "fallback"
    words: list[Word] = field(default_factory=list)


def _is_vertical(word: Word) -> bool:
    return word.height > 1.6 * word.width and len(word.text) >= 3


def _plausible(word: Word, width: int, height: int) -> bool:
    """Drop boxes that cannot be one word: huge, or spanning most of the image."""
    if not _WORD_CHARS.search(word.text):
        return word.conf >= MIN_CONF and word.width * word.height < 0.01 * width * height
    return word.width * word.height < 0.05 * width * height and word.width < 0.9 * width


def group_lines(words: list[Word]) -> list[TextLine]:
    """Join words that continue each other on a line (or a column, for rotated text)."""
    vertical = [_is_vertical(w) for w in words]

    def continues(i: int, j: int) -> bool:
        a, b = words[i], words[j]
        if vertical[i] or vertical[j]:
            size = min(min(a.width, a.height), min(b.width, b.height))
            overlap = min(a.bbox[2], b.bbox[2]) - max(a.bbox[0], b.bbox[0])
            gap = max(a.bbox[1], b.bbox[1]) - min(a.bbox[3], b.bbox[3])
        else:
            size = min(a.height, b.height)
            overlap = min(a.bbox[3], b.bbox[3]) - max(a.bbox[1], b.bbox[1])
            gap = max(a.bbox[0], b.bbox[0]) - min(a.bbox[2], b.bbox[2])
        return overlap >= 0.5 * size and gap <= 1.5 * max(size, 1.0)

    lines = []
    for members in connected_groups(len(words), continues):
        is_vertical = any(vertical[i] for i in members)
        key = (lambda w: -w.centre[1]) if is_vertical else (lambda w: w.centre[0])
        lines.append(TextLine(sorted((words[i] for i in members), key=key), is_vertical))
    lines.sort(key=lambda line: (line.bbox[1], line.bbox[0]))
    return lines


def _is_tick(line: TextLine) -> bool:
    return len(line.words) <= 2 and all(_TICK.match(w.text) for w in line.words)


def _aligned_ticks(lines: list[TextLine], width: int, height: int) -> set[int]:
    """Indices of lines that form a row or column of ticks (3+ short aligned tokens)."""
    found: set[int] = set()
    short = [i for i, line in enumerate(lines) if not line.vertical and len(line.words) <= 2]
    for i in short:
        a = lines[i]
        row = [j for j in short if abs(lines[j].bbox[1] - a.bbox[1]) <= 0.5 * a.size]
        right = [j for j in short if abs(lines[j].bbox[2] - a.bbox[2]) <= a.size]
        left = [j for j in short if abs(lines[j].bbox[0] - a.bbox[0]) <= a.size]
        for group, span_axis, extent in ((row, 0, width), (right, 1, height), (left, 1, height)):
            n_ticks = sum(_is_tick(lines[j]) for j in group)
            if len(group) < 3 or n_ticks < 2 or n_ticks < 0.6 * len(group):
                continue
            starts = [lines[j].bbox[span_axis] for j in group]
            if max(starts) - min(starts) >= 0.25 * extent:
                found.update(j for j in group if _is_tick(lines[j]))
    return found


def _swatch_left(line: TextLine, image: np.ndarray | None) -> bool:
    """A legend key: a low-confidence junk word or a saturated patch just left of the text."""
    first = line.words[0]
    if first.conf < 60 and len(line.words) >= 2 and not _WORD_CHARS.search(first.text[:1] or "-"):
        return True
    if first.conf < 60 and len(line.words) >= 2 and first.width >= 1.5 * first.height:
        return True
    if image is None or image.ndim != 3 or image.shape[2] < 3:
        return False
    x0, y0, _, y1 = (round(v) for v in first.bbox)
    size = max(4, int(line.size))
    patch = image[max(0, y0) : max(0, y1), max(0, x0 - 3 * size) : max(0, x0 - 2), :3]
    if patch.size == 0:
        return False
    spread = patch.max(axis=-1).astype(int) - patch.min(axis=-1).astype(int)
    return float((spread > 60).mean()) > 0.15


def classify_lines(
    lines: list[TextLine], width: int, height: int, image: np.ndarray | None = None
) -> list[str]:
    """One role per line (see the module doc for the rules)."""
    roles = ["body"] * len(lines)
    ticks = _aligned_ticks(lines, width, height)
    bottom_most = max((line.bbox[3] for line in lines), default=0.0)
    for i, line in enumerate(lines):
        x0, y0, x1, y1 = line.bbox
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        rotated_edge_text = line.vertical and (cx < 0.2 * width or cx > 0.8 * width)
        if rotated_edge_text or i in ticks:
            roles[i] = "axis_label"
        elif _swatch_left(line, image):
            roles[i] = "legend"
        elif cy < 0.15 * height and not _is_tick(line):
            roles[i] = "title"
        elif cy > 0.82 * height and (
            _CAPTION_START.match(line.text)
            or (len(line.words) >= 4 and y1 >= bottom_most - line.size)
        ):
            roles[i] = "caption"
        elif x1 < 0.15 * width or x0 > 0.9 * width or cy > 0.85 * height:
            roles[i] = "axis_label"
    # A figure without tick rows (a pie, a labelled diagram) names its parts with short
    # category labels placed on or beside them: they do the job of a legend.
    if not ticks:
        for i, line in enumerate(lines):
            if roles[i] == "body" and len(line.words) <= 4 and not _is_tick(line):
                roles[i] = "legend"
    # Legend entries stack: an unlabelled short line aligned under a legend line joins it.
    for i, line in enumerate(lines):
        if roles[i] != "body" or len(line.words) > 5:
            continue
        for j, other in enumerate(lines):
            if roles[j] != "legend":
                continue
            aligned = abs(line.bbox[0] - other.bbox[0]) <= 1.5 * other.size
            close = abs(line.bbox[1] - other.bbox[3]) <= 2.0 * other.size
            if aligned and close:
                roles[i] = "legend"
                break
    return roles


def _pad(box: Box, amount: float, width: int, height: int) -> Box:
    x0, y0, x1, y1 = box
    return (
        max(0.0, x0 - amount),
        max(0.0, y0 - amount),
        min(float(width), x1 + amount),
        min(float(height), y1 + amount),
    )


def text_regions(
    words: list[Word], width: int, height: int, image: np.ndarray | None = None
) -> list[TextRegion]:
    """Every plausible text line as a padded region with its role."""
    usable = [w for w in words if _plausible(w, width, height)]
    lines = group_lines(usable)
    roles = classify_lines(lines, width, height, image)
    regions = []
    for line, role in zip(lines, roles, strict=True):
        pad = max(2.0, 0.35 * line.size)
        words_in = list(line.words)
        box = line.bbox
        if role == "legend" and image is not None:
            # take the swatch with the label
            box = (max(0.0, box[0] - 3.2 * line.size), box[1], box[2], box[3])
        regions.append(
            TextRegion(
                bbox=_pad(box, pad, width, height),
                role=role,
                text=line.text,
                detector=words_in[0].source if words_in else "ocr",
                words=words_in,
            )
        )
    return regions


def edge_band_regions(
    width: int, height: int, top: float = 0.12, bottom: float = 0.14, left: float = 0.12
) -> list[TextRegion]:
    """Where titles and axis labels usually are, for when no text could be read."""
    return [
        TextRegion((0.0, 0.0, float(width), top * height), "title", "", "fallback"),
        TextRegion(
            (0.0, (1 - bottom) * height, float(width), float(height)), "axis_label", "", "fallback"
        ),
        TextRegion((0.0, 0.0, left * width, float(height)), "axis_label", "", "fallback"),
    ]
